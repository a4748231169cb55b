/* machine.h - one machine: the topology, the Slurm names of its nodes, the
 * routing, the select plugin select/topo wraps and the validated policy of
 * every partition, each with the topo.conf line it came from.  Every
 * stopo subcommand and the select/topo plugin load it the same way: from
 * a topo.conf (machine_load) or from a topology spec such as
 * "dragonfly:p=2,a=4,h=2,g=9" (machine_from_spec); machine_open is the
 * one place that tells a --topo argument's spec from a file
 * (machine_arg_is_spec).
 *
 * The topo.conf parser (topo/topo_conf.h) checks what it can alone; the
 * machine adds the checks that need the routing and the policies:
 * Routing= applies to the topology, DefaultPolicy= and every
 * PartitionPolicy= name a policy whose options are valid and that applies
 * to the topology and to the file's routing, PredictBudget= is a number
 * of milliseconds.  Predict= names a model, which lives in a layer above
 * this one: machine_check_predict checks it with the model check its
 * caller hands it (stopo topo and the plugin pass model_check).  Errors
 * about a line of the file are "PATH:LINE: what"; about the ROUTING
 * argument, "what".
 *
 * A machine is immutable once loaded; the library never prints. */
#ifndef STOPO_MACHINE_H
#define STOPO_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "policies/policy.h"
#include "topo/util/err.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"

struct machine;

/* Load topo.conf PATH.  ROUTING (NULL: the file's Routing=, else the
 * family's default) is the routing machine_routing gives; the file's
 * Routing= and policies are checked either way, the policies against the
 * file's routing (the one select/topo uses).  Returns a new machine (free
 * with machine_destroy) or NULL with err set to "PATH:LINE: what" ("PATH:
 * what" when the file cannot be read; "what" for a bad ROUTING). */
struct machine *machine_load(const char *path, const char *routing,
			     struct err *err);

/* The same on topo.conf text TEXT; NAME stands for the path in messages
 * and in machine_source. */
struct machine *machine_parse(const char *name, const char *text,
			      const char *routing, struct err *err);

/* A machine from topology spec SPEC ("family:key=value,...", never a
 * file): no node names, no policies, Wrap= default.  ROUTING NULL: the
 * family's default.  Returns a new machine or NULL with err set to
 * "what". */
struct machine *machine_from_spec(const char *spec, const char *routing,
				  struct err *err);

/* The machine of a --topo ARG: machine_from_spec when ARG is a spec
 * (machine_arg_is_spec), else machine_load of the file ARG.  Returns a new
 * machine or NULL with err set as those do; when ARG is neither a spec
 * nor an existing file and has no '/' nor ".conf" suffix, the error is
 * the spec's ("unknown topology family 'X'"). */
struct machine *machine_open(const char *arg, const char *routing,
			     struct err *err);

/* Whether machine_open takes ARG as a topology spec: the text before the
 * first ':' or blank is a registered family name (topo_family_names).
 * Anything else is a file path; the file system is not consulted, so a
 * file named like a family does not change the meaning ("./fattree"
 * names that file). */
bool machine_arg_is_spec(const char *arg);

/* Free; NULL is a no-op. */
void machine_destroy(struct machine *m);

/* The topology (borrowed; lives as long as M). */
const struct topo *machine_topo(const struct machine *m);
/* The routing: the ROUTING argument, else Routing=, else the family's
 * default (borrowed; lives as long as M). */
const struct routing *machine_routing(const struct machine *m);
/* The topo.conf path (the NAME of machine_parse), or NULL for a spec
 * (borrowed). */
const char *machine_source(const struct machine *m);
/* The Routing= value as the file gives it, or NULL without one or without
 * a file (borrowed). */
const char *machine_conf_routing(const struct machine *m);
/* The select plugin select/topo wraps (Wrap=): "select/cons_tres" (also
 * without a file or a Wrap= line) or "select/linear" (static). */
const char *machine_wrap(const struct machine *m);
/* RespectIsolation= of the file (false for a spec): jobs of partitions
 * without an isolating policy avoid sharing links with isolated jobs. */
bool machine_respect_isolation(const struct machine *m);
/* Line of directive KEY in the topo.conf, or 0 when the file does not
 * give it or there is no file. */
uint32_t machine_line(const struct machine *m, enum topo_conf_key key);

/* The prediction of select/topo (select_topo(8)): the model it runs on a
 * job's traffic pattern when the job starts, and the milliseconds that
 * may take. */
#define MACHINE_PREDICT_BUDGET_MS 50	    /* without PredictBudget= */
#define MACHINE_PREDICT_BUDGET_MAX_MS 60000 /* the largest PredictBudget= */

/* A model check: 0 when SPEC names a model and options it knows and the
 * model runs under routing R, else -1 with err set to why
 * (model_check_routing of evaluator/models/model.h). */
typedef int (*machine_model_check_fn)(const char *spec, const struct routing *r,
				      struct err *err);

/* The UGAL-G model a dragonfly or Cascade routed ugal predicts with by
 * default.  make validate (BookSim2, dfly(2,4,2,9), stopo-eval(1)) finds
 * ugal2, ugal4 and ugal5 equally close to simulated UGAL-G (3.1 % mean on
 * permutations) and ugal1/ugal3 22 % high; ugal5 has the fewest LP
 * variables of the three. */
#define MACHINE_PREDICT_UGAL "ugal5"

/* The prediction model of a machine without Predict=, on topology T under
 * routing R: the one place the default is chosen.  MACHINE_PREDICT_UGAL
 * on a dragonfly or Cascade under routing ugal, "jm" elsewhere.  Returns
 * a static model spec. */
const char *machine_predict_default(const struct topo *t,
				    const struct routing *r);
/* The prediction model: Predict= as the file writes it, else
 * machine_predict_default of the topology and the file's routing (the
 * ROUTING argument's for a spec).  When LINE is not NULL, *line gets the
 * Predict= line, 0 for the default.  Borrowed; not checked against the
 * models: see machine_check_predict. */
const char *machine_predict(const struct machine *m, uint32_t *line);
/* The prediction's time budget in milliseconds: PredictBudget= (checked
 * when the machine is loaded: 1 to MACHINE_PREDICT_BUDGET_MAX_MS), else
 * MACHINE_PREDICT_BUDGET_MS.  When LINE is not NULL, *line gets the
 * PredictBudget= line, 0 for the default. */
uint32_t machine_predict_budget(const struct machine *m, uint32_t *line);
/* Check the prediction model (machine_predict) with CHECK under the
 * file's routing (the one the default is chosen for).  Returns 0, or
 * -1 with err set to "PATH:LINE: Predict=SPEC: why" (why: CHECK's
 * message); for the default model "PATH: Predict=SPEC (the default): why",
 * without a file "Predict=SPEC (the default): why". */
int machine_check_predict(const struct machine *m, machine_model_check_fn check,
			  struct err *err);

/* Whether every node 0..N-1 has a Slurm name (NodeName=, or names in a
 * graph's Nodes=). */
bool machine_has_names(const struct machine *m);
/* Slurm name of node I, or NULL without names or when I is out of range
 * (borrowed). */
const char *machine_node_name(const struct machine *m, uint32_t i);
/* Node of Slurm name NAME (O(1)), or TOPO_NONE. */
uint32_t machine_node_index(const struct machine *m, const char *name);

/* The policy of PARTITION: its PartitionPolicy=, else DefaultPolicy=
 * (PARTITION NULL: DefaultPolicy=), or NULL when neither is given.  When
 * not NULL, *text gets the policy as the file writes it and *line its
 * line (NULL and 0 when there is no policy).  The policy is borrowed,
 * bound to the topology and the file's routing. */
const struct policy *machine_policy(const struct machine *m,
				    const char *partition, const char **text,
				    uint32_t *line);
/* Number of PartitionPolicy= lines. */
uint32_t machine_num_partitions(const struct machine *m);
/* PartitionPolicy= line I (0-based, file order): its policy, and through
 * the non-NULL pointers its partition, text and line (borrowed).  NULL
 * when I is out of range. */
const struct policy *machine_partition(const struct machine *m, uint32_t i,
				       const char **partition,
				       const char **text, uint32_t *line);

#endif
