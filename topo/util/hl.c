/* hl.c - hostlist expressions through libslurm (see hl.h). */
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "topo/util/hl.h"

/* struct hl is libslurm's hostlist under our own name, so that no other
 * file needs <slurm/slurm.h>. */
struct hl *hl_parse(const char *expr)
{
	return (struct hl *)slurm_hostlist_create(expr);
}

struct hl *hl_new(void)
{
	return (struct hl *)slurm_hostlist_create(NULL);
}

void hl_destroy(struct hl *h)
{
	if (h)
		slurm_hostlist_destroy((hostlist_t)h);
}

uint64_t hl_count(const struct hl *h)
{
	int n = slurm_hostlist_count((hostlist_t)h);

	return n > 0 ? (uint64_t)n : 0;
}

char *hl_shift(struct hl *h)
{
	return slurm_hostlist_shift((hostlist_t)h);
}

int hl_push(struct hl *h, const char *name)
{
	return slurm_hostlist_push_host((hostlist_t)h, name) > 0 ? 0 : -1;
}

char *hl_ranged(struct hl *h)
{
	char *s = slurm_hostlist_ranged_string_malloc((hostlist_t)h);
	char *out = s ? strdup(s) : NULL;

	free(s);
	return out;
}
