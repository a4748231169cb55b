/* topo_families.c - the registry of topology families.  Adding a family:
 * one file, one line here, one test. */
#include <stddef.h>

#include "topo/topo_impl.h"

const struct topo_family_ops *const topo_family_table[] = {
	&topo_family_dragonfly, &topo_family_cascade,
	&topo_family_fattree,	&topo_family_expressmesh,
	&topo_family_hyperx,	&topo_family_torus,
	&topo_family_jellyfish, NULL,
};
