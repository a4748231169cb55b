/* bench_import.c - issue 46's imported Cray Edison beside the generated
 * Cascade: the Aries link list (../shared/fabrics/aries/edison.links)
 * imported, stopo topo on it, and a 1,000-job stopo whatif under ugal
 * (link sets only: --no-rates) on the imported machine and on
 * cascade:groups=15,block=2,bundle=2 in the same run (target: within 2x
 * of the generated, under 30 s; the results must be equal).
 *
 * Issue 17's imported fat-tree at 10,000 nodes: the
 * 10,648-node fattree:k=22,n=3 written as ibnetdiscover text, imported
 * (import_ibnetdiscover, import_write_conf) into a topo.conf, loaded and
 * recognised, then `stopo whatif` with fattree-pods (both rule sets) on the
 * shared 10,000-job workload on the imported graph and on the generated
 * tree, timed in the same run.  The imported tree numbers its leaves as
 * the generated one, so the two utilisations must be equal: a difference
 * is reported as an error (exit 1).  Run from the build directory (make
 * bench), with BENCH_DIR the source's bench/ (the workload is
 * BENCH_DIR/../../shared/workloads/lublin_256.swf, or WORKLOAD). */
#include <stdbool.h>
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
	struct err err = { 0 };
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

/* Seconds of shell command CMD (0 when it fails: *OK false). */
static double timed(const char *cmd, bool *ok)
{
	double t0 = bench_wall();

	*ok = system(cmd) == 0;
	return bench_wall() - t0;
}

/* Edison imported and the generated Cascade: import, stopo topo, 1,000
 * jobs under ugal; the what-if outputs must agree.  Returns 0 or 1. */
static int edison(const char *dir, const char *swf, const char *tmp)
{
	char links[4096], cmd[8192];
	double ti, tt, wi, wg;
	bool ok1, ok2, ok3, ok4;
	static const char *const gen = "cascade:groups=15,block=2,bundle=2";

	snprintf(links, sizeof(links),
		 "%s/../../shared/fabrics/aries/edison.links",
		 dir ? dir : "bench");
	if (access(links, R_OK) != 0) {
		printf("bench_import: %s not found, Edison skipped\n", links);
		return 0;
	}
	snprintf(cmd, sizeof(cmd),
		 "./stopo import aries '%s' -o %s/edison.conf >/dev/null",
		 links, tmp);
	ti = timed(cmd, &ok1);
	snprintf(cmd, sizeof(cmd),
		 "./stopo topo --topo %s/edison.conf >/dev/null", tmp);
	tt = timed(cmd, &ok2);
	snprintf(cmd, sizeof(cmd),
		 "./stopo whatif -q --topo %s/edison.conf --routing ugal "
		 "--workload '%s' --limit-jobs 1000 --scale auto --no-rates "
		 "--json >%s/ed.json",
		 tmp, swf, tmp);
	wi = timed(cmd, &ok3);
	snprintf(cmd, sizeof(cmd),
		 "./stopo whatif -q --topo %s --routing ugal --workload '%s' "
		 "--limit-jobs 1000 --scale auto --no-rates --json "
		 ">%s/gen.json && grep -v '\"\\(topology\\|seconds\\)\"' "
		 "%s/ed.json >%s/a && grep -v "
		 "'\"\\(topology\\|seconds\\)\"' %s/gen.json >%s/b && "
		 "cmp -s %s/a %s/b",
		 gen, swf, tmp, tmp, tmp, tmp, tmp, tmp, tmp);
	wg = timed(cmd, &ok4);
	snprintf(cmd, sizeof(cmd), "%s/edison.conf", tmp);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/ed.json", tmp);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/gen.json", tmp);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/a", tmp);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "%s/b", tmp);
	unlink(cmd);
	if (!ok1 || !ok2 || !ok3 || !ok4) {
		fprintf(stderr,
			"bench_import: Edison failed (import %d, topo "
			"%d, whatif %d, generated or results differ "
			"%d)\n",
			ok1, ok2, ok3, ok4);
		return 1;
	}
	printf("Edison (1440 routers, 5760 nodes): stopo import aries "
	       "%.2f s, stopo topo %.2f s, whatif 1,000 jobs ugal %.2f s "
	       "(import + topo + whatif %.2f s); generated %s whatif %.2f s: "
	       "%.2fx (target within 2x, under 30 s: %s), same results\n",
	       ti, tt, wi, ti + tt + wi, gen, wg, (ti + tt + wi) / wg,
	       (ti + tt + wi) <= 2 * wg && ti + tt + wi < 30 ? "met" :
							       "MISSED");
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
	if (edison(dir, swf, tmp))
		rc = 1;
	if (!rc && import_conf(ibnet, conf))
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
