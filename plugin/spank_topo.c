/*****************************************************************************\
 *  spank_topo.c - SPANK plugin adding the select/topo job options
 *
 *    --topo-policy=NAME[:opts]  allocation policy for this job (see
 *                               stopo-policies(7); within what the
 *                               partition allows, checked by select/topo)
 *    --topo-pattern=P           traffic pattern, for the predictions
 *    --topo-grid=AxBxC          Cartesian task grid (1 to 3 dimensions)
 *
 *  Values are checked here with the parsers the controller uses (the
 *  policy registry's policy_check, the pattern registry's
 *  flows_pattern_check), so that a bad one is refused at submission,
 *  and handed to slurmctld as job control environment variables
 *  (spank_job_control_setenv): TOPO_POLICY, TOPO_PATTERN, TOPO_GRID in the
 *  job's spank_job_env, where select/topo reads them (the job itself sees
 *  them as SPANK_TOPO_*).  Options are registered in slurm_spank_init
 *  with spank_option_register (sbatch ignores a static spank_options
 *  table).  See select_topo(8).
\*****************************************************************************/

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "evaluator/traffic/flows.h"
#include "policies/policy.h"

/* Compiled with -fvisibility=hidden: Slurm's SPANK interface below is
 * visible, spank_topo.map exports nothing else. */
#pragma GCC visibility push(default)

SPANK_PLUGIN(topo, 1);

#define VALUE_MAX 256

static char opt_policy[VALUE_MAX];
static char opt_pattern[VALUE_MAX];
static char opt_grid[VALUE_MAX];

static int copy_value(char *dst, const char *val, const char *opt)
{
	size_t i;

	if (!val || !*val) {
		slurm_error("--%s: a value is required", opt);
		return -1;
	}
	if (strlen(val) >= VALUE_MAX) {
		slurm_error("--%s: value longer than %d characters", opt,
			    VALUE_MAX - 1);
		return -1;
	}
	/* '=' is part of the grammar (fattree-pods:large=leaves); blanks
	 * and control characters never are */
	for (i = 0; val[i]; i++) {
		if (isspace((unsigned char)val[i]) ||
		    iscntrl((unsigned char)val[i])) {
			slurm_error("--%s=%s: blanks are not allowed", opt,
				    val);
			return -1;
		}
	}
	strcpy(dst, val);
	return 0;
}

static int cb_policy(int val, const char *optarg, int remote)
{
	struct err e = { "" };

	if (copy_value(opt_policy, optarg, "topo-policy") < 0)
		return -1;
	/* name and options, as select/topo will create it (whether it
	 * applies to the topology is select/topo's to say) */
	if (remote || !policy_check(opt_policy, &e))
		return 0;
	slurm_error("--topo-policy=%s: %s", opt_policy, e.msg);
	opt_policy[0] = '\0';
	return -1;
}

static int cb_pattern(int val, const char *optarg, int remote)
{
	struct err e = { "" };

	if (copy_value(opt_pattern, optarg, "topo-pattern") < 0)
		return -1;
	if (remote || !flows_pattern_check(opt_pattern, &e))
		return 0;
	slurm_error("--topo-pattern=%s: %s", opt_pattern, e.msg);
	opt_pattern[0] = '\0';
	return -1;
}

static int cb_grid(int val, const char *optarg, int remote)
{
	struct policy_request req = { 0 };
	struct err err = { { 0 } };

	if (copy_value(opt_grid, optarg, "topo-grid") < 0)
		return -1;
	if (policy_grid_parse(optarg, &req, &err) < 0) {
		slurm_error("--topo-grid=%s: %s", optarg, err.msg);
		opt_grid[0] = '\0';
		return -1;
	}
	return 0;
}

static struct spank_option options[] = {
	{ .name = "topo-policy",
	  .arginfo = "NAME",
	  .usage = "select/topo allocation policy for this job "
		   "(stopo-policies(7))",
	  .has_arg = 1,
	  .cb = cb_policy },
	{ .name = "topo-pattern",
	  .arginfo = "PATTERN",
	  .usage = "traffic pattern of this job, for select/topo's predictions",
	  .has_arg = 1,
	  .cb = cb_pattern },
	{ .name = "topo-grid",
	  .arginfo = "AxBxC",
	  .usage = "Cartesian task grid of this job, for select/topo",
	  .has_arg = 1,
	  .cb = cb_grid },
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
			slurm_error("spank_topo: cannot register --%s",
				    options[i].name);
			return -1;
		}
	}
	return 0;
}

static int set_env(spank_t sp, const char *name, const char *val)
{
	spank_err_t rc;

	if (!val[0])
		return 0;
	rc = spank_job_control_setenv(sp, name, val, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("spank_topo: cannot pass %s to slurmctld: %s", name,
			    spank_strerror(rc));
		return -1;
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	if (set_env(sp, "TOPO_POLICY", opt_policy) < 0 ||
	    set_env(sp, "TOPO_PATTERN", opt_pattern) < 0 ||
	    set_env(sp, "TOPO_GRID", opt_grid) < 0)
		return -1;
	return 0;
}
