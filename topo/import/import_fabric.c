/* import_fabric.c - the fabric the importers fill, and its topo.conf. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/import/import_impl.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"
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
	free(f->fwd);
	free(f->lft_source);
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

/* The SwitchName= lines of F (capacities in UNIT) on OUT.  0 or -1. */
static int write_switches(const struct import_fabric *f, double unit, FILE *out)
{
	uint32_t *ord = NULL, c = 0;

	if (f->ncab) {
		ord = malloc((size_t)f->ncab * sizeof(*ord));
		if (!ord)
			return -1;
		for (uint32_t i = 0; i < f->ncab; i++)
			ord[i] = i;
		qsort_r(ord, f->ncab, sizeof(*ord), cmp_cable, f->cab);
	}
	for (uint32_t i = 0; i < f->nsw; i++) {
		const struct isw *s = &f->sw[i];
		const char *sep = " Links=";

		fprintf(out, "SwitchName=%s", s->name);
		if (s->nnodes && write_nodes(s, out)) {
			free(ord);
			return -1;
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
	return 0;
}

static int cmp_fwd(const void *x, const void *y)
{
	const struct ifwd *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	if (a->cable != b->cable)
		return a->cable < b->cable ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

/* The position of cable C among the cables of its switch pair as
 * topo.conf numbers parallel links (by capacity, then order), 1-based;
 * 0 when it is the pair's only cable. */
static uint32_t cable_rank(const struct import_fabric *f, uint32_t c)
{
	const struct icable *k = &f->cab[c];
	uint32_t rank = 1, n = 0;

	for (uint32_t i = 0; i < f->ncab; i++) {
		const struct icable *o = &f->cab[i];

		if (lo(o) != lo(k) || hi(o) != hi(k))
			continue;
		n++;
		if (o->rate < k->rate || (o->rate == k->rate && i < c))
			rank++;
	}
	return n > 1 ? rank : 0;
}

/* One "HOSTLIST:NEXT[@K]" of switch SW: the nodes E[0..n) sent on one
 * cable.  0 or -1. */
static int write_route(const struct import_fabric *f, const struct ifwd *e,
		       uint32_t n, FILE *out)
{
	const struct icable *k = &f->cab[e[0].cable];
	uint32_t next = k->a == e[0].sw ? k->b : k->a;
	uint32_t rank = cable_rank(f, e[0].cable);
	struct hl *h = hl_new();
	char *txt;

	for (uint32_t i = 0; h && i < n; i++)
		if (hl_push(h, fabric_node_name(f, e[i].node))) {
			hl_destroy(h);
			h = NULL;
		}
	txt = h ? hl_ranged(h) : NULL;
	hl_destroy(h);
	if (!txt)
		return -1;
	fprintf(out, " %s:%s", txt, f->sw[next].name);
	if (rank)
		fprintf(out, "@%u", rank);
	free(txt);
	return 0;
}

/* The Forward= lines of F's tables (one entry per switch and node: the
 * reader keeps the first), a switch's entries grouped by cable, at most 8
 * groups a line. */
static int write_forward(const struct import_fabric *f, FILE *out)
{
	struct ifwd *e = malloc(((size_t)f->nfwd + 1) * sizeof(*e));
	uint32_t n = f->nfwd;
	int rc = 0;

	if (!e)
		return -1;
	memcpy(e, f->fwd, (size_t)n * sizeof(*e));
	if (n)
		qsort(e, n, sizeof(*e), cmp_fwd);
	for (uint32_t i = 0, j, groups = 0; i < n && !rc; i = j) {
		if (!i || e[i].sw != e[i - 1].sw || groups == 8) {
			fprintf(out, "%sForward=%s", i ? "\n" : "",
				f->sw[e[i].sw].name);
			groups = 0;
		}
		for (j = i;
		     j < n && e[j].sw == e[i].sw && e[j].cable == e[i].cable;
		     j++)
			;
		rc = write_route(f, e + i, j - i, out);
		groups++;
	}
	if (n)
		fprintf(out, "\n");
	free(e);
	return rc;
}

/* The idle (IDLE) or hosting switches of recognised fat-tree T, "a, b,
 * ..." in BUF. */
static const char *special(const struct topo *t, bool idle, char *buf,
			   size_t len)
{
	size_t off = 0;
	uint32_t shown = 0;

	buf[0] = '\0';
	for (uint32_t s = 0; s < topo_num_switches(t) && off < len; s++) {
		uint32_t cnt;
		const char *sep = shown ? ", " : "";

		topo_switch_nodes(t, s, &cnt);
		if (idle ? !topo_switch_idle(t, s) :
			   !cnt || !topo_switch_level(t, s))
			continue;
		shown++;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", sep,
					shown < 4 ? topo_switch_name(t, s) :
						    "...");
		if (shown == 4)
			break;
	}
	return buf;
}

/* The routing F's topo.conf should name: lft with tables, else the one
 * its recognition implies (ecmp for a fat-tree, ugal for a dragonfly or
 * Cascade; NULL: the default).  HEAD and BODY are the topo.conf
 * without Routing=; it must load (a disconnected fabric, bad tables:
 * err set, -1).  *WHAT gets a comment's text. */
static int choose_routing(const struct import_fabric *f, const char *head,
			  const char *body, const char **routing, char *what,
			  size_t len, struct err *err)
{
	char *text = NULL;
	struct topo_conf *c;
	const char *fam;
	struct topo_graph_info gi;
	struct err sub = { 0 };
	char b1[160], b2[160];

	if (asprintf(&text, "%s%s%s", head, f->nfwd ? "Routing=lft\n" : "",
		     body) < 0)
		return err_nomem(err, "out of memory");
	c = topo_conf_parse("the topo.conf written", text, &sub);
	free(text);
	if (!c)
		return err_from(err, &sub, "%s", f->source);
	fam = topo_graph_family(topo_conf_topo(c));
	*routing = f->nfwd		   ? "lft" :
		   !fam			   ? NULL :
		   !strcmp(fam, "fattree") ? "ecmp" :
					     "ugal";
	topo_graph_info(topo_conf_topo(c), &gi);
	if (!fam)
		snprintf(what, len, "no family (%s): the default routing",
			 gi.why);
	else if (!strcmp(fam, "fattree"))
		snprintf(what, len, "fat-tree, %u levels, %u pod%s%s%s%s%s",
			 gi.levels, gi.groups, gi.groups == 1 ? "" : "s",
			 gi.idle ? "; idle (on no route between two leaves): " :
				   "",
			 gi.idle ? special(topo_conf_topo(c), true, b1,
					   sizeof(b1)) :
				   "",
			 gi.hosting ? "; nodes above the leaves (in no pod) "
				      "on " :
				      "",
			 gi.hosting ? special(topo_conf_topo(c), false, b2,
					      sizeof(b2)) :
				      "");
	else if (!strcmp(fam, "cascade"))
		snprintf(what, len, "Cascade, %u groups of %u x %u", gi.groups,
			 gi.rows, gi.cols);
	else
		snprintf(what, len, "dragonfly, %u groups of %u", gi.groups,
			 gi.group_size);
	if (f->nfwd)
		snprintf(what + strlen(what), len - strlen(what),
			 "; the routes of the subnet manager's forwarding "
			 "tables");
	topo_conf_destroy(c);
	return 0;
}

int import_write_conf(const struct import_fabric *f, FILE *out, struct err *err)
{
	double unit = unit_rate(f);
	double inject =
		f->rated && f->ninject ? mode(f->inject, f->ninject) / unit : 1;
	char *head = NULL, *body = NULL, what[400];
	size_t hl = 0, bl = 0;
	const char *routing = NULL;
	FILE *h = open_memstream(&head, &hl), *b = open_memstream(&body, &bl);
	int rc = -1;

	if (!h || !b) {
		if (h)
			fclose(h);
		if (b)
			fclose(b);
		free(head);
		free(body);
		return err_nomem(err, "out of memory");
	}
	fprintf(h, "Topology=graph");
	if (!is_one(inject))
		fprintf(h, " inject=%.6g", inject);
	fprintf(h, "\n");
	if (write_switches(f, unit, b) || (f->nfwd && write_forward(f, b))) {
		fclose(h);
		fclose(b);
		err_nomem(err, "out of memory");
		goto out;
	}
	if (fclose(h) | fclose(b)) {
		err_nomem(err, "out of memory");
		goto out;
	}
	if (choose_routing(f, head, body, &routing, what, sizeof(what), err))
		goto out;
	fprintf(out, "# Topology=graph from %s %s (stopo import)\n", f->format,
		f->source);
	if (f->cap_note)
		fprintf(out, "# Capacities: %s\n", f->cap_note);
	else if (f->rated)
		fprintf(out,
			"# Capacities: 1 = %g Gb/s, the most common %s "
			"rate\n",
			unit, f->ncab ? "switch-to-switch link" : "node link");
	else
		fprintf(out, "# Capacities: every cable 1 (the input gives "
			     "no link rates)\n");
	fprintf(out, "# Recognised: %s\n", what);
	if (f->lft_source)
		fprintf(out, "# Forward=: the forwarding tables of %s\n",
			f->lft_source);
	fputs(head, out);
	if (routing)
		fprintf(out, "Routing=%s\n", routing);
	fputs(body, out);
	rc = fflush(out) || ferror(out) ? err_set(err, "write error") : 0;
out:
	free(head);
	free(body);
	return rc;
}

int fabric_add_fwd(struct import_fabric *f, uint32_t sw, uint32_t node,
		   uint32_t cable)
{
	if (grow((void **)&f->fwd, f->nfwd, &f->fwdcap, sizeof(*f->fwd)))
		return -1;
	f->fwd[f->nfwd++] = (struct ifwd){ sw, node, cable };
	return 0;
}

const char *fabric_node_name(const struct import_fabric *f, uint32_t i)
{
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (i < f->sw[s].nnodes)
			return f->sw[s].nodes[i];
		i -= f->sw[s].nnodes;
	}
	return NULL;
}

int import_get_hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; isxdigit((unsigned char)*p); p++, n++) {
		int d = isdigit((unsigned char)*p) ?
				*p - '0' :
				tolower((unsigned char)*p) - 'a' + 10;
		x = x << 4 | (uint64_t)d;
	}
	if (!n || n > 16)
		return -1;
	*v = x;
	*s = p;
	return 0;
}

int import_each_line(const char *path,
		     int (*fn)(void *ctx, char *line, uint32_t lineno),
		     void *ctx, uint32_t *last, struct err *err)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0;
	int rc = 0;

	if (!fp)
		return err_sys(err, errno, "%s: cannot open: %s", path,
			       strerror(errno));
	for (ssize_t len; !rc && (len = getline(&line, &cap, fp)) >= 0;) {
		lineno++;
		rc = (size_t)len != strlen(line) ?
			     import_perr(err, path, lineno, "NUL byte") :
			     fn(ctx, line, lineno);
	}
	free(line);
	if (last)
		*last = lineno ? lineno : 1;
	if (!rc && ferror(fp))
		rc = err_sys(err, errno, "%s: %s", path, strerror(errno));
	if (fp != stdin)
		fclose(fp);
	return rc;
}

int import_perr_code(struct err *err, const char *path, uint32_t line, int code,
		     const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return err_code(err, code, "%s:%u: %s", path, line, buf);
}
