/* topo_conf.c - placeholder until the topo.conf parser lands. */
#include <stdlib.h>

#include "topo/topo_conf.h"

struct topo_conf *topo_conf_load(const char *path, struct err *err)
{
	err_set(err, "%s: topo.conf files are not supported yet", path);
	return NULL;
}

void topo_conf_destroy(struct topo_conf *c)
{
	(void)c;
}

struct topo *topo_conf_take_topo(struct topo_conf *c)
{
	(void)c;
	return NULL;
}
