/* import_impl.h - the fabric the importers fill (inside topo/import/). */
#ifndef STOPO_IMPORT_IMPL_H
#define STOPO_IMPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/import/import.h"
#include "topo/util/nameidx.h"

struct isw {
	char *name;
	char *note;   /* comment after its line ("S-0002c9..."), or NULL */
	char **nodes; /* node names, in order */
	uint32_t nnodes, cap;
};

struct icable {
	uint32_t a, b; /* switch indices, a <= b's line order not required */
	double rate;   /* Gb/s, or 1 where the source gives no rates */
};

/* One forwarding entry of a switch's table: toward node NODE (fabric
 * order), switch SW sends on cable CABLE (an index of f->cab). */
struct ifwd {
	uint32_t sw, node, cable;
};

struct import_fabric {
	const char *format; /* "ibnetdiscover", "slurm topology.conf" */
	char *source;	    /* the input path */
	struct isw *sw;
	uint32_t nsw, swcap;
	struct icable *cab;
	uint32_t ncab, cabcap;
	uint32_t nnodes;
	double *inject; /* the rates of the node links (Gb/s), one a node */
	uint32_t ninject, injcap;
	bool rated; /* rates are Gb/s (else every capacity is 1) */
	char **warn;
	size_t nwarn, warncap;
	struct ifwd *fwd; /* the subnet manager's tables (--lft), or NULL */
	uint32_t nfwd, fwdcap;
	char *lft_source;     /* what the tables were read from (a comment) */
	const char *cap_note; /* the capacities' comment, NULL: by rate */
};

/* Hexadecimal number at *S (optional 0x, 1 to 16 digits) into *V;
 * advances *S.  0 or -1. */
int import_get_hex(const char **s, uint64_t *v);

/* Call FN(CTX, LINE, LINENO) for every line of PATH ("-": standard
 * input) until it returns nonzero; a NUL byte is "PATH:LINE: NUL byte".
 * *LAST gets the number of the last line read (at least 1).  Returns 0,
 * FN's -1, or -1 with err set when PATH cannot be read. */
int import_each_line(const char *path,
		     int (*fn)(void *ctx, char *line, uint32_t lineno),
		     void *ctx, uint32_t *last, struct err *err);

/* ERR := CODE and "PATH:LINE: " and the message; returns -1. */
int import_perr_code(struct err *err, const char *path, uint32_t line, int code,
		     const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* The same for bad input (EINVAL). */
#define import_perr(err, path, line, ...) \
	import_perr_code(err, path, line, EINVAL, __VA_ARGS__)

struct import_fabric *fabric_new(const char *format, const char *source);
/* Append switch NAME (copied; NOTE may be NULL).  Returns its index or -1
 * on memory. */
int64_t fabric_add_switch(struct import_fabric *f, const char *name,
			  const char *note);
int fabric_add_node(struct import_fabric *f, uint32_t sw, const char *name,
		    double rate);
int fabric_add_cable(struct import_fabric *f, uint32_t a, uint32_t b,
		     double rate);
/* Append forwarding entry (SW, NODE, CABLE).  0 or -1 on memory. */
int fabric_add_fwd(struct import_fabric *f, uint32_t sw, uint32_t node,
		   uint32_t cable);
/* The name of node I (fabric order: switch by switch; borrowed). */
const char *fabric_node_name(const struct import_fabric *f, uint32_t i);
/* Append a warning (printf format).  Returns 0 or -1 on memory. */
int fabric_warn(struct import_fabric *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* One switch (tree) or block of a Slurm topology: a topology.conf line or
 * a topology.yaml entry.  The strings are owned (malloc'd). */
struct slurm_sw {
	char *name;
	char *nodes;	/* hostlist of its nodes, or NULL */
	char *switches; /* hostlist of its child switches, or NULL */
	uint32_t line;	/* where it starts */
	uint32_t nodes_line, switches_line; /* of its hostlists (0: line) */
};

/* A Slurm topology read into switches, before the fabric is built: the
 * topology.conf and topology.yaml readers fill it the same way, and
 * slurm_build makes the fabric.  The key spellings are for messages:
 * "Nodes=" / "nodes: ", "Switches=" / "children: ", "Switches=:" /
 * "children:", and the message when no switch has nodes. */
struct slurm_topo {
	const char *path;
	struct err *err;
	struct slurm_sw *l;
	uint32_t nl, lcap;
	struct nameidx names; /* l by name; zeroed until the first entry */
	bool blocks, tree;
	uint32_t first_form_line;
	const char *kn, *ks, *ks_err, *no_nodes;
};

/* Set ST's error to "PATH:LINE: what".  Returns -1. */
#define slurm_err(st, line, ...) \
	import_perr((st)->err, (st)->path, line, __VA_ARGS__)
/* The index of switch NAME in ST, or -1. */
int64_t slurm_find(const struct slurm_topo *st, const char *name);
/* Append SW (its strings taken over, freed on failure).  0 or -1. */
int slurm_append(struct slurm_topo *st, struct slurm_sw *sw);
/* The fabric of ST (FORMAT names the input in its header; LAST_LINE is
 * where "no nodes" is reported): a switch per entry, cabled to its
 * children (tree) or, for blocks, all to one top switch.  Returns it, or
 * NULL with ST's error set. */
struct import_fabric *slurm_build(struct slurm_topo *st, const char *format,
				  uint32_t last_line);
/* Free ST's entries (not ST). */
void slurm_clear(struct slurm_topo *st);

/* The discovery the forwarding tables are read against (import_ibnet.c;
 * opaque). */
struct ib_view;
/* The fabric switch of switch GUID, or -1. */
int64_t ib_switch(const struct ib_view *v, uint64_t guid);
/* The fabric node of an HCA by a port GUID (or its node GUID), or -1
 * (not in the discovery, or no node: unattached, a duplicate name). */
int64_t ib_node(const struct ib_view *v, uint64_t pguid);
/* What port PORT of fabric switch SW leads to: *CABLE (an index of f->cab)
 * for a switch, *NODE for an HCA that is a node, else UINT32_MAX in both.
 * 0, or -1 when the switch has no such cabled port. */
int ib_port(const struct ib_view *v, uint32_t sw, uint32_t port,
	    uint32_t *cable, uint32_t *node);
/* The description of fabric switch SW (borrowed). */
const char *ib_switch_desc(const struct ib_view *v, uint32_t sw);
/* Read the forwarding tables of PATHS (NULL-terminated; a directory
 * stands for its files) against V into F's fwd.  0 or -1 with err set to
 * "PATH:LINE: what". */
int import_lft_read(struct import_fabric *f, const struct ib_view *v,
		    const char *const *paths, struct err *err);

/* Whether S is usable as a topo.conf node name: letters, digits, '.', '_',
 * '-', and a name libslurm keeps as it is (hl_error: no more than 9
 * trailing digits). */
bool import_name_ok(const char *s);
/* Whether S is usable as a topo.conf switch name: letters, digits, '.',
 * '_', '-' (switch names are no hostlists: S-0002c90200417670 is one). */
bool import_switch_name_ok(const char *s);

#endif
