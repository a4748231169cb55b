/* nne.c - paper 004's Cartesian nearest-neighbour model: the exchange
 * (Eq. 8-11), the closed-form bounds (Eq. 13-26), the exhaustive gamma
 * search (Sec. 4.4) and the rank layout that realises a plan.  See nne.h
 * for the definitions. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/nne/nne.h"
#include "topo/util/rng.h"

/* Most gamma vectors nne_plan_all examines: a grid of 2^31 tasks has at
 * most a few tens of thousands of divisor vectors (32^3 has 216); this
 * only bounds pathological input. */
#define MAX_GAMMAS 4000000u
/* Divisors of a number below 2^32: at most 1,536. */
#define MAX_DIVISORS 2048
#define MAX_TASKS (1u << 31)

int nne_parse_dims(const char *what, const char *s, uint32_t *v, uint32_t *nd,
		   struct err *err)
{
	const char *p = s;

	*nd = 0;
	for (;;) {
		char *end;
		unsigned long long x;

		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		x = strtoull(p, &end, 10);
		if (errno || x == 0 || x > UINT32_MAX || *nd == NNE_MAX_DIMS)
			break;
		v[(*nd)++] = (uint32_t)x;
		p = end;
		if (!*p)
			return 0;
		if (*p != 'x' || !p[1])
			break;
		p++;
	}
	return err_set(err,
		       "%s '%s': want 1 to %d positive sizes joined by 'x' "
		       "(e.g. 16x8x8)",
		       what, s, NNE_MAX_DIMS);
}

int nne_app_init(struct nne_app *a, const char *grid, const char *elements,
		 double mu, struct err *err)
{
	uint64_t tasks = 1;
	uint32_t nd;

	memset(a, 0, sizeof(*a));
	if (nne_parse_dims("grid", grid, a->beta, &a->d, err))
		return -1;
	for (uint32_t k = 0; k < a->d; k++) {
		tasks *= a->beta[k];
		if (tasks > MAX_TASKS)
			return err_set(err, "grid '%s': more than %u tasks",
				       grid, MAX_TASKS);
	}
	if (elements) {
		if (nne_parse_dims("elements", elements, a->alpha, &nd, err))
			return -1;
		if (nd != a->d)
			return err_set(err,
				       "elements '%s': %u sizes for a grid of "
				       "%u dimensions",
				       elements, nd, a->d);
		for (uint32_t k = 0; k < a->d; k++)
			if (a->alpha[k] % a->beta[k])
				return err_set(err,
					       "elements '%s': size %u of axis "
					       "%u is not a multiple of the "
					       "grid's %u",
					       elements, a->alpha[k], k,
					       a->beta[k]);
	} else {
		memcpy(a->alpha, a->beta, sizeof(a->alpha));
	}
	if (!(mu > 0))
		mu = NNE_DEFAULT_MU;
	if (!isfinite(mu))
		return err_set(err, "element size must be finite");
	a->mu = mu;
	return 0;
}

char *nne_dims_format(const uint32_t *v, uint32_t d, char *buf, size_t len)
{
	size_t k = 0;

	if (len)
		buf[0] = 0;
	for (uint32_t i = 0; i < d && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%u", i ? "x" : "",
				      v[i]);
	return buf;
}

char *nne_pattern(const struct nne_app *a, char *buf, size_t len)
{
	char g[128], e[128];

	snprintf(buf, len, "stencil:dims=%s,elements=%s",
		 nne_dims_format(a->beta, a->d, g, sizeof(g)),
		 nne_dims_format(a->alpha, a->d, e, sizeof(e)));
	return buf;
}

uint64_t nne_tasks(const struct nne_app *a)
{
	uint64_t n = 1;

	for (uint32_t k = 0; k < a->d; k++)
		n *= a->beta[k];
	return n;
}

void nne_m(const struct nne_app *a, double *m)
{
	double sum = 0;

	for (uint32_t k = 0; k < a->d; k++)
		if (a->beta[k] > 1)
			sum += (double)a->beta[k] / a->alpha[k];
	for (uint32_t k = 0; k < a->d; k++)
		m[k] = a->beta[k] > 1 ?
			       (double)a->beta[k] / a->alpha[k] / (2 * sum) :
			       0;
}

double nne_msg_bytes(const struct nne_app *a, uint32_t k)
{
	double b = a->mu;

	for (uint32_t i = 0; i < a->d; i++)
		if (i != k)
			b *= (double)(a->alpha[i] / a->beta[i]);
	return b;
}

double nne_task_bytes(const struct nne_app *a)
{
	double b = 0;

	for (uint32_t k = 0; k < a->d; k++)
		if (a->beta[k] > 1)
			b += 2 * nne_msg_bytes(a, k);
	return b;
}

int nne_net_from_topo(const struct topo *t, double link_rate, const double *bw,
		      struct nne_net *net, struct err *err)
{
	uint32_t G = topo_num_groups(t);
	uint32_t first = topo_first_switch_link(t), L = topo_num_links(t);
	uint32_t *cnt, best = UINT32_MAX, bi = 0, bj = 0;
	double bl = INFINITY, br = INFINITY;

	memset(net, 0, sizeof(*net));
	if (!topo_behaves_traits(t)->groups || G == 0)
		return err_set(err,
			       "the nearest-neighbour model needs a dragonfly "
			       "or Cascade ('%s' is %s)",
			       topo_spec(t), topo_family(t));
	if (G < 2 || G > 65536)
		return err_set(err, "%u groups: the model needs 2 to 65536", G);
	if (!(link_rate > 0))
		link_rate = NNE_DEFAULT_LINK_RATE;
	cnt = calloc((size_t)G * G, sizeof(*cnt));
	if (!cnt)
		return err_nomem(err, "out of memory (%u groups)", G);
	for (uint32_t l = first; l < L; l++) {
		const struct topo_link *k = topo_link(t, l);
		uint32_t gi = topo_switch_group(t, k->from);
		uint32_t gj = topo_switch_group(t, k->to);

		if (k->kind == TOPO_LINK_GLOBAL && gi < G && gj < G) {
			cnt[(size_t)gi * G + gj]++;
			if (k->capacity < br)
				br = k->capacity;
		} else if (k->kind == TOPO_LINK_LOCAL && k->capacity < bl) {
			bl = k->capacity;
		}
	}
	for (uint32_t i = 0; i < G; i++)
		for (uint32_t j = 0; j < G; j++)
			if (i != j && cnt[(size_t)i * G + j] < best) {
				best = cnt[(size_t)i * G + j];
				bi = i;
				bj = j;
			}
	free(cnt);
	if (best == 0)
		return err_set(err,
			       "groups %u and %u are joined by no global link: "
			       "the model needs every pair joined",
			       bi, bj);
	net->groups = G;
	net->nodes_per_group = topo_num_nodes(t) / G;
	net->inter = G > 2 ? G - 2 : 0;
	net->tasks_per_node = 1;
	net->pair_links = best;
	net->bp = topo_link(t, topo_inject_link(t, 0))->capacity * link_rate;
	net->bl = (isfinite(bl) ? bl : br) * link_rate;
	net->br = br * link_rate;
	if (bw) {
		if (bw[0] > 0)
			net->bp = bw[0];
		if (bw[1] > 0)
			net->bl = bw[1];
		if (bw[2] > 0)
			net->br = bw[2];
	}
	return 0;
}

const char *nne_strategy_name(enum nne_strategy s)
{
	switch (s) {
	case NNE_CART_DIRECT:
		return "cartesian/direct";
	case NNE_CART_INDIRECT:
		return "cartesian/indirect";
	case NNE_RANDOM_DIRECT:
		return "random/direct";
	default:
		return "?";
	}
}

bool nne_gamma_divides(const struct nne_app *a, const uint32_t *gamma)
{
	for (uint32_t k = 0; k < a->d; k++)
		if (!gamma[k] || a->beta[k] % gamma[k])
			return false;
	return true;
}

static uint64_t prod(const uint32_t *v, uint32_t d)
{
	uint64_t p = 1;

	for (uint32_t k = 0; k < d; k++)
		p *= v[k];
	return p;
}

/* |gamma| / gamma_k * m_k: a gamma-box's boundary traffic along k, one
 * direction (Sec. 3.4). */
static double face(const struct nne_app *a, const uint32_t *gamma,
		   const double *m, uint32_t k)
{
	return (double)(prod(gamma, a->d) / gamma[k]) * m[k];
}

double nne_delta_direct(const struct nne_app *a, const uint32_t *gamma,
			const struct nne_net *net)
{
	double m[NNE_MAX_DIMS], best = 0;

	nne_m(a, m);
	for (uint32_t k = 0; k < a->d; k++) {
		uint32_t l = a->beta[k] / gamma[k];
		double v = ((l > 1) + (l == 2)) * face(a, gamma, m, k);

		if (v > best)
			best = v;
	}
	return best / net->pair_links;
}

/* E: the traffic a hosting group sends to the others (Sec. 3.4). */
static double external(const struct nne_app *a, const uint32_t *gamma,
		       const double *m)
{
	double s = 0;

	for (uint32_t k = 0; k < a->d; k++)
		if (a->beta[k] / gamma[k] > 1)
			s += face(a, gamma, m, k);
	return 2 * s;
}

double nne_delta_indirect(const struct nne_app *a, const uint32_t *gamma,
			  const struct nne_net *net)
{
	double m[NNE_MAX_DIMS];

	if (!net->inter)
		return INFINITY;
	nne_m(a, m);
	return 2 * external(a, gamma, m) / net->inter / net->pair_links;
}

double nne_delta_indirect_exact(const struct nne_app *a, const uint32_t *gamma,
				const struct nne_net *net)
{
	double m[NNE_MAX_DIMS], E, best = 0;
	uint64_t L = prod(a->beta, a->d) / prod(gamma, a->d);
	uint64_t nb = 0;

	if (!net->inter)
		return INFINITY;
	nne_m(a, m);
	E = external(a, gamma, m);
	/* Distinct neighbours of a group on the lambda torus. */
	for (uint32_t k = 0; k < a->d; k++) {
		uint32_t l = a->beta[k] / gamma[k];

		nb += l >= 3 ? 2 : l == 2 ? 1 : 0;
	}
	if (L >= 2) {
		if (nb < L - 1) {
			best = 2 * E; /* two hosting groups, not neighbours */
		} else {
			/* Every two hosting groups are neighbours: along the
			 * one axis with lambda_k > 1. */
			for (uint32_t k = 0; k < a->d; k++) {
				uint32_t l = a->beta[k] / gamma[k];
				double dd;

				if (l < 2)
					continue;
				dd = (1 + (l == 2)) * face(a, gamma, m, k);
				if (2 * E - 2 * dd > best)
					best = 2 * E - 2 * dd;
			}
		}
	}
	if (net->groups > L && E > best)
		best = E; /* a hosting group and an empty one */
	return best / net->inter / net->pair_links;
}

double nne_delta_random(const struct nne_app *a, const uint32_t *gamma,
			const struct nne_net *net)
{
	double m[NNE_MAX_DIMS], share = 0, g = (double)prod(gamma, a->d);
	double L = (double)(prod(a->beta, a->d) / prod(gamma, a->d)), f, est;

	if (L <= 1)
		return 0;
	nne_m(a, m);
	for (uint32_t k = 0; k < a->d; k++)
		share += 2 * m[k];
	f = log(L) / log(log(L));
	est = g / L * f;
	if (!isfinite(f) || f <= 0 || est > g)
		est = g;
	if (est < g / L)
		est = g / L;
	return est * share / net->pair_links;
}

int nne_evaluate(const struct nne_app *a, const uint32_t *gamma,
		 enum nne_strategy s, const struct nne_net *net,
		 struct nne_plan *p, struct err *err)
{
	double lim;
	uint32_t tpn;

	memset(p, 0, sizeof(*p));
	if (!nne_gamma_divides(a, gamma))
		return err_set(err, "gamma does not divide the grid");
	if (s == NNE_CART_INDIRECT && !net->inter)
		return err_set(err, "indirect routing needs 3 groups or more");
	p->strategy = s;
	for (uint32_t k = 0; k < a->d; k++) {
		p->gamma[k] = gamma[k];
		p->lambda[k] = a->beta[k] / gamma[k];
	}
	p->per_group = (uint32_t)prod(gamma, a->d);
	p->groups = (uint32_t)prod(p->lambda, a->d);
	tpn = net->tasks_per_node ? net->tasks_per_node : 1;
	p->nodes_per_group = (p->per_group + tpn - 1) / tpn;
	switch (s) {
	case NNE_CART_DIRECT:
		p->delta = p->delta_paper = nne_delta_direct(a, gamma, net);
		break;
	case NNE_CART_INDIRECT:
		p->delta_paper = nne_delta_indirect(a, gamma, net);
		p->delta = nne_delta_indirect_exact(a, gamma, net);
		break;
	default:
		p->delta = p->delta_paper = nne_delta_random(a, gamma, net);
		break;
	}
	lim = p->delta > 0 ? net->br / p->delta : INFINITY;
	p->inject_bound = net->bp / tpn <= lim;
	p->bw = p->inject_bound ? net->bp / tpn : lim;
	p->seconds = p->bw > 0 ? nne_task_bytes(a) / p->bw : INFINITY;
	return 0;
}

static int cmp_u32_asc(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_u32_desc(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_plan(const void *x, const void *y)
{
	const struct nne_plan *a = x, *b = y;
	double tol =
		1e-12 * (a->seconds > b->seconds ? a->seconds : b->seconds);

	if (fabs(a->seconds - b->seconds) > tol)
		return a->seconds < b->seconds ? -1 : 1;
	/* equally fast (injection-bound): the most headroom on the global
	 * links first */
	tol = 1e-12 * (a->delta > b->delta ? a->delta : b->delta);
	if (fabs(a->delta - b->delta) > tol)
		return a->delta < b->delta ? -1 : 1;
	if (a->groups != b->groups)
		return a->groups < b->groups ? -1 : 1;
	if (a->strategy != b->strategy)
		return a->strategy < b->strategy ? -1 : 1;
	for (uint32_t k = 0; k < NNE_MAX_DIMS; k++)
		if (a->gamma[k] != b->gamma[k])
			return a->gamma[k] < b->gamma[k] ? -1 : 1;
	return 0;
}

int nne_plan_all(const struct nne_app *a, const struct nne_net *net,
		 const uint32_t *group_free, unsigned mask,
		 struct nne_plan **out, uint32_t *n, struct err *err)
{
	uint32_t(*div)[MAX_DIVISORS], nd[NNE_MAX_DIMS], idx[NNE_MAX_DIMS];
	uint32_t *freev = NULL, *seen = NULL, nseen = 0, cap = 0;
	uint64_t combos = 1;
	struct nne_plan *v = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	div = malloc(NNE_MAX_DIMS * sizeof(*div));
	if (!div)
		return err_nomem(err, "out of memory");
	for (uint32_t k = 0; k < a->d; k++) {
		nd[k] = 0;
		for (uint64_t x = 1; x * x <= a->beta[k]; x++) {
			if (a->beta[k] % x)
				continue;
			div[k][nd[k]++] = (uint32_t)x;
			if (x * x != a->beta[k])
				div[k][nd[k]++] = a->beta[k] / (uint32_t)x;
		}
		qsort(div[k], nd[k], sizeof(div[k][0]), cmp_u32_asc);
		combos *= nd[k];
		idx[k] = 0;
		if (combos > MAX_GAMMAS)
			break;
	}
	if (combos > MAX_GAMMAS) {
		rc = err_set(err, "%llu gamma vectors: more than %u to search",
			     (unsigned long long)combos, MAX_GAMMAS);
		goto out;
	}
	freev = malloc(net->groups * sizeof(*freev));
	seen = malloc((size_t)combos * sizeof(*seen));
	if (!freev || !seen) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t g = 0; g < net->groups; g++) {
		uint64_t f = group_free ? group_free[g] : net->nodes_per_group;

		f *= net->tasks_per_node ? net->tasks_per_node : 1;
		freev[g] = f > UINT32_MAX ? UINT32_MAX : (uint32_t)f;
	}
	qsort(freev, net->groups, sizeof(*freev), cmp_u32_desc);
	for (uint64_t c = 0; c < combos; c++) {
		uint32_t gamma[NNE_MAX_DIMS];
		uint64_t per, L;

		for (uint32_t k = 0; k < a->d; k++)
			gamma[k] = div[k][idx[k]];
		for (uint32_t k = 0; k < a->d; k++) /* next, axis 0 fastest */
			if (++idx[k] < nd[k])
				break;
			else
				idx[k] = 0;
		per = prod(gamma, a->d);
		L = nne_tasks(a) / per;
		if (L > net->groups || freev[L - 1] < per)
			continue;
		for (unsigned s = 0; s < NNE_NSTRATEGIES; s++) {
			bool dup = false;

			if (!(mask & (1u << s)) ||
			    (s == NNE_CART_INDIRECT && !net->inter))
				continue;
			if (s == NNE_RANDOM_DIRECT) {
				for (uint32_t i = 0; i < nseen && !dup; i++)
					dup = seen[i] == per;
				if (dup)
					continue;
				seen[nseen++] = (uint32_t)per;
			}
			if (*n == cap) {
				struct nne_plan *nv;

				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					rc = err_nomem(err, "out of memory");
					goto out;
				}
				v = nv;
			}
			if (nne_evaluate(a, gamma, (enum nne_strategy)s, net,
					 &v[*n], err)) {
				rc = -1;
				goto out;
			}
			(*n)++;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_plan);
	*out = v;
	v = NULL;
out:
	if (rc)
		*n = 0;
	free(v);
	free(freev);
	free(seen);
	free(div);
	return rc;
}

struct gcand {
	uint32_t group, usable;
};

static int cmp_gcand(const void *x, const void *y)
{
	const struct gcand *a = x, *b = y;

	if (a->usable != b->usable)
		return a->usable < b->usable ? -1 : 1;
	return a->group < b->group ? -1 : a->group > b->group;
}

struct rtr {
	uint32_t sw, usable, take;
};

static int cmp_rtr(const void *x, const void *y)
{
	const struct rtr *a = x, *b = y;

	if (a->usable != b->usable)
		return a->usable > b->usable ? -1 : 1;
	return a->sw < b->sw ? -1 : a->sw > b->sw;
}

/* PER usable nodes of group G into OUT: spread over its routers as
 * evenly as their usable nodes allow (most usable first), each router's
 * consecutive.  Returns how many it found. */
static uint32_t group_nodes(const struct topo *t, const uint8_t *usable,
			    uint32_t g, uint32_t per, struct rtr *rt,
			    uint32_t *out)
{
	uint32_t S = topo_num_switches(t), nr = 0, got = 0;

	for (uint32_t s = 0; s < S; s++) {
		uint32_t cnt, u = 0;
		const uint32_t *nodes;

		if (topo_switch_group(t, s) != g)
			continue;
		nodes = topo_switch_nodes(t, s, &cnt);
		for (uint32_t i = 0; i < cnt; i++)
			u += !usable || usable[nodes[i]];
		if (u)
			rt[nr++] = (struct rtr){ s, u, 0 };
	}
	qsort(rt, nr, sizeof(*rt), cmp_rtr);
	/* how many from each router: dealt one at a time, round-robin */
	for (uint32_t i = 0; i < nr; i++)
		rt[i].take = 0;
	for (bool any = true; got < per && any;) {
		any = false;
		for (uint32_t i = 0; i < nr && got < per; i++)
			if (rt[i].take < rt[i].usable) {
				rt[i].take++;
				got++;
				any = true;
			}
	}
	/* each router's nodes consecutive: neighbouring ranks of a box
	 * (axis 0 fastest) share a router and no local link */
	got = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t cnt, k = 0;
		const uint32_t *nodes = topo_switch_nodes(t, rt[i].sw, &cnt);

		for (uint32_t j = 0; j < cnt && k < rt[i].take; j++)
			if (!usable || usable[nodes[j]]) {
				out[got++] = nodes[j];
				k++;
			}
	}
	return got;
}

int nne_layout(const struct topo *t, const uint8_t *usable,
	       const struct nne_app *a, const struct nne_plan *p, uint32_t tpn,
	       uint64_t seed, uint32_t *rank_node, uint32_t *groups,
	       struct err *err)
{
	uint32_t N = topo_num_nodes(t), G = topo_num_groups(t);
	uint32_t S = topo_num_switches(t), per = p->per_group, L = p->groups;
	uint32_t nper = (per + (tpn ? tpn : 1) - 1) / (tpn ? tpn : 1);
	uint64_t tasks = nne_tasks(a);
	struct gcand *gc = calloc(G ? G : 1, sizeof(*gc));
	struct rtr *rt = malloc((S ? S : 1) * sizeof(*rt));
	uint32_t *slots = malloc(((size_t)nper * L + 1) * sizeof(*slots));
	uint32_t *perm = NULL, nc = 0;
	int rc = 0;

	if (!gc || !rt || !slots) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	if ((uint64_t)per * L != tasks) {
		rc = err_set(err, "plan of %u x %u tasks for a grid of %llu",
			     per, L, (unsigned long long)tasks);
		goto out;
	}
	for (uint32_t g = 0; g < G; g++)
		gc[g].group = g;
	for (uint32_t i = 0; i < N; i++)
		if (!usable || usable[i])
			gc[topo_switch_group(t, topo_node_switch(t, i))]
				.usable++;
	qsort(gc, G, sizeof(*gc), cmp_gcand);
	if (!tpn)
		tpn = 1;
	for (uint32_t g = 0; g < G && nc < L; g++)
		if (gc[g].usable >= nper)
			groups[nc++] = gc[g].group;
	if (nc < L) {
		rc = err_set(err,
			     "%u groups have %u usable nodes or more; the plan "
			     "needs %u",
			     nc, nper, L);
		goto out;
	}
	for (uint32_t i = 0; i < L; i++)
		if (group_nodes(t, usable, groups[i], nper, rt,
				slots + (size_t)i * nper) != nper) {
			rc = err_set(err, "group %u: too few usable nodes",
				     groups[i]);
			goto out;
		}
	if (p->strategy == NNE_RANDOM_DIRECT) {
		struct rng r;

		perm = malloc(tasks * sizeof(*perm));
		if (!perm) {
			rc = err_nomem(err, "out of memory");
			goto out;
		}
		rng_seed(&r, seed);
		for (uint64_t i = 0; i < tasks; i++)
			perm[i] = (uint32_t)i;
		for (uint64_t i = tasks; i > 1; i--) {
			uint64_t j = rng_below(&r, i);
			uint32_t x = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = x;
		}
		for (uint64_t i = 0; i < tasks; i++)
			rank_node[perm[i]] =
				slots[i / per * nper + i % per / tpn];
		goto out;
	}
	for (uint64_t r = 0; r < tasks; r++) {
		uint64_t rest = r, gi = 0, li = 0, gs = 1, ls = 1;

		for (uint32_t k = 0; k < a->d; k++) {
			uint32_t x = (uint32_t)(rest % a->beta[k]);

			rest /= a->beta[k];
			gi += (x / p->gamma[k]) * gs;
			li += (x % p->gamma[k]) * ls;
			gs *= p->lambda[k];
			ls *= p->gamma[k];
		}
		rank_node[r] = slots[gi * nper + li / tpn];
	}
out:
	free(gc);
	free(rt);
	free(slots);
	free(perm);
	return rc;
}
