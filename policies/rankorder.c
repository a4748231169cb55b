/* rankorder.c - a job's rank order as text (rankorder.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/rankorder.h"

/* Append run A-B:S*K in its shortest spelling (with a leading comma
 * unless first). */
static int put(char **buf, size_t *len, size_t *cap, uint32_t a, uint32_t b,
	       uint32_t st, uint32_t k)
{
	char w[64];
	int m = 0;

	m += snprintf(w + m, sizeof(w) - m, "%s%u", *len ? "," : "", a);
	if (b != a)
		m += snprintf(w + m, sizeof(w) - m, "-%u", b);
	if (b != a && st != 1)
		m += snprintf(w + m, sizeof(w) - m, ":%u", st);
	if (k != 1)
		m += snprintf(w + m, sizeof(w) - m, "*%u", k);
	if (*len + (size_t)m + 1 > *cap) {
		size_t c = 2 * (*cap) + (size_t)m + 1;
		char *nb = realloc(*buf, c);

		if (!nb)
			return -1;
		*buf = nb;
		*cap = c;
	}
	memcpy(*buf + *len, w, (size_t)m + 1);
	*len += (size_t)m;
	return 0;
}

/* Whether POS[J..J+K) all equal V (and exist). */
static int repeats(const uint32_t *pos, uint32_t n, uint32_t j, uint32_t k,
		   uint32_t v)
{
	for (uint32_t m = 0; m < k; m++)
		if (j + m >= n || pos[j + m] != v)
			return 0;
	return 1;
}

int rankorder_format(const uint32_t *pos, uint32_t n, char **out)
{
	size_t len = 0, cap = 64;
	uint32_t i = 0;

	*out = NULL;
	if (!n || !pos)
		return -1;
	if (!(*out = malloc(cap)))
		return -1;
	(*out)[0] = '\0';
	while (i < n) {
		uint32_t a = pos[i], b = a, k = 1, st = 1, j;

		while (i + k < n && pos[i + k] == a)
			k++;
		j = i + k;
		/* the next nodes at a fixed stride, K ranks each */
		if (j < n && pos[j] > a && repeats(pos, n, j, k, pos[j])) {
			st = pos[j] - a;
			b = pos[j];
			j += k;
			while (b <= UINT32_MAX - st &&
			       repeats(pos, n, j, k, b + st)) {
				b += st;
				j += k;
			}
		}
		if (put(out, &len, &cap, a, b, st, k)) {
			free(*out);
			*out = NULL;
			return -1;
		}
		i = j;
	}
	return 0;
}

/* A decimal uint32 at *P (advanced); -1 when there is none. */
static int number(const char **p, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	x = strtoul(*p, &end, 10);
	if (errno || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	*p = end;
	return 0;
}

int rankorder_parse(const char *text, uint32_t nnodes, uint32_t max_ranks,
		    uint32_t **pos, uint32_t *n, struct err *err)
{
	const char *p = text;
	uint32_t *v = NULL, cnt = 0, cap = 0;

	*pos = NULL;
	*n = 0;
	if (!text || !*text || isspace((unsigned char)*text))
		return err_set(err, "rank order: empty");
	for (;;) {
		const char *run = p;
		uint32_t a, b, k = 1, st = 1;
		uint64_t more;

		if (number(&p, &a))
			goto syntax;
		b = a;
		if (*p == '-') {
			p++;
			if (number(&p, &b))
				goto syntax;
			if (b <= a) {
				err_set(err,
					"rank order: run %.*s: %u-%u does not "
					"ascend",
					(int)(p - run), run, a, b);
				goto fail;
			}
			if (*p == ':') {
				p++;
				if (number(&p, &st) || !st)
					goto syntax;
				if ((b - a) % st) {
					err_set(err,
						"rank order: run %.*s: %u to %u is not "
						"a multiple of stride %u",
						(int)(p - run), run, a, b, st);
					goto fail;
				}
			}
		}
		if (*p == '*') {
			p++;
			if (number(&p, &k) || !k)
				goto syntax;
		}
		if (b >= nnodes) {
			err_set(err,
				"rank order: node %u, but the job has %u "
				"node%s",
				b, nnodes, nnodes == 1 ? "" : "s");
			goto fail;
		}
		more = (((uint64_t)b - a) / st + 1) * k;
		if (cnt + more > max_ranks) {
			err_set(err, "rank order: more than %u ranks",
				max_ranks);
			goto fail;
		}
		if (cnt + more > cap) {
			uint64_t c = 2 * (uint64_t)cap + more;
			uint32_t *nv;

			if (c > max_ranks)
				c = max_ranks;
			if (!(nv = realloc(v, c * sizeof(*v)))) {
				err_nomem(err, "rank order: out of memory");
				goto fail;
			}
			v = nv;
			cap = (uint32_t)c;
		}
		for (uint64_t x = a; x <= b; x += st)
			for (uint32_t r = 0; r < k; r++)
				v[cnt++] = (uint32_t)x;
		if (*p == ',') {
			p++;
			continue;
		}
		if (!*p || isspace((unsigned char)*p))
			break;
		goto syntax;
	}
	*pos = v;
	*n = cnt;
	return 0;
syntax:
	err_set(err,
		"rank order: at \"%.20s\": expected runs A, A-B or A-B:S, "
		"each with an optional *K, separated by commas",
		*p ? p : "(end)");
fail:
	free(v);
	return -1;
}

const char *rankorder_find(const char *s)
{
	size_t kl = strlen(RANKORDER_KEY);

	for (const char *p = s; p && *p;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, RANKORDER_KEY, kl))
			return p + kl;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return NULL;
}
