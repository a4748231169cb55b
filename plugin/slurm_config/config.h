/*****************************************************************************\
 *  config.h - the few configure results Slurm 22.05's internal headers test,
 *  for building select_topo.so out of tree against Debian's slurm-wlm
 *  22.05.8 without running Slurm's configure.
 *
 *  Checked against the headers the plugin includes (gcc -M, then every
 *  #if in them): HAVE_NATIVE_CRAY, HAVE_3D, HAVE_FRONT_END (Cray/BlueGene
 *  only, undefined on Debian), NDEBUG (undefined: Debian's libslurmfull
 *  exports __xassert_failed, i.e. xassert is on), HAVE_STRLCPY (undefined:
 *  strlcpy.h then maps to slurm_strlcpy, which libslurmfull exports),
 *  SLURM_BIGENDIAN (0 on x86_64), WITH_CGROUP (only a default string).
 *  None of them changes the layout of a structure the plugin touches.
\*****************************************************************************/
#ifndef _SELECT_TOPO_SLURM_CONFIG_H
#define _SELECT_TOPO_SLURM_CONFIG_H

#define SLURM_BIGENDIAN 0
#define WITH_CGROUP 1
#define HAVE_SYS_PRCTL_H 1

#endif
