/* model_hm.c - Hoefler's method (paper 000 Sec. II-C).
 *
 * Each path of a flow is a sub-flow.  u_l counts the sub-flows crossing
 * link l (a path crossing l twice counts twice); a sub-flow gets
 * min over its links of C_l / u_l; a flow the sum of its sub-flows.
 * Demands are ignored.  Two passes over the path links: O(entries).
 *
 * The same on a factored instance (method=factored, the default where
 * the routing factors: model_finput), and kept current as flow sets
 * come and go (model_hm_state, whatif's rates). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

static int hm_solve(const struct model_input *in, const struct model_opts *o,
		    struct model_result *res, struct err *err)
{
	uint32_t *u = calloc((size_t)in->nlinks + 1, sizeof(*u));
	double *share = malloc(((size_t)in->nlinks + 1) * sizeof(*share));
	uint32_t ne = in->path_off[in->npaths];

	if (!u || !share) {
		free(u);
		free(share);
		return err_set(err, "out of memory (hm)");
	}
	for (uint32_t e = 0; e < ne; e++)
		u[in->links[e]]++;
	for (uint32_t l = 0; l < in->nlinks; l++)
		share[l] = u[l] ? in->cap[l] / u[l] : INFINITY;
	for (uint32_t i = 0; i < in->nflows; i++) {
		double sum = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			double m = INFINITY;

			for (uint32_t e = in->path_off[p];
			     e < in->path_off[p + 1]; e++)
				if (share[in->links[e]] < m)
					m = share[in->links[e]];
			res->path_rates[p] = m;
			sum += m;
		}
		res->rates[i] = sum;
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = 1;
	free(u);
	free(share);
	return 0;
}
/* Factored: the sub-flow counts and rates of the paths a factored
 * instance stands for (model_finput), never enumerating them.  Stem s of
 * set m stands for n_m = |segments of m| paths: its links, and its flow's
 * common links, carry n_m sub-flows; every link of segment g of m carries
 * one sub-flow per stem of set m.  A path's share is the smaller of its
 * stem's (c_s, over the stem's and the flow's common links) and its
 * segment's (v_g), so a stem's rate is sum over g of min(c_s, v_g): with
 * m's shares sorted, P[k] + c_s (n_m - k) for the k shares below c_s. */

/* OWN[nlinks] = the sub-flows IN's paths put on each (dense) link. */
static void fcount(const struct model_finput *in, double *own, uint32_t *use)
{
	memset(own, 0, (size_t)in->nlinks * sizeof(*own));
	memset(use, 0, (size_t)in->nmids * sizeof(*use));
	for (uint32_t i = 0; i < in->nflows; i++) {
		double np = 0;

		for (uint32_t s = in->flow_off[i]; s < in->flow_off[i + 1];
		     s++) {
			uint32_t m = in->smid[s];
			double n = in->mid_off[m + 1] - in->mid_off[m];

			np += n;
			use[m]++;
			for (uint32_t e = in->stem_off[s];
			     e < in->stem_off[s + 1]; e++)
				own[in->slinks[e]] += n;
		}
		for (uint32_t e = in->floff[i]; e < in->floff[i + 1]; e++)
			own[in->flinks[e]] += np;
	}
	for (uint32_t m = 0; m < in->nmids; m++)
		for (uint32_t g = in->mid_off[m];
		     use[m] && g < in->mid_off[m + 1]; g++)
			for (uint32_t e = in->seg_off[g];
			     e < in->seg_off[g + 1]; e++)
				own[in->glinks[e]] += use[m];
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sets up to this many segments are summed directly; larger ones are
 * sorted once and searched. */
#define HM_SORT_MIN 16

int model_hm_factored(const struct model_finput *in, const double *base,
		      double *own, double *rates, double *load, struct err *err)
{
	uint32_t nl = in->nlinks;
	double *share = malloc(((size_t)nl + 1) * sizeof(*share));
	double *v = malloc(((size_t)in->nsegs + 1) * sizeof(*v));
	double *srt = malloc(((size_t)in->nsegs + 1) * sizeof(*srt));
	double *pre = malloc(((size_t)in->nsegs + 1) * sizeof(*pre));
	double *gl = load ? calloc((size_t)in->nsegs + 1, sizeof(*gl)) : NULL;
	uint32_t *use = malloc(((size_t)in->nmids + 1) * sizeof(*use));
	int rc = 0;

	if (!share || !v || !srt || !pre || !use || (load && !gl)) {
		rc = err_set(err, "out of memory (hm, %u links)", nl);
		goto out;
	}
	fcount(in, own, use);
	for (uint32_t l = 0; l < nl; l++) {
		double u = own[l] + (base ? base[in->glob[l]] : 0);

		share[l] = u > 0 ? in->cap[l] / u : INFINITY;
	}
	for (uint32_t g = 0; g < in->nsegs; g++) {
		double m = INFINITY;

		for (uint32_t e = in->seg_off[g]; e < in->seg_off[g + 1]; e++)
			if (share[in->glinks[e]] < m)
				m = share[in->glinks[e]];
		v[g] = m;
	}
	/* sorted copies with prefix sums of the large sets */
	for (uint32_t m = 0; m < in->nmids; m++) {
		uint32_t a = in->mid_off[m], b = in->mid_off[m + 1];
		double sum = 0;

		if (b - a <= HM_SORT_MIN || !use[m])
			continue;
		memcpy(srt + a, v + a, (b - a) * sizeof(*srt));
		qsort(srt + a, b - a, sizeof(*srt), cmp_dbl);
		for (uint32_t g = a; g < b; g++) {
			pre[g] = sum;
			sum += srt[g];
		}
	}
	for (uint32_t i = 0; i < in->nflows; i++) {
		double fr = 0;

		for (uint32_t s = in->flow_off[i]; s < in->flow_off[i + 1];
		     s++) {
			uint32_t m = in->smid[s], a = in->mid_off[m],
				 b = in->mid_off[m + 1];
			double c = INFINITY, sr = 0;

			for (uint32_t e = in->floff[i]; e < in->floff[i + 1];
			     e++)
				if (share[in->flinks[e]] < c)
					c = share[in->flinks[e]];
			for (uint32_t e = in->stem_off[s];
			     e < in->stem_off[s + 1]; e++)
				if (share[in->slinks[e]] < c)
					c = share[in->slinks[e]];
			if (b - a <= HM_SORT_MIN || load) {
				for (uint32_t g = a; g < b; g++) {
					double x = v[g] < c ? v[g] : c;

					sr += x;
					if (gl)
						gl[g] += x;
				}
			} else {
				/* the shares below c (srt[a .. lo)) give
				 * themselves, the rest c each */
				uint32_t lo = a, hi = b;

				while (lo < hi) {
					uint32_t mid = lo + (hi - lo) / 2;

					if (srt[mid] < c)
						lo = mid + 1;
					else
						hi = mid;
				}
				sr = (lo < b ? pre[lo] :
					       pre[b - 1] + srt[b - 1]) +
				     c * (double)(b - lo);
			}
			fr += sr;
			for (uint32_t e = in->stem_off[s];
			     load && e < in->stem_off[s + 1]; e++)
				load[in->slinks[e]] += sr;
		}
		rates[i] = fr;
		for (uint32_t e = in->floff[i]; load && e < in->floff[i + 1];
		     e++)
			load[in->flinks[e]] += fr;
	}
	for (uint32_t g = 0; gl && g < in->nsegs; g++)
		for (uint32_t e = in->seg_off[g]; e < in->seg_off[g + 1]; e++)
			load[in->glinks[e]] += gl[g];
out:
	free(share);
	free(v);
	free(srt);
	free(pre);
	free(gl);
	free(use);
	return rc;
}

static const struct spec_opt hm_opts[] = {
	{ .key = "method",
	  .def = "auto",
	  .help = "paths (enumerate every path), factored (stems and\n"
		  "middles where the routing gives them, else each path a\n"
		  "stem) or auto (factored where the routing factors)" },
	{ 0 },
};

static int hm_check(const struct spec *s, struct err *err)
{
	const char *m = spec_value(s, hm_opts, "method");

	if (strcmp(m, "auto") && strcmp(m, "paths") && strcmp(m, "factored"))
		return err_set(err, "method=%s: want auto, paths or factored",
			       m);
	return 0;
}

static bool hm_runs(const struct spec *s, const struct routing *r)
{
	const char *m = spec_value(s, hm_opts, "method");

	if (!strcmp(m, "factored"))
		return true;
	return !strcmp(m, "auto") && routing_middle_keys(r) > 0;
}

/* Factored: the same rates as hm_solve on every path. */
static int hm_run(const struct spec *s, const struct routing *r,
		  const struct flows *f, const struct model_opts *o,
		  struct model_result *res, double *load, double *cap,
		  struct err *err)
{
	struct model_finput in;
	double *own, *ld = NULL;
	int rc;

	(void)s;
	(void)cap;
	if (model_finput_build(r, f, &in, err))
		return -1;
	own = malloc(((size_t)in.nlinks + 1) * sizeof(*own));
	if (o->top_links)
		ld = calloc((size_t)in.nlinks + 1, sizeof(*ld));
	if (!own || (o->top_links && !ld)) {
		rc = err_set(err, "out of memory (hm, %u links)", in.nlinks);
	} else {
		rc = model_hm_factored(&in, NULL, own, res->rates, ld, err);
	}
	if (!rc) {
		for (uint32_t l = 0; ld && l < in.nlinks; l++)
			load[in.glob[l]] = ld[l];
		res->status = MODEL_OPTIMAL;
		res->iterations = 1;
		res->paths_total = in.npaths;
	}
	free(own);
	free(ld);
	model_finput_free(&in);
	return rc;
}

/* The incremental form (model.h): u[l], the sub-flows on each topology
 * link of the flow sets present. */
struct model_hm_state {
	const struct routing *r;
	double *u;
};

struct model_hm_state *model_hm_state_create(const struct routing *r,
					     struct err *err)
{
	struct model_hm_state *h = calloc(1, sizeof(*h));
	uint32_t nl = topo_num_links(routing_topo(r));

	if (h)
		h->u = calloc((size_t)nl + 1, sizeof(*h->u));
	if (!h || !h->u) {
		free(h);
		err_set(err, "out of memory (hm, %u links)", nl);
		return NULL;
	}
	h->r = r;
	return h;
}

void model_hm_state_destroy(struct model_hm_state *h)
{
	if (!h)
		return;
	free(h->u);
	free(h);
}

int model_hm_state_add(struct model_hm_state *h, const struct flows *f,
		       double *rates, struct model_hm_set *set, struct err *err)
{
	struct model_finput in;
	double *own;
	int rc;

	memset(set, 0, sizeof(*set));
	if (!f->n)
		return 0;
	if (model_finput_build(h->r, f, &in, err))
		return -1;
	own = malloc(((size_t)in.nlinks + 1) * sizeof(*own));
	if (!own) {
		model_finput_free(&in);
		return err_set(err, "out of memory (hm, %u links)", in.nlinks);
	}
	rc = model_hm_factored(&in, h->u, own, rates, NULL, err);
	if (!rc) {
		for (uint32_t l = 0; l < in.nlinks; l++)
			h->u[in.glob[l]] += own[l];
		/* the set keeps the instance's link ids and its counts */
		set->n = in.nlinks;
		set->link = in.glob;
		set->cnt = own;
		in.glob = NULL;
		own = NULL;
	}
	free(own);
	model_finput_free(&in);
	return rc;
}

void model_hm_state_remove(struct model_hm_state *h, struct model_hm_set *set)
{
	for (uint32_t l = 0; h && l < set->n; l++)
		h->u[set->link[l]] -= set->cnt[l];
	free(set->link);
	free(set->cnt);
	memset(set, 0, sizeof(*set));
}

const struct model_ops model_hm = {
	.name = "hm",
	.opts = hm_opts,
	.solve = hm_solve,
	.run = hm_run,
	.check = hm_check,
	.runs = hm_runs,
};
