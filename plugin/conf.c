/*****************************************************************************\
 *  conf.c - select/topo's topo.conf: the plugin it wraps (Wrap=, read
 *  when the plugin loads), loading the file against slurm.conf's nodes and
 *  partitions (node_init, reconfigure), and the copy of the last file that
 *  loaded, which a 24.11 reconfigure (a new slurmctld) falls back to.
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/common/run_in_daemon.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"

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
 * Whether this process is slurmctld with SelectType=select/topo_cons_tres
 * (up to 24.11 slurmctld loads every select plugin of PluginDir, this one
 * too when another is the SelectType).
 */
bool conf_ctld_selected(void)
{
	return running_in_slurmctld() &&
	       !xstrcmp(slurm_conf.select_type, plugin_type);
}

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
		error("%s: cannot save %s as %s: %m", TOPO_NAME, path, dst);
		(void)unlink(tmp);
	}
	xfree(tmp);
	xfree(dst);
}

/*
 * The plugin to wrap, from topo.conf's Wrap= (read without building the
 * topology: up to 24.11 every client command loads this plugin).  In
 * slurmctld with SelectType=select/topo_cons_tres a topo.conf that cannot
 * be read is fatal, as it would be in node_init.
 * Elsewhere (slurmd, slurmstepd, the commands) topo.conf may be absent
 * (configless nodes): cons_tres is wrapped then, which is safe because
 * the only data these processes exchange through the select plugin, node
 * and job select info, has the same wire format in cons_tres and linear
 * (22.05: alloc_cpus, alloc_memory, tres_alloc_fmt_str,
 * tres_alloc_weighted; job info empty).
 */
const char *conf_choose_wrap(void)
{
	struct err err = { 0 };
	char *path = _topo_conf_path(), *last = NULL;
	const char *w = NULL;

	/* Started by a 24.11 reconfigure: the running plugin's Wrap=. */
	if (TOPO_RECONF_RESTART() && (last = _last_good_path()))
		w = topo_conf_peek_wrap(last, &err);
	xfree(last);
	if (!w)
		w = topo_conf_peek_wrap(path, &err);
	if (!w) {
		if (conf_ctld_selected())
			fatal("%s: %s [%s]", TOPO_NAME, err.msg,
			      err_kind(&err));
		debug("%s: %s: wrapping select/cons_tres", TOPO_NAME, err.msg);
		w = "select/cons_tres";
	}
	xfree(path);
	return w;
}

/*
 * Wrap=linear under a SelectType that names cons_tres: what Slurm
 * decides by that name would be cons_tres's, and select/linear cannot
 * honour it, so such a configuration stops slurmctld with what to set.
 * select/linear refuses CR_CPU, CR_Core and CR_Socket (select_g_init),
 * but up to 24.11 only when it is the SelectType itself (Slurm tests the
 * plugin id, select/topo's); Slurm gives a SelectType naming cons_tres
 * CR_Core_Memory when SelectTypeParameters is absent (24.11 on), accepts
 * MaxNodeCount (and so dynamic nodes) and, from 25.11,
 * TaskPluginParam=SlurmdSpecOverride, all of them cons_tres's.
 */
void conf_check_params(void)
{
	uint16_t cr = slurm_conf.select_type_param;

	if (!conf_ctld_selected() || xstrcmp(wrap_type, "select/linear"))
		return;
	if (cr & (TOPO_CR_CPU | TOPO_CR_CORE | TOPO_CR_SOCKET))
		fatal("%s: Wrap=linear: invalid SelectTypeParameters=%s (%u): select/linear can't use CR_CPU, CR_Core or CR_Socket: set SelectTypeParameters=CR_Memory (without the line Slurm gives %s cons_tres's default, CR_Core_Memory)",
		      TOPO_NAME, select_type_param_string(cr), cr, plugin_type);
	if (TOPO_MAX_NODE_CNT_SET())
		fatal("%s: Wrap=linear: MaxNodeCount=%u is for select/cons_tres (Slurm accepts it from a SelectType naming cons_tres, %s): remove it, or wrap cons_tres",
		      TOPO_NAME, slurm_conf.max_node_cnt, plugin_type);
	if (TOPO_SPEC_OVERRIDE_SET())
		fatal("%s: Wrap=linear: TaskPluginParam=SlurmdSpecOverride is for select/cons_tres (Slurm accepts it from a SelectType naming cons_tres, %s): remove it, or wrap cons_tres",
		      TOPO_NAME, plugin_type);
}

/* Whether partition PART runs under an isolating policy. */
static bool _part_isolating(struct tstate *s, part_record_t *part)
{
	struct err err = { 0 };
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
				     TOPO_NAME, conf_path, q->name, p->name);
			else
				error("%s: %s: partition %s (no isolating policy) shares nodes with isolating partition %s: ITS JOBS CAN SHARE LINKS WITH ISOLATED JOBS; set RespectIsolation=yes in topo.conf to prevent it",
				      TOPO_NAME, conf_path, q->name, p->name);
		}
		list_iterator_destroy(b);
	}
	list_iterator_destroy(a);
}

/* Slurm's node table: every slot's name (NULL: empty), and into
 * *DYNAMIC whether it was created at run time (both xfree). */
static const char **_node_names(uint8_t **dynamic)
{
	const char **names = xcalloc(node_record_count + 1, sizeof(char *));
	int i;

	*dynamic = xcalloc(node_record_count + 1, 1);
	for (i = 0; i < node_record_count; i++) {
		node_record_t *node = node_record_table_ptr[i];

		if (!node)
			continue;
		names[i] = node->name;
		(*dynamic)[i] = IS_NODE_DYNAMIC_NORM(node) ||
				IS_NODE_DYNAMIC_FUTURE(node);
	}
	return names;
}

/* How many nodes were outside the topology and topology nodes without a
 * Slurm node when last said. */
static uint32_t unmapped[2];

/* Say which Slurm nodes (NAMES, as mapped) are outside the topology (an
 * error: isolated jobs never get them) and which topology nodes have no
 * Slurm node (info), when that changed. */
static void _say_unmapped_locked(const char *const *names)
{
	char buf[512];
	uint32_t k;

	k = tstate_unmapped(tstate, names, tstate_slurm_nodes(tstate), buf,
			    sizeof(buf));
	if (k && k != unmapped[0])
		error("%s: %s: node%s %s, created at run time, %s not in topo.conf's NodeName=: jobs of isolating partitions are never placed there, and jobs there are placed without regard to links; name %s in topo.conf and run scontrol reconfigure",
		      TOPO_NAME, conf_path, k == 1 ? "" : "s", buf,
		      k == 1 ? "is" : "are", k == 1 ? "it" : "them");
	unmapped[0] = k;
	k = tstate_unmapped(tstate, NULL, 0, buf, sizeof(buf));
	if (k && k != unmapped[1])
		info("%s: %s: %u topology node%s without a Slurm node (%s): no job is placed there until %s",
		     TOPO_NAME, conf_path, k, k == 1 ? "" : "s", buf,
		     k == 1 ? "it registers" : "they register");
	unmapped[1] = k;
}

/*
 * The Slurm nodes mapped onto the topology again (select_p_reconfigure:
 * Slurm calls it after creating or deleting nodes at run time).  A node
 * table topo.conf no longer fits is logged; jobs are then placed by the
 * wrapped plugin alone until it does (owner_usable_locked).
 */
void conf_remap_locked(void)
{
	struct err err = { 0 };
	const char **names;
	uint8_t *dynamic;

	if (!tstate)
		return;
	names = _node_names(&dynamic);
	if (tstate_map(tstate, names, dynamic, node_record_count, &err))
		error("%s: %s [%s]", TOPO_NAME, err.msg, err_kind(&err));
	else
		_say_unmapped_locked(names);
	xfree(names);
	xfree(dynamic);
}

/*
 * Load topo.conf and check it against the node table.  At start-up a bad
 * file is fatal; on reconfiguration the old one stays and the error is
 * logged loudly.
 */
void conf_load(void)
{
	struct err err = { 0 };
	const char **names, **parts;
	uint8_t *dynamic;
	uint32_t nparts = 0, unpoliced = 0;
	char bare[512];
	struct tstate *s;
	char *path = _topo_conf_path();
	bool reconfig, kept = false;

	names = _node_names(&dynamic);
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
	s = tstate_load(path, names, dynamic, node_record_count,
			part_list ? parts : NULL, nparts, &err);

	/* 24.11: a slurmctld started by reconfigure has no previous state
	 * but the last-good copy. */
	if (!s && !tstate && TOPO_RECONF_RESTART()) {
		struct err lerr = { 0 };
		char *last = _last_good_path();

		error("%s: %s [%s]", TOPO_NAME, err.msg, err_kind(&err));
		s = last ? tstate_load(last, names, dynamic, node_record_count,
				       part_list ? parts : NULL, nparts,
				       &lerr) :
			   NULL;
		if (!s)
			fatal("%s: reconfiguration: %s is broken and the previous one cannot be loaded either (%s)",
			      TOPO_NAME, path,
			      last ? lerr.msg : "no StateSaveLocation");
		error("%s: reconfiguration: KEEPING THE PREVIOUS topo.conf (%s, as loaded before: %s); fix the file and run scontrol reconfigure again",
		      TOPO_NAME, path, last);
		xfree(last);
		kept = true;
	}
	if (s)
		unpoliced =
			tstate_unpoliced(s, parts, nparts, bare, sizeof(bare));
	xfree(parts);

	slurm_mutex_lock(&topo_lock);
	reconfig = (tstate != NULL) || TOPO_RECONF_RESTART();
	if (!s) {
		slurm_mutex_unlock(&topo_lock);
		xfree(names);
		xfree(dynamic);
		if (!reconfig)
			fatal("%s: %s [%s]", TOPO_NAME, err.msg,
			      err_kind(&err));
		error("%s: %s [%s]", TOPO_NAME, err.msg, err_kind(&err));
		error("%s: reconfiguration: KEEPING THE PREVIOUS topo.conf (%s); fix the file and run scontrol reconfigure again",
		      TOPO_NAME, conf_path);
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
	unmapped[0] = unmapped[1] = 0;
	_say_unmapped_locked(names);
	owner_rebuild_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	xfree(names);
	xfree(dynamic);
	info("%s: %s: topology %s, %u nodes, routing %s, wrapping %s, predicting with %s within %u ms",
	     TOPO_NAME, conf_path, topo_spec(tstate_topo(s)), tstate_nodes(s),
	     routing_spec(tstate_routing(s)), wrap_type, tstate_predict(s),
	     tstate_predict_budget(s));
	if (unpoliced)
		info("%s: %s: %u partition%s without a policy (no PartitionPolicy= and no DefaultPolicy=): %s; %s places their jobs without regard to links",
		     TOPO_NAME, conf_path, unpoliced, unpoliced == 1 ? "" : "s",
		     bare, wrap_type);
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
		      TOPO_NAME, conf_path, tstate_wrap(s), wrap_type,
		      wrap_type, tstate_wrap(s));
		if (reconfig)
			error("%s: reconfiguration: the rest of %s is in force",
			      TOPO_NAME, conf_path);
	}
}

/* The partition named NAME, else (NAME NULL) the default one. */
part_record_t *conf_part_named(const char *name)
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
