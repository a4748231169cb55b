/* ugal_impl.h - private to the UGAL templates (evaluator/models/ugal_*.c):
 * the dragonfly / Cascade structure and its MIN halves (ugal_net.c), which
 * the explicit templates (ugal_tpl.c) and the factored matrix-free
 * operator (ugal_fac.c, ugal_fac_build.c) share.  See ugal_tpl.c for the
 * definitions. */
#ifndef STOPO_UGAL_IMPL_H
#define STOPO_UGAL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evaluator/models/ugal_tpl.h"

#define UNREACH 255
#define MAX_DIAM 30		    /* local diameter; keeps hops < 255 */
#define HMAX (2 * MAX_DIAM + 2)	    /* hop counts of a MIN half */
#define MAX_LOCAL ((size_t)1 << 27) /* links of all local paths */
#define MAX_PAIRS \
	((size_t)1 << 24) /* router pairs inside groups; also
				     * switch pairs of a factored template
				     * (S <= 4096: ids fit uint16_t) */

/* The structure of a dragonfly or Cascade seen by the UGAL models. */
struct unet {
	const struct topo *t;
	bool intra_global;
	uint32_t S, G, L;
	uint32_t *grp;	   /* [S] group of each switch */
	uint32_t *mem_off; /* [G+1] */
	uint32_t *mem;	   /* [S] switches by group, ascending */
	uint32_t *idx;	   /* [S] index within its group */
	size_t *mat_off;   /* [G] start of the group's pair tables */
	uint8_t *dist;	   /* local hop distance of a pair, UNREACH */
	double *np;	   /* local shortest paths of a pair */
	size_t *lp_off;	   /* [pairs+1] links of a pair's local paths,
			    * path after path (each dist links) */
	uint32_t *lp_link;
	uint32_t *gl_off; /* [G*G+1] global links by (from, to) group */
	uint32_t *gl;
	uint32_t maxhalf; /* most hops of a MIN half */
};

/* The index of the pair (x, y) of one group in its pair tables. */
static inline size_t pidx(const struct unet *n, uint32_t x, uint32_t y)
{
	uint32_t g = n->grp[x];
	size_t a = n->mem_off[g + 1] - n->mem_off[g];

	return n->mat_off[g] + (size_t)n->idx[x] * a + n->idx[y];
}

/* Global links from group A to group B: *cnt ids from the result. */
static inline const uint32_t *glinks(const struct unet *n, uint32_t a,
				     uint32_t b, uint32_t *cnt)
{
	size_t k = (size_t)a * n->G + b;

	*cnt = n->gl_off[k + 1] - n->gl_off[k];
	return n->gl + n->gl_off[k];
}

/* The structure of R's dragonfly or Cascade; NULL with err set. */
struct unet *ugal_net_create(const struct routing *r, struct err *err);
void ugal_net_free(struct unet *n);
/* Does group G hold intermediates of the VLB paths s -> d? */
bool ugal_inter_group(const struct unet *n, uint32_t s, uint32_t d, uint32_t g);

/* MIN(x -> y) by hops: n[h] paths of h hops and, when entries are kept,
 * (hop, link, w): the paths of `hop` hops cross `link` w times in all. */
struct half {
	double n[HMAX];
	uint32_t len, cap;
	uint8_t *hop;
	uint32_t *link;
	double *w;
};

/* MIN(x -> y) into H, its (hop, link, w) entries too when ENT.  0 or -1
 * (out of memory). */
int ugal_half_min(const struct unet *n, uint32_t x, uint32_t y, struct half *h,
		  bool ent);
void ugal_half_free(struct half *h);

/* The factored operator of TP's VLB columns over N's structure for F
 * (ugal_tpl_build_factored); NULL with err set.  Freed by ugal_fac_free
 * (NULL: no-op). */
struct ugal_fac *ugal_fac_create(struct unet *n, const struct flows *f,
				 const struct ugal_tpl *tp, struct err *err);
void ugal_fac_free(struct ugal_fac *u);
/* OUT = M_op X and OUT = M_op' Y (struct mcf_tpl_op). */
void ugal_fac_mul(void *ctx, const double *x, double *out);
void ugal_fac_mul_t(void *ctx, const double *y, double *out);

#endif
