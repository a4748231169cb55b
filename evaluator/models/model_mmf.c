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
 * With several paths per flow (or MODEL_MMF_LP), the iterative LP of
 * Fig. 1-2 runs in model_lp.c. */
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
		rc = err_set(err, "out of memory (progressive filling)");
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
	return model_lp_mmf(in, o, res, err);
}

const struct model_ops model_mmf = {
	.name = "mmf",
	.solve = mmf_solve,
};
