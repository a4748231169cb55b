/* model_core.c - model lookup, instance building and checking, and the
 * statistics every model reports (aggregate, per-flow and per-node
 * rates, Jain's fairness index, most loaded links). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evaluator/models/model_impl.h"

/* How model specs are written: "mmf", "name:key=value,...". */
static const struct spec_syntax model_syntax = { 0, "option" };

size_t model_count(void)
{
	size_t n = 0;

	while (model_table[n])
		n++;
	return n;
}

const char *model_name(size_t i)
{
	return i < model_count() ? model_table[i]->name : NULL;
}

/* The model of SPEC, its options checked (the parsed spec in *S); NULL
 * with err set. */
static const struct model_ops *lookup(const char *spec, struct spec *sp,
				      struct err *err)
{
	struct spec s;
	char known[256];

	if (!spec) {
		err_set(err, "no model given");
		return NULL;
	}
	if (spec_parse(spec, &model_syntax, &s, err)) {
		err_prefix(err, "model '%s'", spec);
		return NULL;
	}
	for (size_t i = 0; model_table[i]; i++) {
		if (strcmp(model_table[i]->name, s.name))
			continue;
		if (spec_check(&s, model_table[i]->opts, &model_syntax, err) ||
		    (model_table[i]->check && model_table[i]->check(&s, err))) {
			err_prefix(err, "model '%s'", s.name);
			return NULL;
		}
		if (sp)
			*sp = s;
		return model_table[i];
	}
	err_set(err, "unknown model '%s' (known: %s)", s.name,
		spec_known_names(model_name, known, sizeof(known)));
	return NULL;
}

int model_check(const char *spec, struct err *err)
{
	return lookup(spec, NULL, err) ? 0 : -1;
}

int model_applies(const char *spec, const struct routing *r, struct err *err)
{
	const struct model_ops *ops = lookup(spec, NULL, err);

	if (!ops)
		return -1;
	if (!r)
		return err_set(err, "model '%s': no routing", ops->name);
	if (ops->applies && ops->applies(r, err))
		return err_prefix(err, "model '%s'", ops->name);
	return 0;
}

int model_check_routing(const char *spec, const struct routing *r,
			struct err *err)
{
	return model_check(spec, err) || model_applies(spec, r, err) ? -1 : 0;
}

bool model_uses_paths(const char *spec, const struct routing *r)
{
	struct spec s;
	const struct model_ops *ops = lookup(spec, &s, NULL);

	if (!ops || !ops->solve)
		return false;
	return !(r && ops->run && ops->runs && ops->runs(&s, r));
}

bool model_hm_incremental(const char *spec)
{
	struct spec s;
	const struct model_ops *ops = lookup(spec, &s, NULL);

	return ops && !strcmp(ops->name, "hm") &&
	       strcmp(spec_value(&s, ops->opts, "method"), "paths") != 0;
}

bool model_hm_auto(const char *spec)
{
	struct spec s;
	const struct model_ops *ops = lookup(spec, &s, NULL);

	return ops && !strcmp(ops->name, "hm") &&
	       !strcmp(spec_value(&s, ops->opts, "method"), "auto");
}

void model_opts_init(struct model_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->top_links = 10;
	o->engine = MODEL_ENGINE_AUTO;
	o->gap = 0.01;
	o->dual_tol = 1e-9;
	o->mmf_method = MODEL_MMF_AUTO;
	o->hm_stem_budget = (size_t)1 << 25;
	o->hm_dfly_memo_max = (size_t)1 << 24;
	o->hm_dfly_rec_max = (size_t)1 << 20;
}

void model_settle(const struct model_input *in, struct model_result *res,
		  uint32_t i, double target)
{
	double s = 0;

	for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
		s += res->path_rates[p];
	for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
		res->path_rates[p] = s > 0 ? res->path_rates[p] * target / s :
					     0;
	res->rates[i] = s > 0 ? target : 0;
}

double model_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- building an instance from a routing ---- */

int model_input_build(const struct routing *r, const struct flows *f,
		      struct model_input *in, struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t nn = topo_num_nodes(t), nl = topo_num_links(t);
	struct pathset ps;
	size_t lcap = 0, pcap = 0, nlk = 0;
	uint32_t np = 0;

	memset(in, 0, sizeof(*in));
	in->owned = 1;
	in->nlinks = nl;
	in->nflows = f->n;
	in->cap = malloc((size_t)nl * sizeof(*in->cap));
	in->demand = malloc(((size_t)f->n + 1) * sizeof(*in->demand));
	in->src = malloc(((size_t)f->n + 1) * sizeof(*in->src));
	in->flow_off = malloc(((size_t)f->n + 1) * sizeof(*in->flow_off));
	if (!in->cap || !in->demand || !in->src || !in->flow_off)
		goto oom;
	for (uint32_t l = 0; l < nl; l++)
		in->cap[l] = topo_link(t, l)->capacity;
	pathset_init(&ps);
	for (uint32_t i = 0; i < f->n; i++) {
		if (f->src[i] >= nn || f->dst[i] >= nn) {
			err_set(err, "flow %u: node %u out of range (%u nodes)",
				i, f->src[i] >= nn ? f->src[i] : f->dst[i], nn);
			goto fail;
		}
		if (f->src[i] == f->dst[i]) {
			err_set(err, "flow %u: self-flow at node %u", i,
				f->src[i]);
			goto fail;
		}
		in->demand[i] = f->demand[i];
		in->src[i] = f->src[i];
		in->flow_off[i] = np;
		if (routing_paths(r, f->src[i], f->dst[i], &ps, err)) {
			err_prefix(err, "flow %u (%u -> %u)", i, f->src[i],
				   f->dst[i]);
			goto fail;
		}
		if ((uint64_t)np + ps.n >= UINT32_MAX ||
		    nlk + ps.off[ps.n] >= UINT32_MAX) {
			err_set(err, "more than 2^32 paths or path links");
			goto fail;
		}
		if (np + ps.n + 1 > pcap) {
			size_t nc = pcap ? pcap * 2 : 1024;
			uint32_t *p;

			while (nc < np + ps.n + 1)
				nc *= 2;
			p = realloc(in->path_off, nc * sizeof(*p));
			if (!p)
				goto oom_ps;
			in->path_off = p;
			pcap = nc;
		}
		if (nlk + ps.off[ps.n] > lcap) {
			size_t nc = lcap ? lcap * 2 : 4096;
			uint32_t *p;

			while (nc < nlk + ps.off[ps.n])
				nc *= 2;
			p = realloc(in->links, nc * sizeof(*p));
			if (!p)
				goto oom_ps;
			in->links = p;
			lcap = nc;
		}
		for (uint32_t p = 0; p < ps.n; p++)
			in->path_off[np + p] = (uint32_t)(nlk + ps.off[p]);
		memcpy(in->links + nlk, ps.links,
		       (size_t)ps.off[ps.n] * sizeof(uint32_t));
		nlk += ps.off[ps.n];
		np += ps.n;
	}
	pathset_free(&ps);
	in->flow_off[f->n] = np;
	in->npaths = np;
	if (!in->path_off) {
		in->path_off = malloc(sizeof(*in->path_off));
		if (!in->path_off)
			goto oom;
	}
	in->path_off[np] = (uint32_t)nlk;
	return 0;
oom_ps:
	err_nomem(err, "out of memory building the path sets");
fail:
	pathset_free(&ps);
	model_input_free(in);
	return -1;
oom:
	model_input_free(in);
	return err_nomem(err, "out of memory building the path sets");
}

void model_input_free(struct model_input *in)
{
	if (!in || !in->owned)
		return;
	free(in->cap);
	free(in->demand);
	free(in->src);
	free(in->flow_off);
	free(in->path_off);
	free(in->links);
	memset(in, 0, sizeof(*in));
}

int model_incid_build(const struct model_input *in, struct model_incid *ic,
		      struct err *err)
{
	uint32_t ne = in->path_off[in->npaths];
	uint32_t *fill;

	ic->off = calloc((size_t)in->nlinks + 1, sizeof(*ic->off));
	ic->path = malloc(((size_t)ne + 1) * sizeof(*ic->path));
	fill = malloc(((size_t)in->nlinks + 1) * sizeof(*fill));
	if (!ic->off || !ic->path || !fill) {
		free(fill);
		model_incid_free(ic);
		return err_nomem(err, "out of memory (link incidence)");
	}
	for (uint32_t e = 0; e < ne; e++)
		ic->off[in->links[e] + 1]++;
	for (uint32_t l = 0; l < in->nlinks; l++)
		ic->off[l + 1] += ic->off[l];
	memcpy(fill, ic->off, (size_t)in->nlinks * sizeof(*fill));
	for (uint32_t p = 0; p < in->npaths; p++)
		for (uint32_t e = in->path_off[p]; e < in->path_off[p + 1]; e++)
			ic->path[fill[in->links[e]]++] = p;
	free(fill);
	return 0;
}

void model_incid_free(struct model_incid *ic)
{
	if (!ic)
		return;
	free(ic->off);
	free(ic->path);
	ic->off = ic->path = NULL;
}

/* ---- checking ---- */

static int check_input(const struct model_input *in, struct err *err)
{
	if (!in->cap && in->nlinks)
		return err_set(err, "instance: no capacities");
	if (!in->flow_off || !in->path_off || (!in->links && in->npaths))
		return err_set(err, "instance: missing path arrays");
	for (uint32_t l = 0; l < in->nlinks; l++)
		if (!isfinite(in->cap[l]) || in->cap[l] < 0)
			return err_set(err,
				       "link %u: capacity %g is not a "
				       "finite number >= 0",
				       l, in->cap[l]);
	if (in->flow_off[0] != 0 || in->flow_off[in->nflows] != in->npaths)
		return err_set(err,
			       "instance: flow_off must run from 0 to "
			       "npaths (%u)",
			       in->npaths);
	for (uint32_t i = 0; i < in->nflows; i++) {
		double d = model_demand(in, i);

		if (in->flow_off[i] > in->flow_off[i + 1])
			return err_set(err, "flow %u: flow_off decreases", i);
		if (!isfinite(d) || d <= 0)
			return err_set(err,
				       "flow %u: demand %g is not a "
				       "positive finite number",
				       i, d);
	}
	if (in->path_off[0] != 0)
		return err_set(err, "instance: path_off[0] must be 0");
	for (uint32_t p = 0; p < in->npaths; p++) {
		if (in->path_off[p] >= in->path_off[p + 1])
			return err_set(err,
				       "path %u: no links (or path_off "
				       "decreases)",
				       p);
		for (uint32_t e = in->path_off[p]; e < in->path_off[p + 1]; e++)
			if (in->links[e] >= in->nlinks)
				return err_set(err,
					       "path %u: link %u out of "
					       "range (%u links)",
					       p, in->links[e], in->nlinks);
	}
	return 0;
}

/* ---- statistics ---- */

/* Per-node injection of the NFLOWS flows with sources SRC (NULL: flow i
 * is node i). */
static int node_stats(const uint32_t *src, uint32_t nflows,
		      struct model_result *res, struct err *err)
{
	uint32_t maxn = 0, cnt = 0;
	double *sum;
	uint8_t *seen;
	double s = 0, s2 = 0, mn = INFINITY, mx = 0;

	for (uint32_t i = 0; i < nflows; i++) {
		uint32_t v = src ? src[i] : i;

		if (v > maxn)
			maxn = v;
	}
	sum = calloc((size_t)maxn + 1, sizeof(*sum));
	seen = calloc((size_t)maxn + 1, 1);
	if (!sum || !seen) {
		free(sum);
		free(seen);
		return err_nomem(err, "out of memory (node statistics)");
	}
	for (uint32_t i = 0; i < nflows; i++) {
		uint32_t v = src ? src[i] : i;

		sum[v] += res->rates[i];
		seen[v] = 1;
	}
	for (uint32_t v = 0; v <= maxn && nflows; v++) {
		if (!seen[v])
			continue;
		cnt++;
		s += sum[v];
		s2 += sum[v] * sum[v];
		if (sum[v] < mn)
			mn = sum[v];
		if (sum[v] > mx)
			mx = sum[v];
	}
	res->nnodes = cnt;
	res->node_min = cnt ? mn : 0;
	res->node_max = mx;
	res->node_mean = cnt ? s / cnt : 0;
	/* Jain's index (sum x)^2 / (n sum x^2); 1 when every node is at 0 */
	res->node_jain = s2 > 0 ? s * s / (cnt * s2) : 1.0;
	free(sum);
	free(seen);
	return 0;
}

/* The NTOP most loaded of NLINKS links with loads LOAD and capacities
 * CAP into res->top. */
static int top_links(const double *load, const double *cap, uint32_t nlinks,
		     struct model_result *res, uint32_t ntop, struct err *err)
{
	if (ntop > nlinks)
		ntop = nlinks;
	res->top = calloc((size_t)ntop + 1, sizeof(*res->top));
	if (!res->top)
		return err_nomem(err, "out of memory (link loads)");
	res->ntop = 0;
	/* keep the NTOP largest by utilisation (ties: lower id) */
	for (uint32_t l = 0; l < nlinks && ntop; l++) {
		double u;
		uint32_t k;

		if (load[l] <= 0)
			continue;
		u = cap[l] > 0 ? load[l] / cap[l] : INFINITY;
		k = res->ntop;
		while (k > 0) {
			const struct model_link_load *q = &res->top[k - 1];
			double uq = q->capacity > 0 ? q->load / q->capacity :
						      INFINITY;

			if (uq >= u)
				break;
			k--;
		}
		if (k >= ntop)
			continue;
		memmove(&res->top[k + 1], &res->top[k],
			(size_t)(res->ntop - k - (res->ntop == ntop)) *
				sizeof(*res->top));
		res->top[k].link = l;
		res->top[k].load = load[l];
		res->top[k].capacity = cap[l];
		if (res->ntop < ntop)
			res->ntop++;
	}
	return 0;
}

static int link_stats(const struct model_input *in, struct model_result *res,
		      uint32_t ntop, struct err *err)
{
	double *load;
	int rc;

	if (!ntop)
		return 0;
	load = calloc((size_t)in->nlinks + 1, sizeof(*load));
	if (!load)
		return err_nomem(err, "out of memory (link loads)");
	for (uint32_t p = 0; p < in->npaths; p++)
		for (uint32_t e = in->path_off[p]; e < in->path_off[p + 1]; e++)
			load[in->links[e]] += res->path_rates[p];
	rc = top_links(load, in->cap, in->nlinks, res, ntop, err);
	free(load);
	return rc;
}

static void flow_stats(struct model_result *res)
{
	double s = 0, mn = INFINITY, mx = 0;

	for (uint32_t i = 0; i < res->nflows; i++) {
		s += res->rates[i];
		if (res->rates[i] < mn)
			mn = res->rates[i];
		if (res->rates[i] > mx)
			mx = res->rates[i];
	}
	res->aggregate = s;
	res->mean_rate = res->nflows ? s / res->nflows : 0;
	res->min_rate = res->nflows ? mn : 0;
	res->max_rate = mx;
}

int model_solve(const char *spec, const struct model_input *in,
		const struct model_opts *opts, struct model_result *res,
		struct err *err)
{
	const struct model_ops *ops;
	struct model_opts def;
	double t0 = model_now();

	memset(res, 0, sizeof(*res));
	ops = lookup(spec, NULL, err);
	if (!ops)
		return -1;
	if (!ops->solve)
		return err_set(err,
			       "model '%s' is built from a routing's "
			       "structure, not from explicit paths",
			       ops->name);
	if (!opts) {
		model_opts_init(&def);
		opts = &def;
	}
	if (check_input(in, err))
		return -1;
	res->model = ops->name;
	res->nflows = in->nflows;
	res->npaths = in->npaths;
	res->paths_total = in->npaths;
	res->rates = calloc((size_t)in->nflows + 1, sizeof(*res->rates));
	res->path_rates =
		calloc((size_t)in->npaths + 1, sizeof(*res->path_rates));
	if (!res->rates || !res->path_rates) {
		model_result_free(res);
		return err_nomem(err, "out of memory (%u flows, %u paths)",
				 in->nflows, in->npaths);
	}
	if (ops->solve(in, opts, res, err) ||
	    node_stats(in->src, in->nflows, res, err) ||
	    link_stats(in, res, opts->top_links, err)) {
		model_result_free(res);
		return -1;
	}
	flow_stats(res);
	res->seconds = model_now() - t0;
	return 0;
}

/* A model built from R's structure (ops->run) on flows F. */
static int run_structural(const struct model_ops *ops, const struct spec *s,
			  const struct routing *r, const struct flows *f,
			  const struct model_opts *opts,
			  struct model_result *res, struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t nn = topo_num_nodes(t), nl = topo_num_links(t);
	struct model_opts def;
	double t0 = model_now(), *load, *cap;
	int rc = -1;

	if (ops->applies && ops->applies(r, err))
		return err_prefix(err, "model '%s'", ops->name);
	for (uint32_t i = 0; i < f->n; i++) {
		if (f->src[i] >= nn || f->dst[i] >= nn)
			return err_set(err,
				       "flow %u: node %u out of range (%u "
				       "nodes)",
				       i,
				       f->src[i] >= nn ? f->src[i] : f->dst[i],
				       nn);
		if (f->src[i] == f->dst[i])
			return err_set(err, "flow %u: self-flow at node %u", i,
				       f->src[i]);
	}
	if (!opts) {
		model_opts_init(&def);
		opts = &def;
	}
	res->model = ops->name;
	res->nflows = f->n;
	res->rates = calloc((size_t)f->n + 1, sizeof(*res->rates));
	load = calloc((size_t)nl + 1, sizeof(*load));
	cap = malloc(((size_t)nl + 1) * sizeof(*cap));
	if (!res->rates || !load || !cap) {
		err_nomem(err, "out of memory (%u flows)", f->n);
		goto out;
	}
	for (uint32_t l = 0; l < nl; l++)
		cap[l] = topo_link(t, l)->capacity;
	if (ops->run(s, r, f, opts, res, load, cap, err) ||
	    node_stats(f->src, f->n, res, err) ||
	    top_links(load, cap, nl, res, opts->top_links, err))
		goto out;
	flow_stats(res);
	res->seconds = model_now() - t0;
	rc = 0;
out:
	if (rc)
		model_result_free(res);
	free(load);
	free(cap);
	return rc;
}

int model_run(const char *spec, const struct routing *r, const struct flows *f,
	      const struct model_opts *opts, struct model_result *res,
	      struct err *err)
{
	const struct model_ops *ops;
	struct model_input in;
	struct spec s;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!r || !f)
		return err_set(err, "model_run: no routing or flows");
	ops = lookup(spec, &s, err);
	if (!ops)
		return -1;
	if (ops->run && (!ops->solve || (ops->runs && ops->runs(&s, r))))
		return run_structural(ops, &s, r, f, opts, res, err);
	if (model_input_build(r, f, &in, err))
		return -1;
	rc = model_solve(spec, &in, opts, res, err);
	model_input_free(&in);
	return rc;
}

void model_result_free(struct model_result *res)
{
	if (!res)
		return;
	free(res->rates);
	free(res->path_rates);
	free(res->top);
	res->rates = res->path_rates = NULL;
	res->top = NULL;
	res->ntop = 0;
}
