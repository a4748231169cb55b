/* ugal_fac.c - the products of the factored matrix-free operator of the
 * UGAL templates' VLB columns (ugal_fac_impl.h): its kernels and its
 * split over threads. */
#include <stdbool.h>
#include <string.h>

#include "evaluator/models/ugal_fac_impl.h"
#include "topo/util/par.h"

static double *hrow(const struct ugal_fac *u, double *t, uint32_t x, uint32_t y)
{
	return t + ((size_t)x * u->S + y) * u->HL;
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
