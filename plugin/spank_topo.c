/*****************************************************************************\
 *  spank_topo.c - SPANK plugin adding the select/topo job options
 *
 *    --topo-policy=NAME[:opts]  allocation policy for this job (see
 *                               stopo-policies(7); within what the
 *                               partition allows, checked by select/topo)
 *    --topo-pattern=P           traffic pattern, for the predictions
 *    --topo-grid=AxBxC          Cartesian task grid (1 to 3 dimensions)
 *    --topo-ranks               (srun, in the job) lay the step's ranks
 *                               out in the order select/topo planned
 *
 *  Values are checked here with the parsers the controller uses (the
 *  policy registry's policy_check, the pattern registry's
 *  flows_pattern_check), so that a bad one is refused at submission,
 *  and handed to slurmctld as job control environment variables
 *  (spank_job_control_setenv): TOPO_POLICY, TOPO_PATTERN, TOPO_GRID in the
 *  job's spank_job_env, where select/topo reads them (the job itself sees
 *  them as SPANK_TOPO_*).  Options are registered in slurm_spank_init
 *  with spank_option_register (sbatch ignores a static spank_options
 *  table).
 *
 *  --topo-ranks: select/topo records the rank order it planned for a grid
 *  job (the nne policy) in the job's SystemComment, "topo_ranks=TEXT"
 *  (policies/rankorder.h).  srun calls an option's callback while it
 *  parses its command line, before it reads SLURM_HOSTFILE (srun's
 *  _opt_verify): the callback loads the job, writes the rank order as a
 *  hostfile (one node name per rank) and sets SLURM_HOSTFILE, so srun
 *  lays the step out with --distribution=arbitrary, rank r on line r.
 *  The file is removed and the variable unset in init_post_opt, once
 *  srun has read it (the tasks do not inherit it).  See select_topo(8).
\*****************************************************************************/

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#define TOPO_COMPAT_PUBLIC
#include "plugin/slurm_compat.h"

#include "evaluator/traffic/flows.h"
#include "policies/policy.h"
#include "policies/rankorder.h"

/* Compiled with -fvisibility=hidden: Slurm's SPANK interface below is
 * visible, spank_topo.map exports nothing else. */
#pragma GCC visibility push(default)

SPANK_PLUGIN(topo, 1);

#if TOPO_SPANK_FAILURE_MODE
/* Option registration failing is a fault of the plugin stack, the same
 * on every node: fail the job that meets it, not drain the node (Slurm's
 * default, ESPANK_NODE_FAILURE, would drain every node in turn). */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

#define VALUE_MAX 256

static char opt_policy[VALUE_MAX];
static char opt_pattern[VALUE_MAX];
static char opt_grid[VALUE_MAX];
/* --topo-ranks: the hostfile written for srun, removed after it read it */
static char ranks_file[4096];

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
	struct err e = { 0 };

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
	struct err e = { 0 };

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
	struct err err = { 0 };

	if (copy_value(opt_grid, optarg, "topo-grid") < 0)
		return -1;
	if (policy_grid_parse(optarg, &req, &err) < 0) {
		slurm_error("--topo-grid=%s: %s", optarg, err.msg);
		opt_grid[0] = '\0';
		return -1;
	}
	return 0;
}

/* The rank order of job JOB as a hostfile: its SystemComment's
 * topo_ranks, node positions into its node list.  0 with RANKS_FILE
 * written, or -1 after saying why. */
static int write_hostfile(uint32_t job)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *j;
	struct hostlist *hl =
		NULL; /* hostlist_t: a pointer in 22.05, not in 24.11 */
	char **names = NULL, *h, *tmpdir;
	const char *text;
	uint32_t nn = 0, cap = 0, *pos = NULL, nranks = 0, i;
	struct err err = { 0 };
	int fd = -1, rc = -1;
	FILE *f = NULL;

	if (TOPO_LOAD_JOB(&msg, job, SHOW_DETAIL) != SLURM_SUCCESS) {
		slurm_error("--topo-ranks: cannot load job %u: %s", job,
			    slurm_strerror(errno));
		return -1;
	}
	if (!msg || msg->record_count < 1) {
		slurm_error("--topo-ranks: job %u not found", job);
		goto out;
	}
	j = &msg->job_array[0];
	text = rankorder_find(j->system_comment);
	if (!text) {
		slurm_error(
			"--topo-ranks: job %u has no rank order: select/topo "
			"records one for a job with --topo-grid placed by "
			"the nne policy across dragonfly groups (a job "
			"within one group keeps Slurm's order)",
			job);
		goto out;
	}
	if (!j->nodes || !(hl = slurm_hostlist_create(j->nodes))) {
		slurm_error("--topo-ranks: job %u has no nodes", job);
		goto out;
	}
	while ((h = slurm_hostlist_shift(hl))) {
		if (nn == cap) {
			char **nv;

			cap = cap ? 2 * cap : 64;
			if (!(nv = realloc(names, cap * sizeof(*nv)))) {
				free(h);
				slurm_error("--topo-ranks: out of memory");
				goto out;
			}
			names = nv;
		}
		names[nn++] = h;
	}
	if (rankorder_parse(text, nn, 1u << 24, &pos, &nranks, &err) < 0) {
		slurm_error("--topo-ranks: job %u: %s", job, err.msg);
		goto out;
	}
	tmpdir = getenv("TMPDIR");
	if (!tmpdir || tmpdir[0] != '/')
		tmpdir = "/tmp";
	if (snprintf(ranks_file, sizeof(ranks_file), "%s/topo_ranks.%u.XXXXXX",
		     tmpdir, job) >= (int)sizeof(ranks_file)) {
		ranks_file[0] = '\0';
		slurm_error("--topo-ranks: TMPDIR too long");
		goto out;
	}
	if ((fd = mkstemp(ranks_file)) < 0 || !(f = fdopen(fd, "w"))) {
		slurm_error("--topo-ranks: cannot create %s: %s", ranks_file,
			    strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(ranks_file);
		}
		ranks_file[0] = '\0';
		goto out;
	}
	for (i = 0; i < nranks; i++)
		fprintf(f, "%s\n", names[pos[i]]);
	if (fclose(f) != 0) {
		slurm_error("--topo-ranks: cannot write %s: %s", ranks_file,
			    strerror(errno));
		unlink(ranks_file);
		ranks_file[0] = '\0';
		goto out;
	}
	if (setenv("SLURM_HOSTFILE", ranks_file, 1) < 0) {
		slurm_error("--topo-ranks: cannot set SLURM_HOSTFILE");
		unlink(ranks_file);
		ranks_file[0] = '\0';
		goto out;
	}
	slurm_verbose("--topo-ranks: job %u: %u ranks on %u nodes in "
		      "select/topo's order (%s)",
		      job, nranks, nn, ranks_file);
	rc = 0;
out:
	free(pos);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (hl)
		slurm_hostlist_destroy(hl);
	slurm_free_job_info_msg(msg);
	return rc;
}

static int cb_ranks(int val, const char *optarg, int remote)
{
	const char *id = getenv("SLURM_JOB_ID");
	char *end;
	unsigned long job;

	if (remote)
		return 0;
	if (spank_context() != S_CTX_LOCAL) {
		slurm_error("--topo-ranks is an srun option (run within the "
			    "job: srun --topo-ranks ...)");
		return -1;
	}
	if (!id || !*id) {
		slurm_error("--topo-ranks: no job: run srun --topo-ranks "
			    "within the job's allocation (sbatch or salloc "
			    "with --topo-grid)");
		return -1;
	}
	errno = 0;
	job = strtoul(id, &end, 10);
	if (errno || *end || !job || job > UINT32_MAX) {
		slurm_error("--topo-ranks: SLURM_JOB_ID=%s is not a job id",
			    id);
		return -1;
	}
	if (ranks_file[0])
		return 0; /* given twice */
	if (getenv("SLURM_HOSTFILE")) {
		slurm_error("--topo-ranks: SLURM_HOSTFILE is already set "
			    "(%s): give one or the other",
			    getenv("SLURM_HOSTFILE"));
		return -1;
	}
	return write_hostfile((uint32_t)job);
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
	{ .name = "topo-ranks",
	  .usage = "(srun) lay the ranks out as select/topo planned for "
		   "the job's --topo-grid",
	  .has_arg = 0,
	  .cb = cb_ranks },
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

/* srun has read the hostfile (_opt_verify runs before init_post_opt):
 * remove it, and keep SLURM_HOSTFILE from the tasks. */
static void drop_hostfile(void)
{
	if (!ranks_file[0])
		return;
	unlink(ranks_file);
	unsetenv("SLURM_HOSTFILE");
	ranks_file[0] = '\0';
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
		return 0;
	drop_hostfile();
	if (set_env(sp, "TOPO_POLICY", opt_policy) < 0 ||
	    set_env(sp, "TOPO_PATTERN", opt_pattern) < 0 ||
	    set_env(sp, "TOPO_GRID", opt_grid) < 0)
		return -1;
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	drop_hostfile();
	return 0;
}
