/* ugal_tpl.c - the templates of paper 002's UGAL-G Models 0-5 from the
 * dragonfly / Cascade structure (see ugal_tpl.h).
 *
 * The structure is rebuilt here from the public topology (topo.h) with
 * routing_dragonfly.c's definitions, which tests/unit/test_ugal.c checks
 * against routing_paths flow by flow:
 *   local(x -> y)  every shortest path over the links inside the group;
 *   MIN(x -> y)    local(x -> y) in one group; otherwise, for every global
 *                  link u -> v from x's group to y's, local(x -> u), the
 *                  link, local(v -> y);
 *   VLB(s -> d)    MIN(s -> I) + MIN(I -> d) for every intermediate I:
 *                  the switches outside both groups, or, for a flow inside
 *                  one group with intra=local, the group's other routers.
 * Per group, the local distances, path counts and the local paths
 * themselves (a few short ones: Cascade has at most two 2-hop paths per
 * router pair) are tabulated once.  A MIN half is then described by its
 * path count per hop count and a list of (hops, link, crossings) entries,
 * and a flow's grouped columns are sums of products of two halves per
 * intermediate, accumulated in dense per-group arrays (touched lists keep
 * the reset cheap). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/ugal_impl.h"

struct seqs {
	uint32_t n, cap;
	size_t *off;
	uint32_t *link;
	size_t lcap;
};

static void seqs_free(struct seqs *q)
{
	free(q->off);
	free(q->link);
	memset(q, 0, sizeof(*q));
}

/* Append the concatenation of A[0..na), B[0..nb) and C[0..nc). */
static int seqs_add(struct seqs *q, const uint32_t *a, size_t na,
		    const uint32_t *b, size_t nb, const uint32_t *c, size_t nc)
{
	size_t used = q->n ? q->off[q->n] : 0, len = na + nb + nc;

	if (q->n + 1 >= q->cap) {
		uint32_t ncap = q->cap ? 2 * q->cap : 64;
		size_t *o = realloc(q->off, ((size_t)ncap + 1) * sizeof(*o));

		if (!o)
			return -1;
		q->off = o;
		q->cap = ncap;
		if (!q->n)
			q->off[0] = 0;
	}
	if (used + len > q->lcap) {
		size_t nl = q->lcap ? 2 * q->lcap : 256;
		uint32_t *l;

		while (nl < used + len)
			nl *= 2;
		l = realloc(q->link, nl * sizeof(*l));
		if (!l)
			return -1;
		q->link = l;
		q->lcap = nl;
	}
	/* memcpy from NULL is undefined even for 0 bytes */
	if (na)
		memcpy(q->link + used, a, na * sizeof(*a));
	if (nb)
		memcpy(q->link + used + na, b, nb * sizeof(*b));
	if (nc)
		memcpy(q->link + used + na + nb, c, nc * sizeof(*c));
	q->off[++q->n] = used + len;
	return 0;
}

static int min_seqs(const struct unet *n, uint32_t x, uint32_t y,
		    struct seqs *q)
{
	uint32_t gx = n->grp[x], gy = n->grp[y], cnt;
	const uint32_t *gl;

	q->n = 0;
	if (gx == gy) {
		size_t p = pidx(n, x, y), d = n->dist[p];

		if (d == UNREACH)
			return 0;
		for (size_t k = 0; k < (size_t)n->np[p]; k++)
			if (seqs_add(q, n->lp_link + n->lp_off[p] + k * d, d,
				     NULL, 0, NULL, 0))
				return -1;
		return 0;
	}
	gl = glinks(n, gx, gy, &cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = topo_link(n->t, gl[k]);
		size_t p1 = pidx(n, x, lk->from), p2 = pidx(n, lk->to, y);
		size_t d1 = n->dist[p1], d2 = n->dist[p2];

		if (d1 == UNREACH || d2 == UNREACH)
			continue;
		/* path k1 of a pair starts at lp_off + k1 * dist (a pair
		 * x, x has one path of no link) */
		for (size_t k1 = 0; k1 < (size_t)n->np[p1]; k1++)
			for (size_t k2 = 0; k2 < (size_t)n->np[p2]; k2++)
				if (seqs_add(q,
					     n->lp_link + n->lp_off[p1] +
						     k1 * d1,
					     d1, gl + k, 1,
					     n->lp_link + n->lp_off[p2] +
						     k2 * d2,
					     d2))
					return -1;
	}
	return 0;
}

/* ---- the template under construction ---- */

struct tb {
	uint32_t ngroups, gcap;
	size_t nent, ecap;
	double *mult;
	uint8_t *cls, *hops;
	uint32_t *col_off;
	uint32_t *col_link;
	double *col_cnt;
	double paths;
};

static int tb_group(struct tb *b, double mult, uint8_t cls, uint8_t hops)
{
	if (b->ngroups + 1 >= b->gcap) {
		uint32_t nc = b->gcap ? 2 * b->gcap : 1024;
		double *m = realloc(b->mult, nc * sizeof(*m));
		uint8_t *c, *h;
		uint32_t *o;

		if (!m)
			return -1;
		b->mult = m;
		c = realloc(b->cls, nc);
		if (!c)
			return -1;
		b->cls = c;
		h = realloc(b->hops, nc);
		if (!h)
			return -1;
		b->hops = h;
		o = realloc(b->col_off, ((size_t)nc + 1) * sizeof(*o));
		if (!o)
			return -1;
		b->col_off = o;
		b->gcap = nc;
	}
	if (b->ngroups == UINT32_MAX - 1)
		return -1;
	b->mult[b->ngroups] = mult;
	b->cls[b->ngroups] = cls;
	b->hops[b->ngroups] = hops;
	b->col_off[b->ngroups] = (uint32_t)b->nent;
	b->ngroups++;
	b->paths += mult;
	return 0;
}

static int tb_entry(struct tb *b, uint32_t link, double cnt)
{
	if (b->nent == b->ecap) {
		size_t nc = b->ecap ? 2 * b->ecap : 4096;
		uint32_t *l;
		double *c;

		if (nc >= UINT32_MAX)
			return -1;
		l = realloc(b->col_link, nc * sizeof(*l));
		if (!l)
			return -1;
		b->col_link = l;
		c = realloc(b->col_cnt, nc * sizeof(*c));
		if (!c)
			return -1;
		b->col_cnt = c;
		b->ecap = nc;
	}
	b->col_link[b->nent] = link;
	b->col_cnt[b->nent] = cnt;
	b->nent++;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* One group of a single path of LEN links (duplicates merged). */
static int tb_path(struct tb *b, uint32_t *links, size_t len, uint8_t cls,
		   uint8_t hops)
{
	qsort(links, len, sizeof(*links), cmp_u32);
	if (tb_group(b, 1, cls, hops))
		return -1;
	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && links[j] == links[i])
			j++;
		if (tb_entry(b, links[i], (double)(j - i)))
			return -1;
		i = j;
	}
	return 0;
}

/* Per-flow accumulators: slot (class, hops) or (class, all), each a dense
 * column over the links with the list of links touched. */
struct acc {
	uint32_t L, per_cls; /* slots per class: hops 0..2*maxhalf, all */
	double mult[2 * (2 * HMAX + 1)];
	double *col[2 * (2 * HMAX + 1)];
	uint32_t *touched[2 * (2 * HMAX + 1)];
	uint32_t nt[2 * (2 * HMAX + 1)];
};

static void acc_free(struct acc *a)
{
	for (uint32_t s = 0; s < 2 * a->per_cls; s++) {
		free(a->col[s]);
		free(a->touched[s]);
	}
}

static uint32_t slot(const struct acc *a, enum path_class cls,
		     enum ugal_ctl ctl, uint32_t hops)
{
	return (uint32_t)cls * a->per_cls +
	       (ctl == UGAL_CTL_ALL ? a->per_cls - 1 : hops);
}

static int acc_add(struct acc *a, uint32_t s, uint32_t link, double w)
{
	if (!a->col[s]) {
		a->col[s] = calloc(a->L, sizeof(double));
		a->touched[s] = malloc((size_t)a->L * sizeof(uint32_t));
		if (!a->col[s] || !a->touched[s])
			return -1;
	}
	if (a->col[s][link] == 0)
		a->touched[s][a->nt[s]++] = link;
	a->col[s][link] += w;
	return 0;
}

/* Emit slot S as a group (plus the injection and ejection links of its
 * paths) and clear it. */
static int acc_emit(struct acc *a, uint32_t s, struct tb *b, uint32_t inj,
		    uint32_t ej, uint8_t cls, uint8_t hops)
{
	double m = a->mult[s];

	if (m <= 0)
		return 0;
	if (acc_add(a, s, inj, m) || acc_add(a, s, ej, m) ||
	    tb_group(b, m, cls, hops))
		return -1;
	qsort(a->touched[s], a->nt[s], sizeof(uint32_t), cmp_u32);
	for (uint32_t k = 0; k < a->nt[s]; k++) {
		uint32_t l = a->touched[s][k];

		if (tb_entry(b, l, a->col[s][l]))
			return -1;
		a->col[s][l] = 0;
	}
	a->nt[s] = 0;
	a->mult[s] = 0;
	return 0;
}

/* Emit every slot of class CLS, by ascending hops, then the "all" one. */
static int acc_emit_class(struct acc *a, enum path_class cls, struct tb *b,
			  uint32_t inj, uint32_t ej)
{
	for (uint32_t h = 0; h < a->per_cls; h++)
		if (acc_emit(a, (uint32_t)cls * a->per_cls + h, b, inj, ej,
			     (uint8_t)cls,
			     h == a->per_cls - 1 ? UGAL_HOPS_ANY : (uint8_t)h))
			return -1;
	return 0;
}

/* ---- per flow ---- */

struct work {
	const struct unet *n;
	enum ugal_ctl min, vlb;
	struct half h1, h2;
	struct seqs q1, q2;
	bool factored; /* VLB groups: mult, injection and ejection only */
	uint32_t *buf;
	size_t bufcap;
	struct acc acc;
};

/* Room for LEN links in w->buf. */
static int buf_room(struct work *w, size_t len)
{
	if (len > w->bufcap) {
		uint32_t *p = realloc(w->buf, len * sizeof(*p));

		if (!p)
			return -1;
		w->buf = p;
		w->bufcap = len;
	}
	return 0;
}

/* A path inj + A + B + ej as its own group. */
static int path_group(struct work *w, struct tb *b, uint32_t inj, uint32_t ej,
		      const uint32_t *a, size_t na, const uint32_t *c,
		      size_t nc, enum path_class cls)
{
	if (buf_room(w, na + nc + 2))
		return -1;
	w->buf[0] = inj;
	if (na)
		memcpy(w->buf + 1, a, na * sizeof(*a));
	if (nc)
		memcpy(w->buf + 1 + na, c, nc * sizeof(*c));
	w->buf[1 + na + nc] = ej;
	return tb_path(b, w->buf, na + nc + 2, (uint8_t)cls,
		       (uint8_t)(na + nc));
}

/* The MIN groups of s -> d (distinct switches). */
static int min_groups(struct work *w, struct tb *b, uint32_t s, uint32_t d,
		      uint32_t inj, uint32_t ej)
{
	struct acc *a = &w->acc;

	if (w->min == UGAL_CTL_PATH) {
		if (min_seqs(w->n, s, d, &w->q1))
			return -1;
		for (uint32_t i = 0; i < w->q1.n; i++)
			if (path_group(w, b, inj, ej, w->q1.link + w->q1.off[i],
				       w->q1.off[i + 1] - w->q1.off[i], NULL, 0,
				       PATH_MIN))
				return -1;
		return 0;
	}
	if (ugal_half_min(w->n, s, d, &w->h1, true))
		return -1;
	for (uint32_t h = 0; h <= w->n->maxhalf; h++)
		a->mult[slot(a, PATH_MIN, w->min, h)] += w->h1.n[h];
	for (uint32_t k = 0; k < w->h1.len; k++)
		if (acc_add(a, slot(a, PATH_MIN, w->min, w->h1.hop[k]),
			    w->h1.link[k], w->h1.w[k]))
			return -1;
	return acc_emit_class(a, PATH_MIN, b, inj, ej);
}

/* Add the VLB paths through one intermediate (halves h1 = s -> I and
 * h2 = I -> d) to the slots. */
static int vlb_through(struct work *w)
{
	struct acc *a = &w->acc;
	const struct half *A = &w->h1, *B = &w->h2;
	uint32_t la[HMAX], lb[HMAX], na = 0, nb = 0;
	double ta = 0, tb = 0;

	for (uint32_t h = 0; h <= w->n->maxhalf; h++) {
		if (A->n[h] > 0) {
			la[na++] = h;
			ta += A->n[h];
		}
		if (B->n[h] > 0) {
			lb[nb++] = h;
			tb += B->n[h];
		}
	}
	if (!na || !nb)
		return 0;
	if (w->factored) { /* the links are the operator's (ufac) */
		for (uint32_t i = 0; i < na; i++)
			for (uint32_t j = 0; j < nb; j++)
				a->mult[slot(a, PATH_VLB, w->vlb,
					     la[i] + lb[j])] +=
					A->n[la[i]] * B->n[lb[j]];
		return 0;
	}
	if (w->vlb == UGAL_CTL_ALL) {
		uint32_t s = slot(a, PATH_VLB, UGAL_CTL_ALL, 0);

		a->mult[s] += ta * tb;
		for (uint32_t k = 0; k < A->len; k++)
			if (acc_add(a, s, A->link[k], A->w[k] * tb))
				return -1;
		for (uint32_t k = 0; k < B->len; k++)
			if (acc_add(a, s, B->link[k], ta * B->w[k]))
				return -1;
		return 0;
	}
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nb; j++)
			a->mult[slot(a, PATH_VLB, UGAL_CTL_HOPS,
				     la[i] + lb[j])] +=
				A->n[la[i]] * B->n[lb[j]];
	for (uint32_t k = 0; k < A->len; k++)
		for (uint32_t j = 0; j < nb; j++)
			if (acc_add(a,
				    slot(a, PATH_VLB, UGAL_CTL_HOPS,
					 A->hop[k] + lb[j]),
				    A->link[k], A->w[k] * B->n[lb[j]]))
				return -1;
	for (uint32_t k = 0; k < B->len; k++)
		for (uint32_t i = 0; i < na; i++)
			if (acc_add(a,
				    slot(a, PATH_VLB, UGAL_CTL_HOPS,
					 la[i] + B->hop[k]),
				    B->link[k], A->n[la[i]] * B->w[k]))
				return -1;
	return 0;
}

/* The VLB groups of s -> d (distinct switches). */
static int vlb_groups(struct work *w, struct tb *b, uint32_t s, uint32_t d,
		      uint32_t inj, uint32_t ej)
{
	const struct unet *n = w->n;

	for (uint32_t k = 0; k < n->S; k++) {
		uint32_t i = n->mem[k], g = n->grp[i];

		if (!ugal_inter_group(n, s, d, g)) {
			k = n->mem_off[g + 1] - 1; /* skip the group */
			continue;
		}
		if (i == s || i == d)
			continue;
		if (w->vlb == UGAL_CTL_PATH) {
			if (min_seqs(n, s, i, &w->q1) ||
			    min_seqs(n, i, d, &w->q2))
				return -1;
			for (uint32_t x = 0; x < w->q1.n; x++)
				for (uint32_t y = 0; y < w->q2.n; y++)
					if (path_group(
						    w, b, inj, ej,
						    w->q1.link + w->q1.off[x],
						    w->q1.off[x + 1] -
							    w->q1.off[x],
						    w->q2.link + w->q2.off[y],
						    w->q2.off[y + 1] -
							    w->q2.off[y],
						    PATH_VLB))
						return -1;
			continue;
		}
		if (ugal_half_min(n, s, i, &w->h1, !w->factored) ||
		    ugal_half_min(n, i, d, &w->h2, !w->factored) ||
		    vlb_through(w))
			return -1;
	}
	return w->vlb == UGAL_CTL_PATH ?
		       0 :
		       acc_emit_class(&w->acc, PATH_VLB, b, inj, ej);
}

/* Groups of a control over path counts by hop H[0..nh). */
static double ngroups_of(enum ugal_ctl ctl, const double *h, uint32_t nh)
{
	double sum = 0, distinct = 0;

	for (uint32_t k = 0; k < nh; k++) {
		sum += h[k];
		distinct += h[k] > 0;
	}
	return ctl == UGAL_CTL_PATH ? sum :
	       ctl == UGAL_CTL_HOPS ? distinct :
				      (sum > 0);
}

/* Number of groups of flow s -> d (distinct switches), closed form. */
static int count_flow(struct work *w, uint32_t s, uint32_t d, double *groups)
{
	const struct unet *n = w->n;
	double vh[2 * HMAX] = { 0 };

	if (ugal_half_min(n, s, d, &w->h1, false))
		return -1;
	*groups = ngroups_of(w->min, w->h1.n, n->maxhalf + 1);
	for (uint32_t k = 0; k < n->S; k++) {
		uint32_t i = n->mem[k], g = n->grp[i];

		if (!ugal_inter_group(n, s, d, g)) {
			k = n->mem_off[g + 1] - 1; /* skip the group */
			continue;
		}
		if (i == s || i == d)
			continue;
		if (ugal_half_min(n, s, i, &w->h1, false) ||
		    ugal_half_min(n, i, d, &w->h2, false))
			return -1;
		for (uint32_t x = 0; x <= n->maxhalf; x++)
			if (w->h1.n[x] > 0)
				for (uint32_t y = 0; y <= n->maxhalf; y++)
					vh[x + y] += w->h1.n[x] * w->h2.n[y];
	}
	*groups += ngroups_of(w->vlb, vh, 2 * n->maxhalf + 1);
	return 0;
}

static int check_flow(const struct topo *t, const struct flows *f, uint32_t i,
		      struct err *err)
{
	uint32_t nn = topo_num_nodes(t);

	if (f->src[i] >= nn || f->dst[i] >= nn)
		return err_set(err, "flow %u: node %u out of range (%u nodes)",
			       i, f->src[i] >= nn ? f->src[i] : f->dst[i], nn);
	if (f->src[i] == f->dst[i])
		return err_set(err, "flow %u: self-flow at node %u", i,
			       f->src[i]);
	if (!(f->demand[i] > 0))
		return err_set(err, "flow %u: demand %g is not positive", i,
			       f->demand[i]);
	return 0;
}

static int work_init(struct work *w, const struct unet *n, unsigned model,
		     struct err *err)
{
	memset(w, 0, sizeof(*w));
	w->n = n;
	if (ugal_control(model, &w->min, &w->vlb))
		return err_set(err, "no UGAL model %u (0..5)", model);
	w->acc.L = n->L;
	w->acc.per_cls = 2 * n->maxhalf + 2;
	return 0;
}

static void work_free(struct work *w)
{
	ugal_half_free(&w->h1);
	ugal_half_free(&w->h2);
	seqs_free(&w->q1);
	seqs_free(&w->q2);
	free(w->buf);
	acc_free(&w->acc);
}

/* Closed-form columns with the structure N built. */
static int count_all(const struct unet *n, const struct flows *f,
		     unsigned model, uint64_t *cols, struct err *err)
{
	const struct topo *t = n->t;
	struct work w;
	double total = 1; /* alpha */
	int rc = -1;

	if (work_init(&w, n, model, err))
		return -1;
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s, d;
		double g;

		if (check_flow(t, f, i, err))
			goto out;
		s = topo_node_switch(t, f->src[i]);
		d = topo_node_switch(t, f->dst[i]);
		if (s == d) {
			total += 1;
			continue;
		}
		if (count_flow(&w, s, d, &g)) {
			err_nomem(err, "out of memory");
			goto out;
		}
		if (g == 0) {
			err_set(err, "no path from node %u to node %u",
				f->src[i], f->dst[i]);
			goto out;
		}
		total += g;
	}
	*cols = total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
	rc = 0;
out:
	work_free(&w);
	return rc;
}

int ugal_control(unsigned model, enum ugal_ctl *min, enum ugal_ctl *vlb)
{
	static const enum ugal_ctl tab[UGAL_NMODELS][2] = {
		{ UGAL_CTL_PATH, UGAL_CTL_PATH },
		{ UGAL_CTL_PATH, UGAL_CTL_HOPS },
		{ UGAL_CTL_PATH, UGAL_CTL_ALL },
		{ UGAL_CTL_HOPS, UGAL_CTL_HOPS },
		{ UGAL_CTL_HOPS, UGAL_CTL_ALL },
		{ UGAL_CTL_ALL, UGAL_CTL_ALL },
	};

	if (model >= UGAL_NMODELS)
		return -1;
	*min = tab[model][0];
	*vlb = tab[model][1];
	return 0;
}

int ugal_tpl_count(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t *cols, struct err *err)
{
	struct unet *n = ugal_net_create(r, err);
	int rc;

	if (!n)
		return -1;
	rc = count_all(n, f, model, cols, err);
	ugal_net_free(n);
	return rc;
}

void ugal_tpl_free(struct ugal_tpl *tp)
{
	if (!tp)
		return;
	free(tp->cls);
	free(tp->hops);
	free(tp->cap);
	free(tp->demand);
	free(tp->mult);
	free(tp->col_cnt);
	free(tp->flow_off);
	free(tp->col_off);
	free(tp->col_link);
	ugal_fac_free(tp->fac);
	memset(tp, 0, sizeof(*tp));
}

static int build_flows(struct work *w, const struct flows *f, struct tb *b,
		       uint32_t *flow_off, struct err *err)
{
	const struct topo *t = w->n->t;

	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s = topo_node_switch(t, f->src[i]);
		uint32_t d = topo_node_switch(t, f->dst[i]);
		uint32_t inj = topo_inject_link(t, f->src[i]);
		uint32_t ej = topo_eject_link(t, f->dst[i]);

		flow_off[i] = b->ngroups;
		if (s == d) {
			uint32_t l[2] = { inj, ej };

			/* one 0-hop MIN path */
			if (tb_path(b, l, 2, PATH_MIN,
				    w->min == UGAL_CTL_ALL ? UGAL_HOPS_ANY : 0))
				return err_nomem(err, "out of memory");
			continue;
		}
		if (min_groups(w, b, s, d, inj, ej) ||
		    vlb_groups(w, b, s, d, inj, ej))
			return err_nomem(err,
					 "out of memory (template of %u "
					 "groups)",
					 b->ngroups);
	}
	flow_off[f->n] = b->ngroups;
	return 0;
}

static int build_tpl(const struct routing *r, const struct flows *f,
		     unsigned model, uint64_t limit, bool factored,
		     struct ugal_tpl *out, struct err *err)
{
	struct unet *n;
	struct work w;
	struct tb b;
	uint64_t cols;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	n = ugal_net_create(r, err);
	if (!n)
		return -1;
	if (count_all(n, f, model, &cols, err))
		goto out_net;
	if (limit && cols > limit) {
		err_set(err,
			"Model %u needs %llu LP variables, more than "
			"limit=%llu (raise it with ugal%u:limit=N)",
			model, (unsigned long long)cols,
			(unsigned long long)limit, model);
		goto out_net;
	}
	if (cols - 1 >= UINT32_MAX) {
		err_set(err, "Model %u needs %llu LP variables (at most 2^32)",
			model, (unsigned long long)cols);
		goto out_net;
	}
	if (work_init(&w, n, model, err))
		goto out_net;
	w.factored = factored && w.vlb != UGAL_CTL_PATH;
	out->flow_off = malloc(((size_t)f->n + 1) * sizeof(*out->flow_off));
	out->demand = malloc(((size_t)f->n + 1) * sizeof(*out->demand));
	out->cap = malloc(((size_t)n->L + 1) * sizeof(*out->cap));
	if (!out->flow_off || !out->demand || !out->cap) {
		err_nomem(err, "out of memory");
		goto out_work;
	}
	if (build_flows(&w, f, &b, out->flow_off, err))
		goto out_work;
	if (tb_group(&b, 1, 0, 0)) { /* room for col_off[ngroups] */
		err_nomem(err, "out of memory");
		goto out_work;
	}
	b.ngroups--;
	b.paths -= 1;
	b.col_off[b.ngroups] = (uint32_t)b.nent;
	for (uint32_t l = 0; l < n->L; l++)
		out->cap[l] = topo_link(n->t, l)->capacity;
	if (f->n)
		memcpy(out->demand, f->demand,
		       (size_t)f->n * sizeof(*out->demand));
	out->mult = b.mult;
	out->cls = b.cls;
	out->hops = b.hops;
	out->col_off = b.col_off;
	out->col_link = b.col_link;
	out->col_cnt = b.col_cnt;
	out->paths = b.paths;
	memset(&b, 0, sizeof(b));
	out->lp = (struct mcf_tpl){ .nlinks = n->L,
				    .cap = out->cap,
				    .nflows = f->n,
				    .demand = out->demand,
				    .flow_off = out->flow_off,
				    .ngroups = out->flow_off[f->n],
				    .mult = out->mult,
				    .col_off = out->col_off,
				    .col_link = out->col_link,
				    .col_cnt = out->col_cnt };
	if (w.factored) {
		out->fac = ugal_fac_create(n, f, out, err);
		if (!out->fac)
			goto out_work;
		n = NULL; /* the operator's now */
		out->op = (struct mcf_tpl_op){ .mul = ugal_fac_mul,
					       .mul_t = ugal_fac_mul_t,
					       .ctx = out->fac,
					       .min_entry = 1 };
		out->lp.op = &out->op;
	}
	rc = 0;
out_work:
	work_free(&w);
out_net:
	free(b.mult);
	free(b.cls);
	free(b.hops);
	free(b.col_off);
	free(b.col_link);
	free(b.col_cnt);
	if (rc)
		ugal_tpl_free(out);
	ugal_net_free(n);
	return rc;
}

int ugal_tpl_build(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t limit, struct ugal_tpl *out,
		   struct err *err)
{
	return build_tpl(r, f, model, limit, false, out, err);
}

int ugal_tpl_build_factored(const struct routing *r, const struct flows *f,
			    unsigned model, uint64_t limit,
			    struct ugal_tpl *out, struct err *err)
{
	return build_tpl(r, f, model, limit, true, out, err);
}
