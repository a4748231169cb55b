/*****************************************************************************\
 *  slurmd_check.c - up to 24.11 slurmd loads the select plugin, and tests
 *  SelectType for the whole string "select/cons_tres" (slurmd.c's
 *  _read_config, cr_flag), not for "cons_tres" in it as slurmctld does:
 *  under cons_tres, a node whose hardware splits its cores into sockets
 *  differently from slurm.conf (a KNL rebooted into another NUMA mode:
 *  the same sockets x cores, other sockets and cores) registers with the
 *  hardware's split; under select/topo_cons_tres it would register with
 *  slurm.conf's.  That difference cannot be removed from the plugin, so
 *  slurmd refuses to start on such a node and says what to set.  25.05
 *  dropped the test (and slurmd no longer loads select plugins).
\*****************************************************************************/

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#define TOPO_COMPAT_PUBLIC
#include "plugin/slurm_compat.h"

#if TOPO_SLURMD_CR_FLAG

#if !TOPO_SLURMD_READS_FIRST
#include <hwloc.h>
#endif

#include "src/slurmd/slurmd/slurmd.h"

#include "plugin/slurmd_check.h"

/* slurmd's configuration; weak: absent in slurmctld and the commands. */
extern slurmd_conf_t *conf __attribute__((weak));

/* What slurmd sees of node NAME: slurm.conf's CPUs, boards, sockets (in
 * all), cores per socket and threads per core into CF, the hardware's
 * into HW.  22.05's slurmd loads the select plugin before it reads them,
 * so they are read here as it will (hwloc); 24.11's has read them into
 * conf.
 * Returns 0 when they cannot be read. */
static int _node_split(const char *name, uint16_t hw[5], uint16_t cf[5])
{
#if TOPO_SLURMD_READS_FIRST
	(void)name;
	cf[0] = conf->conf_cpus;
	cf[1] = conf->conf_boards;
	cf[2] = conf->conf_sockets;
	cf[3] = conf->conf_cores;
	cf[4] = conf->conf_threads;
	hw[0] = conf->actual_cpus;
	hw[1] = conf->actual_boards;
	hw[2] = conf->actual_sockets;
	hw[3] = conf->actual_cores;
	hw[4] = conf->actual_threads;
	return hw[0] && cf[0];
#else
	hwloc_topology_t t;
	int pkg, core, pu;

	if (slurm_conf_get_cpus_bsct(name, &cf[0], &cf[1], &cf[2], &cf[3],
				     &cf[4]))
		return 0;
	/* Not xcpuinfo_hwloc_topo_get: called before slurmd has its spool
	 * directory, it would keep a wrong path for its XML cache.  The same
	 * counts, from hwloc: sockets are packages (unless SlurmdParameters
	 * makes L3 caches or NUMA nodes the sockets: not checked then). */
	if (xstrcasestr(slurm_conf.slurmd_params, "l3cache_as_socket") ||
	    xstrcasestr(slurm_conf.slurmd_params, "numa_node_as_socket"))
		return 0;
	if (hwloc_topology_init(&t))
		return 0;
	if (hwloc_topology_load(t)) {
		hwloc_topology_destroy(t);
		return 0;
	}
	pkg = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	core = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	pu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	hwloc_topology_destroy(t);
	if ((pkg <= 0) || (core <= 0) || (pu <= 0))
		return 0;
	hw[0] = pu;
	hw[1] = 1;
	hw[2] = pkg;
	hw[3] = core / pkg;
	hw[4] = pu / core;
	return 1;
#endif
}

void slurmd_check_cores(void)
{
	uint16_t hw[5] = { 0 }, cf[5] = { 0 };
	char host[256] = "", *name = NULL;
	bool gang = slurm_conf.preempt_mode & PREEMPT_MODE_GANG;

	if (!running_in_slurmd() || !&conf || !conf ||
	    (slurm_conf.conf_flags & TOPO_CONF_FLAG_OR))
		return;
	/* Dynamic nodes register with their hardware in any case. */
	if (conf->dynamic_type)
		return;
	if (conf->node_name) {
		name = xstrdup(conf->node_name);
	} else if (!gethostname(host, sizeof(host))) {
		host[strcspn(host, ".")] = '\0';
		name = slurm_conf_get_nodename(host);
	}
	if (!name || !_node_split(name, hw, cf)) {
		xfree(name);
		return;
	}
	/* _read_config's cases before cr_flag's, in its order: (24.11) only
	 * CPUs= configured; fewer CPUs than configured (the hardware's in
	 * any case); then cr_flag's own. */
	if (!(TOPO_SLURMD_ONLY_CPUS && (cf[2] == hw[0]) && (cf[0] == hw[0]) &&
	      (cf[3] == 1) && (cf[4] == 1)) &&
	    !(hw[0] < cf[0]) && !gang && (hw[2] != cf[2]) && (hw[3] != cf[3]) &&
	    (hw[2] * hw[3] == cf[2] * cf[3]))
		fatal("%s: node %s: the hardware has %u sockets of %u cores, slurm.conf says Sockets=%u CoresPerSocket=%u: under select/cons_tres slurmd would register the hardware's split, but slurmd %d.%02d tests SelectType for the very string select/cons_tres, so under %s it would register slurm.conf's; set Sockets=%u CoresPerSocket=%u for %s (slurmd -C) or SlurmdParameters=config_overrides (select_topo(8), SLURM VERSIONS)",
		      "select/topo", name, hw[2], hw[3], cf[2], cf[3],
		      SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		      SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		      slurm_conf.select_type, hw[2], hw[3], name);
	xfree(name);
}

#else

#include "plugin/slurmd_check.h"

/* 25.05 on: slurmd loads no select plugin. */
void slurmd_check_cores(void)
{
}

#endif
