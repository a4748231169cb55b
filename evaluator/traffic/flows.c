/* flows.c - the flow list and the flows-file reader. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/traffic/flows.h"
#include "topo/util/limits.h"

void flows_init(struct flows *f)
{
	memset(f, 0, sizeof(*f));
}

void flows_free(struct flows *f)
{
	if (!f)
		return;
	free(f->src);
	free(f->dst);
	free(f->demand);
	flows_init(f);
}

void flows_clear(struct flows *f)
{
	f->n = 0;
}

static int grow(struct flows *f)
{
	uint32_t cap;
	uint32_t *s, *d;
	double *w;

	if (f->cap >= UINT32_MAX - 1)
		return -1;
	cap = f->cap ? (f->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : f->cap * 2) :
		       64;
	s = realloc(f->src, (size_t)cap * sizeof(*s));
	if (!s)
		return -1;
	f->src = s;
	d = realloc(f->dst, (size_t)cap * sizeof(*d));
	if (!d)
		return -1;
	f->dst = d;
	w = realloc(f->demand, (size_t)cap * sizeof(*w));
	if (!w)
		return -1;
	f->demand = w;
	f->cap = cap;
	return 0;
}

int flows_add(struct flows *f, uint32_t src, uint32_t dst, double demand)
{
	if (f->n == f->cap && grow(f))
		return -1;
	f->src[f->n] = src;
	f->dst[f->n] = dst;
	f->demand[f->n] = demand;
	f->n++;
	return 0;
}

/* Parse an unsigned decimal node id at *p; advances *p.  -1 if none; -2
 * (with *p past the digits and *out UINT32_MAX) if it does not fit in 32
 * bits, which no topology's node count reaches. */
static int parse_id(const char **p, uint32_t *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	int big = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (!big)
			v = v * 10 + (unsigned)(*s - '0');
		big |= v >= UINT32_MAX;
		s++;
	}
	*p = s;
	*out = big ? UINT32_MAX : (uint32_t)v;
	return big ? -2 : 0;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static int parse_line(const char *line, uint32_t nnodes, uint32_t *src,
		      uint32_t *dst, double *demand, const char **why)
{
	const char *p = skip_space(line);
	char *end;

	if (parse_id(&p, src) == -1) {
		*why = "expected 'src dst [demand]' with node ids";
		return -1;
	}
	if (*p != ' ' && *p != '\t') {
		*why = "expected 'src dst [demand]' with node ids";
		return -1;
	}
	p = skip_space(p);
	if (parse_id(&p, dst) == -1) {
		*why = "expected a destination node id";
		return -1;
	}
	p = skip_space(p);
	*demand = 1.0;
	if (*p) {
		errno = 0;
		*demand = strtod(p, &end);
		if (end == p || errno) {
			*why = "bad demand";
			return -1;
		}
		p = skip_space(end);
		if (*p) {
			*why = "trailing text after the demand";
			return -1;
		}
		/* relative weights: beyond 1e12 (or below 1e-12) the LP
		 * models' tolerances lose the small flows */
		if (!isfinite(*demand) || *demand < 1e-12 || *demand > 1e12) {
			*why = "demand must be a number from 1e-12 to 1e12";
			return -1;
		}
	}
	if (*src >= nnodes || *dst >= nnodes) {
		*why = NULL;
		return -2;
	}
	if (*src == *dst) {
		*why = "self-flow (src == dst)";
		return -1;
	}
	return 0;
}

int flows_read(FILE *fp, const char *path, uint32_t nnodes, struct flows *out,
	       struct err *err)
{
	unsigned long lineno = 0;
	size_t len;
	char *text, *next;
	int rc = 0;

	text = lim_read(fp, path, 1, &len, err);
	if (!text)
		return -1;
	flows_clear(out);
	for (char *line = text; line && *line && !rc; line = next) {
		uint32_t s, d;
		double w;
		const char *why = NULL;
		char *hash;
		int r;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (!*skip_space(line))
			continue;
		r = parse_line(line, nnodes, &s, &d, &w, &why);
		if (r == -2) {
			uint32_t bad = s >= nnodes ? s : d;

			if (bad == UINT32_MAX)
				rc = err_set(
					err,
					"%s:%lu: node id out of range (the "
					"topology has %u nodes, ids 0..%u)",
					path, lineno, nnodes, nnodes - 1);
			else
				rc = err_set(
					err,
					"%s:%lu: node %u out of range (the "
					"topology has %u nodes, ids 0..%u)",
					path, lineno, bad, nnodes, nnodes - 1);
		} else if (r) {
			rc = err_set(err, "%s:%lu: %s", path, lineno, why);
		} else if (flows_add(out, s, d, w)) {
			rc = err_nomem(err, "%s:%lu: out of memory", path,
				       lineno);
		}
	}
	free(text);
	if (!rc && out->n == 0)
		rc = err_set(err, "%s: no flows", path);
	return rc;
}

int flows_load(const char *path, uint32_t nnodes, struct flows *out,
	       struct err *err)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int rc;

	if (!fp)
		return err_sys(err, errno, "%s: %s", path, strerror(errno));
	rc = flows_read(fp, path, nnodes, out, err);
	if (fp != stdin)
		fclose(fp);
	return rc;
}
