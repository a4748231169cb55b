#include <stdlib.h>
#include <string.h>

#include "topo/util/nameidx.h"

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void nameidx_init(struct nameidx *x, nameidx_name_fn name, const void *ctx)
{
	*x = (struct nameidx){ .name = name, .ctx = ctx };
}

void nameidx_free(struct nameidx *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = x->n = 0;
}

/* The slot holding the name S (LEN bytes), or the empty one where it
 * would go.  X has at least one empty slot. */
static uint32_t probe(const struct nameidx *x, const char *s, size_t len)
{
	uint32_t m = x->cap - 1, h = (uint32_t)hash(s, len) & m;

	for (; x->slot[h] != NAMEIDX_NONE; h = (h + 1) & m) {
		const char *nm = x->name(x->ctx, x->slot[h]);

		if (!strncmp(nm, s, len) && nm[len] == '\0')
			break;
	}
	return h;
}

uint32_t nameidx_findn(const struct nameidx *x, const char *s, size_t len)
{
	return x->cap ? x->slot[probe(x, s, len)] : NAMEIDX_NONE;
}

uint32_t nameidx_find(const struct nameidx *x, const char *name)
{
	return nameidx_findn(x, name, strlen(name));
}

/* Double the slots (64 at first), every id placed again. */
static int grow(struct nameidx *x)
{
	struct nameidx y = *x;

	if (x->cap > UINT32_MAX / 4)
		return -1;
	y.cap = x->cap ? 2 * x->cap : 64;
	y.slot = malloc((size_t)y.cap * sizeof(*y.slot));
	if (!y.slot)
		return -1;
	memset(y.slot, 0xff, (size_t)y.cap * sizeof(*y.slot));
	for (uint32_t i = 0; i < x->cap; i++)
		if (x->slot[i] != NAMEIDX_NONE) {
			const char *nm = x->name(x->ctx, x->slot[i]);

			y.slot[probe(&y, nm, strlen(nm))] = x->slot[i];
		}
	free(x->slot);
	*x = y;
	return 0;
}

int nameidx_add(struct nameidx *x, uint32_t id, uint32_t *prev)
{
	const char *nm = x->name(x->ctx, id);
	uint32_t h;

	if (prev)
		*prev = NAMEIDX_NONE;
	if (2 * ((uint64_t)x->n + 1) > x->cap && grow(x))
		return -1;
	h = probe(x, nm, strlen(nm));
	if (x->slot[h] != NAMEIDX_NONE) {
		if (prev)
			*prev = x->slot[h];
		return 0;
	}
	x->slot[h] = id;
	x->n++;
	return 0;
}
