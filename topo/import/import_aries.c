/* import_aries.c - a Cray XC (Aries) link list to a fabric, and a
 * Cascade written as one (for round trips).
 *
 * The format (Cray's interconnect description, as the CODES simulator
 * reads it): one line per router port,
 *	c0-0c0s0a0l00(0:0:0) green -> c0-0c0s6a0l10(0:0:6)
 *	c0-0c0s0a0l01(0:0:0) blue -> c2-0c0s0a0l01(1:0:0)
 *	c0-0c0s0a0l04(0:0:0) blue -> unused
 *	c0-0c0s0a0l50(0:0:0) ptile -> processor
 * NAME is the router's cname (c0-0c0s0a0: cabinet, chassis, slot, Aries)
 * and its port (l00 .. l57); (G:R:C) its group, row (chassis of the group)
 * and column (slot).  green links join a row, black a column, blue the
 * groups; each cable appears at both ends.  The routers are the switches,
 * ordered by (group, row, column) so that switch group*96 + row*16 +
 * column is the cascade family's numbering; a router's processor tiles
 * serve its nodes, two tiles a node (four nodes an Aries), named by their
 * cname (c0-0c0s0n0 .. n3).  Parallel cables between two routers are
 * merged into one link whose capacity is their number (the cascade
 * family's column=3 and bundle=). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/import/import_impl.h"
#include "topo/topo.h"

/* A router. */
struct arouter {
	char *name; /* cname without the port: c0-0c0s0a0 */
	uint32_t g, r, c, ptiles, line;
	uint32_t sw; /* fabric switch */
};

/* One end of a cable: router A's port toward router B. */
struct aend {
	uint32_t a, b, line;
};

struct ast {
	const char *path;
	struct err *err;
	struct arouter *r;
	uint32_t nr, rcap;
	struct nameidx names; /* r by name */
	struct aend *e;
	uint32_t ne, ecap;
};

#define aerr(st, line, ...) \
	import_perr((st)->err, (st)->path, line, __VA_ARGS__)

static const char *router_name(const void *ctx, uint32_t i)
{
	return ((const struct ast *)ctx)->r[i].name;
}

static int64_t find(const struct ast *st, const char *s, size_t n)
{
	uint32_t i = nameidx_findn(&st->names, s, n);

	return i == NAMEIDX_NONE ? -1 : (int64_t)i;
}

static int put(struct ast *st, uint32_t i)
{
	return nameidx_add(&st->names, i, NULL);
}

/* "c0-0c0s0a0l01(0:0:0)" at *S: the router (made when new, its
 * coordinates checked) into *R.  0, 1 (not this form) or -1. */
static int router_at(struct ast *st, const char **s, uint32_t line, uint32_t *r)
{
	const char *p = *s, *l, *paren = strchr(p, '(');
	unsigned g, row, col;
	int n = 0;
	int64_t i;

	if (!paren)
		return 1;
	for (l = paren; l > p && isdigit((unsigned char)l[-1]); l--)
		;
	if (l == p || l[-1] != 'l' || l - 1 == p ||
	    sscanf(paren, "(%u:%u:%u)%n", &g, &row, &col, &n) != 3 || !n)
		return 1;
	i = find(st, p, (size_t)(l - 1 - p));
	if (i < 0) {
		struct arouter *a;

		if (st->nr == st->rcap) {
			uint32_t cap = st->rcap ? 2 * st->rcap : 256;
			struct arouter *v = realloc(st->r, cap * sizeof(*v));

			if (!v)
				return err_nomem(st->err, "out of memory");
			st->r = v;
			st->rcap = cap;
		}
		a = &st->r[st->nr];
		*a = (struct arouter){
			.g = g, .r = row, .c = col, .line = line
		};
		a->name = strndup(p, (size_t)(l - 1 - p));
		if (!a->name || !import_switch_name_ok(a->name)) {
			int bad = a->name != NULL;

			free(a->name);
			return bad ? aerr(st, line, "bad router name '%.*s'",
					  (int)(l - 1 - p), p) :
				     err_nomem(st->err, "out of memory");
		}
		if (put(st, st->nr)) {
			free(a->name);
			return err_nomem(st->err, "out of memory");
		}
		i = st->nr++;
	} else if (st->r[i].g != g || st->r[i].r != row || st->r[i].c != col) {
		return aerr(st, line,
			    "router %s at (%u:%u:%u), but at (%u:%u:%u) on "
			    "line %u",
			    st->r[i].name, g, row, col, st->r[i].g, st->r[i].r,
			    st->r[i].c, st->r[i].line);
	}
	*r = (uint32_t)i;
	*s = paren + n;
	return 0;
}

static int aries_line(struct ast *st, char *s, uint32_t line)
{
	static const char want[] =
		"unrecognised line (want ROUTERlPORT(G:R:C) COLOUR -> "
		"ROUTERlPORT(G:R:C), COLOUR -> unused or ptile -> processor)";
	const char *p = s, *colour;
	uint32_t a, b;
	size_t n = strlen(s), cl;
	int r;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	r = router_at(st, &p, line, &a);
	if (r)
		return r < 0 ? -1 : aerr(st, line, want);
	while (*p == ' ')
		p++;
	colour = p;
	cl = strcspn(p, " ");
	p += cl;
	if (strncmp(p, " -> ", 4))
		return aerr(st, line, want);
	p += 4;
	if (cl == 5 && !strncmp(colour, "ptile", 5))
		return strcmp(p, "processor") ? aerr(st, line, want) :
						(st->r[a].ptiles++, 0);
	if (!strcmp(p, "unused"))
		return 0;
	if ((cl != 5 || strncmp(colour, "green", 5)) &&
	    (cl != 5 || strncmp(colour, "black", 5)) &&
	    (cl != 4 || strncmp(colour, "blue", 4)))
		return aerr(st, line,
			    "unknown link colour '%.*s' (green, "
			    "black, blue, ptile)",
			    (int)cl, colour);
	r = router_at(st, &p, line, &b);
	if (r || *p)
		return r < 0 ? -1 : aerr(st, line, want);
	if (a == b)
		return aerr(st, line, "router %s cabled to itself",
			    st->r[a].name);
	if (st->ne == st->ecap) {
		uint32_t cap = st->ecap ? 2 * st->ecap : 1024;
		struct aend *v = realloc(st->e, cap * sizeof(*v));

		if (!v)
			return err_nomem(st->err, "out of memory");
		st->e = v;
		st->ecap = cap;
	}
	st->e[st->ne++] = (struct aend){ a, b, line };
	return 0;
}

static int cmp_router(const void *x, const void *y)
{
	const struct arouter *a = *(const struct arouter *const *)x;
	const struct arouter *b = *(const struct arouter *const *)y;

	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	if (a->r != b->r)
		return a->r < b->r ? -1 : 1;
	return (a->c > b->c) - (a->c < b->c);
}

static int cmp_end(const void *x, const void *y)
{
	const struct aend *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* The switches in (group, row, column) order, each with its nodes. */
static int add_routers(struct ast *st, struct import_fabric *f)
{
	struct arouter **ord = malloc(((size_t)st->nr + 1) * sizeof(*ord));

	if (!ord)
		return err_nomem(st->err, "out of memory");
	for (uint32_t i = 0; i < st->nr; i++)
		ord[i] = &st->r[i];
	qsort(ord, st->nr, sizeof(*ord), cmp_router);
	for (uint32_t i = 0; i < st->nr; i++) {
		struct arouter *a = ord[i];
		size_t n = strlen(a->name);
		int64_t sw;

		if (i && !cmp_router(&ord[i - 1], &ord[i])) {
			aerr(st, a->line,
			     "routers %s and %s are both at (%u:%u:%u)",
			     ord[i - 1]->name, a->name, a->g, a->r, a->c);
			free(ord);
			return -1;
		}
		sw = fabric_add_switch(f, a->name, NULL);
		if (sw < 0)
			goto nomem;
		a->sw = (uint32_t)sw;
		for (uint32_t k = 0; k < a->ptiles / 2; k++) {
			char node[64];

			/* c0-0c0s0a0 -> c0-0c0s0n0 .. */
			snprintf(node, sizeof(node), "%.*sn%u",
				 (int)(n >= 2 && a->name[n - 2] == 'a' ? n - 2 :
									 n),
				 a->name, k);
			if (fabric_add_node(f, a->sw, node, 1))
				goto nomem;
		}
	}
	free(ord);
	return 0;
nomem:
	free(ord);
	return err_nomem(st->err, "out of memory");
}

/* The first end of router pair (A, B) in the sorted ends, or NE. */
static uint32_t lower_bound(const struct ast *st, uint32_t a, uint32_t b)
{
	uint32_t lo = 0, hi = st->ne;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct aend *e = &st->e[mid];

		if (e->a < a || (e->a == a && e->b < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every router pair's cables, as listed from both ends, merged into one
 * link of capacity their number. */
static int add_links(struct ast *st, struct import_fabric *f)
{
	uint32_t i = 0;

	if (st->ne)
		qsort(st->e, st->ne, sizeof(*st->e), cmp_end);
	while (i < st->ne) {
		uint32_t a = st->e[i].a, b = st->e[i].b, j = i, k, nback = 0;

		while (j < st->ne && st->e[j].a == a && st->e[j].b == b)
			j++;
		for (k = lower_bound(st, b, a);
		     k < st->ne && st->e[k].a == b && st->e[k].b == a; k++)
			nback++;
		if (nback != j - i)
			return aerr(st, st->e[i].line,
				    "%s lists %u cable%s to %s, which lists "
				    "%u back",
				    st->r[a].name, j - i, j - i == 1 ? "" : "s",
				    st->r[b].name, nback);
		if (st->r[a].sw < st->r[b].sw &&
		    fabric_add_cable(f, st->r[a].sw, st->r[b].sw,
				     (double)(j - i)))
			return err_nomem(st->err, "out of memory");
		i = j;
	}
	return 0;
}

static int aries_line_cb(void *ctx, char *line, uint32_t lineno)
{
	return aries_line(ctx, line, lineno);
}

struct import_fabric *import_aries(const char *path, struct err *err)
{
	struct ast st = { .path = path, .err = err };
	struct import_fabric *f = NULL;
	uint32_t lineno = 1;
	int rc;

	nameidx_init(&st.names, router_name, &st);
	rc = import_each_line(path, aries_line_cb, &st, &lineno, err);
	if (!rc && !st.nr)
		rc = aerr(&st, lineno, "no routers");
	if (!rc && !(f = fabric_new("Aries link list", path)))
		rc = err_nomem(err, "out of memory");
	if (!rc) {
		f->cap_note = "a link's capacity is its number of cables "
			      "(parallel cables merged)";
		rc = add_routers(&st, f) || add_links(&st, f) ? -1 : 0;
	}
	if (!rc && !f->nnodes)
		rc = aerr(&st, lineno,
			  "no nodes: no router has processor "
			  "tiles (ptile -> processor)");
	for (uint32_t i = 0; i < st.nr; i++)
		free(st.r[i].name);
	free(st.r);
	nameidx_free(&st.names);
	free(st.e);
	if (rc) {
		import_destroy(f);
		return NULL;
	}
	return f;
}

/* The cname of router SW of a Cascade: group g in cabinets c2g, c2g+1,
 * its rows in chassis c0..c2 of each, as on Edison (c0-0c0s0a0). */
static void cname(uint32_t sw, char *buf, size_t len)
{
	uint32_t g = sw / 96, r = sw % 96 / 16, c = sw % 16;

	snprintf(buf, len, "c%u-%uc%us%ua0", 2 * g + r / 3, 0, r % 3, c);
}

int import_export_aries(const struct topo *t, FILE *out, struct err *err)
{
	uint32_t S = topo_num_switches(t);

	if (topo_num_groups(t) * 96 != S)
		return err_set(err, "not a Cascade of 96-router groups");
	for (uint32_t s = 0; s < S; s++) {
		uint32_t cnt, first = topo_switch_out(t, s, &cnt), port = 0, nn;
		char a[48], b[48];

		topo_switch_nodes(t, s, &nn);
		cname(s, a, sizeof(a));
		for (uint32_t l = first; l < first + cnt; l++) {
			const struct topo_link *k = topo_link(t, l);
			uint32_t to = k->to;
			const char *colour = to / 96 != s / 96 ? "blue" :
					     to / 16 == s / 16 ? "green" :
								 "black";

			cname(to, b, sizeof(b));
			for (uint32_t q = 0; q < (uint32_t)k->capacity; q++)
				fprintf(out,
					"%sl%02o(%u:%u:%u) %s -> %sl%02o(%u:%u:%u)\n",
					a, port++, s / 96, s % 96 / 16, s % 16,
					colour, b, 0u, to / 96, to % 96 / 16,
					to % 16);
		}
		for (uint32_t q = 0; q < 2 * nn; q++)
			fprintf(out, "%sl%02o(%u:%u:%u) ptile -> processor\n",
				a, port++, s / 96, s % 96 / 16, s % 16);
	}
	if (fflush(out) || ferror(out))
		return err_set(err, "write error");
	return 0;
}
