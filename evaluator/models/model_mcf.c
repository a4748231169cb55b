/* model_mcf.c - maximum concurrent flow (paper 000 Sec. II-B) as a path
 * template: every path is a group of one (mult 1) whose column lists the
 * links it crosses, a link crossed twice counted twice.  model_tpl_solve
 * solves it exactly (GLPK) or to a certified gap (mcf_fast.c), by the
 * caller's engine or the LP's size; rate of flow f = alpha * demand_f. */
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

struct tpl {
	struct mcf_tpl lp;
	double *demand, *mult, *cnt;
	uint32_t *col_off, *col_link;
};

static void tpl_free(struct tpl *t)
{
	free(t->demand);
	free(t->mult);
	free(t->cnt);
	free(t->col_off);
	free(t->col_link);
}

/* Path P's links into col_link / cnt from entry K: sorted, each once with
 * its number of crossings.  Returns the next free entry. */
static uint32_t path_column(const struct model_input *in, uint32_t p,
			    struct tpl *t, uint32_t k)
{
	uint32_t k0 = k;

	for (uint32_t i = in->path_off[p]; i < in->path_off[p + 1]; i++) {
		uint32_t l = in->links[i], j = k0;

		while (j < k && t->col_link[j] < l)
			j++;
		if (j < k && t->col_link[j] == l) {
			t->cnt[j] += 1;
			continue;
		}
		memmove(t->col_link + j + 1, t->col_link + j,
			(k - j) * sizeof(*t->col_link));
		memmove(t->cnt + j + 1, t->cnt + j, (k - j) * sizeof(*t->cnt));
		t->col_link[j] = l;
		t->cnt[j] = 1;
		k++;
	}
	return k;
}

static int tpl_build(const struct model_input *in, struct tpl *t,
		     struct err *err)
{
	size_t np = (size_t)in->npaths + 1, nc = in->path_off[in->npaths];
	uint32_t k = 0;

	memset(t, 0, sizeof(*t));
	t->demand = malloc(((size_t)in->nflows + 1) * sizeof(*t->demand));
	t->mult = malloc(np * sizeof(*t->mult));
	t->col_off = malloc(np * sizeof(*t->col_off));
	t->col_link = malloc((nc + 1) * sizeof(*t->col_link));
	t->cnt = malloc((nc + 1) * sizeof(*t->cnt));
	if (!t->demand || !t->mult || !t->col_off || !t->col_link || !t->cnt) {
		tpl_free(t);
		return err_nomem(err, "out of memory (MCF of %u paths)",
				 in->npaths);
	}
	for (uint32_t i = 0; i < in->nflows; i++)
		t->demand[i] = model_demand(in, i);
	for (uint32_t p = 0; p < in->npaths; p++) {
		t->mult[p] = 1;
		t->col_off[p] = k;
		k = path_column(in, p, t, k);
	}
	t->col_off[in->npaths] = k;
	t->lp = (struct mcf_tpl){
		.nlinks = in->nlinks,
		.cap = in->cap,
		.nflows = in->nflows,
		.demand = t->demand,
		.flow_off = in->flow_off,
		.ngroups = in->npaths,
		.mult = t->mult,
		.col_off = t->col_off,
		.col_link = t->col_link,
		.col_cnt = t->cnt,
	};
	return 0;
}

static int mcf_solve(const struct model_input *in, const struct model_opts *o,
		     struct model_result *res, struct err *err)
{
	struct tpl t;
	int rc;

	if (in->nflows == 0) {
		res->status = MODEL_OPTIMAL;
		return 0;
	}
	if (tpl_build(in, &t, err))
		return -1;
	rc = model_tpl_solve(&t.lp, o, res, res->path_rates, err);
	if (!rc)
		model_tpl_rates(&t.lp, res->alpha, res->path_rates, res->rates,
				NULL);
	tpl_free(&t);
	return rc;
}

const struct model_ops model_mcf = {
	.name = "mcf",
	.solve = mcf_solve,
};
