/* topo_conf.h - the topo.conf file (see topo.conf(5)): Slurm-style
 * Key=Value lines naming the topology, the Slurm node names of nodes
 * 0..N-1, capacity overrides, explicit graphs, and directives for the
 * Slurm plugin (routing, policies per partition, the wrapped select
 * plugin, the model and time budget of its prediction at job start).
 *
 * A parser: it checks the syntax of every directive and builds the
 * topology, node names and capacities; whether Routing=, the policies
 * and Predict= exist and apply, and whether PredictBudget= is a number,
 * is checked by the machine (policies/machine/machine.h),
 * with the lines kept here (topo_conf_line).
 *
 * Every error is reported as "PATH:LINE: message". */
#ifndef STOPO_TOPO_CONF_H
#define STOPO_TOPO_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/util/err.h"
#include "topo/topo.h"

struct topo_conf;

/* Parse PATH.  Returns a new configuration or NULL with err set to
 * "PATH:LINE: what" ("PATH: what" when the file cannot be read).  Free
 * with topo_conf_destroy. */
struct topo_conf *topo_conf_load(const char *path, struct err *err);

/* Parse configuration text (NAME is used in messages as the file name).
 * Same result as topo_conf_load. */
struct topo_conf *topo_conf_parse(const char *name, const char *text,
				  struct err *err);

/* Free; NULL is a no-op. */
void topo_conf_destroy(struct topo_conf *c);

/* The topology (borrowed; lives as long as the conf; NULL after
 * topo_conf_take_topo). */
const struct topo *topo_conf_topo(const struct topo_conf *c);
/* Take ownership of the topology (the conf no longer frees it; the node
 * names, routing and policies stay available). */
struct topo *topo_conf_take_topo(struct topo_conf *c);

/* Routing spec from "Routing=" or NULL when absent (borrowed; its syntax
 * is checked, not whether it applies: see the machine). */
const char *topo_conf_routing(const struct topo_conf *c);

/* The stock select plugin the Slurm plugin wraps, from "Wrap=" (cons_tres,
 * linear, select/cons_tres or select/linear): "select/cons_tres" (also
 * when absent) or "select/linear" (static; never NULL). */
const char *topo_conf_wrap(const struct topo_conf *c);
/* The Wrap= value of PATH as topo_conf_wrap gives it, without building
 * the topology (what the plugin needs in every Slurm process, before
 * slurmctld's node table exists): every directive's syntax is checked as
 * by topo_conf_load, nothing that needs the topology is.  Returns a static
 * string or NULL with err set to "PATH:LINE: what" ("PATH: what" when the
 * file cannot be read). */
const char *topo_conf_peek_wrap(const char *path, struct err *err);

/* The "Predict=" value, MODEL[:key=value,...] (the model of select/topo's
 * prediction at job start), or NULL when absent (borrowed; its syntax is
 * checked, not whether the model exists: see the machine). */
const char *topo_conf_predict(const struct topo_conf *c);
/* The "PredictBudget=" value as the file writes it, or NULL when absent
 * (borrowed; the machine checks that it is a number of milliseconds). */
const char *topo_conf_predict_budget(const struct topo_conf *c);
/* "RespectIsolation=yes": jobs of partitions without an isolating policy
 * must not share links with isolated jobs (select_topo(8)); default no. */
bool topo_conf_respect_isolation(const struct topo_conf *c);

/* Slurm name of node I, or NULL when the file names no nodes or I is out
 * of range (borrowed). */
const char *topo_conf_node_name(const struct topo_conf *c, uint32_t i);
/* Node index of Slurm name NAME (hash lookup, O(1)), or TOPO_NONE. */
uint32_t topo_conf_node_index(const struct topo_conf *c, const char *name);
/* Whether the nodes are named (NodeName= or names in a graph's Nodes=);
 * then every node 0..N-1 has a distinct name. */
int topo_conf_has_names(const struct topo_conf *c);

/* Policy for PARTITION from "PartitionPolicy=part:policy[:opts]" lines, or
 * the "DefaultPolicy=" value, or NULL (borrowed).  The value is
 * "policy[:opts]". */
const char *topo_conf_policy(const struct topo_conf *c, const char *partition);
/* The "DefaultPolicy=" value or NULL (borrowed). */
const char *topo_conf_default_policy(const struct topo_conf *c);
/* Number of PartitionPolicy= lines; partition and policy of line I
 * (0-based, file order) through *part and *policy (borrowed) and, when
 * LINE is not NULL, its line number through *line.  Returns 0, or -1 when
 * I is out of range. */
uint32_t topo_conf_num_partition_policies(const struct topo_conf *c);
int topo_conf_partition_policy(const struct topo_conf *c, uint32_t i,
			       const char **part, const char **policy,
			       uint32_t *line);

/* The directives topo_conf_line knows the line of. */
enum topo_conf_key {
	TOPO_CONF_TOPOLOGY,
	TOPO_CONF_ROUTING,
	/* the first NodeName= line, or the first SwitchName= line whose
	 * Nodes= names its nodes */
	TOPO_CONF_NODENAME,
	TOPO_CONF_DEFAULT_POLICY,
	TOPO_CONF_WRAP,
	TOPO_CONF_PREDICT,
	TOPO_CONF_PREDICT_BUDGET,
	TOPO_CONF_RESPECT_ISOLATION,
	TOPO_CONF_NKEYS
};
/* Line (1-based; of its first line when continued) of directive KEY, or 0
 * when the file does not give it, so that callers checking what the
 * parser cannot (slurm.conf's nodes, ...) can say "PATH:LINE: what". */
uint32_t topo_conf_line(const struct topo_conf *c, enum topo_conf_key key);
/* The PATH (or NAME of topo_conf_parse) messages name (borrowed). */
const char *topo_conf_name(const struct topo_conf *c);

#endif
