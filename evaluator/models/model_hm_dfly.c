/* model_hm_dfly.c - Hoefler's method on a dragonfly's paths in closed
 * form (routing_dfly: vlb and ugal, intra=local, single-link local paths).
 *
 * The factored hm (model_hm.c) builds every stem of every flow: about
 * g - 2 stems of six links per flow on dfly(p,a,h,g), each counted and
 * then rated.  Here no stem is built.  A flow from router s of group A
 * to router d of group B != A (m(X,Y): the global links X -> Y; a_C: the
 * routers of C, so the segments of a VLB stem through C):
 *   - its injection and ejection carry P(A,B) = m(A,B) (ugal's MIN
 *     paths) + the sum over the other groups C of a_C m(A,C) m(C,B);
 *   - s -> x carries MIN's global links x -> B plus a_C m(C,B) for each
 *     global link from x to a group C, and y -> d likewise: weights of
 *     A's and B's routers that depend on (A, B) only (memoised);
 *   - each global link A -> C carries a_C m(C,B), each C -> B a_C m(A,C),
 *     each A -> B one (MIN): summed over the set's group pairs per
 *     source group, then per destination group, each link counted once;
 *   - every pair (x -> v, u -> y) uses key (v, u) once, whose segments
 *     put one sub-flow on v -> I and on I -> u for every router I of C:
 *     so v -> I carries the uses of the keys leaving v, I -> u those
 *     entering u (m(C,B) per flow on each A -> C link's v, m(A,C) on
 *     each C -> B link's u).
 * Flows within a group (vlb through its other routers, no key) and within
 * a router are counted one by one.  These are the stems' counts exactly
 * (integers in doubles).  Rates then walk each flow's stems without
 * storing them: a stem's share c is the least over its links (the
 * injection, ejection and end links' per flow once), its rate the sum
 * over its key's segments of min(c, v_g); a key's segment shares are
 * computed when a rating first meets it, and every stem sums min(c, v_g)
 * over all of them without a branch (a branch on c against their least
 * and largest was mispredicted on about half the stems), in four lanes
 * that a flow's stems add into, summed once per flow.  The flows of
 * one group pair A -> B share their stems but for the links at their
 * ends: the flows are rated by group pair, the pair's stems written once
 * as records (their global links' least share and their key's slot)
 * that stay in the cache while its flows read them; the global links'
 * shares a table reads are copied in its order first (A's links out, B's
 * in), once per group and counts.  The key shares are kept for every set
 * rated on the same counts (--comm-fraction rates every running job again
 * after each start and end; hm_dfly_prepare). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* flow_table in AVX too, taken where the processor has it */
#if defined(__GNUC__) && defined(__SSE2__) && \
	(defined(__x86_64__) || defined(__i386__))
#define HM_DFLY_AVX 1
#include <immintrin.h>
#endif

#include "evaluator/models/model_impl.h"

/* The most groups the closed form takes (its tables per group pair). */
#define HM_DFLY_MAX_GROUPS 1024

struct hm_dfly {
	const struct routing_dfly *d;
	const struct topo *t;
	uint32_t N, K;
	double *P; /* [G*G] sub-flows of a flow A -> B, NAN: not yet */
	double *Q; /* [G*G] VLB stems of a flow A -> B, NAN: not yet */
	/* global link d->gl[q]: its routers (switch ids), their indices
	 * in their groups, and gto * maxa (its VLB stems' keys) */
	uint32_t *gfrom, *gto, *gfi, *gti, *gkv;
	double *shs, *shd; /* [maxa] shares of s -> x and y -> d */
	/* [G*G+1] the start in d->gl of C -> B at B G + C (gl_pair
	 * transposed: a flow's rows are contiguous), and their count */
	uint32_t *tin, *tn;
	/* the same links C -> B in that transposed order (by B, then C):
	 * position ttp[B G + C] in tgfi, tgti (their routers' indices) and
	 * tsh; tsh and gsh (d->gl's order) are shares copied from the
	 * counts, a destination group's column (source group's row) the
	 * first time a table of this kgen needs it (cgen, rgen: the kgen
	 * it is of), so that a table reads them in order */
	uint32_t *ttp, *tgfi, *tgti, *cgen, *rgen;
	double *tsh, *gsh;
	/* per group pair (A, B), memoised: the sub-flows a flow A -> B puts
	 * on s -> x for every router x of A (wout, by x's index) and on
	 * y -> d for every y of B (win); NULL beyond hm_dfly_create's memo_max
	 * entries, then computed per flow into w */
	double *wout, *win;
	uint8_t *wdone; /* [G*G] */
	double *w;	/* [2 maxa] */
	/* per set: flows of each group pair */
	uint32_t *pcnt; /* [G*G] */
	uint32_t *pairs, *pairs2, npairs;
	double *f; /* [G] */
	/* [K] per key: its slot this set (UINT32_MAX: none yet) */
	struct kinfo {
		uint32_t slot;
	} * ki;
	uint32_t *keys; /* [nk] the keys with a slot (met while rating) */
	uint32_t nk, capk;
	/* [nk * kw] per slot: its key's segment shares, padded with zeros
	 * to kw (maxa rounded up to 4) */
	double *segv;
	uint32_t kw;
	/* per router v, the shares of v -> I (lout) and of I -> v (lin) for
	 * every router I of its group by I's index, read from the links
	 * when a key of this set first needs them (lgo, lgi: the kgen they
	 * are of; hm_dfly_forget moves kgen on) */
	double *lout, *lin;
	uint32_t *lgo, *lgi, kgen;
	double *uout, *uin; /* [S] key uses leaving / entering */
	uint32_t *rout, *rin, nrout, nrin;
	/* the paths of a flow A -> B in flow_direct's order (pair_table):
	 * MIN's global links, then the VLB stems, each with the least share
	 * of its global links and its key's slot; built for the flows of
	 * one group pair at a time (hm_dfly_rates rates them one after
	 * another), so they stay in the cache while they are read */
	struct prec {
		double m;
		uint32_t slot, n; /* VLB stems: key slot, its segments */
		uint32_t xi, yi;  /* ends' router indices in A and B */
	} * rec;
	size_t caprec;
	uint64_t ver; /* hm_dfly_prepare's VER the key shares are of */
	/* the most path records of one group pair (24 bytes each): a set
	 * needing more is rated flow by flow (flow_direct) */
	size_t rec_max;
	bool direct; /* this set needs over rec_max: no tables */
	bool avx;    /* flow_table_avx */
	/* hm_dfly_rates' inter-group flows: group pair << 32 | flow, sorted
	 * by pair (radix, ordt the other buffer) */
	uint64_t *ord, *ordt;
	size_t capord;
};

static inline uint32_t nglob(const struct routing_dfly *d, uint32_t a,
			     uint32_t b, const uint32_t **l)
{
	size_t k = (size_t)a * d->G + b;

	*l = d->gl + d->gl_pair[k];
	return d->gl_pair[k + 1] - d->gl_pair[k];
}

/* The same as positions in d->gl: [*q, *q + count). */
static inline uint32_t gpos(const struct routing_dfly *d, uint32_t a,
			    uint32_t b, uint32_t *q)
{
	size_t k = (size_t)a * d->G + b;

	*q = d->gl_pair[k];
	return d->gl_pair[k + 1] - d->gl_pair[k];
}

static inline uint32_t asz(const struct routing_dfly *d, uint32_t g)
{
	return d->mem_off[g + 1] - d->mem_off[g];
}

/* The local link x -> y (x != y, both in group g). */
static inline uint32_t loc(const struct routing_dfly *d, uint32_t g, uint32_t x,
			   uint32_t y)
{
	return d->local[d->lo[g] + (size_t)d->idx[x] * asz(d, g) + d->idx[y]];
}

void hm_dfly_destroy(struct hm_dfly *x)
{
	if (!x)
		return;
	free(x->P);
	free(x->Q);
	free(x->gfrom);
	free(x->gto);
	free(x->tin);
	free(x->tn);
	free(x->ttp);
	free(x->tgfi);
	free(x->tgti);
	free(x->cgen);
	free(x->rgen);
	free(x->tsh);
	free(x->gsh);
	free(x->gfi);
	free(x->gti);
	free(x->gkv);
	free(x->shs);
	free(x->shd);
	free(x->wout);
	free(x->win);
	free(x->wdone);
	free(x->w);
	free(x->pcnt);
	free(x->pairs);
	free(x->pairs2);
	free(x->f);
	free(x->ki);
	free(x->lout);
	free(x->lin);
	free(x->lgo);
	free(x->lgi);
	free(x->keys);
	free(x->segv);
	free(x->uout);
	free(x->uin);
	free(x->rout);
	free(x->rin);
	free(x->rec);
	free(x->ord);
	free(x->ordt);
	free(x);
}

int hm_dfly_create(const struct routing *r, size_t memo_max, size_t rec_max,
		   struct hm_dfly **out, struct err *err)
{
	const struct routing_dfly *d = routing_dfly(r);
	struct hm_dfly *x;
	size_t GG, NG;

	*out = NULL;
	/* about 40 bytes per group pair: beyond HM_DFLY_MAX_GROUPS groups
	 * (40 MiB) the stems serve */
	if (!d || d->G > HM_DFLY_MAX_GROUPS)
		return 0;
	GG = (size_t)d->G * d->G;
	NG = d->gl_pair[GG];
	x = calloc(1, sizeof(*x));
	if (!x)
		return err_nomem(err, "out of memory (hm)");
	x->d = d;
	x->t = routing_topo(r);
	x->N = topo_num_nodes(x->t);
	x->K = d->S * d->maxa;
	x->kw = (d->maxa + 3) / 4 * 4;
	x->P = malloc((GG + 1) * sizeof(*x->P));
	x->Q = malloc((GG + 1) * sizeof(*x->Q));
	x->gfrom = malloc((NG + 1) * sizeof(*x->gfrom));
	x->gto = malloc((NG + 1) * sizeof(*x->gto));
	x->gfi = malloc((NG + 1) * sizeof(*x->gfi));
	x->tin = malloc((GG + 1) * sizeof(*x->tin));
	x->tn = malloc((GG + 1) * sizeof(*x->tn));
	x->ttp = malloc((GG + 1) * sizeof(*x->ttp));
	x->tgfi = malloc((NG + 1) * sizeof(*x->tgfi));
	x->tgti = malloc((NG + 1) * sizeof(*x->tgti));
	x->cgen = calloc((size_t)d->G + 1, sizeof(*x->cgen));
	x->rgen = calloc((size_t)d->G + 1, sizeof(*x->rgen));
	x->tsh = malloc((NG + 1) * sizeof(*x->tsh));
	x->gsh = malloc((NG + 1) * sizeof(*x->gsh));
	x->gti = malloc((NG + 1) * sizeof(*x->gti));
	x->gkv = malloc((NG + 1) * sizeof(*x->gkv));
	x->shs = malloc(((size_t)d->maxa + 1) * sizeof(*x->shs));
	x->shd = malloc(((size_t)d->maxa + 1) * sizeof(*x->shd));
	x->w = malloc((2 * (size_t)d->maxa + 1) * sizeof(*x->w));
	x->pcnt = calloc(GG + 1, sizeof(*x->pcnt));
	x->pairs = malloc((GG + 1) * sizeof(*x->pairs));
	x->pairs2 = malloc((GG + 1) * sizeof(*x->pairs2));
	x->f = malloc(((size_t)d->G + 1) * sizeof(*x->f));
	x->wdone = calloc(GG + 1, 1);
	if (GG * d->maxa <= memo_max) {
		x->wout = malloc((GG * d->maxa + 1) * sizeof(*x->wout));
		x->win = malloc((GG * d->maxa + 1) * sizeof(*x->win));
		if (!x->wout || !x->win) {
			hm_dfly_destroy(x);
			return err_nomem(err, "out of memory (hm)");
		}
	}
	x->ki = malloc(((size_t)x->K + 1) * sizeof(*x->ki));
	x->lout = malloc(((size_t)x->K + 1) * sizeof(*x->lout));
	x->lin = malloc(((size_t)x->K + 1) * sizeof(*x->lin));
	x->lgo = calloc((size_t)d->S + 1, sizeof(*x->lgo));
	x->lgi = calloc((size_t)d->S + 1, sizeof(*x->lgi));
	x->kgen = 1;
	x->uout = calloc((size_t)d->S + 1, sizeof(*x->uout));
	x->uin = calloc((size_t)d->S + 1, sizeof(*x->uin));
	x->rout = malloc(((size_t)d->S + 1) * sizeof(*x->rout));
	x->rin = malloc(((size_t)d->S + 1) * sizeof(*x->rin));
	x->rec_max = rec_max;
#ifdef HM_DFLY_AVX
	x->avx = __builtin_cpu_supports("avx");
#endif
	if (!x->P || !x->Q || !x->gfrom || !x->gto || !x->gfi || !x->gti ||
	    !x->tin || !x->tn || !x->gkv || !x->shs || !x->shd || !x->w ||
	    !x->pcnt || !x->pairs || !x->pairs2 || !x->f || !x->wdone ||
	    !x->ki || !x->uout || !x->uin || !x->rout || !x->rin || !x->lout ||
	    !x->lin || !x->lgo || !x->lgi || !x->ttp || !x->tgfi || !x->tgti ||
	    !x->cgen || !x->rgen || !x->tsh || !x->gsh) {
		hm_dfly_destroy(x);
		return err_nomem(err, "out of memory (hm)");
	}
	for (size_t k = 0; k < GG; k++)
		x->P[k] = x->Q[k] = NAN;
	for (uint32_t b = 0; b < d->G; b++)
		for (uint32_t c = 0; c < d->G; c++) {
			size_t k = (size_t)b * d->G + c;

			x->tn[k] = gpos(d, c, b, &x->tin[k]);
		}
	for (size_t q = 0; q < NG; q++) {
		const struct topo_link *l = topo_link(x->t, d->gl[q]);

		x->gfrom[q] = l->from;
		x->gto[q] = l->to;
		x->gfi[q] = d->idx[l->from];
		x->gti[q] = d->idx[l->to];
		x->gkv[q] = l->to * d->maxa;
	}
	for (size_t k = 0, pos = 0; k < GG; k++) {
		x->ttp[k] = (uint32_t)pos;
		for (uint32_t j = 0; j < x->tn[k]; j++, pos++) {
			x->tgfi[pos] = x->gfi[x->tin[k] + j];
			x->tgti[pos] = x->gti[x->tin[k] + j];
		}
	}
	for (uint32_t k = 0; k <= x->K; k++)
		x->ki[k].slot = UINT32_MAX;
	*out = x;
	return 0;
}

/* P(A, B), A != B: the sub-flows of one flow, and in x->Q its VLB stems
 * (memoised). */
static double paths_ab(struct hm_dfly *x, uint32_t a, uint32_t b)
{
	const struct routing_dfly *d = x->d;
	size_t k = (size_t)a * d->G + b;
	double s = 0, q = 0;
	const uint32_t *l;

	if (!isnan(x->P[k]))
		return x->P[k];
	if (d->min)
		s = nglob(d, a, b, &l);
	for (uint32_t c = 0; c < d->G; c++)
		if (c != a && c != b) {
			double n =
				(double)nglob(d, a, c, &l) * nglob(d, c, b, &l);

			s += (double)asz(d, c) * n;
			q += n;
		}
	x->Q[k] = q;
	return x->P[k] = s;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Add group C's part of a flow's end weights to W: for the source end
 * (OUT, SELF = A, OTHER = B) on s -> x, x of index i in A, MIN's global
 * links from x to B (ugal) and a_C m(C, B) for every global link from x
 * to a group C other than A and B; for the destination end (SELF = B,
 * OTHER = A) the same on y -> d, y in B, with the links from C. */
static void end_add(const struct hm_dfly *x, uint32_t c, uint32_t self,
		    uint32_t other, bool out, double *w)
{
	const struct routing_dfly *d = x->d;
	const uint32_t *l, *idx = out ? x->gfi : x->gti;
	uint32_t q, n;
	double wt;

	if (c == self || (c == other && !d->min))
		return;
	wt = c == other ? 1 :
			  (double)asz(d, c) * (out ? nglob(d, c, other, &l) :
						     nglob(d, other, c, &l));
	n = out ? gpos(d, self, c, &q) : gpos(d, c, self, &q);
	for (uint32_t k = q; k < q + n; k++)
		w[idx[k]] += wt;
}

/* The weights of a flow A -> B (A != B) on the local links at its ends:
 * OUT[i] on s -> x for the router x of index i in A, IN[i] on y -> d for
 * y of index i in B (end_add). */
static void weights(struct hm_dfly *x, uint32_t a, uint32_t b, double *out,
		    double *in)
{
	const struct routing_dfly *d = x->d;

	memset(out, 0, asz(d, a) * sizeof(*out));
	memset(in, 0, asz(d, b) * sizeof(*in));
	for (uint32_t c = 0; c < d->G; c++) {
		end_add(x, c, a, b, true, out);
		end_add(x, c, b, a, false, in);
	}
}

/* The weights of A -> B: memoised, or computed into x->w. */
static void pair_weights(struct hm_dfly *x, uint32_t a, uint32_t b,
			 const double **out, const double **in)
{
	size_t k = (size_t)a * x->d->G + b, m = x->d->maxa;

	if (!x->wout) {
		weights(x, a, b, x->w, x->w + m);
		*out = x->w;
		*in = x->w + m;
		return;
	}
	*out = x->wout + k * m;
	*in = x->win + k * m;
	if (!x->wdone[k]) {
		weights(x, a, b, x->wout + k * m, x->win + k * m);
		x->wdone[k] = 1;
	}
}

void hm_dfly_forget(struct hm_dfly *x)
{
	for (uint32_t q = 0; q < x->nk; q++)
		x->ki[x->keys[q]].slot = UINT32_MAX;
	x->nk = 0;
	if (++x->kgen == 0) {
		memset(x->lgo, 0, x->d->S * sizeof(*x->lgo));
		memset(x->lgi, 0, x->d->S * sizeof(*x->lgi));
		memset(x->cgen, 0, x->d->G * sizeof(*x->cgen));
		memset(x->rgen, 0, x->d->G * sizeof(*x->rgen));
		x->kgen = 1;
	}
}

/* Room for NKEYS more key slots (at most K in all), a group pair's NREC
 * path records and NF flows in hm_dfly_rates' order. */
static int cache_room(struct hm_dfly *x, double nkeys, size_t nrec, uint32_t nf,
		      struct err *err)
{
	double want = (double)x->nk + nkeys;

	if (want > x->K)
		want = x->K;
	if (want > x->capk) {
		uint32_t nc = (uint32_t)want;
		uint32_t *kq = realloc(x->keys, ((size_t)nc + 1) * sizeof(*kq));
		double *q;

		if (!kq)
			return err_nomem(err, "out of memory (hm keys)");
		x->keys = kq;
		q = realloc(x->segv, ((size_t)nc * x->kw + 1) * sizeof(*q));
		if (!q)
			return err_nomem(err, "out of memory (hm keys)");
		x->segv = q;
		x->capk = nc;
	}
	if (nrec > x->caprec) {
		struct prec *q = realloc(x->rec, (nrec + 1) * sizeof(*q));

		if (!q)
			return err_nomem(err, "out of memory (hm pairs)");
		x->rec = q;
		x->caprec = nrec;
	}
	if (nf > x->capord) {
		size_t nc = 2 * (size_t)nf;
		uint64_t *q = realloc(x->ord, nc * sizeof(*q));

		if (!q)
			return err_nomem(err, "out of memory (hm flows)");
		x->ord = q;
		q = realloc(x->ordt, nc * sizeof(*q));
		if (!q)
			return err_nomem(err, "out of memory (hm flows)");
		x->ordt = q;
		x->capord = nc;
	}
	return 0;
}

/* Every flow of F between nodes of the topology (and, with SELF, not
 * from a node to itself).  Returns 0, or -1 with err set. */
static int check_flows(const struct hm_dfly *x, const struct flows *f,
		       bool self, struct err *err)
{
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s = f->src[i], dn = f->dst[i];

		if (s >= x->N || dn >= x->N)
			return err_set(err,
				       "flow %u: node %u out of range (the "
				       "topology has %u nodes)",
				       i, s >= x->N ? s : dn, x->N);
		if (self && s == dn)
			return err_set(err,
				       "flow %u: source and destination are "
				       "the same node %u",
				       i, s);
	}
	return 0;
}

/* The keys F's inter-group flows may meet (*NKEYS) and the most path
 * records of one of their group pairs (*NREC). */
static void set_needs(struct hm_dfly *x, const struct flows *f, double *nkeys,
		      size_t *nrec)
{
	const struct routing_dfly *d = x->d;

	*nkeys = 0;
	*nrec = 0;
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t a = d->group[topo_node_switch(x->t, f->src[i])];
		uint32_t b = d->group[topo_node_switch(x->t, f->dst[i])];
		size_t pk = (size_t)a * d->G + b, n;
		const uint32_t *l;

		if (a == b || x->pcnt[pk]++)
			continue;
		x->pairs[x->npairs++] = (uint32_t)pk;
		paths_ab(x, a, b);
		*nkeys += x->Q[pk];
		n = (size_t)x->Q[pk] + (d->min ? nglob(d, a, b, &l) : 0);
		if (n > *nrec)
			*nrec = n;
	}
	for (uint32_t q = 0; q < x->npairs; q++)
		x->pcnt[x->pairs[q]] = 0;
	x->npairs = 0;
}

int hm_dfly_prepare(struct hm_dfly *x, const struct flows *f, uint64_t ver,
		    struct err *err)
{
	double nkeys;
	size_t nrec;

	if (ver != x->ver) {
		hm_dfly_forget(x);
		x->ver = ver;
	}
	if (check_flows(x, f, false, err))
		return -1;
	set_needs(x, f, &nkeys, &nrec);
	x->direct = nrec > x->rec_max;
	return cache_room(x, nkeys, x->direct ? 0 : nrec, f->n, err);
}

int hm_dfly_count(struct hm_dfly *x, const struct flows *f,
		  struct hm_counter *hc, uint64_t *npaths, struct err *err)
{
	const struct routing_dfly *d = x->d;
	const struct topo *t = x->t;
	uint32_t G = d->G;
	uint64_t tot = 0;
	double nkeys = 0;
	size_t nrec = 0;

	hm_dfly_forget(x);
	/* every flow checked before anything is counted */
	if (check_flows(x, f, true, err))
		return -1;
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s = f->src[i], dn = f->dst[i], rs, rd, a, b;
		uint32_t inj, ej;
		double p;

		rs = topo_node_switch(t, s);
		rd = topo_node_switch(t, dn);
		a = d->group[rs];
		b = d->group[rd];
		inj = topo_inject_link(t, s);
		ej = topo_eject_link(t, dn);
		if (rs == rd) {
			p = 1;
		} else if (a == b) {
			uint32_t nI = d->vlb ? asz(d, a) - 2 : 0;
			bool mn = d->min || !nI;

			p = (double)mn + nI;
			if (mn)
				hm_count(hc, loc(d, a, rs, rd), 1);
			for (uint32_t k = d->mem_off[a];
			     nI && k < d->mem_off[a + 1]; k++) {
				uint32_t I = d->mem[k];

				if (I == rs || I == rd)
					continue;
				hm_count(hc, loc(d, a, rs, I), 1);
				hm_count(hc, loc(d, a, I, rd), 1);
			}
		} else {
			size_t pk = (size_t)a * G + b;
			const double *wo, *wi;
			const uint32_t *row = d->local + d->lo[a] +
					      (size_t)d->idx[rs] * asz(d, a);
			const uint32_t *col = d->local + d->lo[b] + d->idx[rd];

			p = paths_ab(x, a, b);
			pair_weights(x, a, b, &wo, &wi);
			for (uint32_t k = 0; k < asz(d, a); k++)
				if (k != d->idx[rs] && wo[k] > 0)
					hm_count(hc, row[k], wo[k]);
			for (uint32_t k = 0; k < asz(d, b); k++)
				if (k != d->idx[rd] && wi[k] > 0)
					hm_count(hc, col[(size_t)k * asz(d, b)],
						 wi[k]);
			if (!x->pcnt[pk]++)
				x->pairs[x->npairs++] = (uint32_t)pk;
		}
		hm_count(hc, inj, p);
		hm_count(hc, ej, p);
		tot += (uint64_t)p;
	}
	/* global links and keys, per group pair (A, B) with c flows: each
	 * A -> g carries c a_g m(g, B), each g -> B c a_g m(A, g), and
	 * every pair (x -> v, u -> y) uses key (v, u) c times (v's uses
	 * leaving: c m(g, B) per A -> g link; u's entering: c m(A, g)); so
	 * per A the sum over its pairs' B first, then each link once, and
	 * per B likewise */
	qsort(x->pairs, x->npairs, sizeof(*x->pairs), cmp_u32);
	for (uint32_t i = 0, j; i < x->npairs; i = j) {
		uint32_t a = x->pairs[i] / G;
		const uint32_t *pa = d->gl_pair + (size_t)a * G;

		memset(x->f, 0, G * sizeof(*x->f));
		for (j = i; j < x->npairs && x->pairs[j] / G == a; j++) {
			uint32_t b = x->pairs[j] % G;
			double c = x->pcnt[x->pairs[j]];
			const uint32_t *nb = x->tn + (size_t)b * G;
			size_t n = (size_t)x->Q[x->pairs[j]] +
				   (d->min ? pa[b + 1] - pa[b] : 0);

			nkeys += x->Q[x->pairs[j]];
			if (n > nrec)
				nrec = n;
			if (d->min)
				for (uint32_t k = pa[b]; k < pa[b + 1]; k++)
					hm_count(hc, d->gl[k], c);
			for (uint32_t g = 0; g < G; g++)
				x->f[g] += c * nb[g];
			x->f[b] -= c * nb[b]; /* 0: no link b -> b */
			x->f[a] -= c * nb[a];
			/* for the pass per B: keyed by B */
			x->pairs2[j] = b * G + a;
		}
		for (uint32_t g = 0; g < G; g++) {
			double ag = (double)asz(d, g);

			if (g == a || x->f[g] == 0)
				continue;
			for (uint32_t k = pa[g]; k < pa[g + 1]; k++) {
				uint32_t v = x->gto[k];

				hm_count(hc, d->gl[k], ag * x->f[g]);
				if (x->uout[v] == 0)
					x->rout[x->nrout++] = v;
				x->uout[v] += x->f[g];
			}
		}
	}
	qsort(x->pairs2, x->npairs, sizeof(*x->pairs2), cmp_u32);
	for (uint32_t i = 0, j; i < x->npairs; i = j) {
		uint32_t b = x->pairs2[i] / G;
		const uint32_t *tb = x->tin + (size_t)b * G;
		const uint32_t *nb = x->tn + (size_t)b * G;

		memset(x->f, 0, G * sizeof(*x->f));
		for (j = i; j < x->npairs && x->pairs2[j] / G == b; j++) {
			uint32_t a = x->pairs2[j] % G;
			size_t pk = (size_t)a * G + b;
			double c = x->pcnt[pk];
			const uint32_t *pa = d->gl_pair + (size_t)a * G;

			for (uint32_t g = 0; g < G; g++)
				x->f[g] += c * (pa[g + 1] - pa[g]);
			x->f[a] -= c * (pa[a + 1] - pa[a]);
			x->f[b] -= c * (pa[b + 1] - pa[b]);
			x->pcnt[pk] = 0;
		}
		for (uint32_t g = 0; g < G; g++) {
			double ag = (double)asz(d, g);

			if (g == b || x->f[g] == 0)
				continue;
			for (uint32_t k = tb[g]; k < tb[g] + nb[g]; k++) {
				uint32_t u = x->gfrom[k];

				hm_count(hc, d->gl[k], ag * x->f[g]);
				if (x->uin[u] == 0)
					x->rin[x->nrin++] = u;
				x->uin[u] += x->f[g];
			}
		}
	}
	/* the keys' segments: v -> I for the uses leaving v, I -> u for
	 * those entering u */
	for (uint32_t q = 0; q < x->nrout; q++) {
		uint32_t v = x->rout[q], g = d->group[v];

		for (uint32_t k = d->mem_off[g]; k < d->mem_off[g + 1]; k++)
			if (d->mem[k] != v)
				hm_count(hc, loc(d, g, v, d->mem[k]),
					 x->uout[v]);
		x->uout[v] = 0;
	}
	for (uint32_t q = 0; q < x->nrin; q++) {
		uint32_t u = x->rin[q], g = d->group[u];

		for (uint32_t k = d->mem_off[g]; k < d->mem_off[g + 1]; k++)
			if (d->mem[k] != u)
				hm_count(hc, loc(d, g, d->mem[k], u),
					 x->uin[u]);
		x->uin[u] = 0;
	}
	x->nrout = x->nrin = x->npairs = 0;
	/* room for the segment shares of every key the rates may meet and
	 * the pairs' tables (they cannot fail) */
	x->direct = nrec > x->rec_max;
	if (cache_room(x, nkeys, x->direct ? 0 : nrec, f->n, err))
		return -1;
	if (npaths)
		*npaths = tot;
	return 0;
}

static inline double min2(double a, double b)
{
	return a < b ? a : b;
}

/* Key K's segment shares into a new slot (and x->ki[k]), in
 * routing_middles' order (for every router I of the key's group: the
 * least of v -> I and I -> u), then zeros to x->kw.  The shares of
 * v -> I and I -> u come from x->lout and x->lin, read from SH for v and
 * for u the first time this kgen: every key of v (or u) a set meets has
 * all those links counted by the set, so they are of these counts. */
static uint32_t key_slot(struct hm_dfly *x, uint32_t k, const double *sh)
{
	const struct routing_dfly *d = x->d;
	uint32_t v = k / d->maxa, g = d->group[v], s = x->nk++;
	uint32_t iu = k % d->maxa, u = d->mem[d->mem_off[g] + iu];
	uint32_t iv = d->idx[v], n = asz(d, g);
	const uint32_t *lg = d->local + d->lo[g];
	double *sv = x->segv + (size_t)s * x->kw;
	double *ro = x->lout + (size_t)v * d->maxa;
	double *ri = x->lin + (size_t)u * d->maxa;

	if (x->lgo[v] != x->kgen) {
		for (uint32_t i = 0; i < n; i++)
			ro[i] = i == iv ? INFINITY : sh[lg[(size_t)iv * n + i]];
		x->lgo[v] = x->kgen;
	}
	if (x->lgi[u] != x->kgen) {
		for (uint32_t i = 0; i < n; i++)
			ri[i] = i == iu ? INFINITY : sh[lg[(size_t)i * n + iu]];
		x->lgi[u] = x->kgen;
	}
	for (uint32_t i = 0; i < n; i++)
		sv[i] = min2(min2(INFINITY, ro[i]), ri[i]);
	for (uint32_t i = n; i < x->kw; i++)
		sv[i] = 0;
	x->ki[k].slot = s;
	x->keys[s] = k;
	return s;
}

/* A stem's sum over its key's N segments of min(C, v_g), from the key's
 * slot SV (key_slot), in four lanes added into T[4]: lane z gets the
 * terms of segments z, z + 4, ... (N rounded up to 4: the padding's
 * zeros add nothing, C >= 0) summed left to right, without a branch.  A
 * flow's stems are summed lane by lane, and the lanes added once at its
 * end (lanes_sum): two SSE2 registers of two lanes, four in one AVX
 * register (flow_table_avx) or plain C, the same terms in the same
 * order, so the same to the last bit. */
static inline void keylanes(const double *sv, uint32_t n, double c, double *t)
{
	uint32_t nr = (n + 3) & ~3u;
#ifdef __SSE2__
	__m128d cv = _mm_set1_pd(c);
	__m128d j0 = _mm_min_pd(_mm_loadu_pd(sv), cv);
	__m128d j1 = _mm_min_pd(_mm_loadu_pd(sv + 2), cv);

	for (uint32_t g = 4; g < nr; g += 4) {
		j0 = _mm_add_pd(j0, _mm_min_pd(_mm_loadu_pd(sv + g), cv));
		j1 = _mm_add_pd(j1, _mm_min_pd(_mm_loadu_pd(sv + g + 2), cv));
	}
	_mm_storeu_pd(t, _mm_add_pd(_mm_loadu_pd(t), j0));
	_mm_storeu_pd(t + 2, _mm_add_pd(_mm_loadu_pd(t + 2), j1));
#else
	double j[4];

	for (uint32_t z = 0; z < 4; z++)
		j[z] = sv[z] < c ? sv[z] : c;
	for (uint32_t g = 4; g < nr; g += 4)
		for (uint32_t z = 0; z < 4; z++)
			j[z] += sv[g + z] < c ? sv[g + z] : c;
	for (uint32_t z = 0; z < 4; z++)
		t[z] += j[z];
#endif
}

/* A flow's four lanes (keylanes) added up. */
static inline double lanes_sum(const double *t)
{
	return (t[0] + t[2]) + (t[1] + t[3]);
}

/* keylanes for key K (its segment shares found first if not yet). */
static inline void keysum(struct hm_dfly *x, uint32_t k, uint32_t n, double c,
			  const double *sh, double *t)
{
	uint32_t s = x->ki[k].slot;

	if (s == UINT32_MAX)
		s = key_slot(x, k, sh);
	keylanes(x->segv + (size_t)s * x->kw, n, c, t);
}

/* The rate of a flow A -> B (A != B) from the shares of its ends' local
 * links in x->shs and x->shd (hm_dfly_rates), path by path. */
static double flow_direct(struct hm_dfly *x, uint32_t a, uint32_t b,
			  const double *sh)
{
	const struct routing_dfly *d = x->d;
	double r = 0, t[4] = { 0, 0, 0, 0 };

	if (d->min) {
		uint32_t q0, nl = gpos(d, a, b, &q0);

		for (uint32_t q = q0; q < q0 + nl; q++)
			r += min2(min2(x->shs[x->gfi[q]], sh[d->gl[q]]),
				  x->shd[x->gti[q]]);
	}
	const uint32_t *pa = d->gl_pair + (size_t)a * d->G;
	const uint32_t *tb = x->tin + (size_t)b * d->G;
	const uint32_t *nb = x->tn + (size_t)b * d->G;

	for (uint32_t g = 0; g < d->G; g++) {
		uint32_t q1 = pa[g], n1 = pa[g + 1] - pa[g];
		uint32_t q2 = tb[g], n2 = nb[g], n = asz(d, g);

		if (g == a || g == b)
			continue;
		for (uint32_t k1 = q1; k1 < q1 + n1; k1++) {
			double c1 = min2(x->shs[x->gfi[k1]], sh[d->gl[k1]]);
			uint32_t kv = x->gkv[k1];

			for (uint32_t k2 = q2; k2 < q2 + n2; k2++) {
				double c = min2(min2(c1, sh[d->gl[k2]]),
						x->shd[x->gti[k2]]);

				keysum(x, kv + x->gfi[k2], n, c, sh, t);
			}
		}
	}
	return r + lanes_sum(t);
}

/* The paths of a flow A -> B (A != B) as records (struct prec) in
 * x->rec: the same terms in flow_direct's order, so the same sums to the
 * last bit. */
static const struct prec *pair_table(struct hm_dfly *x, uint32_t a, uint32_t b,
				     const double *sh)
{
	const struct routing_dfly *d = x->d;
	struct prec *p = x->rec;
	const uint32_t *pa = d->gl_pair + (size_t)a * d->G;
	const uint32_t *tp = x->ttp + (size_t)b * d->G;
	const uint32_t *nb = x->tn + (size_t)b * d->G;

	paths_ab(x, a, b);
	if (x->rgen[a] != x->kgen) { /* A's row: every A -> C */
		for (uint32_t q = pa[0]; q < pa[d->G]; q++)
			x->gsh[q] = sh[d->gl[q]];
		x->rgen[a] = x->kgen;
	}
	if (x->cgen[b] != x->kgen) { /* B's column: every C -> B */
		const uint32_t *tb = x->tin + (size_t)b * d->G;

		for (uint32_t g = 0; g < d->G; g++)
			for (uint32_t j = 0; j < nb[g]; j++)
				x->tsh[tp[g] + j] = sh[d->gl[tb[g] + j]];
		x->cgen[b] = x->kgen;
	}
	if (d->min) {
		uint32_t q0, nl = gpos(d, a, b, &q0);

		for (uint32_t q = q0; q < q0 + nl; q++)
			*p++ = (struct prec){ .m = x->gsh[q],
					      .xi = x->gfi[q],
					      .yi = x->gti[q] };
	}
	for (uint32_t g = 0; g < d->G; g++) {
		uint32_t q2 = tp[g], n2 = nb[g], n = asz(d, g);

		if (g == a || g == b)
			continue;
		for (uint32_t k1 = pa[g]; k1 < pa[g + 1]; k1++) {
			double m1 = x->gsh[k1];
			uint32_t kv = x->gkv[k1], xi = x->gfi[k1];

			for (uint32_t k2 = q2; k2 < q2 + n2; k2++) {
				uint32_t k = kv + x->tgfi[k2];
				uint32_t s = x->ki[k].slot;

				if (s == UINT32_MAX)
					s = key_slot(x, k, sh);
				*p++ = (struct prec){ .m = min2(m1, x->tsh[k2]),
						      .slot = s,
						      .n = n,
						      .xi = xi,
						      .yi = x->tgti[k2] };
			}
		}
	}
	return x->rec;
}

/* The sum over a flow A -> B's MIN paths (the first of the pair's
 * records *P, which it moves past them) of their shares; *E the end of
 * the pair's records. */
static inline double flow_min(const struct hm_dfly *x, uint32_t a, uint32_t b,
			      const struct prec **p, const struct prec **e)
{
	const struct routing_dfly *d = x->d;
	const double *ss = x->shs, *sd = x->shd;
	const uint32_t *l;
	uint32_t nmin = d->min ? nglob(d, a, b, &l) : 0;
	const struct prec *q = *p;
	double r = 0;

	*e = q + nmin + (size_t)x->Q[(size_t)a * d->G + b];
	for (; nmin; q++, nmin--)
		r += min2(min2(ss[q->xi], q->m), sd[q->yi]);
	*p = q;
	return r;
}

/* flow_direct from the pair's records P: MIN's links, then per VLB stem
 * its share c (the least of its ends' and its global links') and the sum
 * over its key's segments of min(c, v_g) in lanes as keysum's. */
static double flow_table(const struct hm_dfly *x, uint32_t a, uint32_t b,
			 const struct prec *p)
{
	const double *ss = x->shs, *sd = x->shd;
	const struct prec *e;
	double r = flow_min(x, a, b, &p, &e), t[4] = { 0, 0, 0, 0 };

	for (; p < e; p++)
		keylanes(x->segv + (size_t)p->slot * x->kw, p->n,
			 min2(min2(ss[p->xi], p->m), sd[p->yi]), t);
	return r + lanes_sum(t);
}

#ifdef HM_DFLY_AVX
/* flow_table with the four lanes in one AVX register: each lane adds
 * the same terms in the same order as keylanes', and the lanes are added
 * as lanes_sum adds them, so the same rates to the last bit. */
__attribute__((target("avx"))) static double
flow_table_avx(const struct hm_dfly *x, uint32_t a, uint32_t b,
	       const struct prec *p)
{
	const double *ss = x->shs, *sd = x->shd;
	const struct prec *e;
	double r = flow_min(x, a, b, &p, &e);
	__m256d tot = _mm256_setzero_pd();
	__m128d h;

	/* groups of 13 to 16 routers (the padding's zeros add +0, which
	 * changes no sum): four steps unrolled */
	for (; x->kw == 16 && p < e; p++) {
		const double *sv = x->segv + (size_t)p->slot * 16;
		__m256d cv =
			_mm256_set1_pd(min2(min2(ss[p->xi], p->m), sd[p->yi]));
		__m256d acc = _mm256_min_pd(_mm256_loadu_pd(sv), cv);

		acc = _mm256_add_pd(acc,
				    _mm256_min_pd(_mm256_loadu_pd(sv + 4), cv));
		acc = _mm256_add_pd(acc,
				    _mm256_min_pd(_mm256_loadu_pd(sv + 8), cv));
		acc = _mm256_add_pd(acc, _mm256_min_pd(_mm256_loadu_pd(sv + 12),
						       cv));
		tot = _mm256_add_pd(tot, acc);
	}
	for (; p < e; p++) {
		const double *sv = x->segv + (size_t)p->slot * x->kw;
		__m256d cv =
			_mm256_set1_pd(min2(min2(ss[p->xi], p->m), sd[p->yi]));
		__m256d acc = _mm256_min_pd(_mm256_loadu_pd(sv), cv);
		uint32_t nr = (p->n + 3) & ~3u;

		for (uint32_t g = 4; g < nr; g += 4)
			acc = _mm256_add_pd(
				acc,
				_mm256_min_pd(_mm256_loadu_pd(sv + g), cv));
		tot = _mm256_add_pd(tot, acc);
	}
	h = _mm_add_pd(_mm256_castpd256_pd128(tot),
		       _mm256_extractf128_pd(tot, 1));
	return r + (_mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h)));
}
#endif

/* The shares of flow S -> DN's injection and ejection links' least
 * (BASE) and of its ends' local links, from router RS of group A to
 * router RD of group B != A: s -> x (capped at BASE) into x->shs and
 * y -> d into x->shd, by x's and y's index (BASE itself where x = s,
 * none where y = d). */
static void flow_ends(struct hm_dfly *x, const double *sh, uint32_t rs,
		      uint32_t rd, double base)
{
	const struct routing_dfly *d = x->d;
	uint32_t a = d->group[rs], b = d->group[rd];
	uint32_t na = asz(d, a), nb = asz(d, b);
	uint32_t is = d->idx[rs], id = d->idx[rd];
	const uint32_t *row = d->local + d->lo[a] + (size_t)is * na;
	const uint32_t *col = d->local + d->lo[b] + id;
	double *ss = x->shs, *sd = x->shd;

	for (uint32_t k = 0; k < na; k++)
		ss[k] = k == is ? base : min2(base, sh[row[k]]);
	for (uint32_t k = 0; k < nb; k++)
		sd[k] = k == id ? INFINITY : sh[col[(size_t)k * nb]];
}

/* x->ord[0, N) sorted by group pair (the high 32 bits; stable), one byte
 * a pass, as many as the largest pair has. */
static void sort_pairs(struct hm_dfly *x, size_t n)
{
	uint64_t top = (uint64_t)x->d->G * x->d->G - 1;

	for (unsigned bit = 32; bit < 64 && top >> (bit - 32); bit += 8) {
		size_t cnt[257] = { 0 };
		uint64_t *t;

		for (size_t i = 0; i < n; i++)
			cnt[((x->ord[i] >> bit) & 255) + 1]++;
		for (unsigned v = 0; v < 256; v++)
			cnt[v + 1] += cnt[v];
		for (size_t i = 0; i < n; i++)
			x->ordt[cnt[(x->ord[i] >> bit) & 255]++] = x->ord[i];
		t = x->ord;
		x->ord = x->ordt;
		x->ordt = t;
	}
}

void hm_dfly_rates(struct hm_dfly *x, const struct flows *f, const double *sh,
		   double *rates)
{
	const struct routing_dfly *d = x->d;
	const struct topo *t = x->t;
	size_t no = 0;

	/* within a router or a group here; between groups, with tables,
	 * by group pair after */
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s = f->src[i], dn = f->dst[i];
		uint32_t rs = topo_node_switch(t, s),
			 rd = topo_node_switch(t, dn);
		uint32_t a = d->group[rs], b = d->group[rd];
		double base = min2(sh[topo_inject_link(t, s)],
				   sh[topo_eject_link(t, dn)]),
		       r = 0;

		if (rs == rd) {
			rates[i] = base;
			continue;
		}
		if (a == b) {
			uint32_t nI = d->vlb ? asz(d, a) - 2 : 0;

			if (d->min || !nI)
				r += min2(base, sh[loc(d, a, rs, rd)]);
			for (uint32_t k = d->mem_off[a];
			     nI && k < d->mem_off[a + 1]; k++) {
				uint32_t I = d->mem[k];

				if (I == rs || I == rd)
					continue;
				r += min2(base, min2(sh[loc(d, a, rs, I)],
						     sh[loc(d, a, I, rd)]));
			}
			rates[i] = r;
			continue;
		}
		if (x->direct) {
			flow_ends(x, sh, rs, rd, base);
			rates[i] = flow_direct(x, a, b, sh);
			continue;
		}
		x->ord[no++] = ((uint64_t)a * d->G + b) << 32 | i;
	}
	sort_pairs(x, no);
	for (size_t j = 0; j < no;) {
		uint64_t pk = x->ord[j] >> 32;
		uint32_t a = (uint32_t)(pk / d->G), b = (uint32_t)(pk % d->G);
		const struct prec *p = pair_table(x, a, b, sh);

		for (; j < no && x->ord[j] >> 32 == pk; j++) {
			uint32_t i = (uint32_t)x->ord[j];
			uint32_t s = f->src[i], dn = f->dst[i];

			flow_ends(x, sh, topo_node_switch(t, s),
				  topo_node_switch(t, dn),
				  min2(sh[topo_inject_link(t, s)],
				       sh[topo_eject_link(t, dn)]));
#ifdef HM_DFLY_AVX
			if (x->avx) {
				rates[i] = flow_table_avx(x, a, b, p);
				continue;
			}
#endif
			rates[i] = flow_table(x, a, b, p);
		}
	}
}
