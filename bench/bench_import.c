/* bench_import.c - issue 17's imported fat-tree at 10,000 nodes: the
 * 10,648-node fattree:k=22,n=3 written as ibnetdiscover text, imported
 * (import_ibnetdiscover, import_write_conf) into a topo.conf, loaded and
 * recognised, then `stopo whatif` with fattree-pods (both rule sets) on the
 * shared 10,000-job workload on the imported graph and on the generated
 * tree, timed in the same run.  The imported tree numbers its leaves as
 * the generated one, so the two utilisations must be equal: a difference
 * is reported as an error (exit 1).  Run from the build directory (make
 * bench), with BENCH_DIR the source's bench/ (the workload is
 * BENCH_DIR/../../shared/workloads/lublin_256.swf, or WORKLOAD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "topo/import/import.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"

#define SPEC "fattree:k=22,n=3"

/* Write SPEC's imported topo.conf to CONF; prints the import's times. */
static int import_conf(const char *ibnet, const char *conf)
{
	struct err err = { "" };
	struct topo *g = topo_create(SPEC, &err);
	struct import_fabric *fab;
	struct topo_conf *c;
	FILE *f;
	double t0, t1, t2;

	if (!g || !(f = fopen(ibnet, "w"))) {
		fprintf(stderr, "bench_import: %s: %s\n", SPEC, err.msg);
		topo_destroy(g);
		return 1;
	}
	if (import_export_ibnetdiscover(g, f, &err) || fclose(f)) {
		fprintf(stderr, "bench_import: export: %s\n", err.msg);
		topo_destroy(g);
		return 1;
	}
	t0 = bench_wall();
	fab = import_ibnetdiscover(ibnet, NULL, &err);
	if (!fab || !(f = fopen(conf, "w")) ||
	    import_write_conf(fab, f, &err) || fclose(f)) {
		fprintf(stderr, "bench_import: import: %s\n", err.msg);
		import_destroy(fab);
		topo_destroy(g);
		return 1;
	}
	t1 = bench_wall();
	c = topo_conf_load(conf, &err);
	t2 = bench_wall();
	if (!c) {
		fprintf(stderr, "bench_import: %s\n", err.msg);
		import_destroy(fab);
		topo_destroy(g);
		return 1;
	}
	printf("%s as ibnetdiscover text (%u switches, %u nodes): imported "
	       "in %.3f s, its topo.conf loaded and recognised (%s) in "
	       "%.3f s\n",
	       SPEC, topo_num_switches(g), topo_num_nodes(g), t1 - t0,
	       topo_graph_family(topo_conf_topo(c)) ?
		       topo_graph_family(topo_conf_topo(c)) :
		       "not recognised",
	       t2 - t1);
	topo_conf_destroy(c);
	import_destroy(fab);
	topo_destroy(g);
	return 0;
}

/* stopo whatif of POLICY on TOPO: utilisation (from --json) and wall
 * seconds.  Returns 0 or 1. */
static int whatif(const char *topo, const char *policy, const char *swf,
		  double *util, double *secs)
{
	char cmd[2048], line[512];
	FILE *p;
	double t0 = bench_wall();

	snprintf(cmd, sizeof(cmd),
		 "./stopo whatif -q --topo '%s' --routing ecmp --policy '%s' "
		 "--scale auto --no-rates --json --workload '%s'",
		 topo, policy, swf);
	p = popen(cmd, "r");
	if (!p)
		return 1;
	*util = -1;
	while (fgets(line, sizeof(line), p)) {
		const char *u = strstr(line, "\"utilization\":");

		if (u)
			*util = atof(u + strlen("\"utilization\":"));
	}
	*secs = bench_wall() - t0;
	return pclose(p) != 0 || *util < 0;
}

int main(void)
{
	const char *dir = getenv("BENCH_DIR");
	const char *swf = getenv("WORKLOAD");
	char path[4096], tmp[] = "/tmp/bench_import_XXXXXX", ibnet[64],
			 conf[64];
	static const char *const policies[] = { "fattree-pods",
						"fattree-pods:rule=links",
						"linear" };
	int rc = 0;

	if (!swf) {
		snprintf(path, sizeof(path),
			 "%s/../../shared/workloads/lublin_256.swf",
			 dir ? dir : "bench");
		swf = path;
	}
	if (access(swf, R_OK) != 0) {
		printf("bench_import: %s not found, skipped\n", swf);
		return 0;
	}
	if (!mkdtemp(tmp)) {
		perror("bench_import: mkdtemp");
		return 1;
	}
	snprintf(ibnet, sizeof(ibnet), "%s/fabric.ibnet", tmp);
	snprintf(conf, sizeof(conf), "%s/imported.conf", tmp);
	if (import_conf(ibnet, conf))
		rc = 1;
	for (size_t i = 0; !rc && i < sizeof(policies) / sizeof(*policies);
	     i++) {
		double ug, ui, sg, si;

		if (whatif(SPEC, policies[i], swf, &ug, &sg) ||
		    whatif(conf, policies[i], swf, &ui, &si)) {
			fprintf(stderr, "bench_import: stopo whatif failed\n");
			rc = 1;
			break;
		}
		printf("whatif 10,000 jobs --scale auto, %-24s generated "
		       "%.2f %% in %.1f s, imported %.2f %% in %.1f s "
		       "(%.2fx)%s\n",
		       policies[i], 100 * ug, sg, 100 * ui, si, si / sg,
		       ug == ui ? "" : "  UTILISATION DIFFERS");
		if (ug != ui)
			rc = 1;
	}
	unlink(ibnet);
	unlink(conf);
	rmdir(tmp);
	return rc;
}
