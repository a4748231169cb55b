/* topo_recog_impl.h - private to family recognition (topo_recog.c and the
 * recognisers, topo_recog_<family>.c): the graph helpers they share and
 * the recognisers the families' ops name (topo_family_ops.recognise).
 * Not a public header. */
#ifndef STOPO_TOPO_RECOG_IMPL_H
#define STOPO_TOPO_RECOG_IMPL_H

#include "topo/topo_impl.h"

/* Distinct switch neighbours of S, ascending, into NB (degree room). */
uint32_t recog_neighbours(const struct topo *t, uint32_t s, uint32_t *nb);
/* The most links out of one switch (the degree room of the above). */
uint32_t recog_max_degree(const struct topo *t);
/* Union-find: the class of X in P (halving the path). */
static inline uint32_t recog_uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

/* The nodes on switch S. */
static inline uint32_t recog_nnodes(const struct topo *t, uint32_t s)
{
	return t->sw_node_off[s + 1] - t->sw_node_off[s];
}
/* Number the components of P's classes by their lowest member, into GRP
 * (TOPO_NONE for switches with MASK[s] == 0; ROOT_ID: S scratch).
 * Returns the count. */
uint32_t recog_number_classes(uint32_t S, uint32_t *p, const uint8_t *mask,
			      uint32_t *grp, uint32_t *root_id);

/* The recognisers (topo_recognise_fn): a fat-tree (topo_fattree.c's
 * ops); a dragonfly or a Cascade, from the same cliques, no levels and no
 * idle switches (topo_dragonfly.c's ops). */
int recog_fattree(const struct topo *t, uint32_t *lev, uint32_t *grp,
		  uint8_t *idle, struct topo_recog *rc, char *why,
		  size_t whylen);
int recog_dragonfly(const struct topo *t, uint32_t *lev, uint32_t *grp,
		    uint8_t *idle, struct topo_recog *rc, char *why,
		    size_t whylen);

#endif
