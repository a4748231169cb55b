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
 * Whether this process is slurmctld with SelectType=select/topo (slurmctld
 * loads every select plugin of PluginDir, this one too when another is
 * the SelectType).
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
		error("%s: cannot save %s as %s: %m", plugin_type, path, dst);
		(void)unlink(tmp);
	}
	xfree(tmp);
	xfree(dst);
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
const char *conf_choose_wrap(void)
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
		if (conf_ctld_selected())
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
void conf_check_params(void)
{
	uint16_t cr = slurm_conf.select_type_param;

	if (!conf_ctld_selected() || xstrcmp(wrap_type, "select/linear") ||
	    !(cr & (CR_CPU | CR_CORE | CR_SOCKET)))
		return;
	fatal("%s: Wrap=linear: invalid SelectTypeParameters=%s (%u): select/linear can't use CR_CPU, CR_Core or CR_Socket (use CR_Memory or none)",
	      plugin_type, select_type_param_string(cr), cr);
}

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

/*
 * Load topo.conf and check it against the node table.  At start-up a bad
 * file is fatal; on reconfiguration the old one stays and the error is
 * logged loudly.
 */
void conf_load(void)
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
	owner_rebuild_locked(job_list);
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
