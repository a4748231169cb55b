/* import.h - turn other tools' descriptions of a fabric into a
 * Topology=graph topo.conf: ibnetdiscover's text output (InfiniBand),
 * Slurm's topology.conf and topology.yaml (tree and block forms).  The
 * importers fill a fabric (named switches, their nodes, their cables with
 * capacities); import_write_conf prints it.  Nothing here prints or
 * exits: errors are "FILE:LINE: what" in a struct err, remarks are
 * warnings kept in the fabric for the caller to show. */
#ifndef STOPO_IMPORT_H
#define STOPO_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "topo/util/err.h"

struct import_fabric;
struct topo;

/* What import_ibnet reads beside the discovery (all optional). */
struct import_ib_opts {
	const char *guids;	/* a map of "HOST GUID" or "GUID HOST"
				  * lines: node names by HCA GUID */
	const char *subnet;	/* keep only this subnet: the ID of an
				  * ib-subnet-ID.txt file, or a position */
	const char *const *lft; /* NULL-terminated: files or directories
				  * of forwarding tables as ibroute and
				  * dump_lfts.sh print them */
};

/* Read ibnetdiscover's output (classic or ports-report, -p) from PATHS[0
 * .. N), each a subnet (a directory: its ib-subnet-*.txt files); the
 * subnets must join into one fabric (else --subnet).  Node names come
 * from the map, else from an HCA's description when it names a host,
 * else from its GUID (H-0002c903-00001000); with O->lft the switches'
 * forwarding tables become the fabric's (written as Routing=lft and
 * Forward= lines).  Returns a new fabric, or NULL with err set to
 * "PATH:LINE: what" (or "MAP:LINE: what").  Free with import_destroy. */
struct import_fabric *import_ibnet(const char *const *paths, size_t n,
				   const struct import_ib_opts *o,
				   struct err *err);
/* import_ibnet of one PATH with map MAP (NULL: none). */
struct import_fabric *import_ibnetdiscover(const char *path, const char *map,
					   struct err *err);

/* Read Slurm's topology.conf from PATH: the tree form (SwitchName= with
 * Nodes= or Switches=) or the block form (BlockName=, BlockSizes=; each
 * block a switch, all joined by a top switch).  Returns a new fabric or
 * NULL with err set. */
struct import_fabric *import_slurm_topology(const char *path, struct err *err);

/* Read Slurm's topology.yaml (24.11 and later: a list of topologies) from
 * PATH and import topology NAME of it (NULL: the first with
 * cluster_default: true, else the only one).  Its tree or block form
 * gives the fabric import_slurm_topology gives for the same topology.conf;
 * a flat topology is an error.  Returns a new fabric or NULL with err set
 * to "PATH:LINE: what". */
struct import_fabric *import_slurm_yaml(const char *path, const char *name,
					struct err *err);

/* Read a Cray XC (Aries) link list from PATH ("ROUTERlPORT(G:R:C) COLOUR
 * -> ROUTERlPORT(G:R:C)" lines, as the CODES simulator reads them): the
 * routers in (group, row, column) order, four nodes on a router with 8
 * processor tiles (its cname with n0 .. n3 for a0), parallel cables
 * merged into one link of capacity their number.  Returns a new fabric or
 * NULL with err set to "PATH:LINE: what". */
struct import_fabric *import_aries(const char *path, struct err *err);

/* Free F; NULL is a no-op. */
void import_destroy(struct import_fabric *f);

/* F as a topo.conf (Topology=graph, one SwitchName= line per switch, the
 * tables' Forward= lines) on OUT, with the Routing= its recognition
 * implies (ecmp for a fat-tree, ugal for a dragonfly or Cascade, lft with
 * forwarding tables; none when nothing is recognised) and a comment
 * saying what was recognised.  The text is parsed as topo.conf(5) reads
 * it first: when it would not load (switches in several parts, tables
 * whose routes do not arrive), nothing is written.  Returns 0, or -1
 * with err set (that load's message, or a write error). */
int import_write_conf(const struct import_fabric *f, FILE *out,
		      struct err *err);

/* The warnings of the import, in the order found (borrowed strings,
 * "FILE:LINE: what"). */
size_t import_num_warnings(const struct import_fabric *f);
const char *import_warning(const struct import_fabric *f, size_t i);

/* Sizes of F: switches, named compute nodes, switch-to-switch cables. */
uint32_t import_num_switches(const struct import_fabric *f);
uint32_t import_num_nodes(const struct import_fabric *f);
uint32_t import_num_cables(const struct import_fabric *f);

/* Switch SW of F: its node count and its cable count (its degree in the
 * switch graph, parallel cables counted).  0, or -1 when SW is out of
 * range. */
int import_switch_degree(const struct import_fabric *f, uint32_t sw,
			 uint32_t *nodes, uint32_t *cables);

/* Topology T as ibnetdiscover text on OUT: switch i is "S-0002c903<i>"
 * described "sw<i>", node n an HCA described "n<n> HCA-1", its nodes on
 * ports 1.., then its cables in link order, every link 4xEDR.  The
 * inverse of import_ibnetdiscover, for round-trip tests.  0 or -1 with
 * err set. */
int import_export_ibnetdiscover(const struct topo *t, FILE *out,
				struct err *err);

/* The unicast forwarding tables of routing R (over the topology of
 * import_export_ibnetdiscover) as ibroute prints them, on OUT: toward
 * every node, every switch a path of R from another switch with nodes
 * passes sends it on the link the first such path takes (R's first path
 * when R is destination based, as dmodk is).  For round trips of
 * import_ibnet --lft.  0 or -1 with err set. */
struct routing;
int import_export_lft(const struct routing *r, FILE *out, struct err *err);

/* Cascade T (96-router groups, switch g*96 + row*16 + column) as an Aries
 * link list on OUT: a cname per router, a link of capacity C as C
 * cables, two processor tiles a node.  The inverse of import_aries, for
 * round trips.  0 or -1 with err set. */
int import_export_aries(const struct topo *t, FILE *out, struct err *err);

#endif
