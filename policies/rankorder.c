/* rankorder.c - a job's rank order as text (rankorder.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/rankorder.h"

/* Append "A", "A*K", "A-B" or "A-B*K" (with a leading comma unless first). */
static int put(char **buf, size_t *len, size_t *cap, uint32_t a, uint32_t b,
	       uint32_t k)
{
	char w[48];
	int m;

	if (a == b && k == 1)
		m = snprintf(w, sizeof(w), "%s%u", *len ? "," : "", a);
	else if (a == b)
		m = snprintf(w, sizeof(w), "%s%u*%u", *len ? "," : "", a, k);
	else if (k == 1)
		m = snprintf(w, sizeof(w), "%s%u-%u", *len ? "," : "", a, b);
	else
		m = snprintf(w, sizeof(w), "%s%u-%u*%u", *len ? "," : "", a, b,
			     k);
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
		uint32_t a = pos[i], b = a, k = 1, j;

		while (i + k < n && pos[i + k] == a)
			k++;
		j = i + k;
		/* the next nodes in turn, K ranks each */
		for (;;) {
			uint32_t m = 0;

			if (b == UINT32_MAX)
				break;
			while (m < k && j + m < n && pos[j + m] == b + 1)
				m++;
			if (m != k)
				break;
			b++;
			j += k;
		}
		if (put(out, &len, &cap, a, b, k)) {
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
		uint32_t a, b, k = 1;
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
		more = ((uint64_t)b - a + 1) * k;
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
				err_set(err, "rank order: out of memory");
				goto fail;
			}
			v = nv;
			cap = (uint32_t)c;
		}
		for (uint64_t x = a; x <= b; x++)
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
		"rank order: at \"%.20s\": expected runs A, A*K, A-B or A-B*K "
		"separated by commas",
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
