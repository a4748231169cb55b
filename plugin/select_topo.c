/*****************************************************************************\
 *  select_topo.c - node selection plugin that places jobs so that they do
 *  not share network links.
 *
 *  select/topo wraps a stock select plugin, select/cons_tres or
 *  select/linear (topo.conf's Wrap=), the way select/cray_aries wraps
 *  other_select: every select_p_* call is delegated, except that
 *  select_p_job_test
 *  first asks the allocation policy of the job's partition (topo.conf) for
 *  an isolated node set among the candidate nodes and narrows the bitmap
 *  to it.  The plugin keeps the owner (job id) of every node, from
 *  job_begin/job_fini/job_resized/job_expand and from the job list after a
 *  restart or reconfiguration, so that the policy sees the truth.
 *
 *  Every error path logs and either falls back to the wrapped plugin or
 *  holds the job pending with a reason: the plugin never takes slurmctld
 *  down except for a bad topo.conf at start-up (fatal with file:line).
 *  See select_topo(8).
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/slurm_compat.h"
#include "plugin/topo_adapter.h"
#include "policies/rankorder.h"
#include "policies/willrun.h"

/* The plugin is compiled with -fvisibility=hidden: what follows is Slurm's
 * plugin interface (plugin_*, init, fini, select_p_*) and the globals
 * below, visible; select_topo.map exports nothing else. */
#pragma GCC visibility push(default)

/*
 * These are defined here so that the plugin also loads into slurmd and
 * the client commands, which do not define them (the same as
 * select/cons_tres does).  In slurmctld the executable's definitions take
 * precedence.
 */
slurm_conf_t slurm_conf;
node_record_t **node_record_table_ptr;
list_t *job_list;
list_t *part_list;
int node_record_count;
time_t last_job_update;

const char plugin_name[] = "Topology-aware interference-free selection";
const char plugin_type[] = "select/topo";
const uint32_t plugin_id = 177;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* How often job_test asks the policy again when the wrapped plugin
 * refuses. */
#define MAX_ATTEMPTS 8
/* Largest job whose rates are predicted at start (n^2 flows for
 * alltoall); MLS/TLS are computed for every job. */
#define MAX_MODEL_NODES 128
/* Largest grid whose rank order is recorded (4 bytes a rank while the
 * job is placed; its text is a few bytes a node). */
#define MAX_RANKS (1u << 22)
/* Pending reasons are prefixed with this. */
#define REASON_PREFIX "topo: "
/* The SPANK plugin's job control variables, as they appear in
 * job_ptr->spank_job_env (slurmd adds a SPANK_ prefix only when it
 * exports them to the job's environment). */
#define ENV_POLICY "TOPO_POLICY="
#define ENV_PATTERN "TOPO_PATTERN="
#define ENV_GRID "TOPO_GRID="

static const char *wrap_syms[] = { TOPO_SELECT_SYMS };

static topo_select_ops_t wrap;
static plugin_context_t *wrap_context = NULL;
/* The wrapped plugin, chosen once when the plugin is loaded (topo.conf's
 * Wrap=, a static string of topo_conf.c); it cannot change while the
 * process runs (see _load_topo_conf). */
static const char *wrap_type = "select/cons_tres";

/*
 * State of the topology side, slurmctld only.  topo_lock protects it;
 * slurmctld calls the select plugin under its own locks, the mutex only
 * guards against the few calls made without the job write lock.
 */
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tstate *tstate = NULL;
static uint32_t *owner = NULL; /* [N] job id per topology node */
static char *conf_path = NULL;
static bool tracking = false; /* tstate's link-sharing tracker */
/* What the policy said of the placement _run_now chose last (job_begin
 * follows job_test in the same scheduling pass): isolated, or shared and
 * why, and the rank order it planned (nne: the topology node of every
 * rank).  Recorded at the job's start (topo_jobs.log, AdminComment,
 * SystemComment). */
static struct {
	uint32_t job_id;
	bool isolated;
	char why[sizeof(((struct policy_result *)0)->reason)];
	uint32_t *ranks, nranks;
} claim;

static void _rebuild_owner_locked(list_t *jobs);
static int _resv_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			  uint32_t node_cnt);
static void _protect_locked(job_record_t *job_ptr);
static void _recorder_stop(void);

static char *_topo_conf_path(void)
{
	char *path = NULL, *slash;

	if (slurm_conf.slurm_conf)
		path = xstrdup(slurm_conf.slurm_conf);
	else
		path = xstrdup("/etc/slurm/slurm.conf");
	if ((slash = strrchr(path, '/')))
		slash[1] = '\0';
	else
		xfree(path);
	xstrcat(path, "topo.conf");
	return path;
}

/*
 * Whether this process is slurmctld with SelectType=select/topo (slurmctld
 * loads every select plugin of PluginDir, this one too when another is
 * the SelectType).
 */
static bool _ctld_selected(void)
{
	return running_in_slurmctld() &&
	       !xstrcmp(slurm_conf.select_type, plugin_type);
}

/*
 * The plugin to wrap, from topo.conf's Wrap= (read without building the
 * topology: every client command loads this plugin).  In slurmctld with
 * SelectType=select/topo a topo.conf that cannot be read is fatal, as it
 * would be in node_init.
 * Elsewhere (slurmd, slurmstepd, the commands) topo.conf may be absent
 * (configless nodes): cons_tres is wrapped then, which is safe because
 * the only data these processes exchange through the select plugin, node
 * and job select info, has the same wire format in cons_tres and linear
 * (22.05: alloc_cpus, alloc_memory, tres_alloc_fmt_str,
 * tres_alloc_weighted; job info empty).
 */
/*
 * The last topo.conf slurmctld loaded, copied into StateSaveLocation.
 * 24.11's scontrol reconfigure execs a new slurmctld (TOPO_RECONF_RESTART),
 * which starts from nothing: it takes the wrapped plugin from this copy
 * and falls back to it when topo.conf is broken, so that a reconfigure
 * keeps the previous topo.conf and Wrap= as in 22.05 rather than stopping
 * slurmctld.
 */
static char *_last_good_path(void)
{
	char *path = NULL;

	if (slurm_conf.state_save_location)
		xstrfmtcat(path, "%s/topo.conf.last-good",
			   slurm_conf.state_save_location);
	return path;
}

/* Copy PATH to the last-good copy (slurmctld, after loading it). */
static void _save_last_good(const char *path)
{
	char *dst = _last_good_path(), *tmp = NULL, buf[4096];
	FILE *in = NULL, *out = NULL;
	size_t n;
	bool ok = false;

	if (!dst)
		return;
	xstrfmtcat(tmp, "%s.new", dst);
	if ((in = fopen(path, "r")) && (out = fopen(tmp, "w"))) {
		ok = true;
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				ok = false;
		ok = ok && !ferror(in);
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = false;
	if (!ok || rename(tmp, dst)) {
		error("%s: cannot save %s as %s: %m", plugin_type, path, dst);
		(void)unlink(tmp);
	}
	xfree(tmp);
	xfree(dst);
}

static const char *_choose_wrap(void)
{
	struct err err = { { 0 } };
	char *path = _topo_conf_path(), *last = NULL;
	const char *w = NULL;

	/* Started by a 24.11 reconfigure: the running plugin's Wrap=. */
	if (TOPO_RECONF_RESTART() && (last = _last_good_path()))
		w = topo_conf_peek_wrap(last, &err);
	xfree(last);
	if (!w)
		w = topo_conf_peek_wrap(path, &err);
	if (!w) {
		if (_ctld_selected())
			fatal("%s: %s", plugin_type, err.msg);
		debug("%s: %s: wrapping select/cons_tres", plugin_type,
		      err.msg);
		w = "select/cons_tres";
	}
	xfree(path);
	return w;
}

/*
 * select/linear refuses CR_CPU, CR_Core and CR_Socket (common/select.c,
 * select_g_init), but only when it is the SelectType itself: Slurm tests
 * the default plugin's id, which is select/topo's.  Do the same check.
 */
static void _check_params(void)
{
	uint16_t cr = slurm_conf.select_type_param;

	if (!_ctld_selected() || xstrcmp(wrap_type, "select/linear") ||
	    !(cr & (CR_CPU | CR_CORE | CR_SOCKET)))
		return;
	fatal("%s: Wrap=linear: invalid SelectTypeParameters=%s (%u): select/linear can't use CR_CPU, CR_Core or CR_Socket (use CR_Memory or none)",
	      plugin_type, select_type_param_string(cr), cr);
}

extern int init(void)
{
	if (wrap_context)
		return SLURM_SUCCESS;
	wrap_type = _choose_wrap();
	_check_params();
	if (!(wrap_context = plugin_context_create("select", wrap_type,
						   (void **)&wrap, wrap_syms,
						   sizeof(wrap_syms)))) {
		error("%s: cannot load %s", plugin_type, wrap_type);
		return SLURM_ERROR;
	}
	if (_ctld_selected())
		info("%s: loaded, wrapping %s", plugin_type, wrap_type);
	else
		debug("%s: loaded, wrapping %s", plugin_type, wrap_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&topo_lock);
	tstate_destroy(tstate);
	tstate = NULL;
	xfree(owner);
	xfree(conf_path);
	xfree(claim.ranks);
	claim.nranks = 0;
	slurm_mutex_unlock(&topo_lock);
	/* the threads run the plugin's code: stop them before unloading */
	_recorder_stop();
	if (wrap_context) {
		plugin_context_destroy(wrap_context);
		wrap_context = NULL;
	}
	return SLURM_SUCCESS;
}

/*
 * Load topo.conf and check it against the node table.  At start-up a bad
 * file is fatal; on reconfiguration the old one stays and the error is
 * logged loudly.
 */
/* Whether partition PART runs under an isolating policy. */
static bool _part_isolating(struct tstate *s, part_record_t *part)
{
	struct err err = { { 0 } };
	bool none = false;
	const struct policy *p =
		tstate_policy(s, part->name, NULL, &none, &err);

	return p && policy_isolating(p);
}

/* A partition without an isolating policy over nodes of an isolating one
 * can break its jobs' isolation: said at every load, loudly unless
 * RespectIsolation=yes prevents it. */
static void _say_overlaps(struct tstate *s)
{
	list_itr_t *a, *b;
	part_record_t *p, *q;

	if (!part_list)
		return;
	a = list_iterator_create(part_list);
	while ((p = list_next(a))) {
		if (!p->node_bitmap || !_part_isolating(s, p))
			continue;
		b = list_iterator_create(part_list);
		while ((q = list_next(b))) {
			if ((q == p) || !q->node_bitmap ||
			    !bit_overlap_any(p->node_bitmap, q->node_bitmap) ||
			    _part_isolating(s, q))
				continue;
			if (tstate_respect_isolation(s))
				info("%s: %s: partition %s (no isolating policy) shares nodes with isolating partition %s: its jobs keep off the links of isolated jobs (RespectIsolation=yes)",
				     plugin_type, conf_path, q->name, p->name);
			else
				error("%s: %s: partition %s (no isolating policy) shares nodes with isolating partition %s: ITS JOBS CAN SHARE LINKS WITH ISOLATED JOBS; set RespectIsolation=yes in topo.conf to prevent it",
				      plugin_type, conf_path, q->name, p->name);
		}
		list_iterator_destroy(b);
	}
	list_iterator_destroy(a);
}

static void _load_topo_conf(void)
{
	struct err err = { { 0 } };
	const char **names, **parts;
	uint32_t nparts = 0, unpoliced = 0;
	char bare[512];
	struct tstate *s;
	char *path = _topo_conf_path();
	bool reconfig, kept = false;
	int i;

	names = xcalloc(node_record_count + 1, sizeof(char *));
	for (i = 0; i < node_record_count; i++)
		names[i] = node_record_table_ptr[i] ?
				   node_record_table_ptr[i]->name :
				   NULL;
	parts = xcalloc((part_list ? list_count(part_list) : 0) + 1,
			sizeof(char *));
	if (part_list) {
		part_record_t *part_ptr;
		list_itr_t *it = list_iterator_create(part_list);

		while ((part_ptr = list_next(it)))
			parts[nparts++] = part_ptr->name;
		list_iterator_destroy(it);
	}
	/* without a partition list (none built yet) partitions are not
	 * checked */
	s = tstate_load(path, names, node_record_count,
			part_list ? parts : NULL, nparts, &err);

	/* 24.11: a slurmctld started by reconfigure has no previous state
	 * but the last-good copy. */
	if (!s && !tstate && TOPO_RECONF_RESTART()) {
		struct err lerr = { { 0 } };
		char *last = _last_good_path();

		error("%s: %s", plugin_type, err.msg);
		s = last ? tstate_load(last, names, node_record_count,
				       part_list ? parts : NULL, nparts,
				       &lerr) :
			   NULL;
		if (!s)
			fatal("%s: reconfiguration: %s is broken and the previous one cannot be loaded either (%s)",
			      plugin_type, path,
			      last ? lerr.msg : "no StateSaveLocation");
		error("%s: reconfiguration: KEEPING THE PREVIOUS topo.conf (%s, as loaded before: %s); fix the file and run scontrol reconfigure again",
		      plugin_type, path, last);
		xfree(last);
		kept = true;
	}
	if (s)
		unpoliced =
			tstate_unpoliced(s, parts, nparts, bare, sizeof(bare));
	xfree(names);
	xfree(parts);

	slurm_mutex_lock(&topo_lock);
	reconfig = (tstate != NULL) || TOPO_RECONF_RESTART();
	if (!s) {
		slurm_mutex_unlock(&topo_lock);
		if (!reconfig)
			fatal("%s: %s", plugin_type, err.msg);
		error("%s: %s", plugin_type, err.msg);
		error("%s: reconfiguration: KEEPING THE PREVIOUS topo.conf (%s); fix the file and run scontrol reconfigure again",
		      plugin_type, conf_path);
		xfree(path);
		return;
	}
	tstate_destroy(tstate);
	tstate = s;
	tracking = false;
	xfree(conf_path);
	conf_path = path;
	xfree(owner);
	owner = xcalloc(tstate_nodes(s) + 1, sizeof(uint32_t));
	_rebuild_owner_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	info("%s: %s: topology %s, %u nodes, routing %s, wrapping %s, predicting with %s within %u ms",
	     plugin_type, conf_path, topo_spec(tstate_topo(s)), tstate_nodes(s),
	     routing_spec(tstate_routing(s)), wrap_type, tstate_predict(s),
	     tstate_predict_budget(s));
	if (unpoliced)
		info("%s: %s: %u partition%s without a policy (no PartitionPolicy= and no DefaultPolicy=): %s; %s places their jobs without regard to links",
		     plugin_type, conf_path, unpoliced,
		     unpoliced == 1 ? "" : "s", bare, wrap_type);
	slurm_mutex_lock(&topo_lock);
	if (tstate == s)
		_say_overlaps(s);
	slurm_mutex_unlock(&topo_lock);
	/* What a 24.11 reconfigure (a new slurmctld) falls back to: a file
	 * that loaded, with the wrapped plugin that runs. */
	if (!kept && !strcmp(tstate_wrap(s), wrap_type))
		_save_last_good(conf_path);
	/* The wrapped plugin holds the allocations of the running jobs and
	 * Slurm holds pointers into it (node select info): it cannot be
	 * swapped under a running slurmctld. */
	if (strcmp(tstate_wrap(s), wrap_type)) {
		error("%s: %s: Wrap=%s, but %s is loaded and CANNOT CHANGE WHILE slurmctld RUNS: KEEPING %s; restart slurmctld to wrap %s",
		      plugin_type, conf_path, tstate_wrap(s), wrap_type,
		      wrap_type, tstate_wrap(s));
		if (reconfig)
			error("%s: reconfiguration: the rest of %s is in force",
			      plugin_type, conf_path);
	}
}

/* Whether the topology state matches the node table now. */
static bool _usable_locked(void)
{
	return tstate && owner &&
	       (tstate_nodes(tstate) == (uint32_t)node_record_count);
}

static void _set_owner_locked(job_record_t *job_ptr, bool set)
{
	int i, last;

	if (!job_ptr->node_bitmap)
		return;
	last = bit_fls(job_ptr->node_bitmap);
	for (i = bit_ffs(job_ptr->node_bitmap); (i >= 0) && (i <= last); i++) {
		uint32_t t;

		if (!bit_test(job_ptr->node_bitmap, i))
			continue;
		t = tstate_s2t(tstate, i);
		if (t == TOPO_NONE)
			continue;
		if (set)
			owner[t] = job_ptr->job_id;
		else if (owner[t] == job_ptr->job_id)
			owner[t] = POLICY_FREE;
	}
}

static int _rebuild_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		_set_owner_locked(job_ptr, true);
	return 0;
}

static int _protect_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		_protect_locked(job_ptr);
	return 0;
}

/* owner[] from the job list (after a restart or reconfiguration); the
 * link-sharing tracker is rebuilt when anything changed. */
static void _rebuild_owner_locked(list_t *jobs)
{
	struct err err = { { 0 } };
	uint32_t n;
	uint32_t *old;

	if (!_usable_locked())
		return;
	n = tstate_nodes(tstate);
	old = xcalloc(n + 1, sizeof(uint32_t));
	memcpy(old, owner, sizeof(uint32_t) * n);
	memset(owner, 0, sizeof(uint32_t) * n);
	if (jobs)
		list_for_each(jobs, _rebuild_one, NULL);
	if (!tracking || memcmp(old, owner, sizeof(uint32_t) * n)) {
		tracking = (tstate_track_reset(tstate, owner, &err) == 0);
		if (!tracking)
			error("%s: link-sharing tracker: %s", plugin_type,
			      err.msg);
		else if (jobs)
			list_for_each(jobs, _protect_one, NULL);
	}
	xfree(old);
}

/* Topology ids of the nodes JOB_ID holds in owner[] (xfree). */
static uint32_t *_owned_nodes_locked(uint32_t job_id, uint32_t *count)
{
	uint32_t n = tstate_nodes(tstate), i, *nodes;

	nodes = xcalloc(n + 1, sizeof(uint32_t));
	*count = 0;
	for (i = 0; i < n; i++)
		if (owner[i] == job_id)
			nodes[(*count)++] = i;
	return nodes;
}

/* The value of KEY ("NAME=") among the SPANK job control variables
 * ENV[0..N), or NULL. */
static const char *_env_value(char **env, uint32_t n, const char *key)
{
	size_t len = strlen(key);
	uint32_t i;

	for (i = 0; env && (i < n); i++)
		if (env[i] && !strncmp(env[i], key, len))
			return env[i] + len;
	return NULL;
}

static const char *_spank_env(job_record_t *job_ptr, const char *key)
{
	return _env_value(job_ptr->spank_job_env, job_ptr->spank_job_env_size,
			  key);
}

/* The policy the job runs under (its partition's, or its --topo-policy),
 * or NULL when none applies. */
static const struct policy *_job_policy(job_record_t *job_ptr)
{
	struct err err = { { 0 } };
	const char *part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;
	bool none = false;

	return tstate_policy(tstate, part, _spank_env(job_ptr, ENV_POLICY),
			     &none, &err);
}

static bool _isolating_job(job_record_t *job_ptr)
{
	const struct policy *p = _job_policy(job_ptr);

	return p && policy_isolating(p);
}

/* RespectIsolation=yes: an isolated running job's links are protected
 * from jobs of partitions without an isolating policy. */
static void _protect_locked(job_record_t *job_ptr)
{
	struct err err = { { 0 } };
	uint32_t *nodes, n = 0;

	if (!tracking || !tstate_respect_isolation(tstate) ||
	    !_isolating_job(job_ptr))
		return;
	nodes = _owned_nodes_locked(job_ptr->job_id, &n);
	if (tstate_protect(tstate, job_ptr->job_id, nodes, n, &err) < 0)
		error("%s: %pJ: protecting its links: %s", plugin_type, job_ptr,
		      err.msg);
	xfree(nodes);
}

/* The pending reason: the text, prefixed, is the job's state description;
 * 22.05's select_nodes() leaves it (and the reason code
 * TOPO_WAIT_REASON) alone, 24.11's resets both to Resources after every
 * main-scheduler pass (select_topo(8)).  So whether a reason is new is
 * remembered here, per job (a slot per job id modulo SAID_SLOTS), not
 * read back from the job, and the text is also the job's SystemComment
 * while it waits, which no scheduler pass touches: there users of both
 * versions read it steadily (squeue -O system_comment, scontrol show
 * job). */
#define SAID_SLOTS 1024
static struct {
	uint32_t job_id, hash;
} said[SAID_SLOTS];

/* A hash of the kind of reason S: its text without digits, so that
 * "(at most 2 in one)" and "(at most 3 in one)", or two node lists, are
 * one kind. */
static uint32_t _hash_kind(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		if ((*s < '0') || (*s > '9'))
			h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Whether the job's SystemComment is select/topo's pending reason. */
static bool _comment_is_reason(const job_record_t *job_ptr)
{
	return job_ptr->system_comment &&
	       !strncmp(job_ptr->system_comment, REASON_PREFIX,
			strlen(REASON_PREFIX));
}

/* The SystemComment set to the pending reason WHY (or, WHY NULL, the
 * reason removed).  A SystemComment Slurm wrote (a burst buffer's
 * failure, a credential failure) is left alone: the reason is then in
 * the Reason field and the log only. */
static void _comment_reason(job_record_t *job_ptr, const char *why)
{
	if (job_ptr->system_comment && !_comment_is_reason(job_ptr))
		return;
	if (!why) {
		if (job_ptr->system_comment) {
			xfree(job_ptr->system_comment);
			last_job_update = time(NULL);
		}
		return;
	}
	if (job_ptr->system_comment &&
	    !strcmp(job_ptr->system_comment + strlen(REASON_PREFIX), why))
		return;
	xfree(job_ptr->system_comment);
	xstrfmtcat(job_ptr->system_comment, "%s%s", REASON_PREFIX, why);
	last_job_update = time(NULL);
}

static void _set_reason(job_record_t *job_ptr, const char *why)
{
	uint32_t h = _hash_kind(why), k = job_ptr->job_id % SAID_SLOTS;

	_comment_reason(job_ptr, why);

	/* Unchanged: no job update.  last_job_update makes slurmctld save
	 * every job's state and clients refetch; backfill asks every pending
	 * job each pass, so touching it for the same reason costs a state
	 * save per pass (bench-slurm). */
	if ((job_ptr->state_reason == TOPO_WAIT_REASON) &&
	    job_ptr->state_desc &&
	    !strncmp(job_ptr->state_desc, REASON_PREFIX,
		     strlen(REASON_PREFIX)) &&
	    !strcmp(job_ptr->state_desc + strlen(REASON_PREFIX), why))
		return;
	/* At info once per kind of reason a job gets, its numbers' changes
	 * at debug (select_topo(8)): backfill tests every pending job every
	 * pass, and counts of free nodes change with every job's end. */
	if ((said[k].job_id != job_ptr->job_id) || (said[k].hash != h))
		info("%s: %pJ pending: %s", plugin_type, job_ptr, why);
	else
		debug("%s: %pJ pending: %s", plugin_type, job_ptr, why);
	said[k].job_id = job_ptr->job_id;
	said[k].hash = h;
	xfree(job_ptr->state_desc);
	xstrfmtcat(job_ptr->state_desc, "%s%s", REASON_PREFIX, why);
	job_ptr->state_reason = TOPO_WAIT_REASON;
	last_job_update = time(NULL);
}

static void _clear_reason(job_record_t *job_ptr)
{
	_comment_reason(job_ptr, NULL);
	if ((job_ptr->state_reason == TOPO_WAIT_REASON) &&
	    job_ptr->state_desc &&
	    !strncmp(job_ptr->state_desc, REASON_PREFIX,
		     strlen(REASON_PREFIX))) {
		job_ptr->state_reason = WAIT_RESOURCES;
		xfree(job_ptr->state_desc);
	}
}

/* Per topology node: its CPUs (less specialised cores) and memory (MB,
 * less MemSpecLimit), from Slurm's node records. */
static void _node_resources(uint32_t *cpus, uint64_t *mem)
{
	uint32_t n = tstate_nodes(tstate), t;

	for (t = 0; t < n; t++) {
		uint32_t s = tstate_t2s(tstate, t);
		node_record_t *node;

		if ((s >= (uint32_t)node_record_count) ||
		    !(node = node_record_table_ptr[s]))
			continue;
		cpus[t] = node->cpus_efctv ? node->cpus_efctv : node->cpus;
		mem[t] = (node->real_memory > node->mem_spec_limit) ?
				 node->real_memory - node->mem_spec_limit :
				 0;
	}
}

/*
 * The job's size as cons_tres counts it (cons_common/job_test.c's
 * _select_nodes, dist_tasks.c): a node count in [MIN, MAX] (REQ first:
 * slurmctld passes MAX there for -N LO-HI), and, unless the job
 * overcommits, its tasks (each CPUS_PER_TASK CPUs, at most
 * NTASKS_PER_NODE per node) or, for a job given as CPUs only, its CPUs,
 * which the whole nodes given must hold.  What a node holds comes from
 * its own CPUs (less specialised cores) and, under --mem-per-cpu, its
 * memory: nodes of different kinds hold different shares.  *CAP is
 * allocated ([tstate_nodes]) when the job has a task or CPU count.
 */
static void _job_size(job_record_t *job_ptr, uint32_t min_nodes,
		      uint32_t max_nodes, uint32_t req_nodes, struct tsize *z,
		      uint32_t **cap)
{
	job_details_t *d = job_ptr->details;
	uint32_t n = tstate_nodes(tstate), *cpus;
	uint64_t *mem;
	struct tjob j = {
		.min_nodes = min_nodes,
		.max_nodes = max_nodes,
		.req_nodes = req_nodes,
		.num_tasks = (d->num_tasks != NO_VAL) ? d->num_tasks : 0,
		.min_cpus = (d->min_cpus != NO_VAL) ? d->min_cpus : 0,
		.cpus_per_task =
			(d->cpus_per_task != NO_VAL16) ? d->cpus_per_task : 0,
		.ntasks_per_node = (d->ntasks_per_node != NO_VAL16) ?
					   d->ntasks_per_node :
					   0,
		.overcommit = d->overcommit && (d->overcommit != NO_VAL8),
	};

	if ((d->pn_min_memory != NO_VAL64) && (d->pn_min_memory & MEM_PER_CPU))
		j.mem_per_cpu = d->pn_min_memory & ~MEM_PER_CPU;
	*cap = xcalloc(n + 1, sizeof(uint32_t));
	cpus = xcalloc(n + 1, sizeof(uint32_t));
	mem = xcalloc(n + 1, sizeof(uint64_t));
	_node_resources(cpus, mem);
	tsize_from_job(&j, n, cpus, mem, *cap, z);
	xfree(cpus);
	xfree(mem);
}

static uint8_t *_usable_from_bitmap(bitstr_t *bitmap)
{
	uint32_t n = tstate_nodes(tstate), i;
	uint8_t *usable = xcalloc(n + 1, 1);
	int last = bit_fls(bitmap), b;

	for (b = bit_ffs(bitmap); (b >= 0) && (b <= last); b++) {
		if (!bit_test(bitmap, b))
			continue;
		i = tstate_s2t(tstate, b);
		if (i != TOPO_NONE)
			usable[i] = 1;
	}
	return usable;
}

static bitstr_t *_bitmap_from_result(struct policy_result *res)
{
	bitstr_t *b = bit_alloc(node_record_count);
	uint32_t i;

	for (i = 0; i < res->n; i++) {
		uint32_t s = tstate_t2s(tstate, res->nodes[i]);

		if (s < (uint32_t)node_record_count)
			bit_set(b, s);
	}
	return b;
}

/* owner[] value the policy sees on nodes Slurm does not offer now. */
#define OWNER_UNAVAILABLE 0xfffffffeu

/* slurmctld's nodes up and not drained; weak: absent in slurmd and the
 * commands. */
extern bitstr_t *avail_node_bitmap __attribute__((weak));

/*
 * A job the policy says can never run among the nodes offered (USABLE):
 * would it run once the nodes of its partition that are unavailable now
 * (down, drained, not responding, reserved, held by no job) return?  Then
 * it waits for them, and RES->reason names them; otherwise RES is as the
 * policy left it.  Returns whether it waits.
 *
 * DOWN_ONLY (will-run): only nodes slurmctld holds unavailable (down,
 * drained, not responding: outside avail_node_bitmap) count.  Backfill
 * offers a job the nodes of one window of its plan, the nodes planned for
 * jobs ahead of it left out; those are not unavailable, and "waiting for
 * them" named the plan's nodes and changed at every pass (a reason
 * update, and a second search, per job tested).  Run-now is offered
 * every node free now, so there any node not offered counts.
 */
static bool _wait_for_unavailable(job_record_t *job_ptr, const uint8_t *usable,
				  const struct policy *p, const struct tsize *z,
				  struct policy_request *req,
				  struct policy_result *res, bool down_only)
{
	uint32_t n = tstate_nodes(tstate), t, cnt = 0;
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap :
					     NULL;
	bitstr_t *resv = (job_ptr->resv_ptr && job_ptr->resv_ptr->node_bitmap) ?
				 job_ptr->resv_ptr->node_bitmap :
				 NULL;
	bitstr_t *exc = job_ptr->details ? job_ptr->details->exc_node_bitmap :
					   NULL;
	struct policy_result res2 = { .nodes = res->nodes };
	struct policy_request req2 = *req;
	struct tsize_policy c = { .p = p };
	bitstr_t *missing;
	uint8_t *u2;
	uint32_t *own2;
	char *names;
	bool waits;

	if (!part)
		return false;
	if (down_only) {
		if (!&avail_node_bitmap || !avail_node_bitmap)
			return false;
		/* Most passes: every node of the partition is available. */
		for (t = 0; t < n; t++) {
			uint32_t s = tstate_t2s(tstate, t);

			if (!usable[t] && (s < (uint32_t)node_record_count) &&
			    bit_test(part, s) &&
			    !bit_test(avail_node_bitmap, s))
				break;
		}
		if (t == n)
			return false;
	}
	u2 = xcalloc(n + 1, 1);
	own2 = xcalloc(n + 1, sizeof(uint32_t));
	missing = bit_alloc(node_record_count);
	for (t = 0; t < n; t++) {
		uint32_t s = tstate_t2s(tstate, t);

		own2[t] = owner[t];
		u2[t] = usable[t];
		if (usable[t] || (s >= (uint32_t)node_record_count) ||
		    !bit_test(part, s) || (exc && bit_test(exc, s)) ||
		    (resv && !bit_test(resv, s)) ||
		    (down_only && bit_test(avail_node_bitmap, s)))
			continue;
		u2[t] = 1;
		/* A busy node Slurm did not offer (will-run) is busy, not
		 * unavailable. */
		if (own2[t] != POLICY_FREE)
			continue;
		own2[t] = OWNER_UNAVAILABLE;
		bit_set(missing, s);
		cnt++;
	}
	c.owner = own2;
	req2.attempt = 0;
	waits = cnt && (tsize_place(z, n, u2, false, &req2, &res2,
				    tsize_policy_place, &c) != POLICY_NEVER);
	if (waits) {
		names = bitmap2node_name(missing);
		snprintf(
			res->reason, sizeof(res->reason),
			"waiting for unavailable nodes (down, drained, reserved or completing) %s to return",
			names);
		xfree(names);
		res->n = 0;
	}
	FREE_NULL_BITMAP(missing);
	xfree(u2);
	xfree(own2);
	return waits;
}

/* Running jobs and their end times, for the will-run search. */
typedef struct {
	struct policy_running *jobs;
	uint32_t n, cap;
} run_list_t;

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The running (or suspended) jobs holding topology nodes in owner[],
 * with their end times: the only jobs whose end frees a node the policy
 * sees.  From owner[] and the job hash (O(nodes)), not a walk of
 * job_list, which also holds every pending and recently finished job
 * (MinJobAge): backfill asks this for every job it tests. */
static void _collect_running(run_list_t *rl)
{
	uint32_t n = tstate_nodes(tstate), k = 0, i;
	uint32_t *ids = xcalloc(n + 1, sizeof(uint32_t));

	for (i = 0; i < n; i++)
		if ((owner[i] != POLICY_FREE) &&
		    (!k || (ids[k - 1] != owner[i])))
			ids[k++] = owner[i];
	if (k > 1)
		qsort(ids, k, sizeof(uint32_t), _cmp_u32);
	rl->cap = k ? k : 1;
	rl->jobs = xcalloc(rl->cap, sizeof(struct policy_running));
	for (i = 0; i < k; i++) {
		job_record_t *job_ptr;

		if (i && (ids[i] == ids[i - 1]))
			continue;
		job_ptr = find_job_record(ids[i]);
		if (!job_ptr ||
		    !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap)
			continue;
		rl->jobs[rl->n].job_id = job_ptr->job_id;
		rl->jobs[rl->n].end = job_ptr->end_time; /* before now: now */
		rl->n++;
	}
	xfree(ids);
}

/* tsize_place's placement in the future: the will-run search. */
struct wr_ctx {
	const struct policy *p;
	const uint32_t *owner;
	const struct policy_running *run;
	uint32_t nrun;
	time_t now;
	struct policy_will_run *wr;
	struct err *err;
	bool failed; /* the search failed: err says why */
};

static enum policy_status _will_run_fn(void *ctx, const uint8_t *usable,
				       const struct policy_request *req,
				       struct policy_result *res)
{
	struct wr_ctx *c = ctx;
	struct policy_view v = { .owner = c->owner, .usable = usable };

	if (c->failed)
		return POLICY_NEVER;
	if (policy_will_run(c->p, &v, c->run, c->nrun, c->now, req, res, c->wr,
			    c->err) < 0) {
		c->failed = true;
		return POLICY_NEVER;
	}
	return c->wr->status;
}

/*
 * SELECT_MODE_WILL_RUN: the policy sees the future.  policy_will_run
 * (policies/willrun.h, the search stopo whatif reserves with) releases the
 * running jobs in order of their end times, jobs ending together at once,
 * until the policy places the job; the wrapped plugin then computes the
 * start time on the narrowed bitmap (the nodes are free once the released
 * jobs have ended).
 */
static int _will_run(job_record_t *job_ptr, bitstr_t *bitmap,
		     const struct policy *p, const struct tsize *z,
		     struct policy_request *req, struct policy_result *res,
		     uint16_t mode, const struct topo_jt_tail *tail)
{
	run_list_t rl = { 0 };
	uint8_t *usable = _usable_from_bitmap(bitmap);
	struct policy_will_run wr = { 0 };
	struct err err = { { 0 } };
	struct wr_ctx c = { .p = p,
			    .owner = owner,
			    .now = time(NULL),
			    .wr = &wr,
			    .err = &err };
	int rc = SLURM_ERROR;

	_collect_running(&rl);
	c.run = rl.jobs;
	c.nrun = rl.n;
	/* The search at the job's smallest count its tasks fit (WR: the
	 * search of the count placed, or of the last one tried). */
	wr.status = tsize_place(z, tstate_nodes(tstate), usable, false, req,
				res, _will_run_fn, &c);
	if (c.failed) {
		error("%s: will_run %pJ: %s", plugin_type, job_ptr, err.msg);
		goto out;
	}
	/* "Never" among the nodes of one backfill window is not never (test-
	 * only answers that): a reason only when down or drained nodes hold
	 * the job back, else the job keeps the reason it has. */
	if (wr.status == POLICY_NEVER) {
		if (_wait_for_unavailable(job_ptr, usable, p, z, req, res,
					  true))
			snprintf(wr.now_reason, sizeof(wr.now_reason), "%s",
				 res->reason);
		else
			wr.now_reason[0] = '\0';
	}
	/* Backfill is often the first to look at a job: give it the reason
	 * it cannot start now (RUN_NOW sets it too). */
	if (wr.now_reason[0] && job_ptr->job_id && IS_JOB_PENDING(job_ptr))
		_set_reason(job_ptr, wr.now_reason);
	if (wr.status == POLICY_PLACED) {
		bitstr_t *narrow = _bitmap_from_result(res);

		rc = (*(wrap.job_test))(job_ptr, narrow, req->nodes, req->nodes,
					req->nodes, mode, TOPO_JT_ARGS(tail));
		if (rc == SLURM_SUCCESS)
			bit_copybits(bitmap, narrow);
		FREE_NULL_BITMAP(narrow);
		log_flag(SELECT_TYPE,
			 "%s: will_run %pJ: after %u job ends: %s (rc=%d)",
			 plugin_type, job_ptr, wr.jobs,
			 rc == SLURM_SUCCESS ? "placed" : "refused", rc);
	} else {
		log_flag(SELECT_TYPE, "%s: will_run %pJ: %s", plugin_type,
			 job_ptr, res->reason);
	}
out:
	xfree(usable);
	xfree(rl.jobs);
	return rc;
}

/* SELECT_MODE_TEST_ONLY: can the job ever run isolated among BITMAP? */
static int _test_only(job_record_t *job_ptr, bitstr_t *bitmap,
		      const struct policy *p, const struct tsize *z,
		      struct policy_request *req, struct policy_result *res,
		      uint16_t mode, const struct topo_jt_tail *tail)
{
	uint32_t n = tstate_nodes(tstate);
	uint32_t *empty = xcalloc(n + 1, sizeof(uint32_t));
	uint8_t *usable = _usable_from_bitmap(bitmap);
	struct tsize_policy c = { .p = p, .owner = empty };
	enum policy_status st = tsize_place(z, n, usable, false, req, res,
					    tsize_policy_place, &c);
	int rc = SLURM_ERROR;

	if (st == POLICY_PLACED) {
		bitstr_t *narrow = _bitmap_from_result(res);

		rc = (*(wrap.job_test))(job_ptr, narrow, req->nodes, req->nodes,
					req->nodes, mode, TOPO_JT_ARGS(tail));
		if (rc == SLURM_SUCCESS)
			bit_copybits(bitmap, narrow);
		FREE_NULL_BITMAP(narrow);
	} else {
		static uint32_t last_job_logged = 0;

		/* Slurm probes several node sets; say it once per job. */
		if (last_job_logged != job_ptr->job_id)
			info("%s: %pJ cannot run isolated under %s on the nodes offered: %s",
			     plugin_type, job_ptr, policy_spec(p), res->reason);
		last_job_logged = job_ptr->job_id;
	}
	xfree(empty);
	xfree(usable);
	return rc;
}

/*
 * --switches=N[@TIME]: whether the placement in RES uses at most N leaf
 * switches (the switches its nodes attach to), or the job has waited
 * TIME (slurmctld caps it at max_switch_wait) since it was first held
 * for it.  *FEWEST keeps the fewest switches of a candidate refused.
 */
static bool _switches_ok(job_record_t *job_ptr, const struct policy_result *res,
			 uint32_t *fewest)
{
	uint32_t k;
	time_t now = time(NULL);

	if (!job_ptr->req_switch || (job_ptr->req_switch == NO_VAL))
		return true;
	k = tstate_leaf_switches(tstate, res->nodes, res->n);
	if (k <= job_ptr->req_switch)
		return true;
	if (!job_ptr->wait4switch_start)
		job_ptr->wait4switch_start = now;
	if (now - job_ptr->wait4switch_start >= (time_t)job_ptr->wait4switch) {
		log_flag(
			SELECT_TYPE,
			"%s: %pJ waited %ld s for %u leaf switches: placed on %u",
			plugin_type, job_ptr,
			(long)(now - job_ptr->wait4switch_start),
			job_ptr->req_switch, k);
		return true;
	}
	if (!*fewest || (k < *fewest))
		*fewest = k;
	return false;
}

/* SELECT_MODE_RUN_NOW: the policy's candidates in turn. */
static int _run_now(job_record_t *job_ptr, bitstr_t *bitmap,
		    const struct policy *p, const struct tsize *z,
		    struct policy_request *req, struct policy_result *res,
		    uint16_t mode, const struct topo_jt_tail *tail)
{
	uint8_t *usable = _usable_from_bitmap(bitmap);
	struct tsize_policy c = { .p = p, .owner = owner };
	enum policy_status st = POLICY_WAIT;
	int rc = SLURM_ERROR;
	uint32_t i, n = tstate_nodes(tstate), fewest = 0;

	/* Slurm offers only the nodes free now; busy nodes are part of the
	 * machine too (owned), so that the policy answers "wait for ..."
	 * rather than "never". */
	for (i = 0; i < n; i++)
		if (owner[i] != POLICY_FREE)
			usable[i] = 1;

	for (req->attempt = 0; req->attempt < MAX_ATTEMPTS; req->attempt++) {
		bitstr_t *narrow;

		/* The largest count of the job's range that places now. */
		st = tsize_place(z, n, usable, true, req, res,
				 tsize_policy_place, &c);
		if (st != POLICY_PLACED)
			break;
		if (!_switches_ok(job_ptr, res, &fewest)) {
			log_flag(
				SELECT_TYPE,
				"%s: %pJ: candidate %u on more than %u leaf switches",
				plugin_type, job_ptr, req->attempt,
				job_ptr->req_switch);
			continue;
		}
		narrow = _bitmap_from_result(res);
		rc = (*(wrap.job_test))(job_ptr, narrow, req->nodes, req->nodes,
					req->nodes, mode, TOPO_JT_ARGS(tail));
		if (rc == SLURM_SUCCESS) {
			bit_copybits(bitmap, narrow);
			FREE_NULL_BITMAP(narrow);
			break;
		}
		FREE_NULL_BITMAP(narrow);
		log_flag(SELECT_TYPE, "%s: %pJ: %s refused candidate %u",
			 plugin_type, job_ptr, wrap_type, req->attempt);
	}
	/* Every candidate placed but on too many leaf switches. */
	if ((rc != SLURM_SUCCESS) && fewest &&
	    ((st == POLICY_PLACED) || req->attempt)) {
		time_t until = job_ptr->wait4switch_start +
			       (time_t)job_ptr->wait4switch;
		char stamp[32];
		struct tm tm;

		localtime_r(&until, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		st = POLICY_WAIT;
		snprintf(
			res->reason, sizeof(res->reason),
			"waiting until %s for a placement on at most %u leaf switch%s (--switches); the best now uses %u",
			stamp, job_ptr->req_switch,
			job_ptr->req_switch == 1 ? "" : "es", fewest);
	}
	/* "Never" only when no usable state of the partition's nodes could
	 * hold it (select_topo(8)). */
	if ((rc != SLURM_SUCCESS) && (st == POLICY_NEVER) && !req->attempt &&
	    _wait_for_unavailable(job_ptr, usable, p, z, req, res, false))
		st = POLICY_WAIT;
	if (rc == SLURM_SUCCESS) {
		_clear_reason(job_ptr);
		claim.job_id = job_ptr->job_id;
		claim.isolated = res->isolated;
		snprintf(claim.why, sizeof(claim.why), "%s",
			 res->isolated ? "" : res->reason);
		claim.nranks = 0;
		if (res->nranks) {
			xrecalloc(claim.ranks, res->nranks, sizeof(uint32_t));
			memcpy(claim.ranks, res->rank_node,
			       res->nranks * sizeof(uint32_t));
			claim.nranks = res->nranks;
		}
	} else if (st == POLICY_WAIT || st == POLICY_NEVER) {
		_set_reason(job_ptr, res->reason);
		log_flag(SELECT_TYPE, "%s: %pJ pending: %s", plugin_type,
			 job_ptr, res->reason);
	} else {
		_clear_reason(job_ptr);
	}
	xfree(usable);
	return rc;
}

/* RespectIsolation=: the wrapped plugin's choice among OFFER into CAND
 * (new bitmap, NULL when it refused) and its topology nodes into CHOSEN
 * (*K of them).  Returns the wrapped plugin's code; *CONFLICT says
 * whether the choice shares a link with an isolated job. */
static int _try_wrapped(job_record_t *job_ptr, bitstr_t *offer,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			const struct topo_jt_tail *tail, bitstr_t **cand,
			uint32_t *chosen, uint32_t *k, bool *conflict)
{
	struct err err = { { 0 } };
	int rc, b, last, c;

	*cand = bit_copy(offer);
	*k = 0;
	*conflict = false;
	rc = (*(wrap.job_test))(job_ptr, *cand, min_nodes, max_nodes, req_nodes,
				mode, TOPO_JT_ARGS(tail));
	if (rc != SLURM_SUCCESS) {
		FREE_NULL_BITMAP(*cand);
		return rc;
	}
	last = bit_fls(*cand);
	for (b = bit_ffs(*cand); (b >= 0) && (b <= last); b++)
		if (bit_test(*cand, b) && (tstate_s2t(tstate, b) != TOPO_NONE))
			chosen[(*k)++] = tstate_s2t(tstate, b);
	c = tstate_conflicts(tstate, chosen, *k, &err);
	if (c < 0)
		error("%s: %pJ: RespectIsolation: %s", plugin_type, job_ptr,
		      err.msg);
	*conflict = (c > 0);
	return rc;
}

/* The nodes of OFFER in the groups (fat-tree pods, dragonfly groups) of
 * the running isolated jobs, cleared from it. */
static void _clear_isolated_groups(bitstr_t *offer)
{
	uint32_t n = tstate_nodes(tstate), t, k = 0;
	uint32_t *nodes = xcalloc(n + 1, sizeof(uint32_t));
	uint8_t *in = xcalloc(n + 1, 1);
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *j;

	while ((j = list_next(it)))
		if ((IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) &&
		    _isolating_job(j))
			for (t = 0; t < n; t++)
				if (owner[t] == j->job_id)
					nodes[k++] = t;
	list_iterator_destroy(it);
	tstate_expand_units(tstate, NULL, nodes, k, 1, in);
	for (t = 0; t < n; t++)
		if (in[t])
			bit_clear(offer, tstate_t2s(tstate, t));
	xfree(in);
	xfree(nodes);
}

/*
 * RespectIsolation=yes, a job the wrapped plugin places alone: its
 * choice is taken when the chosen nodes share no link with an isolated
 * job (tstate_conflicts).  Otherwise it is asked again away from the
 * isolated jobs' groups (pods, dragonfly groups), then, MAX_ATTEMPTS
 * times at most, without the nodes that bring a shared link in (kept in
 * order while the set stays clear).
 */
static int _run_now_respecting(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       const struct topo_jt_tail *tail)
{
	struct err err = { { 0 } };
	bitstr_t *work = bit_copy(bitmap), *away, *cand = NULL;
	uint32_t n = tstate_nodes(tstate), attempt, k = 0, i;
	uint32_t *chosen = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *clear = xcalloc(n + 1, sizeof(uint32_t));
	bool conflict = false, refused = false;
	int rc;

#define TRY(offer)                                                          \
	_try_wrapped(job_ptr, offer, min_nodes, max_nodes, req_nodes, mode, \
		     tail, &cand, chosen, &k, &conflict)
	rc = TRY(work);
	if ((rc != SLURM_SUCCESS) || !conflict)
		goto out;
	refused = true;
	FREE_NULL_BITMAP(cand);
	away = bit_copy(work);
	_clear_isolated_groups(away);
	rc = bit_set_count(away) ? TRY(away) : SLURM_ERROR;
	FREE_NULL_BITMAP(away);
	if ((rc == SLURM_SUCCESS) && !conflict)
		goto out;
	FREE_NULL_BITMAP(cand);
	rc = TRY(work);
	for (attempt = 0;
	     (attempt < MAX_ATTEMPTS) && (rc == SLURM_SUCCESS) && conflict;
	     attempt++) {
		uint32_t nclear = 0, bad = 0;

		for (i = 0; i < k; i++) {
			clear[nclear] = chosen[i];
			if (tstate_conflicts(tstate, clear, nclear + 1, &err) >
			    0) {
				bit_clear(work, tstate_t2s(tstate, chosen[i]));
				bad++;
			} else {
				nclear++;
			}
		}
		FREE_NULL_BITMAP(cand);
		if (!bad)
			break;
		rc = TRY(work);
	}
#undef TRY
out:
	if ((rc == SLURM_SUCCESS) && !conflict) {
		bit_copybits(bitmap, cand);
		if (refused)
			log_flag(
				SELECT_TYPE,
				"%s: %pJ: placed off the links of isolated jobs (RespectIsolation=yes)",
				plugin_type, job_ptr);
	} else if (refused) {
		rc = SLURM_ERROR;
		_set_reason(
			job_ptr,
			"waiting for nodes whose use shares no link with isolated jobs (RespectIsolation=yes)");
	}
	FREE_NULL_BITMAP(cand);
	xfree(chosen);
	xfree(clear);
	FREE_NULL_BITMAP(work);
	return rc;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list, TOPO_JOB_TEST_TAIL)
{
	const struct topo_jt_tail tail_args = TOPO_JT_TAIL_INIT,
				  *tail = &tail_args;
	struct err err = { { 0 } };
	struct policy_request req = { 0 };
	struct policy_result res = { 0 };
	struct tsize z;
	uint32_t *cap = NULL;
	const struct policy *p;
	const char *override, *part, *grid;
	bool none = false;
	int rc;

	if (TOPO_RESV_STANDIN(job_ptr, mode, preemptee_job_list) &&
	    ((rc = _resv_job_test(job_ptr, bitmap, min_nodes)) != 1))
		return rc;

	slurm_mutex_lock(&topo_lock);
	if (tstate && !_usable_locked()) {
		static bool warned = false;

		if (!warned)
			error("%s: slurm.conf has %d nodes but %s has %u: jobs are placed by %s alone until topo.conf matches",
			      plugin_type, node_record_count, conf_path,
			      tstate_nodes(tstate), wrap_type);
		warned = true;
	}
	if (!_usable_locked() || !job_ptr->details)
		goto delegate;
	part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;
	override = _spank_env(job_ptr, ENV_POLICY);
	p = tstate_policy(tstate, part, override, &none, &err);
	if (!p && none)
		goto delegate;
	if (!p) {
		error("%s: %pJ: %s", plugin_type, job_ptr, err.msg);
		if (mode == SELECT_MODE_RUN_NOW)
			_set_reason(job_ptr, err.msg);
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}
	log_flag(SELECT_TYPE, "%s: %pJ mode=%u policy=%s%s%s", plugin_type,
		 job_ptr, mode, policy_spec(p), override ? " override=" : "",
		 override ? override : "");
	if (!policy_isolating(p))
		goto delegate;

	/* The policy chooses the nodes: an explicit node list cannot be
	 * honoured (refused at submission, see select_topo(8)). */
	if (job_ptr->details->req_node_bitmap &&
	    (bit_set_count(job_ptr->details->req_node_bitmap) > 0)) {
		if (mode == SELECT_MODE_TEST_ONLY)
			info("%s: %pJ: explicit node lists (-w) are not supported under policy %s",
			     plugin_type, job_ptr, policy_spec(p));
		else if (mode == SELECT_MODE_RUN_NOW)
			_set_reason(
				job_ptr,
				"explicit node lists (-w) are not supported under an isolating policy");
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}

	/* Isolated jobs get whole nodes: two jobs on one node share its
	 * injection link. */
	job_ptr->details->whole_node = WHOLE_NODE_REQUIRED;
	job_ptr->details->share_res = 0;

	req.job_id = job_ptr->job_id;
	_job_size(job_ptr, min_nodes, max_nodes, req_nodes, &z, &cap);
	req.nodes = z.lo;
	req.pattern = _spank_env(job_ptr, ENV_PATTERN);
	grid = _spank_env(job_ptr, ENV_GRID);
	if (grid && *grid && (policy_grid_parse(grid, &req, &err) < 0)) {
		/* The SPANK plugin refuses it at submission (same parser):
		 * a job submitted around it is held with the reason. */
		error("%s: %pJ: --topo-%s", plugin_type, job_ptr, err.msg);
		if (mode == SELECT_MODE_RUN_NOW)
			_set_reason(job_ptr, err.msg);
		xfree(cap);
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}
	res.nodes = xcalloc(tstate_nodes(tstate) + 1, sizeof(uint32_t));
	if (req.ngrid && (mode == SELECT_MODE_RUN_NOW)) {
		/* room for the rank order the policy may plan */
		uint64_t t = 1;

		for (uint32_t d = 0; d < req.ngrid; d++)
			t *= req.grid[d];
		if (t <= MAX_RANKS) {
			res.rank_cap = (uint32_t)t;
			res.rank_node = xcalloc(t, sizeof(uint32_t));
		}
	}

	if (mode == SELECT_MODE_TEST_ONLY)
		rc = _test_only(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	else if (mode == SELECT_MODE_WILL_RUN)
		rc = _will_run(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	else
		rc = _run_now(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	xfree(res.nodes);
	xfree(res.rank_node);
	xfree(cap);
	slurm_mutex_unlock(&topo_lock);
	return rc;

delegate:
	if ((mode == SELECT_MODE_RUN_NOW) && _usable_locked() && tracking &&
	    tstate_respect_isolation(tstate)) {
		rc = _run_now_respecting(job_ptr, bitmap, min_nodes, max_nodes,
					 req_nodes, mode, tail);
		slurm_mutex_unlock(&topo_lock);
		return rc;
	}
	slurm_mutex_unlock(&topo_lock);
	return (*(wrap.job_test))(job_ptr, bitmap, min_nodes, max_nodes,
				  req_nodes, mode, TOPO_JT_ARGS(tail));
}

/*
 * The submission check (job_submit/topo calls it, in slurmctld, with the
 * job and partition locks job_submit plugins are called with): can the
 * job ever run isolated in one of its partitions?  The same policy, the
 * same sizing and the same parsers as job_test's test-only mode, on the
 * job as submitted; a refusal goes back to the user as ERR_MSG.
 */
static const char *_desc_env(job_desc_msg_t *d, const char *key)
{
	return _env_value(d->spank_job_env, d->spank_job_env_size, key);
}

static part_record_t *_part_named(const char *name)
{
	list_itr_t *it;
	part_record_t *part, *found = NULL;

	if (!part_list)
		return NULL;
	it = list_iterator_create(part_list);
	while ((part = list_next(it)))
		if (name ? !strcmp(part->name, name) :
			   (part->flags & PART_FLAG_DEFAULT)) {
			found = part;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

/* One partition: SLURM_SUCCESS, or an error code with *WHY set. */
static int _submit_check_part(job_desc_msg_t *d, part_record_t *part,
			      char **why)
{
	struct err err = { { 0 } };
	struct policy_request req = { .job_id = 0xfffffff1u };
	struct policy_result res = { 0 };
	struct tsize_policy c = { 0 };
	uint32_t n = tstate_nodes(tstate), *cap, *cpus, *empty;
	uint64_t *mem;
	const char *grid, *override = _desc_env(d, ENV_POLICY);
	slurmctld_resv_t *resv = NULL;
	bitstr_t *offer = NULL, *exc = NULL;
	uint8_t *usable;
	struct tsize z;
	struct tjob j = { 0 };
	bool none = false;
	int rc = SLURM_SUCCESS;

	c.p = tstate_policy(tstate, part->name, override, &none, &err);
	if (!c.p && none)
		return SLURM_SUCCESS;
	if (!c.p) {
		xstrfmtcat(*why, "select/topo: partition %s: %s", part->name,
			   err.msg);
		return ESLURM_INVALID_PARTITION_NAME;
	}
	if (!policy_isolating(c.p))
		return SLURM_SUCCESS;
	if (d->req_nodes && d->req_nodes[0]) {
		xstrfmtcat(
			*why,
			"select/topo: explicit node lists (-w) are not supported in partition %s: its policy %s chooses the nodes",
			part->name, policy_spec(c.p));
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	grid = _desc_env(d, ENV_GRID);
	if (grid && *grid && (policy_grid_parse(grid, &req, &err) < 0)) {
		xstrfmtcat(*why, "select/topo: --topo-%s", err.msg);
		return ESLURM_INVALID_NODE_COUNT;
	}
	req.pattern = _desc_env(d, ENV_PATTERN);
	if (d->reservation && d->reservation[0] &&
	    !(resv = find_resv_name(d->reservation)))
		return SLURM_SUCCESS; /* slurmctld says it has none */

	/* What the job may use: the partition's nodes in any state (a
	 * drained node returns), within its reservation, less -x. */
	offer = bit_copy(part->node_bitmap);
	if (resv && resv->node_bitmap)
		bit_and(offer, resv->node_bitmap);
	if (d->exc_nodes && d->exc_nodes[0] &&
	    !TOPO_NODE_NAME2BITMAP(d->exc_nodes, true, &exc))
		bit_and_not(offer, exc);
	FREE_NULL_BITMAP(exc);
	usable = _usable_from_bitmap(offer);

	j.min_nodes = (d->min_nodes != NO_VAL) ? d->min_nodes : 0;
	j.max_nodes = (d->max_nodes != NO_VAL) ? d->max_nodes : 0;
	j.num_tasks = (d->num_tasks != NO_VAL) ? d->num_tasks : 0;
	j.min_cpus = (d->min_cpus != NO_VAL) ? d->min_cpus : 0;
	j.cpus_per_task = (d->cpus_per_task != NO_VAL16) ? d->cpus_per_task : 0;
	j.ntasks_per_node =
		(d->ntasks_per_node != NO_VAL16) ? d->ntasks_per_node : 0;
	if ((j.ntasks_per_node) && !j.num_tasks && j.min_nodes)
		j.num_tasks = j.ntasks_per_node * j.min_nodes;
	if ((d->pn_min_memory != NO_VAL64) && (d->pn_min_memory & MEM_PER_CPU))
		j.mem_per_cpu = d->pn_min_memory & ~MEM_PER_CPU;
	j.overcommit = (d->overcommit != NO_VAL8) && d->overcommit;
	cap = xcalloc(n + 1, sizeof(uint32_t));
	cpus = xcalloc(n + 1, sizeof(uint32_t));
	mem = xcalloc(n + 1, sizeof(uint64_t));
	empty = xcalloc(n + 1, sizeof(uint32_t));
	_node_resources(cpus, mem);
	tsize_from_job(&j, n, cpus, mem, cap, &z);
	res.nodes = xcalloc(n + 1, sizeof(uint32_t));
	c.owner = empty;
	if (tsize_place(&z, n, usable, false, &req, &res, tsize_policy_place,
			&c) == POLICY_NEVER) {
		xstrfmtcat(
			*why,
			"select/topo: this job can never run isolated under %s in partition %s%s%s: %s",
			policy_spec(c.p), part->name,
			resv ? ", reservation " : "", resv ? resv->name : "",
			res.reason);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	xfree(res.nodes);
	xfree(cap);
	xfree(cpus);
	xfree(mem);
	xfree(empty);
	xfree(usable);
	FREE_NULL_BITMAP(offer);
	return rc;
}

extern int select_p_topo_submit_check(job_desc_msg_t *d, char **err_msg)
{
	char *parts, *tok, *save = NULL, *why = NULL;
	int rc = SLURM_SUCCESS, first = SLURM_SUCCESS;
	bool some_ok = false;

	slurm_mutex_lock(&topo_lock);
	if (!_usable_locked()) {
		slurm_mutex_unlock(&topo_lock);
		return SLURM_SUCCESS;
	}
	/* Several partitions: refused only when every one refuses. */
	parts = xstrdup(d->partition);
	tok = parts ? strtok_r(parts, ",", &save) : NULL;
	do {
		part_record_t *part = _part_named(tok);
		char *msg = NULL;

		if (!part) {
			some_ok = true; /* slurmctld says it has none */
			continue;
		}
		rc = _submit_check_part(d, part, &msg);
		if (rc == SLURM_SUCCESS) {
			some_ok = true;
		} else if (!why) {
			why = msg;
			first = rc;
			msg = NULL;
		}
		xfree(msg);
	} while (tok && (tok = strtok_r(NULL, ",", &save)));
	xfree(parts);
	slurm_mutex_unlock(&topo_lock);
	if (some_ok || !why) {
		xfree(why);
		return SLURM_SUCCESS;
	}
	info("%s: submission refused: %s", plugin_type, why);
	if (err_msg) {
		xfree(*err_msg);
		*err_msg = why;
	} else {
		xfree(why);
	}
	return first;
}

extern int select_p_state_save(char *dir_name)
{
	return (*(wrap.state_save))(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*(wrap.state_restore))(dir_name);
}

extern int select_p_job_init(list_t *jobs)
{
	int rc = (*(wrap.job_init))(jobs);

	slurm_mutex_lock(&topo_lock);
	_rebuild_owner_locked(jobs);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_node_init(void)
{
	int rc = (*(wrap.node_init))();

	if (running_in_slurmctld())
		_load_topo_conf();
	return rc;
}

/*
 * A prediction that hit its budget: at info, what was recorded.
 */
static void _log_overrun(uint32_t job_id, const char *model, uint32_t budget,
			 const struct teval *ev)
{
	if (!ev->modelled || ev->status != MODEL_TIME_LIMIT)
		return;
	if (ev->overran)
		info("%s: JobId=%u: prediction with %s not done within PredictBudget=%u ms: recorded status=time-limit without rates",
		     plugin_type, job_id, model, budget);
	else if (ev->has_bound)
		info("%s: JobId=%u: prediction with %s stopped at its time limit (PredictBudget=%u ms): recorded alpha=%.4g, bound=%.4g (gap %.2g)",
		     plugin_type, job_id, model, budget, ev->alpha, ev->bound,
		     ev->gap);
	else
		info("%s: JobId=%u: prediction with %s stopped at its time limit (PredictBudget=%u ms): recorded the best allocation it knew",
		     plugin_type, job_id, model, budget);
}

/* The running jobs other than JOB_PTR holding some of its nodes (two
 * jobs on one node share its injection link): how many of its nodes are
 * held twice, and up to MAX of those jobs' ids, ","-separated, into BUF. */
static uint32_t _node_sharing(job_record_t *job_ptr, char *buf, size_t len)
{
	list_itr_t *it;
	job_record_t *j;
	bitstr_t *both;
	uint32_t held = 0, njobs = 0;
	size_t o = 0;

	buf[0] = '\0';
	if (!job_ptr->node_bitmap || !job_list)
		return 0;
	both = bit_alloc(node_record_count);
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if ((j == job_ptr) || !j->node_bitmap ||
		    !(IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) ||
		    !bit_overlap_any(j->node_bitmap, job_ptr->node_bitmap))
			continue;
		bit_or(both, j->node_bitmap);
		if ((njobs++ < 8) && (o < len))
			o += snprintf(buf + o, len - o, "%s%u", o ? "," : "",
				      j->job_id);
	}
	list_iterator_destroy(it);
	bit_and(both, job_ptr->node_bitmap);
	held = bit_set_count(both);
	FREE_NULL_BITMAP(both);
	if ((njobs > 8) && (o < len))
		snprintf(buf + o, len - o, ",...");
	return held;
}

/* Append LINE to StateSaveLocation/topo_jobs.log, stamped with WHEN in
 * ISO 8601 local time. */
static void _jobs_log(time_t when, const char *line)
{
	char *path = NULL, stamp[64];
	struct tm tm;
	FILE *f;

	localtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
	xstrfmtcat(path, "%s/topo_jobs.log", slurm_conf.state_save_location);
	if ((f = fopen(path, "a"))) {
		fprintf(f, "%s %s\n", stamp, line);
		fclose(f);
	} else {
		debug("%s: cannot append to %s: %m", plugin_type, path);
	}
	xfree(path);
}

/* The policy a running job's partition (and --topo-policy) gives, for the
 * record: its spec, "none" when the wrapped plugin placed it alone. */
static const char *_policy_of(job_record_t *job_ptr)
{
	const struct policy *p = _job_policy(job_ptr);

	return p ? policy_spec(p) : "none";
}

/*
 * " placement=isolated", " placement=shared why=\"...\"" or
 * " placement=oblivious" into BUF: what the job's policy said of the
 * placement it chose (select_topo(8)), empty when unknown (placed before
 * a restart, or by the wrapped plugin alone).  An isolated claim that
 * the start contradicts (EV: links used by other jobs; NSHARED: nodes
 * held by other jobs) is an error in the log: the guarantee is exact.
 */
static void _placement(job_record_t *job_ptr, const struct teval *ev,
		       uint32_t nshared, char *buf, size_t len)
{
	const struct policy *p = _job_policy(job_ptr);
	enum policy_placement k = POLICY_PLACEMENT_UNKNOWN;

	if (p && !policy_isolating(p))
		k = POLICY_PLACEMENT_OBLIVIOUS;
	else if (p && claim.job_id == job_ptr->job_id)
		k = claim.isolated ? POLICY_PLACEMENT_ISOLATED :
				     POLICY_PLACEMENT_SHARED;
	if (claim.job_id == job_ptr->job_id)
		claim.job_id = 0;
	policy_placement_format(
		k, claim.why[0] ? claim.why : "not isolated by the policy", buf,
		len);
	if (k == POLICY_PLACEMENT_ISOLATED && (ev->job_shared || nshared))
		error("%s: %pJ placed isolated by %s shares %u links and %u nodes with other jobs",
		      plugin_type, job_ptr, policy_spec(p), ev->job_shared,
		      nshared);
}

/*
 * The record of a job start, written to topo_jobs.log and the job's
 * AdminComment once its prediction is answered.  Records are written in
 * start order: a start finds the queue empty and no prediction to wait
 * for (a job of one node, or of more than MAX_MODEL_NODES) and writes its
 * own at once; otherwise the recorder thread writes it when the predictor
 * answers (within PredictBudget= of beginning it), taking the job write
 * lock.  rec_lock protects the queue; the order is slurmctld's locks,
 * then rec_lock.
 */
struct topo_rec {
	struct topo_rec *next;
	uint32_t job_id;
	time_t start;	       /* the job's start_time */
	struct tpending *pend; /* NULL: ev is complete */
	struct teval ev;
	uint32_t n, nshared;
	char *policy, *with, *place;
	char *error;	/* the evaluation failed: why (no ev) */
	char model[32]; /* for the overrun line */
	uint32_t budget;
};

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rec_cond = PTHREAD_COND_INITIALIZER;
static struct topo_rec *rec_head, *rec_tail;
static pthread_t rec_thread;
static bool rec_running, rec_stop;

static void _rec_free(struct topo_rec *r)
{
	struct err err = { { 0 } };

	if (r->pend)
		(void)tstate_pending_finish(r->pend, &r->ev, &err);
	xfree(r->policy);
	xfree(r->with);
	xfree(r->place);
	xfree(r->error);
	xfree(r);
}

/*
 * Write R's record (its prediction answered): topo_jobs.log, the job's
 * AdminComment (when still empty and the job has not started again
 * since), the overrun line at info and the record at debug flag
 * SelectType.  Under the job write lock.
 */
static void _rec_write(struct topo_rec *r)
{
	struct err err = { { 0 } };
	job_record_t *job_ptr;
	char line[512], *rec = NULL;

	if (r->pend) {
		int rc = tstate_pending_finish(r->pend, &r->ev, &err);

		r->pend = NULL;
		if (rc < 0) {
			error("%s: JobId=%u: evaluation: %s", plugin_type,
			      r->job_id, err.msg);
			r->error = xstrdup(err.msg);
		}
	}
	if (r->error) {
		xstrfmtcat(
			rec,
			"job=%u nodes=%u policy=%s node_shared=%u status=failed error=\"%s\"",
			r->job_id, r->n, r->policy, r->nshared, r->error);
		_jobs_log(r->start, rec);
		xfree(rec);
		return;
	}
	_log_overrun(r->job_id, r->model, r->budget, &r->ev);
	tstate_record(&r->ev, line, sizeof(line));
	log_flag(SELECT_TYPE, "%s: JobId=%u started on %u nodes: %s",
		 plugin_type, r->job_id, r->n, line);
	job_ptr = job_list ? find_job_record(r->job_id) : NULL;
	if (job_ptr && !job_ptr->admin_comment &&
	    (job_ptr->start_time == r->start))
		xstrfmtcat(job_ptr->admin_comment, "topo: %s%s", line,
			   r->place);
	xstrfmtcat(rec, "job=%u nodes=%u %s policy=%s node_shared=%u",
		   r->job_id, r->n, line, r->policy, r->nshared);
	if (r->nshared)
		xstrfmtcat(rec, " node_shares_with=%s", r->with);
	xstrcat(rec, r->place);
	_jobs_log(r->start, rec);
	xfree(rec);
}

/* Write the records at the head of the queue whose predictions are
 * answered.  Under the job write lock and rec_lock. */
static void _rec_drain_locked(void)
{
	struct topo_rec *r;

	while ((r = rec_head) && (!r->pend || tstate_pending_ready(r->pend))) {
		if (!(rec_head = r->next))
			rec_tail = NULL;
		_rec_write(r);
		_rec_free(r);
	}
}

static void *_recorder(void *arg)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };

	(void)arg;
	slurm_mutex_lock(&rec_lock);
	while (!rec_stop) {
		struct topo_rec *r = rec_head;

		if (!r) {
			slurm_cond_wait(&rec_cond, &rec_lock);
			continue;
		}
		/* only this thread takes records off the queue */
		slurm_mutex_unlock(&rec_lock);
		if (r->pend)
			tstate_pending_wait(r->pend);
		lock_slurmctld(job_write);
		slurm_mutex_lock(&rec_lock);
		if (!rec_stop)
			_rec_drain_locked();
		slurm_mutex_unlock(&rec_lock);
		unlock_slurmctld(job_write);
		slurm_mutex_lock(&rec_lock);
	}
	slurm_mutex_unlock(&rec_lock);
	return NULL;
}

/* Stop the recorder (for fini, under no slurmctld lock): the records
 * still waiting are dropped. */
static void _recorder_stop(void)
{
	struct topo_rec *r;

	slurm_mutex_lock(&rec_lock);
	rec_stop = true;
	slurm_cond_broadcast(&rec_cond);
	slurm_mutex_unlock(&rec_lock);
	tstate_predictor_stop(); /* wakes a wait for a prediction */
	if (rec_running)
		pthread_join(rec_thread, NULL);
	slurm_mutex_lock(&rec_lock);
	while ((r = rec_head)) {
		rec_head = r->next;
		_rec_free(r);
	}
	rec_tail = NULL;
	rec_running = rec_stop = false;
	slurm_mutex_unlock(&rec_lock);
}

/* Queue R, or write it at once when nothing is ahead of it and it waits
 * for no prediction.  Under the job write lock. */
static void _rec_post(struct topo_rec *r)
{
	slurm_mutex_lock(&rec_lock);
	if (!rec_head && !r->pend) {
		slurm_mutex_unlock(&rec_lock);
		_rec_write(r);
		_rec_free(r);
		return;
	}
	if (!rec_running) {
		if (pthread_create(&rec_thread, NULL, _recorder, NULL)) {
			slurm_mutex_unlock(&rec_lock);
			error("%s: JobId=%u: cannot start the recorder thread: its prediction is recorded at once",
			      plugin_type, r->job_id);
			_rec_write(r); /* waits for the prediction */
			_rec_free(r);
			return;
		}
		rec_running = true;
	}
	r->next = NULL;
	if (rec_tail)
		rec_tail->next = r;
	else
		rec_head = r;
	rec_tail = r;
	slurm_cond_signal(&rec_cond);
	slurm_mutex_unlock(&rec_lock);
}

/*
 * In-process evaluator: the link sharing of every running job at once,
 * logged at info in one line (policy, nodes, isolated or what it shares),
 * and the job's predicted communication rate (the Predict= model over its
 * pattern, run by the predictor thread within PredictBudget= of beginning
 * it: the start does not wait), recorded with the sharing in
 * StateSaveLocation/topo_jobs.log (one line per job start, also when the
 * evaluation failed) and in the job's AdminComment (when empty) once
 * answered (struct topo_rec).  Link sets are kept incrementally
 * (tstate_track_*): a job start costs its own link set, not every running
 * job's.
 */
static void _evaluate_locked(job_record_t *job_ptr)
{
	struct err err = { { 0 } };
	struct topo_rec *r;
	uint32_t *nodes, n = 0, nshared;
	char with[96], place[256];
	char *names;
	const char *policy;

	if (!tracking)
		return;
	nodes = _owned_nodes_locked(job_ptr->job_id, &n);
	policy = _policy_of(job_ptr);
	/* job_ptr->nodes is set after job_begin. */
	names = job_ptr->node_bitmap ? bitmap2node_name(job_ptr->node_bitmap) :
				       xstrdup("?");
	nshared = _node_sharing(job_ptr, with, sizeof(with));
	r = xmalloc(sizeof(*r));
	r->job_id = job_ptr->job_id;
	r->start = job_ptr->start_time;
	r->n = n;
	r->nshared = nshared;
	r->policy = xstrdup(policy);
	r->with = xstrdup(with);
	snprintf(r->model, sizeof(r->model), "%s", tstate_predict(tstate));
	r->budget = tstate_predict_budget(tstate);
	if ((tstate_track_add(tstate, job_ptr->job_id, nodes, n, &err) < 0) ||
	    (tstate_evaluate_start(tstate, job_ptr->job_id, nodes, n,
				   _spank_env(job_ptr, ENV_PATTERN),
				   MAX_MODEL_NODES, &r->ev, &r->pend,
				   &err) < 0)) {
		error("%s: %pJ: evaluation: %s", plugin_type, job_ptr, err.msg);
		info("%s: %pJ started on %s (%u nodes), policy %s: not evaluated: %s",
		     plugin_type, job_ptr, names, n, policy, err.msg);
		r->error = xstrdup(err.msg);
	} else {
		_placement(job_ptr, &r->ev, nshared, place, sizeof(place));
		r->place = xstrdup(place);
		if (nshared)
			info("%s: %pJ started on %s (%u nodes), policy %s: shares %u of its nodes with job(s) %s, %u of its %u links with other jobs",
			     plugin_type, job_ptr, names, n, policy, nshared,
			     with, r->ev.job_shared, r->ev.job_links);
		else if (r->ev.job_shared)
			info("%s: %pJ started on %s (%u nodes), policy %s: not isolated, %u of its %u links used by other jobs;%s",
			     plugin_type, job_ptr, names, n, policy,
			     r->ev.job_shared, r->ev.job_links, place);
		else
			info("%s: %pJ started on %s (%u nodes), policy %s: isolated (%u links);%s",
			     plugin_type, job_ptr, names, n, policy,
			     r->ev.job_links, place);
	}
	xfree(names);
	xfree(nodes);
	_rec_post(r);
}

/*
 * The rank order the policy planned for JOB_PTR (nne, a grid job spanning
 * groups), in its SystemComment as "topo_grid=AxBxC topo_ranks=TEXT": the
 * position in the job's node list (Slurm's node order, as job_ptr->nodes
 * lists them) of every rank's node, rank order (policies/rankorder.h).
 * srun --topo-ranks (spank_topo) reads it and lays the ranks out so.
 */
static void _record_ranks_locked(job_record_t *job_ptr)
{
	uint32_t *at = NULL, *pos = NULL, k = 0, i;
	const char *grid = _spank_env(job_ptr, ENV_GRID);
	char *text = NULL;

	if ((claim.job_id != job_ptr->job_id) || !claim.nranks)
		return;
	if (!job_ptr->node_bitmap)
		goto out;
	at = xcalloc(node_record_count + 1, sizeof(uint32_t));
	for (i = 0; i < (uint32_t)node_record_count; i++)
		if (bit_test(job_ptr->node_bitmap, i))
			at[i] = ++k;
	pos = xcalloc(claim.nranks, sizeof(uint32_t));
	for (i = 0; i < claim.nranks; i++) {
		uint32_t s = tstate_t2s(tstate, claim.ranks[i]);

		if ((s >= (uint32_t)node_record_count) || !at[s]) {
			error("%s: %pJ: the planned rank %u is on a node the job was not given: rank order not recorded",
			      plugin_type, job_ptr, i);
			goto out;
		}
		pos[i] = at[s] - 1;
	}
	if (rankorder_format(pos, claim.nranks, &text) < 0) {
		error("%s: %pJ: out of memory: rank order not recorded",
		      plugin_type, job_ptr);
		goto out;
	}
	xstrfmtcat(job_ptr->system_comment, "%stopo_grid=%s %s%s",
		   job_ptr->system_comment ? " " : "", grid ? grid : "?",
		   RANKORDER_KEY, text);
	info("%s: %pJ: rank order of grid %s recorded (%u ranks on %u nodes): srun --topo-ranks lays the ranks out as planned",
	     plugin_type, job_ptr, grid ? grid : "?", claim.nranks, k);
	if (job_ptr->details && (job_ptr->details->num_tasks != NO_VAL) &&
	    job_ptr->details->num_tasks &&
	    (job_ptr->details->num_tasks != claim.nranks))
		info("%s: %pJ asks %u tasks, its grid %s has %u ranks: srun --topo-ranks launches %u",
		     plugin_type, job_ptr, job_ptr->details->num_tasks,
		     grid ? grid : "?", claim.nranks, claim.nranks);
out:
	free(text);
	xfree(pos);
	xfree(at);
	claim.nranks = 0;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*(wrap.job_begin))(job_ptr);

	slurm_mutex_lock(&topo_lock);
	if (_usable_locked()) {
		_set_owner_locked(job_ptr, true);
		if (rc == SLURM_SUCCESS) {
			_comment_reason(job_ptr, NULL);
			_record_ranks_locked(job_ptr);
			_evaluate_locked(job_ptr);
			_protect_locked(job_ptr);
		}
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*(wrap.job_ready))(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	int rc = (*(wrap.job_expand))(from_job_ptr, to_job_ptr);

	slurm_mutex_lock(&topo_lock);
	_rebuild_owner_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	int rc = (*(wrap.job_resized))(job_ptr, node_ptr);

	slurm_mutex_lock(&topo_lock);
	if (_usable_locked() && node_ptr) {
		uint32_t t = tstate_s2t(tstate, node_ptr->index);

		if ((t != TOPO_NONE) && (owner[t] == job_ptr->job_id)) {
			struct err err = { { 0 } };
			uint32_t *nodes, n;

			owner[t] = POLICY_FREE;
			nodes = _owned_nodes_locked(job_ptr->job_id, &n);
			if (tracking &&
			    (tstate_track_add(tstate, job_ptr->job_id, nodes, n,
					      &err) < 0))
				error("%s: %pJ: %s", plugin_type, job_ptr,
				      err.msg);
			xfree(nodes);
			_protect_locked(job_ptr);
		}
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	int rc = (*(wrap.job_fini))(job_ptr);

	slurm_mutex_lock(&topo_lock);
	if (_usable_locked()) {
		uint32_t i, n = tstate_nodes(tstate);

		/* By id, not by bitmap: the bitmap may already have lost
		 * nodes (resize, node failure). */
		for (i = 0; i < n; i++)
			if (owner[i] == job_ptr->job_id)
				owner[i] = POLICY_FREE;
		tstate_track_remove(tstate, job_ptr->job_id);
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrap.job_suspend))(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrap.job_resume))(job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*(wrap.step_pick_nodes))(job_ptr, jobinfo, node_count,
					 avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*(wrap.step_start))(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*(wrap.step_finish))(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*(wrap.nodeinfo_pack))(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*(wrap.nodeinfo_unpack))(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*(wrap.nodeinfo_alloc))();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*(wrap.nodeinfo_free))(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(wrap.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(wrap.nodeinfo_set))(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*(wrap.nodeinfo_get))(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*(wrap.jobinfo_alloc))();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*(wrap.jobinfo_free))(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrap.jobinfo_set))(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrap.jobinfo_get))(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return (*(wrap.jobinfo_copy))(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return (*(wrap.jobinfo_pack))(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*(wrap.jobinfo_unpack))(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*(wrap.get_info_from_plugin))(dinfo, job_ptr, data);
}

extern int select_p_reconfigure(void)
{
	int rc = (*(wrap.reconfigure))();

	slurm_mutex_lock(&topo_lock);
	_rebuild_owner_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

/* The partition a reservation is for: its own, else the default one. */
static const char *_resv_partition(resv_desc_msg_t *resv)
{
	part_record_t *part;

	if (resv->partition)
		return resv->partition;
	part = _part_named(NULL);
	return part ? part->name : NULL;
}

/*
 * A whole-node reservation of NODE_CNT nodes for a partition with an
 * isolating policy: the nodes the policy gives a job of that size on an
 * empty machine among AVAIL (whole leaves, pods, groups, blocks as the
 * policy rounds), so that an isolated job of that size fits it.  NULL
 * when the policy does not apply or cannot place it (the wrapped plugin
 * chooses then).
 */
static bitstr_t *_resv_place_locked(resv_desc_msg_t *resv, uint32_t node_cnt,
				    bitstr_t *avail, bool *refuse)
{
	struct err err = { { 0 } };
	const char *part = _resv_partition(resv);
	uint32_t n = tstate_nodes(tstate);
	struct policy_request req = { .job_id = 0xfffffff0u,
				      .nodes = node_cnt };
	struct policy_result res = { 0 };
	const struct policy *p;
	uint32_t *empty;
	uint8_t *usable;
	bitstr_t *ret = NULL;
	int from = -1; /* policy_resv_level of the placement */
	bool none = false;
	char *names;

	p = tstate_policy(tstate, part, NULL, &none, &err);
	if (!p || !policy_isolating(p) || (node_cnt > n))
		return NULL;
	/* Nodes for a reservation that exists: Slurm replacing its down or
	 * drained nodes, or an update adding some.  Nodes added one by one
	 * would break the alignment isolated jobs need: it keeps its nodes
	 * (its jobs wait for them to return). */
	if (resv->name && find_resv_name(resv->name)) {
		info("%s: reservation %s: not adding %u nodes elsewhere under %s (its jobs need its nodes aligned); it keeps the nodes it has",
		     plugin_type, resv->name, node_cnt, policy_spec(p));
		*refuse = true;
		return NULL;
	}
	empty = xcalloc(n + 1, sizeof(uint32_t));
	usable = _usable_from_bitmap(avail);
	res.nodes = xcalloc(n + 1, sizeof(uint32_t));
	{
		struct policy_view v = { .owner = empty, .usable = usable };
		uint8_t *unit = xcalloc(n + 1, 1);
		uint32_t *placed = xcalloc(n + 1, sizeof(uint32_t)), np, t;
		int level;

		if (policy_place(p, &v, &req, &res) == POLICY_PLACED) {
			/* The placement, else it rounded up to whole switches,
			 * else to whole groups (pods): the first of these in
			 * which the policy places the job alone, from the
			 * units the policy needs whole (policy_resv_level:
			 * fattree-pods' rule=links shares partial leaves and
			 * pods with jobs that cross nothing of the job's;
			 * above groups, none keeps out every job that could
			 * make it wait: groups, and an error in the log). */
			np = res.n;
			memcpy(placed, res.nodes, np * sizeof(uint32_t));
			from = policy_resv_level(p, placed, np);
			for (level = from > 1 ? 1 : from; !ret && level <= 1;
			     level++) {
				struct policy_view in = { .owner = empty,
							  .usable = unit };

				if (level < 0) {
					memset(unit, 0, n);
					for (t = 0; t < np; t++)
						unit[placed[t]] = 1;
				} else {
					tstate_expand_units(tstate, usable,
							    placed, np, level,
							    unit);
				}
				if (policy_place(p, &in, &req, &res) !=
				    POLICY_PLACED)
					continue;
				res.n = 0;
				for (t = 0; t < n; t++)
					if (unit[t])
						res.nodes[res.n++] = t;
				ret = _bitmap_from_result(&res);
			}
			if (!ret)
				snprintf(
					res.reason, sizeof(res.reason),
					"no whole switches or groups around its placement hold it");
		}
		xfree(placed);
		xfree(unit);
	}
	if (ret) {
		names = bitmap2node_name(ret);
		info("%s: reservation %s: %u nodes placed as %s places a job of that size: %s (%u nodes)",
		     plugin_type, resv->name ? resv->name : "(new)", node_cnt,
		     policy_spec(p), names, bit_set_count(ret));
		if (from > 1)
			error("%s: reservation %s: under %s and %s an isolated job in it may still wait for jobs outside it (Valiant detours through its groups, or units above pods): no whole switches or groups keep them out",
			      plugin_type, resv->name ? resv->name : "(new)",
			      policy_spec(p),
			      routing_spec(tstate_routing(tstate)));
		xfree(names);
	} else {
		info("%s: reservation %s: %s cannot place %u nodes among those available (%s): %s chooses them",
		     plugin_type, resv->name ? resv->name : "(new)",
		     policy_spec(p), node_cnt, res.reason, wrap_type);
	}
	xfree(res.nodes);
	xfree(usable);
	xfree(empty);
	return ret;
}

/* slurmctld's reservations; weak: absent in slurmd and the commands. */
extern list_t *resv_list __attribute__((weak));

/*
 * The existing reservation a 24.11 stand-in job is for, if any: when
 * slurmctld replaces or adds nodes to a reservation, the stand-in starts
 * when the reservation does and has no time limit (its request has no
 * duration); a new one has a duration, unless it was given an end time
 * and starts the very second an existing one does (then it is taken for
 * that one and refused: select_topo(8)).
 */
static slurmctld_resv_t *_standin_resv(job_record_t *job_ptr)
{
	slurmctld_resv_t *r, *found = NULL;
	list_itr_t *it;

	if (!&resv_list || !resv_list || !job_ptr->details ||
	    (job_ptr->time_limit != NO_VAL))
		return NULL;
	it = list_iterator_create(resv_list);
	while ((r = list_next(it)))
		if (r->node_bitmap &&
		    (r->start_time == job_ptr->details->begin_time)) {
			found = r;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

/*
 * 24.11: slurmctld chooses a reservation's nodes by calling job_test in
 * will-run mode for a stand-in job (job id 0, no preemptee list; see
 * TOPO_RESV_STANDIN).  The same placement as 22.05's resv_test, into
 * BITMAP; the stand-in carries no reservation name: _standin_resv finds
 * the reservation Slurm replaces or adds nodes to.
 * SLURM_SUCCESS or SLURM_ERROR when placed or refused, 1 to delegate.
 */
static int _resv_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			  uint32_t node_cnt)
{
	slurmctld_resv_t *old = _standin_resv(job_ptr);
	resv_desc_msg_t resv = { .partition = job_ptr->partition,
				 .name = old ? old->name : NULL };
	bitstr_t *ret = NULL;
	bool refuse = false;

	/* Core reservations (CoreCnt=, TRES=cpu=) are the wrapped plugin's:
	 * an existing one by its flags, a new one by its stand-in's core
	 * request (an existing one's stand-in has its TRES string too). */
	if (!node_cnt || (old ? !(old->ctld_flags & RESV_CTLD_FULL_NODE) :
				(job_ptr->details && job_ptr->details->mc_ptr)))
		return 1;
	slurm_mutex_lock(&topo_lock);
	if (_usable_locked())
		ret = _resv_place_locked(&resv, node_cnt, bitmap, &refuse);
	slurm_mutex_unlock(&topo_lock);
	if (ret) {
		bit_and(bitmap, ret);
		FREE_NULL_BITMAP(ret);
		return SLURM_SUCCESS;
	}
	return refuse ? SLURM_ERROR : 1;
}

/*
 * Slurm 22.05 only (slurm_compat.h): the calls 24.11 dropped.  24.11 has
 * no select_p_resv_test: it asks job_test for a reservation's nodes, with
 * a stand-in job (_resv_job_test above).
 */
#if TOPO_SELECT_LEGACY
extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*(wrap.job_signal))(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return (*(wrap.jobinfo_sprint))(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return (*(wrap.jobinfo_xstrdup))(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	return (*(wrap.update_node_config))(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	bitstr_t *ret = NULL;

	/* Core reservations (CoreCnt=) are the wrapped plugin's. */
	if (node_cnt && avail_bitmap && !resv_desc_ptr->core_cnt &&
	    !(core_bitmap && *core_bitmap)) {
		bool refuse = false;

		slurm_mutex_lock(&topo_lock);
		if (_usable_locked())
			ret = _resv_place_locked(resv_desc_ptr, node_cnt,
						 avail_bitmap, &refuse);
		slurm_mutex_unlock(&topo_lock);
		if (ret) {
			bit_and(avail_bitmap, ret);
			return ret;
		}
		if (refuse)
			return NULL;
	}
	return (*(wrap.resv_test))(resv_desc_ptr, node_cnt, avail_bitmap,
				   core_bitmap);
}
#endif

/* Every select_p_* against the ops table entry it fills (Slurm's own
 * slurm_select_ops_t in 22.05), and job_test against Slurm's declaration
 * of select_g_job_test, which has the same arguments. */
TOPO_CHECK_SELECT_P(state_save, state_save);
TOPO_CHECK_SELECT_P(state_restore, state_restore);
TOPO_CHECK_SELECT_P(job_init, job_init);
TOPO_CHECK_SELECT_P(node_init, node_init);
TOPO_CHECK_SELECT_P(job_test, job_test);
TOPO_CHECK_SELECT_P(job_begin, job_begin);
TOPO_CHECK_SELECT_P(job_ready, job_ready);
TOPO_CHECK_SELECT_P(job_expand, job_expand);
TOPO_CHECK_SELECT_P(job_resized, job_resized);
TOPO_CHECK_SELECT_P(job_fini, job_fini);
TOPO_CHECK_SELECT_P(job_suspend, job_suspend);
TOPO_CHECK_SELECT_P(job_resume, job_resume);
TOPO_CHECK_SELECT_P(step_pick_nodes, step_pick_nodes);
TOPO_CHECK_SELECT_P(step_start, step_start);
TOPO_CHECK_SELECT_P(step_finish, step_finish);
TOPO_CHECK_SELECT_P(nodeinfo_pack, select_nodeinfo_pack);
TOPO_CHECK_SELECT_P(nodeinfo_unpack, select_nodeinfo_unpack);
TOPO_CHECK_SELECT_P(nodeinfo_alloc, select_nodeinfo_alloc);
TOPO_CHECK_SELECT_P(nodeinfo_free, select_nodeinfo_free);
TOPO_CHECK_SELECT_P(nodeinfo_set_all, select_nodeinfo_set_all);
TOPO_CHECK_SELECT_P(nodeinfo_set, select_nodeinfo_set);
TOPO_CHECK_SELECT_P(nodeinfo_get, select_nodeinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_alloc, select_jobinfo_alloc);
TOPO_CHECK_SELECT_P(jobinfo_free, select_jobinfo_free);
TOPO_CHECK_SELECT_P(jobinfo_set, select_jobinfo_set);
TOPO_CHECK_SELECT_P(jobinfo_get, select_jobinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_copy, select_jobinfo_copy);
TOPO_CHECK_SELECT_P(jobinfo_pack, select_jobinfo_pack);
TOPO_CHECK_SELECT_P(jobinfo_unpack, select_jobinfo_unpack);
TOPO_CHECK_SELECT_P(get_info_from_plugin, get_info_from_plugin);
TOPO_CHECK_SELECT_P(reconfigure, reconfigure);
#if TOPO_SELECT_LEGACY
TOPO_CHECK_SELECT_P(job_signal, job_signal);
TOPO_CHECK_SELECT_P(jobinfo_sprint, select_jobinfo_sprint);
TOPO_CHECK_SELECT_P(jobinfo_xstrdup, select_jobinfo_xstrdup);
TOPO_CHECK_SELECT_P(update_node_config, update_node_config);
TOPO_CHECK_SELECT_P(resv_test, resv_test);
#endif
_Static_assert(__builtin_types_compatible_p(__typeof__(&select_g_job_test),
					    __typeof__(&select_p_job_test)),
	       "select_p_job_test differs from Slurm's select_g_job_test");
