/*****************************************************************************\
 *  job_submit_topo.c - tells a user at submission why select/topo will
 *  never run the job isolated (sbatch/srun/salloc print the message),
 *  where slurmctld alone says only "Requested node configuration is not
 *  available".
 *
 *  The check itself is select/topo's (select_p_topo_submit_check in
 *  select_topo.c: the partition's policy, the same sizing and parsers as
 *  its test-only mode, on the job as submitted), reached in the select
 *  plugin slurmctld has loaded, so that both use one loaded topo.conf.
 *  Without select/topo loaded, every job passes (logged once).
 *  JobSubmitPlugins=topo in slurm.conf; see select_topo(8).
\*****************************************************************************/

#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#pragma GCC visibility push(default)

const char plugin_name[] = "select/topo submission check";
const char plugin_type[] = "job_submit/topo";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void);
extern int fini(void);
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg);
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg);

#pragma GCC visibility pop

typedef int (*check_fn)(job_desc_msg_t *, char **);

static void *handle;
static check_fn check;

/* select_topo_cons_tres.so as slurmctld loaded it: PluginDir's directories in
 * turn (RTLD_NOLOAD: never a second copy). */
static check_fn _find(void)
{
	char *dirs, *dir, *save = NULL;

	if (check)
		return check;
	dirs = xstrdup(slurm_conf.plugindir);
	for (dir = dirs ? strtok_r(dirs, ":", &save) : NULL; dir && !handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = NULL;

		xstrfmtcat(path, "%s/select_topo_cons_tres.so", dir);
		handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
		xfree(path);
	}
	xfree(dirs);
	if (handle)
		check = (check_fn)dlsym(handle, "select_p_topo_submit_check");
	return check;
}

extern int init(void)
{
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (handle)
		dlclose(handle);
	handle = NULL;
	check = NULL;
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	static bool warned = false;
	check_fn f = _find();

	if (!f) {
		if (!warned)
			error("%s: select/topo is not loaded (SelectType=select/topo_cons_tres): submissions are not checked",
			      plugin_type);
		warned = true;
		return SLURM_SUCCESS;
	}
	return f(job_desc, err_msg);
}

/* A change of partition or size is checked again when the job is
 * scheduled (select/topo's pending reason). */
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	return SLURM_SUCCESS;
}
