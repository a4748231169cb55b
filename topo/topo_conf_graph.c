/* topo_conf_graph.c - topo.conf's graph family: the explicit graph of
 * SwitchName= lines (Topology=graph), built through the topology builder,
 * its switches named, Nodes= hostlists becoming NodeName= entries. */
#include <stdlib.h>
#include <string.h>

#include "topo/util/hl.h"
#include "topo/util/limits.h"

#include "topo/topo_conf_impl.h"
#include "topo/topo_impl.h"

/* One cable end declared on a SwitchName= line. */
struct decl {
	uint32_t lo, hi; /* switch pair, lo < hi */
	uint32_t from;	 /* declaring switch */
	double cap;
	uint32_t line;
};

static int cmp_decl(const void *x, const void *y)
{
	const struct decl *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->cap != b->cap)
		return a->cap < b->cap ? -1 : 1;
	return 0;
}

/* Add the cables of the pair in D[0..n): declared from one side, or from
 * both sides with the same capacities (then each cable once). */
static int pair_cables(struct pstate *st, struct topo_builder *b,
		       const struct decl *d, size_t n)
{
	size_t na = 0;

	while (na < n && d[na].from == d[0].from)
		na++;
	if (na < n) {
		size_t nb = n - na;

		if (na != nb)
			return perr(st,
				    d[na].line > d[0].line ? d[na].line :
							     d[0].line,
				    "switches '%s' and '%s' disagree on their "
				    "links (%zu vs %zu cables)",
				    st->sws[d[0].from].name,
				    st->sws[d[na].from].name, na, nb);
		for (size_t i = 0; i < na; i++)
			if (d[i].cap != d[na + i].cap)
				return perr(st,
					    d[na].line > d[0].line ?
						    d[na].line :
						    d[0].line,
					    "switches '%s' and '%s' disagree "
					    "on link capacities",
					    st->sws[d[0].from].name,
					    st->sws[d[na].from].name);
	}
	for (size_t i = 0; i < na; i++)
		if (tb_cable(b, d[i].lo, d[i].hi, d[i].cap, TOPO_LINK_LOCAL,
			     TOPO_LINK_LOCAL))
			return perr_nomem(st, d[i].line);
	return 0;
}

static const struct spec_opt graph_opts[] = {
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "link", .def = "1", .help = "switch link capacity" },
	{ 0 },
};

/* The SwitchName= names of T's switches (switch i is line i's). */
static int name_switches(const struct pstate *st, struct topo *t)
{
	const char **names = malloc((st->nsws + 1) * sizeof(*names));
	int rc;

	if (!names)
		return -1;
	for (size_t i = 0; i < st->nsws; i++)
		names[i] = st->sws[i].name;
	rc = topo_set_switch_names(t, names);
	free(names);
	return rc;
}

/* Node names given in graph Nodes= hostlists become NodeName entries. */
struct topo *conf_build_graph(struct pstate *st,
			      const struct topo_param *params, size_t nparams)
{
	struct spec s;
	struct topo_args args;
	struct topo_builder b;
	struct decl *decls = NULL;
	size_t ndecl = 0, k;
	double cinj, clink;
	int named = -1;
	uint32_t named_line = 0;
	size_t nodename_lines = st->nnames;
	struct err sub = { 0 };
	struct topo *t;

	if (targ_init(&args, &s, "graph", graph_opts, params, nparams, &sub) ||
	    targ_double(&args, "inject", &cinj, &sub) ||
	    targ_double(&args, "link", &clink, &sub)) {
		conf_perr_code(st, st->topo_line, sub.code, "graph: %s",
			       sub.msg);
		return NULL;
	}
	if (!st->nsws) {
		perr(st, st->topo_line,
		     "Topology=graph needs SwitchName= "
		     "lines");
		return NULL;
	}
	tb_init(&b, (uint32_t)st->nsws);
	b.inject_cap = cinj;
	for (size_t i = 0; i < st->nsws; i++) {
		struct sw_decl *d = &st->sws[i];
		uint32_t cnt;

		if (!d->nodes)
			continue;
		if (strspn(d->nodes, "0123456789") == strlen(d->nodes)) {
			unsigned long long x;

			errno = 0;
			x = strtoull(d->nodes, NULL, 10);
			if (errno || x > lim_get(LIM_NODES)) {
				lim_error(&sub, LIM_NODES,
					  errno ? UINT64_MAX : x, "Nodes=");
				conf_perr_code(st, d->line, sub.code, "%s",
					       sub.msg);
				goto fail;
			}
			if (named == 1) {
				perr(st, d->line,
				     "Nodes=%s: a count, but line "
				     "%u names its nodes (use names "
				     "everywhere or counts everywhere)",
				     d->nodes, named_line);
				goto fail;
			}
			named = 0;
			named_line = d->line;
			cnt = (uint32_t)x;
		} else {
			struct hl *hl;

			if (named == 0) {
				perr(st, d->line,
				     "Nodes=%s: names, but line "
				     "%u gives a count (use names everywhere "
				     "or counts everywhere)",
				     d->nodes, named_line);
				goto fail;
			}
			if (nodename_lines) {
				perr(st, st->names[0].line,
				     "NodeName= "
				     "conflicts with the node names given by "
				     "Nodes= on line %u",
				     d->line);
				goto fail;
			}
			named = 1;
			named_line = d->line;
			hl = hl_parse(d->nodes);
			if (!hl) {
				const char *why = hl_error(d->nodes);

				conf_perr_code(
					st, d->line, why ? EINVAL : ENOMEM,
					"Nodes=%.80s%s: bad hostlist: %s",
					d->nodes,
					strlen(d->nodes) > 80 ? "..." : "",
					why ? why : "out of memory");
				goto fail;
			}
			if (hl_count(hl) > lim_get(LIM_NODES)) {
				lim_error(&sub, LIM_NODES, hl_count(hl),
					  "Nodes=");
				hl_destroy(hl);
				conf_perr_code(st, d->line, sub.code, "%s",
					       sub.msg);
				goto fail;
			}
			cnt = (uint32_t)hl_count(hl);
			hl_destroy(hl);
			/* the names themselves are read like NodeName= */
			if (conf_push((void **)&st->names, &st->nnames,
				      sizeof(*st->names))) {
				perr_nomem(st, d->line);
				goto fail;
			}
			st->names[st->nnames - 1].line = d->line;
			st->names[st->nnames - 1].expr = d->nodes;
			d->nodes = NULL;
		}
		if (b.nnodes + cnt > lim_get(LIM_NODES)) {
			lim_error(&sub, LIM_NODES, b.nnodes + cnt,
				  "nodes up to this line");
			conf_perr_code(st, d->line, sub.code, "%s", sub.msg);
			goto fail;
		}
		for (uint32_t q = 0; q < cnt; q++)
			if (tb_node(&b, (uint32_t)i)) {
				perr_nomem(st, d->line);
				goto fail;
			}
	}
	for (size_t i = 0; i < st->nsws; i++) {
		struct sw_decl *d = &st->sws[i];

		for (size_t l = 0; l < d->nlinks; l++) {
			int j = conf_sw_find(st, d->links[l].name);
			struct decl *e;

			if (j < 0) {
				perr(st, d->line,
				     "Links=: unknown switch "
				     "'%s'",
				     d->links[l].name);
				goto fail;
			}
			if ((size_t)j == i) {
				perr(st, d->line,
				     "Links=: switch '%s' linked "
				     "to itself",
				     d->name);
				goto fail;
			}
			if (conf_push((void **)&decls, &ndecl,
				      sizeof(*decls))) {
				perr_nomem(st, d->line);
				goto fail;
			}
			e = &decls[ndecl - 1];
			e->lo = (uint32_t)(i < (size_t)j ? i : (size_t)j);
			e->hi = (uint32_t)(i < (size_t)j ? (size_t)j : i);
			e->from = (uint32_t)i;
			e->cap = d->links[l].cap > 0 ? d->links[l].cap : clink;
			e->line = d->line;
		}
	}
	if (ndecl) /* qsort(NULL, 0, ...) is undefined */
		qsort(decls, ndecl, sizeof(*decls), cmp_decl);
	for (size_t i = 0; i < ndecl; i = k) {
		for (k = i; k < ndecl && decls[k].lo == decls[i].lo &&
			    decls[k].hi == decls[i].hi;
		     k++)
			;
		if (pair_cables(st, &b, decls + i, k - i))
			goto fail;
	}
	if (tb_check_size(st->nsws, b.nnodes, b.ncables, &sub)) {
		conf_perr_code(st, st->topo_line, sub.code,
			       "Topology=graph: %s", sub.msg);
		goto fail;
	}
	if (!b.nnodes) {
		perr(st, st->topo_line,
		     "Topology=graph: no compute nodes (give Nodes= on "
		     "the switches that have them)");
		goto fail;
	}
	free(decls);
	decls = NULL;
	t = tb_finish(&b, &sub);
	if (!t) {
		conf_perr_code(st, st->topo_line, sub.code, "%s", sub.msg);
		return NULL;
	}
	t->kind = TOPO_GRAPH;
	t->family = "graph";
	memcpy(t->params, params, nparams * sizeof(*params));
	t->nparams = nparams;
	for (size_t gk = 0; gk < 2; gk++) {
		static const char *const gkeys[] = { "inject", "link" };
		const char *v = targ_str(&args, gkeys[gk]);

		snprintf(t->eff[gk].key, sizeof(t->eff[gk].key), "%s",
			 gkeys[gk]);
		snprintf(t->eff[gk].value, sizeof(t->eff[gk].value), "%s",
			 v ? v : "1");
	}
	t->neff = 2;
	snprintf(t->spec, sizeof(t->spec), "graph:switches=%zu", st->nsws);
	if (name_switches(st, t) || topo_recognise(t)) {
		perr_nomem(st, st->topo_line);
		topo_destroy(t);
		return NULL;
	}
	if (t->recog.parts > 1) {
		/* no routing joins the parts: a job spanning two would fail
		 * later, blamed on the job */
		perr(st, st->topo_line, "Topology=graph: %s", t->recog.why);
		topo_destroy(t);
		return NULL;
	}
	return t;
fail:
	free(decls);
	tb_free(&b);
	return NULL;
}
