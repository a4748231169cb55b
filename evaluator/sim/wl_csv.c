/* wl_csv.c - CSV job lists: "id,submit,nodes,runtime,limit[,pattern]"
 * (see workload.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

/* Split a CSV line into at most MAXF fields (no quoting: patterns are
 * written without commas or quoted with "..."). */
static uint32_t csv_split(char *s, char **f, uint32_t maxf)
{
	uint32_t n = 0;

	while (n < maxf) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '"') {
			char *q = strchr(s + 1, '"');

			f[n++] = s + 1;
			if (!q)
				return UINT32_MAX;
			*q = '\0';
			s = q + 1;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == ',') {
				s++;
				continue;
			}
			if (*s)
				return UINT32_MAX;
			return n;
		}
		f[n++] = s;
		s += strcspn(s, ",");
		if (*s == ',') {
			char *e = s;

			*s++ = '\0';
			while (e > f[n - 1] &&
			       (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
				*--e = '\0';
			continue;
		}
		while (s > f[n - 1] &&
		       (s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\r'))
			*--s = '\0';
		return n;
	}
	return UINT32_MAX;
}

static int csv_int(const char *s, int64_t *v)
{
	return wl_int_token(s, strlen(s), v);
}

int wl_parse_csv(const char *name, const char *text, size_t len,
		 const struct wl_opts *o, struct workload *w, struct err *err)
{
	static const char *const cols[] = { "id",	    "submit", "nodes",
					    "runtime",	    "limit",  "pattern",
					    "comm_fraction" };
	uint32_t line = 0, ncols = 0;
	char *buf = NULL;
	size_t bcap = 0;

	for (size_t p = 0; p < len && !(o->max_jobs && w->n >= o->max_jobs);) {
		const char *e = memchr(text + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (text + p)) : len - p;
		char *f[8];
		uint32_t nf;
		int64_t v[5];
		double frac = NAN;
		const char *msg = NULL;
		char m[256];

		line++;
		if (l + 1 > bcap) {
			char *q = realloc(buf, l + 1);

			if (!q) {
				free(buf);
				return err_nomem(err, "%s:%u: out of memory",
						 name, line);
			}
			buf = q;
			bcap = l + 1;
		}
		memcpy(buf, text + p, l);
		buf[l] = '\0';
		p += l + 1;
		{
			char *s = buf;

			while (isspace((unsigned char)*s))
				s++;
			if (!*s || *s == '#')
				continue;
		}
		nf = csv_split(buf, f, 8);
		if (!ncols) {
			/* nf is UINT32_MAX for a broken line: F is not
			 * filled then */
			for (ncols = 0;
			     nf != UINT32_MAX && ncols < nf && ncols < 7;
			     ncols++)
				if (strcmp(f[ncols], cols[ncols]))
					break;
			if (nf == UINT32_MAX || ncols < 5 || nf != ncols) {
				free(buf);
				return err_set(err,
					       "%s:%u: header must be "
					       "id,submit,nodes,runtime,limit"
					       "[,pattern[,comm_fraction]]",
					       name, line);
			}
			continue;
		}
		if (nf == UINT32_MAX || nf < 5 || nf > ncols) {
			snprintf(m, sizeof(m), "want %u comma-separated fields",
				 ncols);
			if (wl_bad(w, o, err, name, line, m)) {
				free(buf);
				return -1;
			}
			continue;
		}
		for (uint32_t k = 0; k < 5 && !msg; k++) {
			if (k == 4 && !*f[k]) {
				v[k] = -1;
				continue;
			}
			if (csv_int(f[k], &v[k])) {
				snprintf(m, sizeof(m),
					 "%s: '%.32s' is not an "
					 "integer",
					 cols[k], f[k]);
				msg = m;
			}
		}
		if (!msg && nf > 6 && *f[6]) {
			char *end;

			errno = 0;
			frac = strtod(f[6], &end);
			if (end == f[6] || *end || errno || !isfinite(frac)) {
				snprintf(m, sizeof(m),
					 "comm_fraction: '%.32s' is not a "
					 "number",
					 f[6]);
				msg = m;
			}
		}
		if (!msg) {
			struct wl_job *j = wl_push(w);

			if (!j) {
				free(buf);
				return err_nomem(err, "%s:%u: out of memory",
						 name, line);
			}
			msg = wl_fill_job(j, v[0], v[1], v[2], v[3], v[4],
					  nf > 5 ? f[5] : NULL, frac, m,
					  sizeof(m));
			j->line = line;
			if (msg)
				wl_drop_last(w);
		}
		if (msg && wl_bad(w, o, err, name, line, msg)) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	if (!ncols)
		return err_set(err, "%s:%u: empty CSV (no header)", name,
			       line ? line : 1);
	return 0;
}
