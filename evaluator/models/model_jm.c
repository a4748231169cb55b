/* model_jm.c - Jain's method as paper 000 Sec. II-D describes it.
 *
 * Every path is a sub-flow.  Round after round, HM runs on the residual
 * graph G^R over the unsaturated paths: with R_l the residual capacity of
 * link l and u_l the number of unsaturated path crossings of l, every
 * unsaturated path p gets the increment min_{l in p} R_l / u_l; the
 * increments are added to the paths (G^A) and taken off R (G^R).  A link
 * whose residual is at most 1e-12 saturates every path on it.  The
 * link(s) with the smallest share R_l / u_l set the increment of all their
 * paths, so their residual is exactly 0: they are saturated explicitly
 * (rounding cannot leave them at 1e-17), which guarantees every round
 * retires at least one path.  Demands are ignored; rate = sum of paths.
 * With opts->need_flows = N the rounds stop once no path of flows
 * 0 .. N-1 is unsaturated: their path rates are final then (later rounds
 * only add to unsaturated paths), so their rates are those of the full
 * run, bit for bit.
 *
 * Cost per round: O(L + crossings of the unsaturated paths): one pass to
 * add the increments, one to retire the paths that hit a saturated link;
 * flat arrays only, no link->path lists. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

#define JM_EPS 1e-12

struct jm {
	double *R, *share;
	uint32_t *u;   /* unsaturated crossings per link */
	uint8_t *sat;  /* link saturated */
	uint32_t *act; /* unsaturated path ids, in path order */
	uint32_t nact;
};

static void jm_free(struct jm *j)
{
	free(j->R);
	free(j->share);
	free(j->u);
	free(j->sat);
	free(j->act);
}

/* Drop every path that crosses a saturated link from the unsaturated list
 * (one sequential pass; no link->path incidence needed). */
static void retire(struct jm *j, const struct model_input *in)
{
	uint32_t w = 0;

	for (uint32_t a = 0; a < j->nact; a++) {
		uint32_t p = j->act[a];
		uint32_t e0 = in->path_off[p], e1 = in->path_off[p + 1];
		uint32_t e = e0;

		while (e < e1 && !j->sat[in->links[e]])
			e++;
		if (e == e1) {
			j->act[w++] = p;
			continue;
		}
		for (e = e0; e < e1; e++)
			j->u[in->links[e]]--;
	}
	j->nact = w;
}

static int jm_solve(const struct model_input *in, const struct model_opts *o,
		    struct model_result *res, struct err *err)
{
	struct jm j;
	/* paths below this id belong to the needed flows */
	uint32_t pneed = o->need_flows && o->need_flows <= in->nflows ?
				 in->flow_off[o->need_flows] :
				 in->npaths;
	size_t nl = (size_t)in->nlinks + 1, np = (size_t)in->npaths + 1;
	uint32_t ne = in->path_off[in->npaths], rounds = 0;
	bool any;

	memset(&j, 0, sizeof(j));
	j.R = malloc(nl * sizeof(*j.R));
	j.share = malloc(nl * sizeof(*j.share));
	j.u = calloc(nl, sizeof(*j.u));
	j.sat = calloc(nl, 1);
	j.act = malloc(np * sizeof(*j.act));
	if (!j.R || !j.share || !j.u || !j.sat || !j.act) {
		jm_free(&j);
		return err_nomem(err, "out of memory (jm)");
	}
	for (uint32_t e = 0; e < ne; e++)
		j.u[in->links[e]]++;
	any = false;
	for (uint32_t l = 0; l < in->nlinks; l++) {
		j.R[l] = in->cap[l];
		/* links that start at (about) zero capacity */
		if (j.u[l] && j.R[l] <= JM_EPS)
			any = (j.sat[l] = 1);
	}
	for (uint32_t p = 0; p < in->npaths; p++)
		j.act[p] = p;
	j.nact = in->npaths;
	if (any)
		retire(&j, in);

	/* act[] is in path order: act[0] is the first unsaturated path */
	while (j.nact && j.act[0] < pneed) {
		double gmin = INFINITY;

		rounds++;
		for (uint32_t l = 0; l < in->nlinks; l++) {
			j.share[l] = j.u[l] ? j.R[l] / j.u[l] : INFINITY;
			if (j.share[l] < gmin)
				gmin = j.share[l];
		}
		for (uint32_t a = 0; a < j.nact; a++) {
			uint32_t p = j.act[a];
			uint32_t e0 = in->path_off[p], e1 = in->path_off[p + 1];
			double inc = INFINITY;

			for (uint32_t e = e0; e < e1; e++)
				if (j.share[in->links[e]] < inc)
					inc = j.share[in->links[e]];
			res->path_rates[p] += inc;
			for (uint32_t e = e0; e < e1; e++)
				j.R[in->links[e]] -= inc;
		}
		/* saturated: residual <= 1e-12, or the link(s) that set the
		 * smallest increment (exactly 0 in exact arithmetic) */
		for (uint32_t l = 0; l < in->nlinks; l++) {
			if (!j.u[l] || j.sat[l])
				continue;
			if (j.share[l] <= gmin)
				j.R[l] = 0;
			if (j.R[l] <= JM_EPS)
				j.sat[l] = 1;
		}
		retire(&j, in);
	}
	for (uint32_t i = 0; i < in->nflows; i++) {
		double s = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
			s += res->path_rates[p];
		res->rates[i] = s;
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = rounds;
	jm_free(&j);
	return 0;
}

/* ---- Jain's method on stems and middles ----
 *
 * The paths of stem s are s + g for every segment g of its middle set m,
 * so a path is unsaturated exactly when its stem and its segment both
 * are (no saturated link on either): the unsaturated paths of s are its
 * unsaturated segments, and per round
 *   increment(s + g) = min(c_s, v_g),
 * c_s the smallest share on s's links, v_g on g's (infinity without
 * links).  With m's unsaturated v_g sorted and prefix-summed, stem s's
 * rate increment sum_g min(c_s, v_g) = P[k] + c_s (n - k), k = #{v_g <
 * c_s}, comes from one bisection; the load on segment j (in sorted
 * order) is v_j #{s : k_s > j} + sum_{s : k_s <= j} c_s, from a
 * histogram of the stems' k.  A round costs O(links + stem links +
 * segment links) instead of O(path links); the crossings u_l (how many
 * unsaturated paths cross l) and the retiring of paths follow the same
 * product: a dying stem takes all n of its paths, a dying segment the
 * paths of every surviving stem of its set. */

struct vpair;

struct fjm {
	double *R, *share;
	uint64_t *u;
	uint8_t *sat;
	uint32_t *act, nact; /* unsaturated stems, in stem order */
	/* per middle set */
	uint32_t *nt, *nm; /* unsaturated stems and segments */
	uint32_t *dt, *dm, *gone;
	uint32_t *live, nlive; /* sets with nt and nm > 0 */
	/* per segment slot mid_off[m] + j, j < nm[m] */
	uint32_t *aseg;	   /* m's unsaturated segments */
	double *sval;	   /* their shares, sorted */
	uint32_t *sseg;	   /* the segment of each sorted share */
	struct vpair *tmp; /* [largest set] */
	uint8_t *dying;	   /* per segment */
	/* per slot mid_off[m] + m + k, k <= nm[m] */
	double *pre, *csum;
	uint32_t *cnt;
};

static void fjm_free(struct fjm *j)
{
	free(j->R);
	free(j->share);
	free(j->u);
	free(j->sat);
	free(j->act);
	free(j->nt);
	free(j->nm);
	free(j->dt);
	free(j->dm);
	free(j->gone);
	free(j->live);
	free(j->aseg);
	free(j->sval);
	free(j->sseg);
	free(j->tmp);
	free(j->dying);
	free(j->pre);
	free(j->csum);
	free(j->cnt);
}

static inline bool any_sat(const struct fjm *j, const uint32_t *l, uint32_t a,
			   uint32_t b)
{
	for (uint32_t e = a; e < b; e++)
		if (j->sat[l[e]])
			return true;
	return false;
}

static inline void u_sub(struct fjm *j, const uint32_t *l, uint32_t a,
			 uint32_t b, uint64_t n)
{
	for (uint32_t e = a; e < b; e++)
		j->u[l[e]] -= n;
}

/* Drop the paths that cross a saturated link (see above). */
static void fretire(struct fjm *j, const struct model_finput *in)
{
	uint32_t w = 0;
	uint64_t lost = 0;
	bool fdead = false;

	for (uint32_t q = 0; q < j->nlive; q++) {
		uint32_t m = j->live[q], o = in->mid_off[m];

		for (uint32_t x = 0; x < j->nm[m]; x++) {
			uint32_t g = j->aseg[o + x];

			j->dying[g] = any_sat(j, in->glinks, in->seg_off[g],
					      in->seg_off[g + 1]);
			j->dm[m] += j->dying[g];
		}
	}
	/* stems in stem order, so flow by flow; a flow's common links lose
	 * every path its stems lose */
	for (uint32_t a = 0, f = UINT32_MAX; a <= j->nact; a++) {
		uint32_t s = a < j->nact ? j->act[a] : 0, m = in->smid[s];
		uint32_t e0 = in->stem_off[s], e1 = in->stem_off[s + 1];

		if (a == j->nact || in->sflow[s] != f) {
			if (f != UINT32_MAX && lost)
				u_sub(j, in->flinks, in->floff[f],
				      in->floff[f + 1], lost);
			if (a == j->nact)
				break;
			f = in->sflow[s];
			lost = 0;
			fdead = any_sat(j, in->flinks, in->floff[f],
					in->floff[f + 1]);
		}
		if (fdead || any_sat(j, in->slinks, e0, e1)) {
			u_sub(j, in->slinks, e0, e1, j->nm[m]);
			lost += j->nm[m];
			j->dt[m]++;
			continue;
		}
		if (j->dm[m]) {
			u_sub(j, in->slinks, e0, e1, j->dm[m]);
			lost += j->dm[m];
			if (j->dm[m] == j->nm[m]) { /* no path left */
				j->gone[m]++;
				continue;
			}
		}
		j->act[w++] = s;
	}
	j->nact = w;
	w = 0;
	for (uint32_t q = 0; q < j->nlive; q++) {
		uint32_t m = j->live[q], o = in->mid_off[m], keep = 0;

		for (uint32_t x = 0; x < j->nm[m]; x++) {
			uint32_t g = j->aseg[o + x];
			uint64_t n = j->dt[m] +
				     (j->dying[g] ? j->nt[m] - j->dt[m] : 0);

			if (n)
				u_sub(j, in->glinks, in->seg_off[g],
				      in->seg_off[g + 1], n);
			if (j->dying[g])
				j->dying[g] = 0;
			else
				j->aseg[o + keep++] = g;
		}
		j->nm[m] = keep;
		j->nt[m] -= j->dt[m] + j->gone[m];
		j->dt[m] = j->dm[m] = j->gone[m] = 0;
		if (j->nm[m] && j->nt[m])
			j->live[w++] = m;
	}
	j->nlive = w;
}

struct vpair {
	double v;
	uint32_t g;
};

static int cmp_vpair(const void *a, const void *b)
{
	const struct vpair *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

/* Sort N (share, segment) pairs by share.  They arrive in last round's
 * sorted order and shares move little between rounds, so insertion sort
 * is about linear; past 64 moves per pair (a Cascade's middle sets hold
 * up to thousands of segments) it gives up for qsort through TMP, which
 * bounds the worst case at O(n log n) plus the budget. */
static void sort_pairs(double *v, uint32_t *g, uint32_t n, struct vpair *tmp)
{
	uint64_t moves = 0, budget = 64 * (uint64_t)n + 4096;

	for (uint32_t a = 1; a < n; a++) {
		double x = v[a];
		uint32_t y = g[a], b = a;

		for (; b > 0 && v[b - 1] > x; b--) {
			v[b] = v[b - 1];
			g[b] = g[b - 1];
		}
		v[b] = x;
		g[b] = y;
		moves += a - b;
		if (moves > budget) {
			for (uint32_t k = 0; k < n; k++)
				tmp[k] = (struct vpair){ v[k], g[k] };
			qsort(tmp, n, sizeof(*tmp), cmp_vpair);
			for (uint32_t k = 0; k < n; k++) {
				v[k] = tmp[k].v;
				g[k] = tmp[k].g;
			}
			return;
		}
	}
}

/* One round's increments: rates, and the residuals taken off. */
static void fround(struct fjm *j, const struct model_finput *in, double *rates,
		   double *load)
{
	double finc = 0, fc = INFINITY;

	for (uint32_t q = 0; q < j->nlive; q++) {
		uint32_t m = j->live[q], o = in->mid_off[m], h = o + m;
		uint32_t n = j->nm[m];

		for (uint32_t x = 0; x < n; x++) {
			uint32_t g = j->aseg[o + x];
			double v = INFINITY;

			for (uint32_t e = in->seg_off[g];
			     e < in->seg_off[g + 1]; e++)
				if (j->share[in->glinks[e]] < v)
					v = j->share[in->glinks[e]];
			j->sval[o + x] = v;
			j->sseg[o + x] = g;
		}
		sort_pairs(j->sval + o, j->sseg + o, n, j->tmp);
		/* next round starts from this order */
		memcpy(j->aseg + o, j->sseg + o, n * sizeof(*j->aseg));
		j->pre[h] = 0;
		for (uint32_t x = 0; x < n; x++) {
			double v = j->sval[o + x];

			/* an infinite share (a segment without links) is
			 * never below a stem's, so never summed */
			j->pre[h + x + 1] =
				j->pre[h + x] + (v < INFINITY ? v : 0);
			j->cnt[h + x] = 0;
			j->csum[h + x] = 0;
		}
		j->cnt[h + n] = 0;
		j->csum[h + n] = 0;
	}
	for (uint32_t a = 0, f = UINT32_MAX; a <= j->nact; a++) {
		uint32_t s = a < j->nact ? j->act[a] : 0, m = in->smid[s];
		uint32_t o = in->mid_off[m], h = o + m, n = j->nm[m], lo = 0;
		uint32_t e0 = in->stem_off[s], e1 = in->stem_off[s + 1];
		double c, inc;

		if (a == j->nact || in->sflow[s] != f) {
			/* the previous flow's common links carry its whole
			 * increment */
			for (uint32_t e = f != UINT32_MAX ? in->floff[f] : 0;
			     f != UINT32_MAX && e < in->floff[f + 1]; e++) {
				j->R[in->flinks[e]] -= finc;
				if (load)
					load[in->flinks[e]] += finc;
			}
			if (a == j->nact)
				break;
			f = in->sflow[s];
			finc = 0;
			fc = INFINITY;
			for (uint32_t e = in->floff[f]; e < in->floff[f + 1];
			     e++)
				if (j->share[in->flinks[e]] < fc)
					fc = j->share[in->flinks[e]];
		}
		c = fc;
		for (uint32_t e = e0; e < e1; e++)
			if (j->share[in->slinks[e]] < c)
				c = j->share[in->slinks[e]];
		if (n) { /* lo = #{v < c}, branch-free (the compares are
			  * unpredictable) */
			const double *b = j->sval + o;

			for (uint32_t len = n; len > 1;) {
				uint32_t half = len / 2;

				b = b[half] < c ? b + half : b;
				len -= half;
			}
			lo = (uint32_t)(b - (j->sval + o)) + (b[0] < c);
		}
		inc = j->pre[h + lo] + c * (n - lo);
		rates[f] += inc;
		finc += inc;
		for (uint32_t e = e0; e < e1; e++)
			j->R[in->slinks[e]] -= inc;
		if (load)
			for (uint32_t e = e0; e < e1; e++)
				load[in->slinks[e]] += inc;
		j->cnt[h + lo]++;
		j->csum[h + lo] += c;
	}
	for (uint32_t q = 0; q < j->nlive; q++) {
		uint32_t m = j->live[q], o = in->mid_off[m], h = o + m;
		uint32_t below = 0;
		double cs = 0;

		for (uint32_t x = 0; x < j->nm[m]; x++) {
			uint32_t g = j->sseg[o + x];
			double ld;

			below += j->cnt[h + x];
			cs += j->csum[h + x];
			if (in->seg_off[g] == in->seg_off[g + 1])
				continue;
			ld = j->sval[o + x] * (j->nt[m] - below) + cs;
			for (uint32_t e = in->seg_off[g];
			     e < in->seg_off[g + 1]; e++)
				j->R[in->glinks[e]] -= ld;
			if (load)
				for (uint32_t e = in->seg_off[g];
				     e < in->seg_off[g + 1]; e++)
					load[in->glinks[e]] += ld;
		}
	}
}

int model_jm_factored(const struct model_finput *in, uint32_t need_flows,
		      double *rates, double *load, uint32_t *rounds,
		      struct err *err)
{
	size_t nl = (size_t)in->nlinks + 1, ns = (size_t)in->nstems + 1;
	size_t nm = (size_t)in->nmids + 1, ng = (size_t)in->nsegs + 1;
	uint32_t sneed = need_flows && need_flows <= in->nflows ?
				 in->flow_off[need_flows] :
				 in->nstems;
	struct fjm j;
	bool any = false;
	uint32_t maxset = 0;

	*rounds = 0;
	memset(&j, 0, sizeof(j));
	j.R = malloc(nl * sizeof(*j.R));
	j.share = malloc(nl * sizeof(*j.share));
	j.u = calloc(nl, sizeof(*j.u));
	j.sat = calloc(nl, 1);
	j.act = malloc(ns * sizeof(*j.act));
	j.nt = calloc(nm, sizeof(*j.nt));
	j.nm = calloc(nm, sizeof(*j.nm));
	j.dt = calloc(nm, sizeof(*j.dt));
	j.dm = calloc(nm, sizeof(*j.dm));
	j.gone = calloc(nm, sizeof(*j.gone));
	j.live = malloc(nm * sizeof(*j.live));
	j.aseg = malloc(ng * sizeof(*j.aseg));
	j.sval = malloc(ng * sizeof(*j.sval));
	j.sseg = malloc(ng * sizeof(*j.sseg));
	for (uint32_t m = 0; m < in->nmids; m++)
		if (in->mid_off[m + 1] - in->mid_off[m] > maxset)
			maxset = in->mid_off[m + 1] - in->mid_off[m];
	j.tmp = malloc(((size_t)maxset + 1) * sizeof(*j.tmp));
	j.dying = calloc(ng, 1);
	j.pre = malloc((ng + nm) * sizeof(*j.pre));
	j.csum = malloc((ng + nm) * sizeof(*j.csum));
	j.cnt = malloc((ng + nm) * sizeof(*j.cnt));
	if (!j.R || !j.share || !j.u || !j.sat || !j.act || !j.nt || !j.nm ||
	    !j.dt || !j.dm || !j.gone || !j.live || !j.aseg || !j.sval ||
	    !j.sseg || !j.tmp || !j.dying || !j.pre || !j.csum || !j.cnt) {
		fjm_free(&j);
		return err_nomem(err, "out of memory (jm, %u stems)",
				 in->nstems);
	}
	memset(rates, 0, (size_t)in->nflows * sizeof(*rates));
	if (load)
		memset(load, 0, (size_t)in->nlinks * sizeof(*load));
	for (uint32_t m = 0; m < in->nmids; m++) {
		j.nm[m] = in->mid_off[m + 1] - in->mid_off[m];
		for (uint32_t g = in->mid_off[m]; g < in->mid_off[m + 1]; g++)
			j.aseg[g] = g;
	}
	for (uint32_t s = 0; s < in->nstems; s++) {
		uint32_t m = in->smid[s], f = in->sflow[s];

		j.act[j.nact++] = s;
		j.nt[m]++;
		for (uint32_t e = in->stem_off[s]; e < in->stem_off[s + 1]; e++)
			j.u[in->slinks[e]] += j.nm[m];
		for (uint32_t e = in->floff[f]; e < in->floff[f + 1]; e++)
			j.u[in->flinks[e]] += j.nm[m];
	}
	for (uint32_t m = 0; m < in->nmids; m++) {
		for (uint32_t g = in->mid_off[m]; g < in->mid_off[m + 1]; g++)
			for (uint32_t e = in->seg_off[g];
			     e < in->seg_off[g + 1]; e++)
				j.u[in->glinks[e]] += j.nt[m];
		if (j.nt[m] && j.nm[m])
			j.live[j.nlive++] = m;
	}
	for (uint32_t l = 0; l < in->nlinks; l++) {
		j.R[l] = in->cap[l];
		if (j.u[l] && j.R[l] <= JM_EPS)
			any = (j.sat[l] = 1);
	}
	if (any)
		fretire(&j, in);
	while (j.nact && j.act[0] < sneed) {
		double gmin = INFINITY;

		(*rounds)++;
		for (uint32_t l = 0; l < in->nlinks; l++) {
			j.share[l] = j.u[l] ? j.R[l] / (double)j.u[l] :
					      INFINITY;
			if (j.share[l] < gmin)
				gmin = j.share[l];
		}
		fround(&j, in, rates, load);
		/* saturated: residual <= 1e-12, or the link(s) that set the
		 * smallest increment (exactly 0 in exact arithmetic) */
		for (uint32_t l = 0; l < in->nlinks; l++)
			if (j.u[l] && !j.sat[l] &&
			    (j.share[l] <= gmin || j.R[l] <= JM_EPS))
				j.sat[l] = 1;
		fretire(&j, in);
	}
	fjm_free(&j);
	return 0;
}

/* ---- the model ---- */

static const struct spec_opt jm_opts[] = {
	{ .key = "method",
	  .def = "auto",
	  .help = "paths (enumerate every path), factored (stems and\n"
		  "middles, dragonfly and Cascade under vlb or ugal) or auto\n"
		  "(factored where the routing allows)" },
	{ 0 },
};

static int jm_check(const struct spec *s, struct err *err)
{
	return model_method_check(s, jm_opts, err);
}

/* method=factored where the routing does not factor: jm_run says why */
static bool jm_runs(const struct spec *s, const struct routing *r)
{
	return model_method_factored(s, jm_opts, r);
}

/* Factored: the same rates as jm_solve on every path, from stems and
 * middles (model_finput_build). */
static int jm_run(const struct spec *s, const struct routing *r,
		  const struct flows *f, const struct model_opts *o,
		  struct model_result *res, double *load, double *cap,
		  struct err *err)
{
	struct model_finput in;
	double *ld = NULL;
	uint32_t rounds;
	int rc;

	(void)s;
	(void)cap;
	if (!routing_middle_keys(r))
		return err_set(err,
			       "method=factored: routing %s gives no "
			       "factored path sets (only dragonfly and "
			       "Cascade under vlb or ugal do)",
			       routing_spec(r));
	if (model_finput_build(r, f, &in, err))
		return -1;
	if (o->top_links) {
		ld = calloc((size_t)in.nlinks + 1, sizeof(*ld));
		if (!ld) {
			model_finput_free(&in);
			return err_nomem(err, "out of memory");
		}
	}
	rc = model_jm_factored(&in, o->need_flows, res->rates, ld, &rounds,
			       err);
	if (!rc) {
		for (uint32_t l = 0; ld && l < in.nlinks; l++)
			load[in.glob[l]] = ld[l];
		res->status = MODEL_OPTIMAL;
		res->iterations = rounds;
		res->paths_total = in.npaths;
	}
	free(ld);
	model_finput_free(&in);
	return rc;
}

const struct model_ops model_jm = {
	.name = "jm",
	.opts = jm_opts,
	.solve = jm_solve,
	.run = jm_run,
	.check = jm_check,
	.runs = jm_runs,
};
