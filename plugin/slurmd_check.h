/*****************************************************************************\
 *  slurmd_check.h - select/topo's check of slurmd's core handling (up to
 *  24.11, where slurmd loads select plugins): see slurmd_check.c.
\*****************************************************************************/
#ifndef _SELECT_TOPO_SLURMD_CHECK_H
#define _SELECT_TOPO_SLURMD_CHECK_H

/* In slurmd: fatal when this node's socket/core split would differ from
 * what slurmd does under select/cons_tres; elsewhere a no-op. */
void slurmd_check_cores(void);

#endif
