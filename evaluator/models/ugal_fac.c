/* ugal_fac.c - the factored matrix-free operator of the UGAL templates'
 * VLB columns (ugal_tpl_build_factored): its kernels, its path-count
 * dictionary and plans, and its split over threads. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/ugal_impl.h"
#include "topo/util/par.h"

/* ---- the factored VLB columns (ugal_tpl_build_factored) ----
 *
 * M_op x = sum over flows f = s -> d and intermediates I of the halves:
 * the rate x_L of f's VLB group of L hops puts, on the half s -> I of l1
 * hops, sum_l2 x_{l1+l2} N(I,d,l2) (each of its paths is followed by
 * N(I,d,l2) second halves), and on I -> d of l2 hops sum_l1 x_{l1+l2}
 * N(s,I,l1).  The rates of every (x, y, hops) half go to a table H, which
 * is then spread, per global link k = u -> v from x's group to y's, over
 * local(x -> u), k and local(v -> y) (ugal_half_min's expansion), and the
 * local pairs' rates over their local paths' links.  M_op' y runs the same
 * steps backwards.
 *
 * The path-count vectors N(x,y,.) take few distinct values (276 over the
 * 331,776 switch pairs of a 6-group Cascade), so they are kept once in a
 * dictionary and a pair holds an index.  The rate a flow puts on a half
 * depends on the other half's vector only: per flow and side, the
 * distinct vectors it uses and each intermediate's index among them are
 * listed once (build_plans), a product convolves the flow's rates with
 * each listed vector, and each (flow, intermediate) costs an HL-wide
 * addition per side.  The adjoint sums the half costs per vector first
 * and convolves once per vector.  An entry of H at a hop count without a
 * path is never read (the spreads read a pair's existing hop counts), so
 * the forward sums are not masked.
 *
 * Order (H is 16 MB on that Cascade; each pass over it costs): forward,
 * the halves I -> d are written as rows of H by destination; then per
 * switch x its row (halves x -> y) is assembled in a buffer from its
 * flows' halves and a column gather, and spread over the global links at
 * once, XB rows of a group together (they share the far pair tables'
 * loads: half the L1 misses of one row at a time).  Adjoint, per switch
 * x the row of costs is built from the links (XB rows together) and
 * priced for the flows from x while in cache; then per destination a
 * column gather prices the halves into it, skipping the rows of the
 * destination's group where no flow into it has an intermediate.  Parts of a product run on
 * threads by group or by switch (run_step).  Cost per product:
 * O(flows x intermediates x HL + flows x distinct vectors x HL x hops +
 * global links x routers^2), with no per-path and no per-column link
 * list. */
#define NONE UINT32_MAX
/* Half hop counts 0..HL-1 with HL = the longest MIN half + 1; the
 * kernels are specialised for HL = PAD, Cascade's (dragonfly: 4).  Padding
 * Cascade's rows to 8 (cache-line rows) was measured 15 % slower: the
 * table is mostly streamed, and 6 of 8 slots carry data. */
#define PAD 6
#define NPART 2 /* parts (threads) of a product */
/* Rows of H a global-link spread takes at once (p_fwd_rows, p_adj_rows):
 * they share the loads of the far pair tables. */
#define XB 4
/* Products on at least this many half-table entries (S^2 HL) run on
 * NPART threads: cascade:groups=2 (the unit tests) and up. */
#define THREAD_CELLS ((size_t)1 << 17)

/* Workspace of the products. */
struct ufac_ws {
	double *tab; /* [nd*HL] per vector of a flow: its rates or costs */
	double *col; /* [XB*S*HL] the halves into one destination, or XB
		     * rows */
};

struct ugal_fac {
	struct unet *n;
	uint32_t S, HL, NL; /* half hop counts 0..HL-1, VLB 0..NL-1 */
	uint32_t nf;
	uint32_t *fs, *fd;  /* [nf] switches of the flows */
	uint32_t *vg;	    /* [nf*NL] group of f's VLB paths of L hops */
	uint32_t nd;	    /* distinct path-count vectors */
	double *dict;	    /* [nd*HL] the vectors */
	uint8_t *dlo, *dhi; /* [nd] first and past-last non-zero hops */
	uint32_t *id;	    /* [S*S] vector of MIN(x -> y), by (x, y) */
	/* Per flow f, its pairs (f, I) ioff[f] .. ioff[f+1]-1: the
	 * intermediates iv, and for side 0 (halves s -> I, weighed by the
	 * vector of I -> d) and side 1 (halves I -> d, by that of s -> I)
	 * lid = the pair's index in the flow's distinct vectors
	 * vl[side][voff[side][f] ..] */
	size_t *ioff;
	uint16_t *iv, *lid[2];
	size_t *voff[2];
	uint32_t *vl[2];
	uint32_t *src_off;  /* [S+1] flows by source switch: */
	uint32_t *by_src;   /* [nf] */
	uint32_t *dst_off;  /* [S+1] flows by destination switch: */
	uint32_t *by_dst;   /* [nf] */
	double *h;	    /* [S*S*HL] half rates or costs, rows by (x, y) */
	double *xis;	    /* [nf*NL] per flow rates or costs by VLB hops */
	uint32_t *poff;	    /* [pairs] of a local pair (v, y): the offset
			     * y HL + dist(v, y) in a row of H, or NONE */
	bool threads;	    /* run the parts of a product on threads */
	bool *inner;	    /* [S] a flow into d has intermediates in d's
			     * group (else column d of H is 0 there) */
	size_t *glv;	    /* [global links] of link u -> v of n->gl:
			     * where v's row of the pair tables starts */
	uint32_t *glu;	    /* [global links] u's index in its group */
	double *rl[NPART];  /* [pairs] per part: local pair rates or costs */
	uint32_t *t2off;    /* [global links + 1] per link of n->gl, an
			     * offset in t2s (room for its far group) */
	double *t2s[NPART]; /* per part, per global link: the far group's
			     * pair rates */
	struct ufac_ws ws[NPART];
};

static void ws_free(struct ufac_ws *w)
{
	free(w->tab);
	free(w->col);
	memset(w, 0, sizeof(*w));
}

static int ws_init(struct ufac_ws *w, uint32_t nd, uint32_t S, uint32_t HL)
{
	memset(w, 0, sizeof(*w));
	w->tab = malloc(((size_t)nd * HL + 1) * sizeof(*w->tab));
	w->col = malloc(((size_t)XB * S * HL + 1) * sizeof(*w->col));
	if (!w->tab || !w->col) {
		ws_free(w);
		return -1;
	}
	return 0;
}

void ugal_fac_free(struct ugal_fac *u)
{
	if (!u)
		return;
	ugal_net_free(u->n);
	free(u->fs);
	free(u->fd);
	free(u->vg);
	free(u->dict);
	free(u->dlo);
	free(u->dhi);
	free(u->id);
	free(u->ioff);
	free(u->iv);
	for (int k = 0; k < 2; k++) {
		free(u->lid[k]);
		free(u->voff[k]);
		free(u->vl[k]);
	}
	free(u->src_off);
	free(u->by_src);
	free(u->dst_off);
	free(u->by_dst);
	free(u->h);
	free(u->xis);
	free(u->poff);
	free(u->t2off);
	free(u->inner);
	free(u->glv);
	free(u->glu);
	for (uint32_t t = 0; t < NPART; t++) {
		free(u->rl[t]);
		free(u->t2s[t]);
		ws_free(&u->ws[t]);
	}
	free(u);
}

static double *hrow(const struct ugal_fac *u, double *t, uint32_t x, uint32_t y)
{
	return t + ((size_t)x * u->S + y) * u->HL;
}

/* The intermediates of flow F into INTER; returns their number. */
static uint32_t inters(const struct ugal_fac *u, uint32_t f, uint32_t *inter)
{
	const struct unet *n = u->n;
	uint32_t s = u->fs[f], d = u->fd[f], ni = 0;

	for (uint32_t g = 0; g < n->G; g++) {
		if (!ugal_inter_group(n, s, d, g))
			continue;
		for (uint32_t k = n->mem_off[g]; k < n->mem_off[g + 1]; k++)
			if (n->mem[k] != s && n->mem[k] != d)
				inter[ni++] = n->mem[k];
	}
	return ni;
}

/* OUT[j] = sum_{k = lo..hi-1} ZETA[j + k] V[k], j < HL: the rates on a
 * half's j hops of the VLB paths whose other half has path counts V. */
static inline void conv(uint32_t HL, const double *restrict zeta,
			const double *restrict v, uint32_t lo, uint32_t hi,
			double *restrict out)
{
	for (uint32_t j = 0; j < HL; j++) {
		double acc = 0;

		for (uint32_t k = lo; k < hi; k++)
			acc += zeta[j + k] * v[k];
		out[j] = acc;
	}
}

/* XI[j + k] += G[j] V[k]: the adjoint of conv. */
static inline void fold(uint32_t HL, double *restrict xi,
			const double *restrict g, const double *restrict v,
			uint32_t lo, uint32_t hi)
{
	for (uint32_t k = lo; k < hi; k++)
		for (uint32_t j = 0; j < HL; j++)
			xi[j + k] += g[j] * v[k];
}

static inline void vadd(uint32_t HL, double *restrict a,
			const double *restrict b)
{
	for (uint32_t j = 0; j < HL; j++)
		a[j] += b[j];
}

/* A column of H is a row per S*HL doubles: hardware prefetchers do not
 * follow that stride, so its gathers fetch AHEAD rows ahead. */
#define AHEAD 8
static inline void prefetch(const double *p)
{
#if defined(__GNUC__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

static inline void vcopy(uint32_t HL, double *restrict a,
			 const double *restrict b)
{
	for (uint32_t j = 0; j < HL; j++)
		a[j] = b[j];
}

static bool any_rate(const struct ugal_fac *u, uint32_t f)
{
	const double *zeta = u->xis + (size_t)f * u->NL;

	for (uint32_t L = 0; L < u->NL; L++)
		if (zeta[L] != 0)
			return true;
	return false;
}

/* Flow F's rate on the halves from (TO_DST false: s -> I) or into (true:
 * I -> d) its intermediates, into ROW[I*HL..] (+=). */
static void fwd_flow(struct ugal_fac *u, struct ufac_ws *w, uint32_t f,
		     bool to_dst, double *row)
{
	uint32_t HL = u->HL;
	const double *zeta = u->xis + (size_t)f * u->NL;
	const uint16_t *iv = u->iv + u->ioff[f], *lid = u->lid[to_dst];
	const uint32_t *vl = u->vl[to_dst] + u->voff[to_dst][f];
	size_t nv = u->voff[to_dst][f + 1] - u->voff[to_dst][f];
	size_t ni = u->ioff[f + 1] - u->ioff[f];

	lid += u->ioff[f];
	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *dv = u->dict + (size_t)v * HL;
		double *t = w->tab + k * HL;

		if (HL == PAD)
			conv(PAD, zeta, dv, u->dlo[v], u->dhi[v], t);
		else
			conv(HL, zeta, dv, u->dlo[v], u->dhi[v], t);
	}
	if (HL == PAD)
		for (size_t j = 0; j < ni; j++)
			vadd(PAD, row + (size_t)iv[j] * PAD,
			     w->tab + (size_t)lid[j] * PAD);
	else
		for (size_t j = 0; j < ni; j++)
			vadd(HL, row + (size_t)iv[j] * HL,
			     w->tab + (size_t)lid[j] * HL);
}

/* fold(PAD, XI, TAB[k], V_k) summed over the NV vectors V_k = dict[VL[k]]
 * of a flow: first by hop k of the vector, P[k][j] = sum V_k[k] TAB[k][j]
 * (whole rows, in place), then shifted into XI once.  Folding each vector
 * into XI directly rereads every XI[j + k] right after an overlapping
 * store, and the stalled store forwarding cost a third of the adjoint's
 * flow step. */
static void fold_pad(const struct ugal_fac *u, const double *tab,
		     const uint32_t *vl, size_t nv, double *restrict xi)
{
	double P[PAD][PAD] = { { 0 } };

	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *g = tab + k * PAD;
		const double *dv = u->dict + (size_t)v * PAD;

		for (uint32_t h = u->dlo[v]; h < u->dhi[v]; h++)
			for (uint32_t j = 0; j < PAD; j++)
				P[h][j] += dv[h] * g[j];
	}
	for (uint32_t h = 0; h < PAD; h++)
		for (uint32_t j = 0; j < PAD; j++)
			xi[j + h] += P[h][j];
}

/* The adjoint of fwd_flow: flow F's costs by VLB hops (+=) from the half
 * costs ROW[I*HL..]. */
static void adj_flow(struct ugal_fac *u, struct ufac_ws *w, uint32_t f,
		     bool to_dst, const double *row)
{
	uint32_t HL = u->HL;
	double *xi = u->xis + (size_t)f * u->NL;
	const uint16_t *iv = u->iv + u->ioff[f], *lid = u->lid[to_dst];
	const uint32_t *vl = u->vl[to_dst] + u->voff[to_dst][f];
	size_t nv = u->voff[to_dst][f + 1] - u->voff[to_dst][f];
	size_t ni = u->ioff[f + 1] - u->ioff[f];

	lid += u->ioff[f];
	memset(w->tab, 0, nv * HL * sizeof(*w->tab));
	if (HL == PAD)
		for (size_t j = 0; j < ni; j++)
			vadd(PAD, w->tab + (size_t)lid[j] * PAD,
			     row + (size_t)iv[j] * PAD);
	else
		for (size_t j = 0; j < ni; j++)
			vadd(HL, w->tab + (size_t)lid[j] * HL,
			     row + (size_t)iv[j] * HL);
	if (HL == PAD) {
		fold_pad(u, w->tab, vl, nv, xi);
		return;
	}
	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *g = w->tab + k * HL;
		const double *dv = u->dict + (size_t)v * HL;

		fold(HL, xi, g, dv, u->dlo[v], u->dhi[v]);
	}
}

/* ROW[I*HL..] = (forward) or -> (ADJ) the halves s -> I of the flows from
 * S: rates are added to ROW, costs read from it. */
static void by_src(struct ugal_fac *u, struct ufac_ws *w, uint32_t s, bool adj,
		   double *row)
{
	for (uint32_t k = u->src_off[s]; k < u->src_off[s + 1]; k++) {
		uint32_t f = u->by_src[k];

		if (adj)
			adj_flow(u, w, f, false, row);
		else if (any_rate(u, f))
			fwd_flow(u, w, f, false, row);
	}
}

/* The halves I -> d of the flows into D.  Forward: their rates into row d
 * of u->h read as by (destination, I) (the forward product's layout).
 * ADJ: their costs from column d of u->h by (x, y). */
static void by_dst(struct ugal_fac *u, struct ufac_ws *w, uint32_t d, bool adj)
{
	const uint32_t *grp = u->n->grp;
	uint32_t S = u->S, HL = u->HL, gd = grp[d];
	double *col = adj ? w->col : hrow(u, u->h, d, 0);
	bool inner = u->inner[d];

	if (!adj)
		memset(col, 0, (size_t)S * HL * sizeof(*col));
	if (u->dst_off[d] == u->dst_off[d + 1])
		return;
	/* the flows' intermediates: no switch of d's group unless inner */
	if (adj && HL == PAD) {
		for (uint32_t i = 0; i < S; i++) {
			prefetch(hrow(u, u->h, i + AHEAD < S ? i + AHEAD : i,
				      d));
			if (inner || grp[i] != gd)
				vcopy(PAD, col + (size_t)i * PAD,
				      hrow(u, u->h, i, d));
		}
	} else if (adj) {
		for (uint32_t i = 0; i < S; i++)
			if (inner || grp[i] != gd)
				vcopy(HL, col + (size_t)i * HL,
				      hrow(u, u->h, i, d));
	}
	for (uint32_t k = u->dst_off[d]; k < u->dst_off[d + 1]; k++) {
		uint32_t f = u->by_dst[k];

		if (adj)
			adj_flow(u, w, f, true, col);
		else if (any_rate(u, f))
			fwd_flow(u, w, f, true, col);
	}
}

/* One global link j = u -> v from the rows' group to group B of NB
 * switches, for K rows (K <= XB: a constant once inlined) whose rates of
 * the halves over j are at R[k][poff] (R[k] at the row's hops to u, + 1):
 * per row its total O1[k] weighted by the far pairs' path counts, and
 * into T[iy] the far pair (v, y)'s rates, summed over the rows.  The
 * rows share the loads of the far pair tables and of T. */
static inline void fwd_link(uint32_t K, uint32_t nb, const uint32_t *poff,
			    const double *npv, const double *const *R,
			    const double *npu, double *o1, double *t)
{
	for (uint32_t k = 0; k < K; k++)
		o1[k] = 0;
	for (uint32_t iy = 0; iy < nb; iy++) {
		uint32_t o = poff[iy];
		double ts = 0;

		if (o == NONE)
			continue;
		for (uint32_t k = 0; k < K; k++) {
			double val = R[k][o];

			o1[k] += npv[iy] * val;
			ts += npu[k] * val;
		}
		t[iy] += ts;
	}
}

/* Spread the rates RS[b][y*HL + hops] of the halves from the NX switches
 * XS (one group's, NX <= XB) over the global links of their group (OUT),
 * the local pairs (RL) and, per global link j, T2[t2off[j] + iy] (for the
 * pairs (v, y) at the far end, added to RL by the caller once all of the
 * group's rows are done). */
static void p_fwd_rows(const struct ugal_fac *u, const uint32_t *xs,
		       uint32_t nx, double *const *RS, double *rl, double *t2,
		       double *out)
{
	const struct unet *n = u->n;
	uint32_t A = n->grp[xs[0]], HL = u->HL;
	size_t px[XB];

	for (uint32_t b = 0; b < nx; b++)
		px[b] = pidx(n, xs[b], xs[b]) - n->idx[xs[b]];
	for (uint32_t B = 0; B < n->G; B++) {
		uint32_t nb = n->mem_off[B + 1] - n->mem_off[B];
		uint32_t j0 = n->gl_off[(size_t)A * n->G + B];
		uint32_t j1 = n->gl_off[(size_t)A * n->G + B + 1];

		if (A == B)
			continue;
		for (uint32_t j = j0; j < j1; j++) {
			size_t pv = u->glv[j], pu[XB];
			const double *r[XB];
			double npu[XB], o1[XB], sum = 0;
			uint32_t K = 0;

			for (uint32_t b = 0; b < nx; b++) {
				size_t p = px[b] + u->glu[j];

				if (n->dist[p] == UNREACH)
					continue;
				pu[K] = p;
				npu[K] = n->np[p];
				r[K++] = RS[b] + n->dist[p] + 1;
			}
			if (K == XB)
				fwd_link(XB, nb, u->poff + pv, n->np + pv, r,
					 npu, o1, t2 + u->t2off[j]);
			else
				fwd_link(K, nb, u->poff + pv, n->np + pv, r,
					 npu, o1, t2 + u->t2off[j]);
			for (uint32_t k = 0; k < K; k++) {
				rl[pu[k]] += o1[k];
				sum += npu[k] * o1[k];
			}
			out[n->gl[j]] += sum;
		}
	}
	for (uint32_t b = 0; b < nx; b++)
		for (uint32_t j = n->mem_off[A]; j < n->mem_off[A + 1]; j++) {
			uint32_t y = n->mem[j];
			size_t p = pidx(n, xs[b], y);

			if (xs[b] != y && n->dist[p] != UNREACH)
				rl[p] += RS[b][(size_t)y * HL + n->dist[p]];
		}
}

/* The forward product's halves from the switches of groups [A0, A1), XB
 * rows at a time (the halves s -> I of their flows and the halves into them, from
 * u->h by destination), spread over OUT's global links and part T's local
 * pair rates u->rl[T]. */
static void fwd_groups(struct ugal_fac *u, uint32_t t, uint32_t A0, uint32_t A1,
		       double *out)
{
	const struct unet *n = u->n;
	struct ufac_ws *w = &u->ws[t];
	uint32_t S = u->S, HL = u->HL, A;
	uint32_t j0 = n->gl_off[(size_t)A0 * n->G];
	uint32_t j1 = n->gl_off[(size_t)A1 * n->G];
	double *t2 = u->t2s[t], *RS[XB];

	memset(t2 + u->t2off[j0], 0,
	       (u->t2off[j1] - u->t2off[j0]) * sizeof(*t2));
	for (uint32_t i = n->mem_off[A0]; i < n->mem_off[A1];) {
		uint32_t nx;

		A = n->grp[n->mem[i]];
		nx = n->mem_off[A + 1] - i < XB ? n->mem_off[A + 1] - i : XB;
		for (uint32_t b = 0; b < nx; b++) {
			uint32_t x = n->mem[i + b];
			double *R = RS[b] = w->col + (size_t)b * S * HL;

			memset(R, 0, (size_t)S * HL * sizeof(*R));
			by_src(u, w, x, false, R);
			/* column x of H: 0 in the rows of x's group but
			 * inner ones */
			if (HL == PAD)
				for (uint32_t y = 0; y < S; y++) {
					prefetch(hrow(
						u, u->h,
						y + AHEAD < S ? y + AHEAD : y,
						x));
					if (u->inner[y] || n->grp[y] != A)
						vadd(PAD, R + (size_t)y * PAD,
						     hrow(u, u->h, y, x));
				}
			else
				for (uint32_t y = 0; y < S; y++)
					if (u->inner[y] || n->grp[y] != A)
						vadd(HL, R + (size_t)y * HL,
						     hrow(u, u->h, y, x));
		}
		p_fwd_rows(u, n->mem + i, nx, RS, u->rl[t], t2, out);
		i += nx;
	}
	for (uint32_t j = j0; j < j1; j++) {
		uint32_t v = topo_link(n->t, n->gl[j])->to;
		size_t pv = pidx(n, v, v) - n->idx[v];
		uint32_t nb = u->t2off[j + 1] - u->t2off[j];

		for (uint32_t iy = 0; iy < nb; iy++)
			u->rl[t][pv + iy] += t2[u->t2off[j] + iy];
	}
}

/* Spread the local pair rates of the parts u->rl[0..NPART-1] over the
 * links of the local paths: OUT += ... */
static void p_fwd_local(struct ugal_fac *u, double *out)
{
	const struct unet *n = u->n;
	size_t pairs = n->mat_off[n->G];

	for (uint32_t t = 1; t < NPART; t++)
		for (size_t p = 0; p < pairs; p++)
			u->rl[0][p] += u->rl[t][p];
	for (size_t p = 0; p < pairs; p++) {
		double r = u->rl[0][p];

		if (r == 0)
			continue;
		for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
			out[n->lp_link[e]] += r;
	}
}

/* The adjoint of fwd_link: per row k, ROW[k][poff] += the far pair's
 * path count x C1[k] + NPU[k] x the far pair's cost RLV[iy]. */
static inline void adj_link(uint32_t K, uint32_t nb, const uint32_t *poff,
			    const double *npv, const double *rlv,
			    double *const *row, const double *c1,
			    const double *npu)
{
	for (uint32_t iy = 0; iy < nb; iy++) {
		uint32_t o = poff[iy];

		if (o == NONE)
			continue;
		for (uint32_t k = 0; k < K; k++)
			row[k][o] += npv[iy] * c1[k] + npu[k] * rlv[iy];
	}
}

/* Rows XS[0..NX) (one group's, NX <= XB) of u->h: the cost of the halves
 * from each under link prices Y, given the local pairs' costs u->rl[0]
 * (x-major: the rows stay in cache, and by_src reads them next). */
static void p_adj_rows(struct ugal_fac *u, const uint32_t *xs, uint32_t nx,
		       const double *y)
{
	const struct unet *n = u->n;
	const double *rloc = u->rl[0];
	uint32_t A = n->grp[xs[0]], HL = u->HL;
	double *rows[XB];
	size_t px[XB];

	for (uint32_t b = 0; b < nx; b++) {
		rows[b] = hrow(u, u->h, xs[b], 0);
		px[b] = pidx(n, xs[b], xs[b]) - n->idx[xs[b]];
		memset(rows[b], 0, (size_t)u->S * HL * sizeof(*rows[b]));
	}
	for (uint32_t B = 0; B < n->G; B++) {
		uint32_t j0 = n->gl_off[(size_t)A * n->G + B];
		uint32_t j1 = n->gl_off[(size_t)A * n->G + B + 1];
		uint32_t nb = n->mem_off[B + 1] - n->mem_off[B];

		if (A == B)
			continue;
		for (uint32_t j = j0; j < j1; j++) {
			size_t pv = u->glv[j];
			double *r[XB], c1[XB], npu[XB];
			uint32_t K = 0;

			for (uint32_t b = 0; b < nx; b++) {
				size_t p = px[b] + u->glu[j];

				if (n->dist[p] == UNREACH)
					continue;
				npu[K] = n->np[p];
				c1[K] = rloc[p] + npu[K] * y[n->gl[j]];
				r[K++] = rows[b] + n->dist[p] + 1;
			}
			if (K == XB)
				adj_link(XB, nb, u->poff + pv, n->np + pv,
					 rloc + pv, r, c1, npu);
			else
				adj_link(K, nb, u->poff + pv, n->np + pv,
					 rloc + pv, r, c1, npu);
		}
	}
	for (uint32_t b = 0; b < nx; b++)
		for (uint32_t j = n->mem_off[A]; j < n->mem_off[A + 1]; j++) {
			uint32_t yy = n->mem[j];
			size_t p = pidx(n, xs[b], yy);

			if (xs[b] != yy && n->dist[p] != UNREACH)
				rows[b][(size_t)yy * HL + n->dist[p]] +=
					rloc[p];
		}
}

/* The steps of a product, each over a range [lo, hi) of switches or
 * groups, run as parts: part T uses u->ws[T], u->rl[T], u->t2s[T]. */
enum step { STEP_DST, STEP_FWD, STEP_ADJ };

struct part {
	struct ugal_fac *u;
	enum step step;
	bool adj;
	uint32_t t, lo, hi;
	const double *in;
	double *out;
};

static void part_run(const struct part *k)
{
	struct ugal_fac *u = k->u;
	const struct unet *n = u->n;

	switch (k->step) {
	case STEP_DST: /* switches */
		for (uint32_t d = k->lo; d < k->hi; d++)
			by_dst(u, &u->ws[k->t], d, k->adj);
		break;
	case STEP_FWD: /* groups */
		fwd_groups(u, k->t, k->lo, k->hi, k->out);
		break;
	case STEP_ADJ: /* groups: rows of H, then their flows' costs */
		for (uint32_t i = n->mem_off[k->lo]; i < n->mem_off[k->hi];) {
			uint32_t A = n->grp[n->mem[i]];
			uint32_t nx = n->mem_off[A + 1] - i < XB ?
					      n->mem_off[A + 1] - i :
					      XB;

			p_adj_rows(u, n->mem + i, nx, k->in);
			for (uint32_t b = 0; b < nx; b++)
				by_src(u, &u->ws[k->t], n->mem[i + b], true,
				       hrow(u, u->h, n->mem[i + b], 0));
			i += nx;
		}
		break;
	}
}

static void part_of(void *arg, uint32_t t)
{
	part_run((const struct part *)arg + t);
}

/* Run STEP over [0, N) in NPART parts: part 0 here, the others on threads
 * when u->threads (a part whose thread does not start runs here).  Parts
 * write disjoint rows and columns of u->h, flows' u->xis and OUT's global
 * links; the rest is their own buffers. */
static void run_step(struct ugal_fac *u, enum step step, bool adj, uint32_t N,
		     const double *in, double *out)
{
	struct part k[NPART];

	for (uint32_t t = 0; t < NPART; t++)
		k[t] = (struct part){ .u = u,
				      .step = step,
				      .adj = adj,
				      .t = t,
				      .lo = (uint32_t)((uint64_t)N * t / NPART),
				      .hi = (uint32_t)((uint64_t)N * (t + 1) /
						       NPART),
				      .in = in,
				      .out = out };
	par_run(NPART, u->threads, part_of, k, NULL);
}

void ugal_fac_mul(void *ctx, const double *x, double *out)
{
	struct ugal_fac *u = ctx;
	size_t pairs = u->n->mat_off[u->n->G];
	bool any = false;

	for (uint32_t f = 0; f < u->nf; f++) {
		const uint32_t *vg = u->vg + (size_t)f * u->NL;
		double *zeta = u->xis + (size_t)f * u->NL;

		for (uint32_t L = 0; L < u->NL; L++) {
			zeta[L] = vg[L] == NONE ? 0 : x[vg[L]];
			any |= zeta[L] != 0;
		}
	}
	if (!any)
		return;
	run_step(u, STEP_DST, false, u->S, NULL, out);
	for (uint32_t t = 0; t < NPART; t++)
		memset(u->rl[t], 0, (pairs + 1) * sizeof(*u->rl[t]));
	run_step(u, STEP_FWD, false, u->n->G, NULL, out);
	p_fwd_local(u, out);
}

void ugal_fac_mul_t(void *ctx, const double *y, double *out)
{
	struct ugal_fac *u = ctx;
	const struct unet *n = u->n;
	size_t pairs = n->mat_off[n->G];

	for (size_t p = 0; p < pairs; p++) {
		double c = 0;

		for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
			c += y[n->lp_link[e]];
		u->rl[0][p] = c;
	}
	memset(u->xis, 0, ((size_t)u->nf * u->NL + 1) * sizeof(*u->xis));
	run_step(u, STEP_ADJ, true, n->G, y, NULL);
	run_step(u, STEP_DST, true, u->S, NULL, NULL);
	for (uint32_t f = 0; f < u->nf; f++) {
		const uint32_t *vg = u->vg + (size_t)f * u->NL;
		const double *xi = u->xis + (size_t)f * u->NL;

		for (uint32_t L = 0; L < u->NL; L++)
			if (vg[L] != NONE)
				out[vg[L]] += xi[L];
	}
}

/* Dictionary of the path-count vectors: an open-addressing hash table of
 * vector ids (NONE: empty), grown to keep it at most half full. */
struct dict_ht {
	uint32_t *slot;
	size_t cap;    /* a power of two */
	uint32_t dcap; /* room in u->dict */
};

static size_t vhash(const double *v, uint32_t HL)
{
	const unsigned char *p = (const unsigned char *)v;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < HL * sizeof(*v); i++)
		h = (h ^ p[i]) * 1099511628211u;
	return (size_t)h;
}

static int ht_grow(struct ugal_fac *u, struct dict_ht *t)
{
	size_t nc = t->cap ? 2 * t->cap : 1024;
	uint32_t *s = malloc(nc * sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < nc; i++)
		s[i] = NONE;
	for (uint32_t v = 0; v < u->nd; v++) {
		size_t j = vhash(u->dict + (size_t)v * u->HL, u->HL) & (nc - 1);

		while (s[j] != NONE)
			j = (j + 1) & (nc - 1);
		s[j] = v;
	}
	free(t->slot);
	t->slot = s;
	t->cap = nc;
	return 0;
}

/* The id of vector V[HL] in u's dictionary, added if new.  Returns it, or
 * NONE (memory). */
static uint32_t dict_id(struct ugal_fac *u, struct dict_ht *t, const double *v)
{
	uint32_t HL = u->HL;
	size_t j;

	if (2 * ((size_t)u->nd + 1) > t->cap && ht_grow(u, t))
		return NONE;
	for (j = vhash(v, HL) & (t->cap - 1); t->slot[j] != NONE;
	     j = (j + 1) & (t->cap - 1))
		if (!memcmp(u->dict + (size_t)t->slot[j] * HL, v,
			    HL * sizeof(*v)))
			return t->slot[j];
	if (u->nd == t->dcap) {
		uint32_t nc = t->dcap ? 2 * t->dcap : 256;
		double *d = realloc(u->dict, (size_t)nc * HL * sizeof(*d));

		if (!d)
			return NONE;
		u->dict = d;
		t->dcap = nc;
	}
	memcpy(u->dict + (size_t)u->nd * HL, v, HL * sizeof(*v));
	t->slot[j] = u->nd;
	return u->nd++;
}

/* u->dict, dlo, dhi and id from the MIN halves of every switch pair.
 * Returns 0 or -1 (memory). */
static int build_dict(struct ugal_fac *u)
{
	const struct unet *n = u->n;
	struct dict_ht t = { NULL, 0, 0 };
	struct half hf;
	double v[HMAX];
	int rc = -1;

	memset(&hf, 0, sizeof(hf));
	memset(v, 0, sizeof(v));
	for (uint32_t x = 0; x < u->S; x++)
		for (uint32_t y = 0; y < u->S; y++) {
			uint32_t id;

			if (x != y) {
				/* no entries: no allocation */
				ugal_half_min(n, x, y, &hf, false);
				memcpy(v, hf.n,
				       (n->maxhalf + 1) * sizeof(double));
			} else {
				memset(v, 0, sizeof(v));
			}
			id = dict_id(u, &t, v);
			if (id == NONE)
				goto out;
			u->id[(size_t)x * u->S + y] = id;
		}
	u->dlo = malloc((size_t)u->nd + 1);
	u->dhi = malloc((size_t)u->nd + 1);
	if (!u->dlo || !u->dhi)
		goto out;
	for (uint32_t k = 0; k < u->nd; k++) {
		const double *d = u->dict + (size_t)k * u->HL;
		uint32_t lo = u->HL, hi = 0;

		for (uint32_t l = 0; l < u->HL; l++)
			if (d[l] != 0) {
				lo = l < lo ? l : lo;
				hi = l + 1;
			}
		u->dlo[k] = (uint8_t)(lo < hi ? lo : 0);
		u->dhi[k] = (uint8_t)hi;
	}
	rc = 0;
out:
	free(t.slot);
	return rc;
}

/* u->ioff, iv, lid, voff and vl of every flow (see struct ugal_fac).
 * Returns 0 or -1 (memory). */
static int build_plans(struct ugal_fac *u)
{
	uint32_t S = u->S, *inter = malloc(((size_t)S + 1) * sizeof(*inter));
	uint32_t *stamp = calloc((size_t)u->nd + 1, sizeof(*stamp));
	uint16_t *loc = malloc(((size_t)u->nd + 1) * sizeof(*loc));
	size_t np = 0, nv[2] = { 0, 0 };
	int rc = -1;

	u->ioff = malloc(((size_t)u->nf + 1) * sizeof(*u->ioff));
	u->voff[0] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[0]));
	u->voff[1] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[1]));
	if (!inter || !stamp || !loc || !u->ioff || !u->voff[0] || !u->voff[1])
		goto out;
	/* two rounds: count, then fill */
	for (int round = 0; round < 2; round++) {
		np = nv[0] = nv[1] = 0;
		for (uint32_t f = 0; f < u->nf; f++) {
			uint32_t ni = inters(u, f, inter);

			u->ioff[f] = np;
			for (int k = 0; k < 2; k++) {
				/* a new epoch per flow and side */
				uint32_t ep = 2 * f + (uint32_t)k + 1;

				u->voff[k][f] = nv[k];
				for (uint32_t j = 0; j < ni; j++) {
					uint32_t i = inter[j];
					uint32_t v =
						k ? u->id[(size_t)u->fs[f] * S +
							  i] :
						    u->id[(size_t)i * S +
							  u->fd[f]];

					if (stamp[v] != ep) {
						stamp[v] = ep;
						loc[v] = (uint16_t)(nv[k] -
								    u->voff[k]
									   [f]);
						if (round)
							u->vl[k][nv[k]] = v;
						nv[k]++;
					}
					if (round)
						u->lid[k][np + j] = loc[v];
				}
			}
			for (uint32_t j = 0; round && j < ni; j++)
				u->iv[np + j] = (uint16_t)inter[j];
			np += ni;
		}
		u->ioff[u->nf] = np;
		u->voff[0][u->nf] = nv[0];
		u->voff[1][u->nf] = nv[1];
		if (round)
			break;
		memset(stamp, 0, ((size_t)u->nd + 1) * sizeof(*stamp));
		u->iv = malloc((np + 1) * sizeof(*u->iv));
		u->lid[0] = malloc((np + 1) * sizeof(*u->lid[0]));
		u->lid[1] = malloc((np + 1) * sizeof(*u->lid[1]));
		u->vl[0] = malloc((nv[0] + 1) * sizeof(*u->vl[0]));
		u->vl[1] = malloc((nv[1] + 1) * sizeof(*u->vl[1]));
		if (!u->iv || !u->lid[0] || !u->lid[1] || !u->vl[0] ||
		    !u->vl[1])
			goto out;
	}
	rc = 0;
out:
	free(inter);
	free(stamp);
	free(loc);
	return rc;
}

/* OFF[S+1] and BY[nf]: the flows by switch SW[f] (counting sort, in flow
 * order within a switch). */
static void sort_flows(uint32_t S, uint32_t nf, const uint32_t *sw,
		       uint32_t *off, uint32_t *by)
{
	memset(off, 0, ((size_t)S + 1) * sizeof(*off));
	for (uint32_t f = 0; f < nf; f++)
		off[sw[f] + 1]++;
	for (uint32_t s = 0; s < S; s++)
		off[s + 1] += off[s];
	for (uint32_t f = 0; f < nf; f++)
		by[off[sw[f]]++] = f;
	for (uint32_t s = S; s > 0; s--)
		off[s] = off[s - 1];
	off[0] = 0;
}

/* The operator of the VLB groups of TP (built with w->factored) for flows
 * F; takes N over when it succeeds (freed with the operator).  Returns it
 * or NULL (memory, or more than MAX_PAIRS switch pairs). */
struct ugal_fac *ugal_fac_create(struct unet *n, const struct flows *f,
				 const struct ugal_tpl *tp, struct err *err)
{
	struct ugal_fac *u = calloc(1, sizeof(*u));
	const struct topo *t = n->t;
	size_t cells, hbytes, nt2 = 0;
	uint32_t ngl = n->gl_off[(size_t)n->G * n->G];
	bool mem = true;

	if (!u) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	u->S = n->S;
	u->HL = n->maxhalf + 1;
	u->NL = 2 * u->HL - 1;
	u->nf = f->n;
	if ((size_t)n->S * n->S > MAX_PAIRS) {
		err_range(err, "too many switches for the factored UGAL "
			       "template");
		ugal_fac_free(u);
		return NULL;
	}
	cells = (size_t)n->S * n->S * u->HL;
	/* aligned_alloc: a multiple of the alignment */
	hbytes = ((cells ? cells : 1) * sizeof(double) + 63) / 64 * 64;
	u->fs = malloc(((size_t)f->n + 1) * sizeof(*u->fs));
	u->fd = malloc(((size_t)f->n + 1) * sizeof(*u->fd));
	u->vg = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->vg));
	u->id = malloc(((size_t)n->S * n->S + 1) * sizeof(*u->id));
	u->src_off = malloc(((size_t)n->S + 1) * sizeof(*u->src_off));
	u->by_src = malloc(((size_t)f->n + 1) * sizeof(*u->by_src));
	u->dst_off = malloc(((size_t)n->S + 1) * sizeof(*u->dst_off));
	u->by_dst = malloc(((size_t)f->n + 1) * sizeof(*u->by_dst));
	u->h = aligned_alloc(64, hbytes);
	u->xis = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->xis));
	u->poff = malloc((n->mat_off[n->G] + 1) * sizeof(*u->poff));
	u->t2off = malloc(((size_t)ngl + 1) * sizeof(*u->t2off));
	u->inner = calloc((size_t)n->S + 1, sizeof(*u->inner));
	u->glv = malloc(((size_t)ngl + 1) * sizeof(*u->glv));
	u->glu = malloc(((size_t)ngl + 1) * sizeof(*u->glu));
	if (u->t2off) {
		u->t2off[0] = 0;
		for (uint32_t j = 0; j < ngl; j++) {
			uint32_t B = n->grp[topo_link(t, n->gl[j])->to];

			u->t2off[j + 1] =
				u->t2off[j] + n->mem_off[B + 1] - n->mem_off[B];
		}
		nt2 = u->t2off[ngl];
	}
	for (uint32_t k = 0; k < NPART; k++) {
		u->rl[k] = malloc((n->mat_off[n->G] + 1) * sizeof(*u->rl[k]));
		u->t2s[k] = malloc(((size_t)nt2 + 1) * sizeof(*u->t2s[k]));
		mem &= u->rl[k] && u->t2s[k];
	}
	if (!u->fs || !u->fd || !u->vg || !u->id || !u->src_off || !u->by_src ||
	    !u->dst_off || !u->by_dst || !u->h || !u->xis || !u->poff ||
	    !u->t2off || !u->inner || !u->glv || !u->glu || !mem) {
		err_nomem(err, "out of memory");
		ugal_fac_free(u);
		return NULL;
	}
	u->n = n;
	mem = !build_dict(u);
	for (uint32_t k = 0; k < NPART && mem; k++)
		mem = !ws_init(&u->ws[k], u->nd, u->S, u->HL);
	if (!mem) {
		u->n = NULL; /* not taken over */
		err_nomem(err, "out of memory");
		ugal_fac_free(u);
		return NULL;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t *vg = u->vg + (size_t)i * u->NL;

		u->fs[i] = topo_node_switch(t, f->src[i]);
		u->fd[i] = topo_node_switch(t, f->dst[i]);
		if (ugal_inter_group(n, u->fs[i], u->fd[i], n->grp[u->fd[i]]))
			u->inner[u->fd[i]] = true;
		for (uint32_t L = 0; L < u->NL; L++)
			vg[L] = NONE;
		for (uint32_t g = tp->flow_off[i]; g < tp->flow_off[i + 1];
		     g++) {
			if (tp->cls[g] != PATH_VLB)
				continue;
			if (tp->hops[g] == UGAL_HOPS_ANY) {
				for (uint32_t L = 0; L < u->NL; L++)
					vg[L] = g;
			} else if (tp->hops[g] < u->NL) {
				vg[tp->hops[g]] = g;
			}
		}
	}
	for (uint32_t j = 0; j < ngl; j++) {
		const struct topo_link *lk = topo_link(t, n->gl[j]);

		u->glv[j] = pidx(n, lk->to, lk->to) - n->idx[lk->to];
		u->glu[j] = n->idx[lk->from];
	}
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t i = n->mem_off[g]; i < n->mem_off[g + 1]; i++)
			for (uint32_t j = n->mem_off[g]; j < n->mem_off[g + 1];
			     j++) {
				uint32_t x = n->mem[i], y = n->mem[j];
				size_t p = pidx(n, x, y);

				u->poff[p] = n->dist[p] == UNREACH ?
						     NONE :
						     y * u->HL + n->dist[p];
			}
	if (build_plans(u)) {
		err_nomem(err, "out of memory");
		u->n = NULL; /* not taken over */
		ugal_fac_free(u);
		return NULL;
	}
	u->threads = cells >= THREAD_CELLS;
	sort_flows(u->S, u->nf, u->fs, u->src_off, u->by_src);
	sort_flows(u->S, u->nf, u->fd, u->dst_off, u->by_dst);
	return u;
}
