/* import_fabric.c - the fabric the importers fill, and its topo.conf. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/import/import_impl.h"
#include "topo/util/hl.h"

/* Grow *V (of *CAP elements of SIZE bytes) to hold N+1.  0 or -1. */
static int grow(void **v, uint32_t n, uint32_t *cap, size_t size)
{
	void *nv;
	uint32_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? 2 * *cap : 8;
	nv = realloc(*v, (size_t)nc * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = nc;
	return 0;
}

struct import_fabric *fabric_new(const char *format, const char *source)
{
	struct import_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->format = format;
	f->source = strdup(source);
	if (!f->source) {
		free(f);
		return NULL;
	}
	return f;
}

void import_destroy(struct import_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nsw; i++) {
		for (uint32_t k = 0; k < f->sw[i].nnodes; k++)
			free(f->sw[i].nodes[k]);
		free(f->sw[i].nodes);
		free(f->sw[i].name);
		free(f->sw[i].note);
	}
	for (size_t i = 0; i < f->nwarn; i++)
		free(f->warn[i]);
	free(f->warn);
	free(f->sw);
	free(f->cab);
	free(f->inject);
	free(f->source);
	free(f);
}

int64_t fabric_add_switch(struct import_fabric *f, const char *name,
			  const char *note)
{
	struct isw *s;

	if (grow((void **)&f->sw, f->nsw, &f->swcap, sizeof(*f->sw)))
		return -1;
	s = &f->sw[f->nsw];
	*s = (struct isw){ 0 };
	s->name = strdup(name);
	s->note = note ? strdup(note) : NULL;
	if (!s->name || (note && !s->note)) {
		free(s->name);
		free(s->note);
		return -1;
	}
	return f->nsw++;
}

int fabric_add_node(struct import_fabric *f, uint32_t sw, const char *name,
		    double rate)
{
	struct isw *s = &f->sw[sw];
	char *dup;

	if (grow((void **)&s->nodes, s->nnodes, &s->cap, sizeof(*s->nodes)) ||
	    grow((void **)&f->inject, f->ninject, &f->injcap,
		 sizeof(*f->inject)))
		return -1;
	dup = strdup(name);
	if (!dup)
		return -1;
	s->nodes[s->nnodes++] = dup;
	f->inject[f->ninject++] = rate;
	f->nnodes++;
	return 0;
}

int fabric_add_cable(struct import_fabric *f, uint32_t a, uint32_t b,
		     double rate)
{
	if (grow((void **)&f->cab, f->ncab, &f->cabcap, sizeof(*f->cab)))
		return -1;
	f->cab[f->ncab++] = (struct icable){ .a = a, .b = b, .rate = rate };
	return 0;
}

int fabric_warn(struct import_fabric *f, const char *fmt, ...)
{
	char buf[512];
	uint32_t cap = (uint32_t)f->warncap;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (grow((void **)&f->warn, (uint32_t)f->nwarn, &cap, sizeof(char *)))
		return -1;
	f->warncap = cap;
	f->warn[f->nwarn] = strdup(buf);
	if (!f->warn[f->nwarn])
		return -1;
	f->nwarn++;
	return 0;
}

bool import_switch_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			return false;
	return true;
}

bool import_name_ok(const char *s)
{
	return import_switch_name_ok(s) && hl_error(s) == NULL;
}

size_t import_num_warnings(const struct import_fabric *f)
{
	return f->nwarn;
}

const char *import_warning(const struct import_fabric *f, size_t i)
{
	return i < f->nwarn ? f->warn[i] : NULL;
}

uint32_t import_num_switches(const struct import_fabric *f)
{
	return f->nsw;
}

uint32_t import_num_nodes(const struct import_fabric *f)
{
	return f->nnodes;
}

uint32_t import_num_cables(const struct import_fabric *f)
{
	return f->ncab;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The most frequent value of V[N] (the larger on a tie); 0 when N is 0. */
static double mode(const double *v, uint32_t n)
{
	double *s, best = 0;
	uint32_t bestn = 0;

	if (!n)
		return 0;
	s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return v[0];
	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && s[j] == s[i]; j++)
			;
		if (j - i >= bestn) {
			bestn = j - i;
			best = s[i];
		}
	}
	free(s);
	return best;
}

/* The rate of one capacity unit: the most common cable rate, else the most
 * common node link rate, else 1. */
static double unit_rate(const struct import_fabric *f)
{
	double *r;
	double u;

	if (!f->rated)
		return 1;
	if (!f->ncab)
		return f->ninject ? mode(f->inject, f->ninject) : 1;
	r = malloc((size_t)f->ncab * sizeof(*r));
	if (!r)
		return 1;
	for (uint32_t i = 0; i < f->ncab; i++)
		r[i] = f->cab[i].rate;
	u = mode(r, f->ncab);
	free(r);
	return u > 0 ? u : 1;
}

static uint32_t lo(const struct icable *c)
{
	return c->a < c->b ? c->a : c->b;
}

static uint32_t hi(const struct icable *c)
{
	return c->a < c->b ? c->b : c->a;
}

/* qsort_r order of cable indices: by lower, then higher switch. */
static int cmp_cable(const void *x, const void *y, void *base)
{
	const struct icable *a =
		(const struct icable *)base + *(const uint32_t *)x;
	const struct icable *b =
		(const struct icable *)base + *(const uint32_t *)y;

	if (lo(a) != lo(b))
		return lo(a) < lo(b) ? -1 : 1;
	if (hi(a) != hi(b))
		return hi(a) < hi(b) ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Whether CAP is 1 to printing precision. */
static bool is_one(double cap)
{
	return fabs(cap - 1) < 1e-9;
}

static int write_nodes(const struct isw *s, FILE *out)
{
	struct hl *h = hl_new();
	char *txt;

	if (!h)
		return -1;
	for (uint32_t k = 0; k < s->nnodes; k++)
		if (hl_push(h, s->nodes[k])) {
			hl_destroy(h);
			return -1;
		}
	txt = hl_ranged(h);
	hl_destroy(h);
	if (!txt)
		return -1;
	fprintf(out, " Nodes=%s", txt);
	free(txt);
	return 0;
}

int import_write_conf(const struct import_fabric *f, FILE *out, struct err *err)
{
	double unit = unit_rate(f);
	double inject =
		f->rated && f->ninject ? mode(f->inject, f->ninject) / unit : 1;
	uint32_t *ord = NULL, c = 0;

	if (f->ncab) {
		ord = malloc((size_t)f->ncab * sizeof(*ord));
		if (!ord)
			return err_set(err, "out of memory");
		for (uint32_t i = 0; i < f->ncab; i++)
			ord[i] = i;
		qsort_r(ord, f->ncab, sizeof(*ord), cmp_cable, f->cab);
	}
	fprintf(out, "# Topology=graph from %s %s (stopo import)\n", f->format,
		f->source);
	if (f->rated)
		fprintf(out,
			"# Capacities: 1 = %g Gb/s, the most common %s "
			"rate\n",
			unit, f->ncab ? "switch-to-switch link" : "node link");
	else
		fprintf(out, "# Capacities: every cable 1 (the input gives "
			     "no link rates)\n");
	fprintf(out, "Topology=graph");
	if (!is_one(inject))
		fprintf(out, " inject=%.6g", inject);
	fprintf(out, "\n");
	for (uint32_t i = 0; i < f->nsw; i++) {
		const struct isw *s = &f->sw[i];
		const char *sep = " Links=";

		fprintf(out, "SwitchName=%s", s->name);
		if (s->nnodes && write_nodes(s, out)) {
			free(ord);
			return err_set(err, "out of memory");
		}
		for (; c < f->ncab && lo(&f->cab[ord[c]]) == i; c++) {
			const struct icable *k = &f->cab[ord[c]];
			double cap = k->rate / unit;

			fprintf(out, "%s%s", sep, f->sw[hi(k)].name);
			if (!is_one(cap))
				fprintf(out, ":%.6g", cap);
			sep = ",";
		}
		if (s->note)
			fprintf(out, " # %s", s->note);
		fprintf(out, "\n");
	}
	free(ord);
	if (fflush(out) || ferror(out))
		return err_set(err, "write error");
	return 0;
}

int import_perr(struct err *err, const char *path, uint32_t line,
		const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return err_set(err, "%s:%u: %s", path, line, buf);
}
