/* model_mmf.c - max-min fair rates (paper 000 Sec. II-A).
 *
 * With one path per flow, MMF-SP is solved by progressive filling
 * (Bertsekas & Gallager): every unfixed flow i grows at rate demand_i per
 * unit of a common level t; a link saturates at the level where its load
 * reaches its capacity; every flow crossing a saturated link is fixed at
 * rate t * demand_i and leaves.  Links wait in a min-heap keyed by the
 * level at which they saturate; a link's key changes only when a flow on it
 * is fixed, so the run costs O(crossings * log L).  Links whose levels lie
 * within a relative 1e-12 of the smallest saturate together.
 *
 * With several paths per flow, the hybrid method below fills the
 * single-path flows and runs the iterative LP of Fig. 1-2 on the
 * multi-path flows only; MODEL_MMF_LP runs the whole iterative LP
 * (model_lp.c), the reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

#define NOPOS UINT32_MAX

struct heap {
	uint32_t n;
	uint32_t *h;   /* link ids */
	uint32_t *pos; /* position of a link in h, NOPOS if absent */
	double *key;
};

static int less(const struct heap *hp, uint32_t a, uint32_t b)
{
	double ka = hp->key[hp->h[a]], kb = hp->key[hp->h[b]];

	return ka < kb || (ka == kb && hp->h[a] < hp->h[b]);
}

static void swap(struct heap *hp, uint32_t a, uint32_t b)
{
	uint32_t t = hp->h[a];

	hp->h[a] = hp->h[b];
	hp->h[b] = t;
	hp->pos[hp->h[a]] = a;
	hp->pos[hp->h[b]] = b;
}

static void sift(struct heap *hp, uint32_t i)
{
	while (i > 0 && less(hp, i, (i - 1) / 2)) {
		swap(hp, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t c = 2 * i + 1, m = i;

		if (c < hp->n && less(hp, c, m))
			m = c;
		if (c + 1 < hp->n && less(hp, c + 1, m))
			m = c + 1;
		if (m == i)
			break;
		swap(hp, i, m);
		i = m;
	}
}

static void heap_set(struct heap *hp, uint32_t l, double key)
{
	hp->key[l] = key;
	if (hp->pos[l] == NOPOS) {
		hp->h[hp->n] = l;
		hp->pos[l] = hp->n++;
	}
	sift(hp, hp->pos[l]);
}

static void heap_remove(struct heap *hp, uint32_t l)
{
	uint32_t i = hp->pos[l];

	if (i == NOPOS)
		return;
	hp->n--;
	if (i != hp->n) {
		swap(hp, i, hp->n);
		hp->pos[l] = NOPOS;
		sift(hp, i);
	}
	hp->pos[l] = NOPOS;
}

int model_filling(const struct model_input *in, struct model_result *res,
		  struct err *err)
{
	size_t nl = (size_t)in->nlinks + 1;
	struct model_incid ic;
	struct heap hp = { 0 };
	double *W = NULL, *R = NULL, *base = NULL;
	uint32_t *cnt = NULL, levels = 0;
	uint8_t *fixed = NULL;
	int rc = 0;

	for (uint32_t i = 0; i < in->nflows; i++)
		if (in->flow_off[i + 1] - in->flow_off[i] != 1)
			return err_set(err,
				       "progressive filling needs exactly "
				       "one path per flow (flow %u has %u)",
				       i,
				       in->flow_off[i + 1] - in->flow_off[i]);
	if (model_incid_build(in, &ic, err))
		return -1;
	W = calloc(nl, sizeof(*W));
	R = malloc(nl * sizeof(*R));
	base = calloc(nl, sizeof(*base));
	cnt = calloc(nl, sizeof(*cnt));
	fixed = calloc((size_t)in->nflows + 1, 1);
	hp.h = malloc(nl * sizeof(*hp.h));
	hp.pos = malloc(nl * sizeof(*hp.pos));
	hp.key = malloc(nl * sizeof(*hp.key));
	if (!W || !R || !base || !cnt || !fixed || !hp.h || !hp.pos ||
	    !hp.key) {
		rc = err_nomem(err, "out of memory (progressive filling)");
		goto out;
	}
	/* path p is flow p (one path each) */
	for (uint32_t l = 0; l < in->nlinks; l++) {
		R[l] = in->cap[l];
		hp.pos[l] = NOPOS;
		for (uint32_t x = ic.off[l]; x < ic.off[l + 1]; x++)
			W[l] += model_demand(in, ic.path[x]);
		cnt[l] = ic.off[l + 1] - ic.off[l];
		if (cnt[l])
			heap_set(&hp, l, R[l] / W[l]);
	}
	while (hp.n) {
		double t = hp.key[hp.h[0]];
		double lim = t + fabs(t) * 1e-12;

		levels++;
		if (!res->alpha && levels == 1)
			res->alpha = t;
		while (hp.n && hp.key[hp.h[0]] <= lim) {
			uint32_t l = hp.h[0];

			heap_remove(&hp, l);
			for (uint32_t x = ic.off[l]; x < ic.off[l + 1]; x++) {
				uint32_t f = ic.path[x];
				double d = model_demand(in, f);

				if (fixed[f])
					continue;
				fixed[f] = 1;
				res->rates[f] = res->path_rates[f] = t * d;
				for (uint32_t e = in->path_off[f];
				     e < in->path_off[f + 1]; e++) {
					uint32_t m = in->links[e];

					/* bring R to level t, drop f's share */
					R[m] -= (t - base[m]) * W[m];
					base[m] = t;
					W[m] -= d;
					cnt[m]--;
					if (hp.pos[m] == NOPOS)
						continue;
					if (cnt[m] == 0)
						heap_remove(&hp, m);
					else
						heap_set(
							&hp, m,
							t + (R[m] > 0 ? R[m] :
									0) /
									(W[m] > 0 ?
										 W[m] :
										 1e-300));
				}
			}
		}
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = levels;
out:
	model_incid_free(&ic);
	free(W);
	free(R);
	free(base);
	free(cnt);
	free(fixed);
	free(hp.h);
	free(hp.pos);
	free(hp.key);
	return rc;
}

/* ---- the hybrid method ----
 * The iterative LP with the single-path flows taken out of it.  An
 * unfixed single-path flow i never needs to exceed the common level t (a
 * solution where it does stays feasible when it is lowered to t), so its
 * rate is w_i t: on link e the unfixed single-path flows load t W_e
 * (W_e = sum of their demands times crossings) and the fixed ones F_e.
 * The LP keeps the multi-path flows' paths and the links they cross
 * (model_mlp in model_impl.h, rows t W_e + sum m x_p <= C_e - F_e); the
 * links crossed by single-path flows only bound t by
 * t_s = min_e (C_e - F_e) / W_e, kept in the heap above.  The level is
 * min(t_s, t_m) with t_m the LP's optimum, and what is saturated there:
 *   t_s < t_m  the single-path flows on the argmin links (filling step);
 *   otherwise  the multi-path flows whose row has a dual > dual_tol, and
 *              the single-path flow i with w_i sum_{e in i} m_e y_e >
 *              dual_tol (y_e the link row duals): y_e > 0 makes e tight
 *              in every optimum, and were i able to exceed t_m, lowering
 *              it back to t_m would give an optimum with e slack.  This
 *              is the dual of i's level row in the full LP (model_lp.c),
 *              so the same test; the duals sum to 1 (the t column), and
 *              should none pass, the largest is fixed.
 * Laziness: fixing flows at a level below t_m keeps the last LP solution
 * feasible, so t_m never falls; while t_s < t_m (last solved), filling
 * steps run without solving.  The LP is solved again (warm, only the
 * changed bounds and the t column reach GLPK) once t_s >= t_m.
 * The multi-path flows' paths come from the last solve, scaled to their
 * fixed rates: every single-path flow fixed after it is at a level at
 * most its t_m, so that solution stays feasible.  Flows without paths
 * get rate 0 at a first level 0, as in the full LP (they force alpha to
 * 0 there).  iterations = LPs solved + filling levels. */
struct hyb {
	const struct model_input *in;
	struct model_result *res;
	struct model_incid ic;
	struct heap hp;
	uint32_t *pflow;		  /* [npaths] flow of the path */
	uint32_t *row_of;		  /* [nlinks] LP row, NOPOS: none */
	uint32_t *row_link, nrows;	  /* [nrows] */
	uint32_t *multi, nmulti, *mk;	  /* multi-path flows; mk [nflows] */
	double *W, *F;			  /* [nlinks] */
	uint32_t *cnt;			  /* [nlinks] unfixed crossings */
	double *rW, *rhs, *lev, *y, *lam; /* LP rows [nrows], flows */
	double *score;			  /* [nflows], zero between uses */
	uint32_t *touched;		  /* [nflows] */
	uint8_t *fixed;			  /* [nflows] */
	uint32_t left, mleft, lpcross;	  /* unfixed: flows, multi-path
					    * flows, single crossings of LP
					    * rows */
};

/* Fix single-path flow I at level T. */
static void fix_single(struct hyb *h, uint32_t i, double t)
{
	const struct model_input *in = h->in;
	uint32_t p = in->flow_off[i];
	double w = model_demand(in, i);

	h->fixed[i] = 1;
	h->left--;
	h->res->rates[i] = h->res->path_rates[p] = w * t;
	for (uint32_t e = in->path_off[p]; e < in->path_off[p + 1]; e++) {
		uint32_t l = in->links[e];

		h->W[l] -= w;
		h->F[l] += w * t;
		if (--h->cnt[l] == 0)
			h->W[l] = 0;
		if (h->row_of[l] != NOPOS) {
			h->lpcross--;
		} else if (h->hp.pos[l] != NOPOS) {
			double k = (in->cap[l] - h->F[l]) / h->W[l];

			if (h->cnt[l] == 0)
				heap_remove(&h->hp, l);
			else
				heap_set(&h->hp, l, k > t ? k : t);
		}
	}
}

/* Saturate the links whose level is within 1e-12 of T (the heap's
 * smallest) and fix their flows. */
static void filling_step(struct hyb *h, double t)
{
	double lim = t + fabs(t) * 1e-12;

	while (h->hp.n && h->hp.key[h->hp.h[0]] <= lim) {
		uint32_t l = h->hp.h[0];

		heap_remove(&h->hp, l);
		for (uint32_t x = h->ic.off[l]; x < h->ic.off[l + 1]; x++) {
			uint32_t i = h->pflow[h->ic.path[x]];

			if (!h->fixed[i])
				fix_single(h, i, t);
		}
	}
}

/* Fix what the LP at level T saturates (see the comment above).  Returns
 * false when the duals name no unfixed flow at all (only numerical
 * trouble can do that: they sum to 1). */
static bool lp_step(struct hyb *h, double t, double tol)
{
	const struct model_input *in = h->in;
	uint32_t nt = 0, nfix = 0, bi = NOPOS;
	double best = -1;

	for (uint32_t r = 0; r < h->nrows; r++) {
		uint32_t l = h->row_link[r];

		if (h->y[r] == 0)
			continue;
		for (uint32_t x = h->ic.off[l]; x < h->ic.off[l + 1]; x++) {
			uint32_t i = h->pflow[h->ic.path[x]];

			if (h->mk[i] != NOPOS || h->fixed[i])
				continue;
			if (h->score[i] == 0)
				h->touched[nt++] = i;
			h->score[i] += h->y[r];
		}
	}
	for (uint32_t k = 0; k < nt; k++) {
		uint32_t i = h->touched[k];
		double s = h->score[i] * model_demand(in, i);

		h->score[i] = 0;
		if (s > best) {
			best = s;
			bi = i;
		}
		if (s > tol) {
			h->fixed[i] = 2;
			nfix++;
		}
	}
	for (uint32_t q = 0; q < h->nmulti; q++) {
		uint32_t i = h->multi[q];

		if (h->fixed[i])
			continue;
		if (h->lam[q] > best) {
			best = h->lam[q];
			bi = i;
		}
		if (h->lam[q] > tol) {
			h->fixed[i] = 2;
			nfix++;
		}
	}
	if (bi == NOPOS)
		return false;
	if (!nfix)
		h->fixed[bi] = 2;
	for (uint32_t k = 0; k < nt; k++)
		if (h->fixed[h->touched[k]] == 2)
			fix_single(h, h->touched[k], t);
	for (uint32_t q = 0; q < h->nmulti; q++) {
		uint32_t i = h->multi[q];

		if (h->fixed[i] != 2)
			continue;
		h->fixed[i] = 1;
		h->lev[q] = t;
		h->res->rates[i] = t * model_demand(in, i);
		h->left--;
		h->mleft--;
	}
	return true;
}

static void hyb_free(struct hyb *h)
{
	model_incid_free(&h->ic);
	free(h->hp.h);
	free(h->hp.pos);
	free(h->hp.key);
	free(h->pflow);
	free(h->row_of);
	free(h->row_link);
	free(h->multi);
	free(h->mk);
	free(h->W);
	free(h->F);
	free(h->cnt);
	free(h->rW);
	free(h->rhs);
	free(h->lev);
	free(h->y);
	free(h->lam);
	free(h->score);
	free(h->touched);
	free(h->fixed);
}

/* Allocate and classify: multi-path flows, LP rows, W, the heap. */
static int hyb_init(struct hyb *h, const struct model_input *in,
		    struct model_result *res, struct err *err)
{
	size_t nl = (size_t)in->nlinks + 1, nf = (size_t)in->nflows + 1;

	memset(h, 0, sizeof(*h));
	h->in = in;
	h->res = res;
	if (model_incid_build(in, &h->ic, err))
		return -1;
	h->hp.h = malloc(nl * sizeof(*h->hp.h));
	h->hp.pos = malloc(nl * sizeof(*h->hp.pos));
	h->hp.key = malloc(nl * sizeof(*h->hp.key));
	h->pflow = malloc(((size_t)in->npaths + 1) * sizeof(*h->pflow));
	h->row_of = malloc(nl * sizeof(*h->row_of));
	h->row_link = malloc(nl * sizeof(*h->row_link));
	h->multi = malloc(nf * sizeof(*h->multi));
	h->mk = malloc(nf * sizeof(*h->mk));
	h->W = calloc(nl, sizeof(*h->W));
	h->F = calloc(nl, sizeof(*h->F));
	h->cnt = calloc(nl, sizeof(*h->cnt));
	h->rW = malloc(nl * sizeof(*h->rW));
	h->rhs = malloc(nl * sizeof(*h->rhs));
	h->y = malloc(nl * sizeof(*h->y));
	h->lev = malloc(nf * sizeof(*h->lev));
	h->lam = malloc(nf * sizeof(*h->lam));
	h->score = calloc(nf, sizeof(*h->score));
	h->touched = malloc(nf * sizeof(*h->touched));
	h->fixed = calloc(nf, 1);
	if (!h->hp.h || !h->hp.pos || !h->hp.key || !h->pflow || !h->row_of ||
	    !h->row_link || !h->multi || !h->mk || !h->W || !h->F || !h->cnt ||
	    !h->rW || !h->rhs || !h->y || !h->lev || !h->lam || !h->score ||
	    !h->touched || !h->fixed)
		return err_nomem(err, "out of memory (mmf)");
	for (uint32_t l = 0; l < in->nlinks; l++)
		h->row_of[l] = h->hp.pos[l] = NOPOS;
	h->left = in->nflows;
	for (uint32_t i = 0; i < in->nflows; i++) {
		uint32_t k = in->flow_off[i + 1] - in->flow_off[i];

		h->mk[i] = NOPOS;
		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
			h->pflow[p] = i;
		if (k < 2)
			continue;
		h->mk[i] = h->nmulti;
		h->lev[h->nmulti] = -1;
		h->multi[h->nmulti++] = i;
		for (uint32_t e = in->path_off[in->flow_off[i]];
		     e < in->path_off[in->flow_off[i + 1]]; e++) {
			uint32_t l = in->links[e];

			h->row_of[l] = 0; /* numbered below */
		}
	}
	/* rows in link order: with every flow multi-path, the LP of
	 * model_lp.c row for row (and so the same simplex runs) */
	for (uint32_t l = 0; l < in->nlinks; l++)
		if (h->row_of[l] != NOPOS) {
			h->row_of[l] = h->nrows;
			h->row_link[h->nrows++] = l;
		}
	h->mleft = h->nmulti;
	for (uint32_t i = 0; i < in->nflows; i++) {
		uint32_t p = in->flow_off[i];

		if (in->flow_off[i + 1] - p != 1)
			continue;
		for (uint32_t e = in->path_off[p]; e < in->path_off[p + 1];
		     e++) {
			uint32_t l = in->links[e];

			h->W[l] += model_demand(in, i);
			h->cnt[l]++;
			h->lpcross += h->row_of[l] != NOPOS;
		}
	}
	for (uint32_t l = 0; l < in->nlinks; l++)
		if (h->row_of[l] == NOPOS && h->cnt[l])
			heap_set(&h->hp, l, in->cap[l] / h->W[l]);
	return 0;
}

/* The LP rows' current W and C - F. */
static void rows_now(struct hyb *h)
{
	for (uint32_t r = 0; r < h->nrows; r++) {
		uint32_t l = h->row_link[r];
		double c = h->in->cap[l] - h->F[l];

		h->rW[r] = h->cnt[l] ? h->W[l] : 0;
		h->rhs[r] = c > 0 ? c : 0;
	}
}

/* Rates after the loop stopped early (time limit, solver failure): the
 * fixed flows at their rates, the unfixed single-path flows at level T
 * (the last fixed level), the unfixed multi-path flows on the last LP
 * solution's paths.  Feasible: see the comment above. */
static void early_rates(struct hyb *h, double t)
{
	const struct model_input *in = h->in;

	for (uint32_t i = 0; i < in->nflows; i++) {
		double s = 0;

		if (h->mk[i] != NOPOS) {
			if (h->fixed[i]) {
				model_settle(in, h->res, i,
					     h->lev[h->mk[i]] *
						     model_demand(in, i));
				continue;
			}
			for (uint32_t p = in->flow_off[i];
			     p < in->flow_off[i + 1]; p++)
				s += h->res->path_rates[p];
			h->res->rates[i] = s;
		} else if (!h->fixed[i] &&
			   in->flow_off[i + 1] > in->flow_off[i]) {
			h->res->rates[i] = model_demand(in, i) * t;
			h->res->path_rates[in->flow_off[i]] = h->res->rates[i];
		}
	}
}

int model_mmf_hybrid(const struct model_input *in, const struct model_opts *o,
		     struct model_result *res, struct err *err)
{
	struct hyb h;
	struct model_mlp *m = NULL;
	struct model_mlp_sol sol = { 0 };
	double tlast = -INFINITY, cur = 0;
	double deadline =
		o->time_limit_ms ? model_now() + o->time_limit_ms * 1e-3 : 0;
	uint32_t lps = 0, levels = 0;
	int st = MODEL_OPTIMAL, rc = 0;
	bool first = true;

	if (hyb_init(&h, in, res, err)) {
		hyb_free(&h);
		return -1;
	}
	/* flows without paths: rate 0, the first level */
	for (uint32_t i = 0; i < in->nflows; i++)
		if (in->flow_off[i + 1] == in->flow_off[i]) {
			h.fixed[i] = 1;
			h.left--;
		}
	if (h.left < in->nflows) {
		levels++;
		first = false;
	}
	if (h.nmulti) {
		rows_now(&h);
		m = model_mlp_create(in, h.nrows, h.row_link, h.rW, h.rhs,
				     h.nmulti, h.multi, deadline, res, err);
		if (!m) {
			hyb_free(&h);
			return -1;
		}
	}
	sol.y = h.y;
	sol.lam = h.lam;
	sol.path_rates = res->path_rates;
	while (h.left) {
		double ts = h.hp.n ? h.hp.key[h.hp.h[0]] : INFINITY;
		double tm = INFINITY;

		if (h.mleft || h.lpcross) {
			if (ts < tlast) {
				tm = tlast;
			} else {
				rows_now(&h);
				rc = model_mlp_solve(m, h.rW, h.rhs, h.lev,
						     &sol, err);
				if (rc)
					break;
				st = sol.status;
				if (st != MODEL_OPTIMAL)
					break;
				lps++;
				tm = tlast = sol.t;
			}
		}
		if (ts == INFINITY && tm == INFINITY) {
			rc = err_set(err, "mmf: %u flows left unbounded",
				     h.left);
			break;
		}
		cur = ts < tm ? ts : tm;
		if (first)
			res->alpha = cur;
		first = false;
		if (ts < tm) {
			levels++;
			filling_step(&h, ts);
		} else if (!lp_step(&h, tm, o->dual_tol)) {
			st = MODEL_FAILED;
			break;
		}
	}
	res->iterations = lps + levels;
	res->status = st;
	if (st == MODEL_OPTIMAL) {
		for (uint32_t k = 0; k < h.nmulti; k++)
			model_settle(in, res, h.multi[k],
				     h.lev[k] * model_demand(in, h.multi[k]));
	} else {
		early_rates(&h, cur);
	}
	model_mlp_free(m);
	hyb_free(&h);
	return rc ? -1 : 0;
}

static bool single_path(const struct model_input *in)
{
	for (uint32_t i = 0; i < in->nflows; i++)
		if (in->flow_off[i + 1] - in->flow_off[i] != 1)
			return false;
	return true;
}

static int mmf_solve(const struct model_input *in, const struct model_opts *o,
		     struct model_result *res, struct err *err)
{
	if (o->mmf_method == MODEL_MMF_FILLING ||
	    (o->mmf_method == MODEL_MMF_AUTO && single_path(in)))
		return model_filling(in, res, err);
	if (o->mmf_method == MODEL_MMF_LP)
		return model_lp_mmf(in, o, res, err);
	return model_mmf_hybrid(in, o, res, err);
}

const struct model_ops model_mmf = {
	.name = "mmf",
	.solve = mmf_solve,
};
