/* test_ugal.c - paper 002's UGAL-G Models 0-5 (ugal_tpl.h, model_ugal.c).
 *
 * Second method for the structure: for every flow of small dragonflies
 * and Cascades, the groups built from the structure (mult and per-link
 * crossing counts) equal those obtained by enumerating routing_paths and
 * grouping the paths by the model's rule.  Then the LPs: Model 0 against
 * the path-based mcf model, Model 3 against the template built by
 * enumeration, the nesting of the six models, the coincidences paper 002
 * states, a hand-solved instance, the limit and the errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "evaluator/models/model.h"
#include "evaluator/models/ugal_tpl.h"
#include "evaluator/traffic/flows.h"
#include "tests/unit/fixtures.h"
#include "topo/routing.h"
#include "topo/topo.h"

/* ---- the reference: enumerate, then group ---- */

/* One group: key (class, hops or UGAL_HOPS_ANY), mult, sorted column. */
struct gcol {
	int cls, hops;
	double mult;
	uint32_t n;
	uint32_t *link;
	double *cnt;
};

static int cmp_gcol(const void *x, const void *y)
{
	const struct gcol *a = x, *b = y;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->hops != b->hops)
		return a->hops < b->hops ? -1 : 1;
	if (a->mult != b->mult)
		return a->mult < b->mult ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (uint32_t k = 0; k < a->n; k++) {
		if (a->link[k] != b->link[k])
			return a->link[k] < b->link[k] ? -1 : 1;
		if (a->cnt[k] != b->cnt[k])
			return a->cnt[k] < b->cnt[k] ? -1 : 1;
	}
	return 0;
}

static void gcols_free(struct gcol *g, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		free(g[k].link);
		free(g[k].cnt);
	}
	free(g);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Column of a group from the links of its paths, L[0..n) (sorted here;
 * a counting sort over the NL links when that is cheaper): each link with
 * its number of occurrences. */
static void gcol_take(struct gcol *g, uint32_t *l, uint32_t n, uint32_t nl)
{
	if (n > nl / 8) {
		uint32_t *c = calloc(nl, sizeof(*c)), k = 0;

		cr_assert(c);
		for (uint32_t i = 0; i < n; i++)
			c[l[i]]++;
		for (uint32_t x = 0; x < nl; x++)
			while (c[x]--)
				l[k++] = x;
		free(c);
	} else {
		qsort(l, n, sizeof(*l), cmp_u32);
	}
	g->link = malloc((n + 1) * sizeof(*g->link));
	g->cnt = malloc((n + 1) * sizeof(*g->cnt));
	cr_assert(g->link && g->cnt);
	g->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (g->n && g->link[g->n - 1] == l[i]) {
			g->cnt[g->n - 1] += 1;
			continue;
		}
		g->link[g->n] = l[i];
		g->cnt[g->n++] = 1;
	}
}

/* The groups of flow SRC -> DST under Model MODEL, by enumeration: every
 * path of routing_paths, grouped per path, per (class, hops) or per
 * class.  Returns the groups (sorted) and their number in *NG. */
static struct gcol *enum_groups(const struct routing *r, uint32_t src,
				uint32_t dst, unsigned model, uint32_t *ng)
{
	const struct topo *t = routing_topo(r);
	enum ugal_ctl ctl[2];
	struct pathset ps;
	struct err e = { "" };
	struct gcol *g;
	uint32_t n = 0, *of, *fill, *links;

	cr_assert_eq(ugal_control(model, &ctl[PATH_MIN], &ctl[PATH_VLB]), 0);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, src, dst, &ps, &e), 0, "%s", e.msg);
	g = calloc(ps.n + 1, sizeof(*g));
	of = malloc((ps.n + 1) * sizeof(*of));	/* group of each path */
	fill = calloc(ps.n + 2, sizeof(*fill)); /* links per group */
	links = malloc((ps.off[ps.n] + 1) * sizeof(*links));
	cr_assert(g && of && fill && links);
	for (uint32_t p = 0; p < ps.n; p++) {
		int cls = ps.cls[p];
		int hops = (int)pathset_hops(&ps, t, p);
		uint32_t k = n;

		if (ctl[cls] == UGAL_CTL_ALL)
			hops = UGAL_HOPS_ANY;
		if (ctl[cls] != UGAL_CTL_PATH)
			for (k = 0; k < n; k++)
				if (g[k].cls == cls && g[k].hops == hops)
					break;
		if (k == n) {
			g[n].cls = cls;
			g[n].hops = hops;
			n++;
		}
		g[k].mult += 1;
		of[p] = k;
		fill[k + 2] += ps.off[p + 1] - ps.off[p];
	}
	/* counting sort of the path links by group */
	for (uint32_t k = 0; k < n; k++)
		fill[k + 2] += fill[k + 1];
	for (uint32_t p = 0; p < ps.n; p++)
		for (uint32_t x = ps.off[p]; x < ps.off[p + 1]; x++)
			links[fill[of[p] + 1]++] = ps.links[x];
	for (uint32_t k = 0; k < n; k++)
		gcol_take(&g[k], links + fill[k], fill[k + 1] - fill[k],
			  topo_num_links(t));
	free(of);
	free(fill);
	free(links);
	pathset_free(&ps);
	qsort(g, n, sizeof(*g), cmp_gcol);
	*ng = n;
	return g;
}

/* The groups of flow F of a built template, sorted. */
static struct gcol *tpl_groups(const struct ugal_tpl *tp, uint32_t f,
			       uint32_t *ng)
{
	const struct mcf_tpl *p = &tp->lp;
	uint32_t n = p->flow_off[f + 1] - p->flow_off[f];
	struct gcol *g = calloc(n + 1, sizeof(*g));

	cr_assert(g);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t q = p->flow_off[f] + k;
		uint32_t len = p->col_off[q + 1] - p->col_off[q];

		g[k].cls = tp->cls[q];
		g[k].hops = tp->hops[q];
		g[k].mult = p->mult[q];
		g[k].n = len;
		g[k].link = malloc((len + 1) * sizeof(uint32_t));
		g[k].cnt = malloc((len + 1) * sizeof(double));
		cr_assert(g[k].link && g[k].cnt);
		memcpy(g[k].link, p->col_link + p->col_off[q],
		       len * sizeof(uint32_t));
		memcpy(g[k].cnt, p->col_cnt + p->col_off[q],
		       len * sizeof(double));
		/* columns are sorted by link and merged: check it */
		for (uint32_t x = 1; x < len; x++)
			cr_assert_lt(g[k].link[x - 1], g[k].link[x]);
	}
	qsort(g, n, sizeof(*g), cmp_gcol);
	*ng = n;
	return g;
}

/* Every flow of F: the structural groups of Model MODEL equal the
 * enumerated ones. */
static void check_structure(const struct routing *r, const struct flows *f,
			    unsigned model)
{
	struct ugal_tpl tp;
	struct err e = { "" };
	uint64_t cols;
	double paths = 0;

	cr_assert_eq(ugal_tpl_build(r, f, model, 0, &tp, &e), 0, "%s", e.msg);
	cr_assert_eq(ugal_tpl_count(r, f, model, &cols, &e), 0, "%s", e.msg);
	cr_expect_eq(cols, (uint64_t)tp.lp.ngroups + 1,
		     "model %u: closed-form count %llu, built %u groups", model,
		     (unsigned long long)cols, tp.lp.ngroups);
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t na, nb;
		struct gcol *a =
			enum_groups(r, f->src[i], f->dst[i], model, &na);
		struct gcol *b = tpl_groups(&tp, i, &nb);

		cr_assert_eq(na, nb,
			     "%s %s model %u flow %u -> %u: %u groups by "
			     "enumeration, %u built",
			     topo_spec(routing_topo(r)), routing_spec(r), model,
			     f->src[i], f->dst[i], na, nb);
		for (uint32_t k = 0; k < na; k++) {
			cr_assert_eq(cmp_gcol(&a[k], &b[k]), 0,
				     "%s %s model %u flow %u -> %u: group %u "
				     "(class %d, hops %d, mult %g / %g) "
				     "differs",
				     topo_spec(routing_topo(r)),
				     routing_spec(r), model, f->src[i],
				     f->dst[i], k, a[k].cls, a[k].hops,
				     a[k].mult, b[k].mult);
			paths += a[k].mult;
		}
		gcols_free(a, na);
		gcols_free(b, nb);
	}
	cr_expect_eq(tp.paths, paths);
	ugal_tpl_free(&tp);
}

static struct flows pattern(const struct topo *t, const char *spec,
			    uint64_t seed)
{
	struct flows f;
	struct err e = { "" };

	flows_init(&f);
	cr_assert_eq(flows_pattern(spec, NULL, topo_num_nodes(t), seed, &f, &e),
		     0, "%s", e.msg);
	return f;
}

/* Flows over the nodes 0, STEP, 2 STEP, ... (a permutation of them) plus
 * a same-switch flow: a sample spread over chassis, slots and groups. */
static struct flows sample(const struct topo *t, uint32_t step, uint64_t seed)
{
	uint32_t n = (topo_num_nodes(t) + step - 1) / step;
	uint32_t *nodes = malloc(n * sizeof(*nodes));
	struct flows f;
	struct err e = { "" };

	cr_assert(nodes);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = i * step;
	flows_init(&f);
	cr_assert_eq(flows_pattern("perm", nodes, n, seed, &f, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(flows_add(&f, 0, 1, 1), 0); /* nodes 0, 1: one switch */
	free(nodes);
	return f;
}

static void structure_all_models(const char *topo, const char *routing,
				 struct flows *f)
{
	struct fx_net net = fx_net(topo, routing);

	for (unsigned m = 0; m < UGAL_NMODELS; m++)
		check_structure(net.r, f, m);
	fx_net_free(&net);
}

/* dfly(2,4,2,9): every ordered node pair, both intra= choices. */
Test(ugal_structure, dfly_2_4_2_9_alltoall)
{
	static const char *const intra[] = { "ugal:intra=local",
					     "ugal:intra=global" };

	for (int k = 0; k < 2; k++) {
		struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
		struct flows f = pattern(t, "alltoall", 1);

		structure_all_models("dragonfly:p=2,a=4,h=2,g=9", intra[k], &f);
		flows_free(&f);
		topo_destroy(t);
	}
}

/* Several MIN paths per router pair, of different lengths: dfly(2,4,2,3)
 * has a*h/(g-1) = 4 global links per group pair, reached in 0 or 1 local
 * hops at each end (MIN paths of 1, 2 and 3 hops). */
Test(ugal_structure, dfly_several_min_paths)
{
	static const char *const topos[] = { "dragonfly:p=2,a=4,h=2,g=3",
					     "dragonfly:p=1,a=4,h=2,g=5" };

	for (int k = 0; k < 2; k++) {
		struct topo *t = fx_topo(topos[k]);
		struct flows f = pattern(t, "alltoall", 1);

		structure_all_models(topos[k], "ugal:intra=local", &f);
		structure_all_models(topos[k], "ugal:intra=global", &f);
		flows_free(&f);
		topo_destroy(t);
	}
}

/* A small Cascade: 3 groups of 96 routers, 2 cables per group pair
 * (local paths of 1 and 2 hops, two of them through the corners).  A
 * sample of flows over every 23rd node, with a same-switch flow. */
Test(ugal_structure, cascade_small, .timeout = 120)
{
	static const char *const intra[] = { "ugal:intra=local",
					     "ugal:intra=global" };

	for (int k = 0; k < 2; k++) {
		struct topo *t = fx_topo("cascade:groups=3,pair=2");
		struct flows f = sample(t, 23, 3);

		structure_all_models("cascade:groups=3,pair=2", intra[k], &f);
		flows_free(&f);
		topo_destroy(t);
	}
}

/* Two Cascade groups: flows between them have no intermediate (no VLB
 * path), flows inside a group have 94 (intra=local) or 96. */
Test(ugal_structure, cascade_two_groups, .timeout = 60)
{
	struct topo *t = fx_topo("cascade:groups=2,pair=4");
	struct flows f = sample(t, 29, 5);

	structure_all_models("cascade:groups=2,pair=4", "ugal:intra=local", &f);
	structure_all_models("cascade:groups=2,pair=4", "ugal:intra=global",
			     &f);
	flows_free(&f);
	topo_destroy(t);
}
