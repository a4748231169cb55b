/* limits.c - the process-wide input limits and the checked file reader. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/util/limits.h"

static const struct {
	const char *name;
	uint64_t def;
} table[LIM_COUNT] = {
	[LIM_NODES] = { "nodes", 1u << 20 },
	[LIM_SWITCHES] = { "switches", 1u << 20 },
	[LIM_LINKS] = { "links", 1u << 24 },
	[LIM_LINE] = { "line", 1u << 20 },
	[LIM_FILE] = { "file", 1u << 30 },
};

static uint64_t value[LIM_COUNT];

uint64_t lim_get(enum lim_key k)
{
	return value[k] ? value[k] : table[k].def;
}

const char *lim_name(enum lim_key k)
{
	return table[k].name;
}

uint64_t lim_default(enum lim_key k)
{
	return table[k].def;
}

void lim_reset(void)
{
	memset(value, 0, sizeof(value));
}

int lim_set(const char *assign, struct err *err)
{
	const char *eq = strchr(assign, '=');
	char known[128] = "";
	unsigned long long v;
	char *end;
	int k;

	for (k = 0; k < LIM_COUNT; k++)
		if (eq && strlen(table[k].name) == (size_t)(eq - assign) &&
		    !strncmp(assign, table[k].name, (size_t)(eq - assign)))
			break;
	if (k == LIM_COUNT) {
		for (int i = 0; i < LIM_COUNT; i++)
			snprintf(known + strlen(known),
				 sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", table[i].name);
		return err_set(err,
			       "--limit %.64s: want NAME=VALUE with NAME one "
			       "of %s",
			       assign, known);
	}
	errno = 0;
	if (!isdigit((unsigned char)eq[1]))
		goto bad;
	v = strtoull(eq + 1, &end, 10);
	if (errno || v == 0)
		goto bad;
	if (*end && !end[1] && strchr("KkMmGg", *end)) {
		int shift = (*end == 'K' || *end == 'k') ? 10 :
			    (*end == 'M' || *end == 'm') ? 20 :
							   30;

		if (v > (UINT64_MAX >> shift))
			goto bad;
		v <<= shift;
		end++;
	}
	if (*end)
		goto bad;
	/* every count the builders keep is a uint32_t */
	if (k != LIM_FILE && v >= UINT32_MAX)
		return err_set(err, "--limit %.64s: at most %u", assign,
			       UINT32_MAX - 1);
	value[k] = v;
	return 0;
bad:
	return err_set(err,
		       "--limit %.64s: the value must be a positive integer "
		       "(K, M, G suffixes allowed)",
		       assign);
}

int lim_error(struct err *err, enum lim_key k, uint64_t n, const char *what)
{
	return err_range(err,
			 "%s: %" PRIu64 " exceeds the limit %s=%" PRIu64
			 " (raise it with stopo --limit %s=N)",
			 what, n, table[k].name, lim_get(k), table[k].name);
}

char *lim_read(FILE *f, const char *name, int lines, size_t *len,
	       struct err *err)
{
	uint64_t max_file = lim_get(LIM_FILE), max_line = lim_get(LIM_LINE);
	size_t cap = 1 << 16, n = 0, line_len = 0;
	uint32_t line = 1;
	char *buf = malloc(cap);

	if (!buf)
		goto nomem;
	errno = 0;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *q = realloc(buf, cap * 2);

			if (!q)
				goto nomem;
			buf = q;
			cap *= 2;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		for (size_t i = n; i < n + got; i++) {
			if (!buf[i]) {
				free(buf);
				err_set(err, "%s:%u: NUL byte", name, line);
				return NULL;
			}
			if (buf[i] == '\n') {
				line++;
				line_len = 0;
			} else if (lines && ++line_len > max_line) {
				free(buf);
				err_set(err,
					"%s:%u: line longer than %" PRIu64
					" bytes, the limit line=%" PRIu64
					" (raise it with stopo --limit "
					"line=N)",
					name, line, max_line, max_line);
				return NULL;
			}
		}
		n += got;
		if (n > max_file) {
			free(buf);
			err_set(err,
				"%s: more than %" PRIu64
				" bytes, the limit file=%" PRIu64
				" (raise it with stopo --limit file=N)",
				name, max_file, max_file);
			return NULL;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno; /* fread's: EISDIR for a directory */

		free(buf);
		err_set(err, "%s: %s", name, e ? strerror(e) : "read error");
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
nomem:
	free(buf);
	err_nomem(err, "%s: out of memory", name);
	return NULL;
}
