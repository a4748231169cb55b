/* topo_impl.h - internals shared by topo.c and the family files; not a
 * public header.  A family builds a topology through a struct topo_builder:
 * add switches' cables and nodes, then topo.c lays out the contract
 * numbering (see topo.h) in tb_finish. */
#ifndef STOPO_TOPO_IMPL_H
#define STOPO_TOPO_IMPL_H

#include "topo/topo.h"
#include "topo/util/spec.h"

#define TOPO_MAX_PARAMS SPEC_MAX_ITEMS

/* What topo_recognise found in an explicit graph (topo_recog.c). */
struct topo_recog {
	const char *family;    /* a family of the registry ("fattree",
				* "dragonfly", "cascade") or NULL */
	uint32_t levels;       /* fat-tree levels (dragonfly, Cascade: 1) */
	uint32_t groups;       /* pods or dragonfly / Cascade groups */
	uint32_t group_size;   /* switches per dragonfly / Cascade group */
	uint32_t rows, cols;   /* Cascade: a group's rows x columns */
	uint32_t global_links; /* dragonfly / Cascade links between groups */
	uint32_t pair_min;     /* the fewest and most global links */
	uint32_t pair_max;     /* between two groups */
	uint32_t parts;	       /* connected parts of the switch graph */
	uint32_t idle;	       /* fat-tree switches on no up/down route */
	uint32_t hosting;      /* fat-tree switches above level 0 with nodes */
	char why[320];	       /* NULL family: why no family applies */
};

struct topo {
	enum topo_kind kind;
	const char *family;
	char spec[512];
	struct topo_param params[TOPO_MAX_PARAMS];
	size_t nparams;
	/* given parameters and the defaults the family used, in the family's
	 * key order (topo_params, topo_param_int) */
	struct topo_param eff[TOPO_MAX_PARAMS];
	size_t neff;

	uint32_t nnodes, nswitches, nlinks;
	struct topo_link *links;
	uint32_t *node_sw;     /* [N] */
	uint32_t *sw_node_off; /* [S+1] into sw_nodes */
	uint32_t *sw_nodes;    /* [N] */
	uint32_t *out_off;     /* [S+1] absolute link ids */
	uint32_t *in_off;      /* [S+1] into in_links */
	uint32_t *in_links;    /* [L-2N] */
	uint32_t ngroups;
	uint32_t *sw_group; /* [S] */
	uint32_t *sw_level; /* [S] */
	int ndims;
	uint32_t dims[TOPO_MAX_DIMS];
	uint32_t unconnected_ports;
	struct topo_recog recog; /* TOPO_GRAPH only */
	/* TOPO_GRAPH: the file's switch names, NUL-separated in sw_names,
	 * switch s at sw_name_off[s]; NULL for the generated families */
	char *sw_names;
	uint32_t *sw_name_off;
	uint8_t *sw_idle; /* [S] recognised fat-tree: on no up/down route */
	/* the subnet manager's forwarding tables (topo.conf Forward=):
	 * [S x N], the link switch s sends node n's traffic on at
	 * fwd[s N + n], TOPO_NONE for none; NULL without tables */
	uint32_t *fwd;
};

struct tb_cable {
	uint32_t a, b;
	double cap;
	enum topo_link_kind kind_ab, kind_ba;
};

struct topo_builder {
	uint32_t nswitches;
	struct tb_cable *cables;
	size_t ncables, cap_cables;
	uint32_t *node_sw;
	size_t nnodes, cap_nodes;
	double inject_cap; /* injection/ejection capacity, default 1 */
	uint32_t ngroups;
	uint32_t *sw_group; /* [S], TOPO_NONE by default */
	uint32_t *sw_level; /* [S], 0 by default */
	int ndims;
	uint32_t dims[TOPO_MAX_DIMS];
	uint32_t unconnected_ports;
};

/* Parameters handed to a family's (or a routing's) build function: the
 * checked spec and the entry's option table, with lookup helpers.  A
 * value absent from the spec is the table's default.  Defaults the entry
 * computes itself (targ_int_computed) are noted in DEFAULTS (owned by the
 * caller, TOPO_MAX_PARAMS entries; may be NULL). */
struct topo_args {
	const struct spec *spec;
	const struct spec_opt *opts;
	struct topo_param *defaults;
	size_t *ndefaults;
};

/* Set up A for entry NAME with options OPTS and the given PARAMS, copied
 * into S (which A borrows): unknown or repeated keys are errors ("unknown
 * parameter 'k' (known: a, b)").  A notes no defaults.  Returns 0 or -1
 * with err set. */
int targ_init(struct topo_args *a, struct spec *s, const char *name,
	      const struct spec_opt *opts, const struct topo_param *params,
	      size_t nparams, struct err *err);
/* Integer parameter KEY (given, else the table's default); -1 with err set
 * if malformed or outside [min, max].  *out receives the value. */
int targ_int(const struct topo_args *a, const char *key, long min, long max,
	     long *out, struct err *err);
/* The same for a parameter whose default the entry computes (its table
 * entry has no .def): DEF when absent, noted as a default. */
int targ_int_computed(const struct topo_args *a, const char *key, long def,
		      long min, long max, long *out, struct err *err);
/* Positive double parameter (capacities), given or the table's default. */
int targ_double(const struct topo_args *a, const char *key, double *out,
		struct err *err);
/* String parameter: given, else the table's default, else NULL. */
const char *targ_str(const struct topo_args *a, const char *key);

/* A family's recogniser: whether the connected switch graph T (from a
 * topo.conf) is of the family.  LEV, GRP (each switch's level and group)
 * and IDLE (switches on no route) hold S zeros on entry, RC only the
 * count of parts.  Returns 0 (yes: LEV, GRP, IDLE and RC filled,
 * RC->family the name of a family of the registry), 1 (no: WHY, of
 * WHYLEN bytes, says why) or -1 (out of memory). */
typedef int (*topo_recognise_fn)(const struct topo *t, uint32_t *lev,
				 uint32_t *grp, uint8_t *idle,
				 struct topo_recog *rc, char *why,
				 size_t whylen);

/* How an explicit graph is recognised as a family (topo_recognise). */
struct topo_recogniser {
	topo_recognise_fn fn; /* NULL: the family is never recognised */
	int priority;	      /* higher is tried first; ties: registry order */
	const char *as;	      /* a "no" reads "not a <as>: <why>" */
};

struct topo_family_ops {
	const char *name;
	enum topo_kind kind;
	/* What the family is, for the code above topo/ (topo_traits). */
	struct topo_traits traits;
	/* What it is recognised from in an explicit graph. */
	struct topo_recogniser recognise;
	/* The parameters, { 0 }-terminated; anything else is an error. */
	const struct spec_opt *opts;
	/* Fill the builder (after tb_init); return 0 or -1 with err set. */
	int (*build)(struct topo_builder *b, const struct topo_args *args,
		     struct err *err);
};

int tb_init(struct topo_builder *b, uint32_t nswitches);
void tb_free(struct topo_builder *b);
/* 0, or -1 with err naming the first of the limits (topo/util/limits.h:
 * switches, nodes, directed links = 2*nodes + 2*cables) these counts
 * exceed.  Every family calls it with its sizes before it builds. */
int tb_check_size(uint64_t switches, uint64_t nodes, uint64_t cables,
		  struct err *err);
/* A cable a<->b: two directed links of capacity CAP. */
int tb_cable(struct topo_builder *b, uint32_t a, uint32_t bsw, double cap,
	     enum topo_link_kind kind_ab, enum topo_link_kind kind_ba);
/* Attach the next node (ids are given in call order) to switch SW. */
int tb_node(struct topo_builder *b, uint32_t sw);
/* Allocate group / level tables (called by families that have them). */
int tb_groups(struct topo_builder *b, uint32_t ngroups);
int tb_levels(struct topo_builder *b);
/* Lay out the numbering contract and free the builder.  Returns the
 * topology (kind/family/spec still to be set by the caller) or NULL. */
struct topo *tb_finish(struct topo_builder *b, struct err *err);

/* Give T the names NAMES[0..S) of its switches (copied).  Returns 0 or
 * -1 (memory). */
int topo_set_switch_names(struct topo *t, const char *const *names);

/* Give T the forwarding tables FWD ([S x N] switch link ids, TOPO_NONE
 * for none; taken over). */
void topo_set_forwarding(struct topo *t, uint32_t *fwd);
/* Check T's forwarding tables: every route from a switch with nodes to
 * every node of another switch reaches it.  Returns 0; 1 when switch
 * *SW has no entry for node *NODE that traffic from switch *FROM needs;
 * 2 when the route from *FROM to *NODE comes back to *SW (a loop). */
int topo_check_forwarding(const struct topo *t, uint32_t *sw, uint32_t *node,
			  uint32_t *from);

/* Recognise graph T (TOPO_GRAPH) as a family of the registry, asking
 * their recognisers in turn (struct topo_recogniser): on success set its
 * levels, groups and t->recog, else t->recog.why (every recogniser's
 * "no").  Returns 0, or -1 when out of memory. */
int topo_recognise(struct topo *t);

/* The family registry (topo_families.c). */
const struct topo_family_ops *topo_family_find(const char *name);
extern const struct topo_family_ops *const topo_family_table[];

#endif
