/* topo_families.c - the registry of topology families.  Adding a family:
 * one file topo_<file>.c defining a const struct topo_family_ops
 * topo_family_<name> (name, kind, traits, option table, build, and a
 * recogniser if a topo.conf graph can be recognised as one), one
 * X(<name>) here, its enum topo_kind value in topo.h, one test.
 * topo_recognise asks the recognisers of this table by their priority. */
#include <stddef.h>
#include <string.h>

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

/* A graph (from a file) recognised as no family. */
static const struct topo_traits graph_traits = { .routing = "shortest" };

static const struct topo_traits *traits_of(const char *family)
{
	for (size_t i = 0; topo_family_table[i]; i++)
		if (!strcmp(topo_family_table[i]->name, family))
			return &topo_family_table[i]->traits;
	return &graph_traits;
}

const struct topo_traits *topo_traits(const struct topo *t)
{
	return traits_of(topo_family(t));
}

const struct topo_traits *topo_behaves_traits(const struct topo *t)
{
	return traits_of(topo_behaves_as_family(t));
}
