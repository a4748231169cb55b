/* model_nne.c - paper 004's demand-based bottleneck model (Sec. 3.1,
 * Eq. 1-6) for any traffic on a dragonfly or Cascade, as the model nne.
 *
 * Every node's traffic is normalised to its total (Eq. 1: t^_sd = t_sd /
 * sum_d t_sd) and sent at the same effective injection bandwidth B_eff.
 * Each flow is spread evenly over its paths (the paper's "used evenly via
 * randomization"): under direct routing over the MIN paths of the
 * routing (evaluator's routing "min"), under indirect routing over the
 * Valiant paths ("vlb" with the routing's intra= choice: with the default
 * intra=local an inter-group flow's intermediate group is uniform over
 * the g - 2 others, Eq. 9 when g = ah + 1, and a flow within a group
 * detours inside it).  The relative demand delta_l of a link is the sum,
 * over flows, of t^ times the share of the flow's paths crossing l
 * (Eq. 2-4: remote links; the same rule gives local, injection and
 * ejection links).  Then
 *     B_eff = min over loaded links l of  B_l / delta_l       (Eq. 5-6)
 * with B_l the link's bandwidth by class: the options inject= (injection
 * and ejection), local= and global=, or the topology's capacity.  Flow
 * rate = B_eff * t^; alpha = B_eff.
 *
 * route=auto follows the routing: min is direct, vlb indirect, and ugal
 * takes the better of the two (UGAL may mix them and do better). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "route",
	  .def = "auto",
	  .help = "direct (MIN paths), indirect (Valiant) or auto (the\n"
		  "routing's: min direct, vlb indirect, ugal the better)" },
	{ .key = "inject",
	  .def = "",
	  .help = "injection/ejection bandwidth (default: the topology's)" },
	{ .key = "local",
	  .def = "",
	  .help = "local link bandwidth (default: the topology's)" },
	{ .key = "global",
	  .def = "",
	  .help = "global link bandwidth (default: the topology's)" },
	{ 0 },
};

static int applies(const struct routing *r, struct err *err)
{
	const struct topo *t = routing_topo(r);

	if (!topo_behaves_traits(t)->groups || !topo_num_groups(t))
		return err_set(err, "needs a dragonfly or Cascade (this is %s)",
			       topo_family(t));
	if (strcmp(routing_name(r), "min") && strcmp(routing_name(r), "vlb") &&
	    strcmp(routing_name(r), "ugal"))
		return err_set(err, "needs routing min, vlb or ugal (not %s)",
			       routing_name(r));
	return 0;
}

/* Bandwidth option KEY: *v stays as is when not given. */
static int bw_opt(const struct spec *s, const char *key, double *v,
		  struct err *err)
{
	const char *x = spec_value(s, opts, key);
	char *end;
	double d;

	if (!x || !*x)
		return 0;
	errno = 0;
	d = strtod(x, &end);
	if (errno || *end || !(d > 0) || !isfinite(d))
		return err_set(err, "%s=%s: want a positive bandwidth", key, x);
	*v = d;
	return 0;
}

struct pairw {
	uint32_t sx, sy; /* source and destination switches */
	uint32_t flow;	 /* a flow between them (its nodes name the pair) */
	double w;	 /* normalised demand of the pair's flows */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pairw *x = a, *y = b;

	if (x->sx != y->sx)
		return x->sx < y->sx ? -1 : 1;
	return x->sy < y->sy ? -1 : x->sy > y->sy;
}

/* DELTA[l] += relative demand of the flows (normalised demand THAT) on
 * their paths under routing R (every path of a flow used evenly); *NPATHS
 * += the paths summed over switch pairs.  Returns 0 or -1. */
static int demand(const struct routing *r, const struct flows *f,
		  const double *that, double *delta, uint64_t *npaths,
		  struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t first = topo_first_switch_link(t);
	struct pairw *pw = malloc(((size_t)f->n + 1) * sizeof(*pw));
	struct pathset ps;
	int rc = 0;

	if (!pw)
		return err_nomem(err, "out of memory (%u flows)", f->n);
	pathset_init(&ps);
	for (uint32_t i = 0; i < f->n; i++) {
		delta[topo_inject_link(t, f->src[i])] += that[i];
		delta[topo_eject_link(t, f->dst[i])] += that[i];
		pw[i] = (struct pairw){ topo_node_switch(t, f->src[i]),
					topo_node_switch(t, f->dst[i]), i,
					that[i] };
	}
	qsort(pw, f->n, sizeof(*pw), cmp_pair);
	for (uint32_t i = 0; i < f->n;) {
		uint32_t j = i + 1;
		double w = pw[i].w;

		while (j < f->n && pw[j].sx == pw[i].sx && pw[j].sy == pw[i].sy)
			w += pw[j++].w;
		if (pw[i].sx != pw[i].sy) {
			uint32_t fl = pw[i].flow;

			if (routing_paths(r, f->src[fl], f->dst[fl], &ps,
					  err)) {
				rc = -1;
				break;
			}
			*npaths += ps.n;
			for (uint32_t p = 0; p < ps.n; p++)
				for (uint32_t k = ps.off[p]; k < ps.off[p + 1];
				     k++)
					if (ps.links[k] >= first)
						delta[ps.links[k]] += w / ps.n;
		}
		i = j;
	}
	pathset_free(&ps);
	free(pw);
	return rc;
}

/* B_eff of DELTA against capacities CAP: the smallest CAP/delta. */
static double beff(const double *delta, const double *cap, uint32_t nl)
{
	double b = INFINITY;

	for (uint32_t l = 0; l < nl; l++)
		if (delta[l] > 0 && cap[l] / delta[l] < b)
			b = cap[l] / delta[l];
	return b;
}

/* The routing of one strategy: R itself when it is that strategy's (min
 * for direct, vlb for indirect), else a new "min" or "vlb" with R's
 * intra= (*MADE set: the caller destroys it).  NULL with err set on
 * failure. */
static const struct routing *strategy_routing(const struct routing *r,
					      bool direct,
					      struct routing **made,
					      struct err *err)
{
	const char *spec = routing_spec(r);

	*made = NULL;
	if (!strcmp(routing_name(r), direct ? "min" : "vlb"))
		return r;
	*made = routing_create(routing_topo(r),
			       direct ? "min" :
			       strstr(spec, "intra=global") ?
					"vlb:intra=global" :
					"vlb:intra=local",
			       err);
	return *made;
}

static int run_nne(const struct spec *s, const struct routing *r,
		   const struct flows *f, const struct model_opts *o,
		   struct model_result *res, double *load, double *cap,
		   struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t nn = topo_num_nodes(t), nl = topo_num_links(t);
	const char *route = spec_value(s, opts, "route");
	double bi = NAN, bl = NAN, bg = NAN, *tot = NULL, *that = NULL;
	double *delta[2] = { NULL, NULL }, best = -1;
	bool try[2] = { false, false }; /* direct, indirect */
	int rc = 0, pick = -1;

	(void)o;
	if (bw_opt(s, "inject", &bi, err) || bw_opt(s, "local", &bl, err) ||
	    bw_opt(s, "global", &bg, err))
		return -1;
	if (!strcmp(route, "direct")) {
		try[0] = true;
	} else if (!strcmp(route, "indirect")) {
		try[1] = true;
	} else if (!strcmp(route, "auto")) {
		try[0] = strcmp(routing_name(r), "vlb") != 0;
		try[1] = strcmp(routing_name(r), "min") != 0;
	} else {
		return err_set(err, "route=%s: want direct, indirect or auto",
			       route);
	}
	for (uint32_t l = 0; l < nl; l++) {
		enum topo_link_kind k = topo_link(t, l)->kind;
		double v = k == TOPO_LINK_INJECT || k == TOPO_LINK_EJECT ? bi :
			   k == TOPO_LINK_LOCAL				 ? bl :
			   k == TOPO_LINK_GLOBAL			 ? bg :
									   NAN;

		if (!isnan(v))
			cap[l] = v;
	}
	tot = calloc((size_t)nn + 1, sizeof(*tot));
	that = malloc(((size_t)f->n + 1) * sizeof(*that));
	if (!tot || !that) {
		rc = err_nomem(err, "out of memory (%u flows)", f->n);
		goto out;
	}
	for (uint32_t i = 0; i < f->n; i++)
		tot[f->src[i]] += f->demand[i];
	for (uint32_t i = 0; i < f->n; i++)
		that[i] = f->demand[i] / tot[f->src[i]];
	for (int m = 0; m < 2; m++) {
		const struct routing *rm;
		struct routing *made;
		uint64_t np = 0;
		double b;

		if (!try[m])
			continue;
		delta[m] = calloc((size_t)nl + 1, sizeof(double));
		if (!delta[m]) {
			rc = err_nomem(err, "out of memory (%u links)", nl);
			goto out;
		}
		rm = strategy_routing(r, m == 0, &made, err);
		if (!rm || demand(rm, f, that, delta[m], &np, err)) {
			routing_destroy(made);
			rc = -1;
			goto out;
		}
		routing_destroy(made);
		b = beff(delta[m], cap, nl);
		if (b > best) {
			best = b;
			pick = m;
			res->paths_total = np;
		}
	}
	if (!f->n || !isfinite(best))
		best = 0;
	for (uint32_t i = 0; i < f->n; i++)
		res->rates[i] = best * that[i];
	for (uint32_t l = 0; l < nl && pick >= 0; l++)
		load[l] = best * delta[pick][l];
	res->status = MODEL_OPTIMAL;
	res->alpha = res->bound = best;
	res->gap = 0;
	res->solver = pick == 0 ? "direct" : "indirect";
out:
	free(tot);
	free(that);
	free(delta[0]);
	free(delta[1]);
	return rc;
}

/* The options' values, when the spec is read (not first at a run). */
static int check_nne(const struct spec *s, struct err *err)
{
	const char *route = spec_value(s, opts, "route");
	double v = 1;

	if (bw_opt(s, "inject", &v, err) || bw_opt(s, "local", &v, err) ||
	    bw_opt(s, "global", &v, err))
		return -1;
	if (strcmp(route, "direct") && strcmp(route, "indirect") &&
	    strcmp(route, "auto"))
		return err_set(err, "route=%s: want direct, indirect or auto",
			       route);
	return 0;
}

const struct model_ops model_nne = {
	.name = "nne",
	.opts = opts,
	.check = check_nne,
	.run = run_nne,
	.applies = applies,
};
