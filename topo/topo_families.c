/* topo_families.c - the registry of topology families.  Adding a family:
 * one file topo_<file>.c defining a const struct topo_family_ops
 * topo_family_<name> (name, kind, option table, build), one X(<name>)
 * here, its enum topo_kind value in topo.h, one test. */
#include <stddef.h>

#include "topo/topo_impl.h"

#define FAMILIES(X)    \
	X(dragonfly)   \
	X(cascade)     \
	X(fattree)     \
	X(expressmesh) \
	X(hyperx)      \
	X(torus)       \
	X(jellyfish)   \
	/* new families above this line */

#define DECLARE(n) extern const struct topo_family_ops topo_family_##n;
#define ENTRY(n) &topo_family_##n,
FAMILIES(DECLARE)

const struct topo_family_ops *const topo_family_table[] = {
	FAMILIES(ENTRY) NULL,
};
