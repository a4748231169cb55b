/* ugal_fac_impl.h - private to the factored matrix-free operator of the
 * UGAL templates' VLB columns: its data, which its products (ugal_fac.c)
 * and its set-up (ugal_fac_build.c: the path-count dictionary, the plans)
 * share. */
#ifndef STOPO_UGAL_FAC_IMPL_H
#define STOPO_UGAL_FAC_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evaluator/models/ugal_impl.h"

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

#endif
