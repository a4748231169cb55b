/* bench_peers.c - the UGAL-G LPs (Model 3, and Model 5 where asked) on
 * perm:1 solved three ways on the same template (ugal_tpl_build, built
 * from the structure): the certified first-order solver at 1 % and 0.1 %,
 * GLPK's simplex (exact; skipped above --glpk-max non-zeros, default
 * 100,000: it takes minutes beyond) and HiGHS (exact; scipy's linprog
 * through bench/highs_lp.py on the exported LP, when /usr/bin/python3 has
 * scipy: apt-get install python3-scipy; skipped above --highs-max,
 * default 1,000,000: 77 s on dfly(4,8,4,33)'s 594,003, not done in 15
 * minutes on dfly(5,10,5,51)'s 2.7 million here).  Prints per instance the LP size
 * and build time, then each solver's wall time, alpha or certified
 * interval, and its time relative to the 1 % solve; the first-order
 * intervals are checked against the exact alphas.  Run by `make bench`;
 * asserts nothing.
 *
 *   bench_peers [--glpk-max NNZ] [--highs-max NNZ] [--no-highs]
 *               [TOPOLOGY[/MODEL]...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "evaluator/models/ugal_tpl.h"
#include "evaluator/traffic/flows.h"
#include "topo/routing.h"
#include "topo/topo.h"

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_peers: %s: %s\n", what, msg);
	exit(1);
}

/* P in highs_lp.py's format into PATH. */
static void export_lp(const struct mcf_tpl *p, const char *path)
{
	FILE *f = fopen(path, "wb");
	uint32_t nnz = p->col_off[p->ngroups];
	uint32_t h[5] = { p->nlinks, p->nflows, p->ngroups, nnz, 0 };
	int ok;

	if (!f)
		die(path, "cannot create");
	ok = fwrite(h, sizeof(h), 1, f) == 1 &&
	     fwrite(p->cap, sizeof(double), p->nlinks, f) == p->nlinks &&
	     fwrite(p->demand, sizeof(double), p->nflows, f) == p->nflows &&
	     fwrite(p->mult, sizeof(double), p->ngroups, f) == p->ngroups &&
	     fwrite(p->flow_off, 4, p->nflows + 1, f) == p->nflows + 1 &&
	     fwrite(p->col_off, 4, p->ngroups + 1, f) == p->ngroups + 1 &&
	     fwrite(p->col_link, 4, nnz, f) == nnz &&
	     fwrite(p->col_cnt, sizeof(double), nnz, f) == nnz;
	if (fclose(f) || !ok)
		die(path, "write failed");
}

/* HiGHS on P: its alpha and linprog's time, or NAN when unavailable. */
static double highs(const struct mcf_tpl *p, const char *script, double *sec)
{
	char path[] = "/tmp/bench_peers.XXXXXX", cmd[4200], line[256];
	double a = NAN;
	int fd = mkstemp(path);
	FILE *f;

	*sec = NAN;
	if (fd < 0)
		die("mkstemp", "cannot create a temporary file");
	close(fd);
	export_lp(p, path);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' 2>&1", script,
		 path);
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f) &&
	    sscanf(line, "alpha %lf seconds %lf", &a, sec) != 2) {
		fprintf(stderr, "bench_peers: HiGHS: %s", line);
		a = NAN;
	}
	if (f)
		pclose(f);
	unlink(path);
	return a;
}

static int have_scipy(void)
{
	return system("/usr/bin/python3 -c 'import scipy.optimize' "
		      ">/dev/null 2>&1") == 0;
}

static void run(const char *arg, uint64_t glpk_max, uint64_t highs_max,
		const char *script, int use_highs)
{
	char topo[256];
	const char *slash = strchr(arg, '/');
	unsigned model = 3;
	struct err err = { 0 };
	struct topo *t;
	struct routing *r;
	struct flows f;
	struct ugal_tpl tp;
	struct mcf_tpl_opts o;
	struct mcf_tpl_result res;
	double t0, build, fast1 = 0, exact = NAN, sec;
	uint64_t nnz;

	snprintf(topo, sizeof(topo), "%.*s",
		 slash ? (int)(slash - arg) : (int)strlen(arg), arg);
	if (slash && sscanf(slash + 1, "ugal%u", &model) != 1)
		die(arg, "want TOPOLOGY or TOPOLOGY/ugalK");
	t = topo_create(topo, &err);
	r = t ? routing_create(t, "ugal", &err) : NULL;
	if (!r)
		die(topo, err.msg);
	flows_init(&f);
	if (flows_pattern("perm:1", NULL, topo_num_nodes(t), 1, &f, &err))
		die("perm:1", err.msg);
	t0 = bench_wall();
	if (ugal_tpl_build(r, &f, model, 0, &tp, &err))
		die(topo, err.msg);
	build = bench_wall() - t0;
	nnz = (uint64_t)tp.lp.col_off[tp.lp.ngroups] + tp.lp.ngroups +
	      tp.lp.nflows;
	printf("%s ugal%u perm:1: %u flows, %u groups, %llu LP non-zeros; "
	       "built in %.3f s\n",
	       topo, model, tp.lp.nflows, tp.lp.ngroups,
	       (unsigned long long)nnz, build);
	mcf_tpl_opts_init(&o);
	memset(&res, 0, sizeof(res));
	if (nnz <= glpk_max) {
		t0 = bench_wall();
		if (mcf_tpl_solve_glpk(&tp.lp, &o, &res, &err))
			die("GLPK", err.msg);
		sec = bench_wall() - t0;
		exact = res.alpha;
		printf("  glpk          %9.3f s  alpha %.10f\n", sec, exact);
	} else {
		printf("  glpk          skipped (over %llu non-zeros; "
		       "--glpk-max)\n",
		       (unsigned long long)glpk_max);
	}
	if (use_highs && nnz > highs_max) {
		printf("  highs         skipped (over %llu non-zeros; "
		       "--highs-max)\n",
		       (unsigned long long)highs_max);
	} else if (use_highs) {
		double a = highs(&tp.lp, script, &sec);

		if (!isnan(a)) {
			printf("  highs         %9.3f s  alpha %.10f\n", sec,
			       a);
			if (isnan(exact))
				exact = a;
		}
	}
	for (int k = 0; k < 2; k++) {
		o.gap = k ? 1e-3 : 1e-2;
		t0 = bench_wall();
		if (mcf_tpl_solve_fast(&tp.lp, &o, &res, &err))
			die("pdhg", err.msg);
		sec = bench_wall() - t0;
		if (!k)
			fast1 = sec;
		printf("  pdhg gap %-4g %9.3f s  [%.10f, %.10f]  %llu it%s\n",
		       o.gap, sec, res.lower, res.upper,
		       (unsigned long long)res.iterations,
		       isnan(exact) ? "" :
		       res.lower <= exact * (1 + 1e-9) &&
				       res.upper >= exact * (1 - 1e-9) ?
				      "  holds the optimum" :
				      "  MISSES THE OPTIMUM");
	}
	printf("  (1 %% solve: %.3f s)\n", fast1);
	ugal_tpl_free(&tp);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

int main(int argc, char **argv)
{
	static const char *const def[] = {
		"dragonfly:p=2,a=4,h=2,g=9",
		"dragonfly:p=3,a=6,h=3,g=19",
		"dragonfly:p=3,a=6,h=3,g=19/ugal5",
		"dragonfly:p=4,a=8,h=4,g=33",
		"dragonfly:p=4,a=8,h=4,g=33/ugal5",
		"dragonfly:p=5,a=10,h=5,g=51",
		NULL,
	};
	uint64_t glpk_max = 100000, highs_max = 1000000;
	int use_highs = 1, i = 1;
	char script[4096];
	const char *dir = getenv("BENCH_DIR");

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--glpk-max") && i + 1 < argc)
			glpk_max = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--highs-max") && i + 1 < argc)
			highs_max = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-highs"))
			use_highs = 0;
		else
			die(argv[i], "usage: bench_peers [--glpk-max NNZ] "
				     "[--highs-max NNZ] [--no-highs] "
				     "[TOPOLOGY[/ugalK]...]");
	}
	snprintf(script, sizeof(script), "%s/highs_lp.py", dir ? dir : "bench");
	if (use_highs && (access(script, R_OK) || !have_scipy())) {
		printf("HiGHS: skipped (needs %s and /usr/bin/python3 with "
		       "scipy: apt-get install python3-scipy)\n",
		       script);
		use_highs = 0;
	}
	if (i < argc)
		for (; i < argc; i++)
			run(argv[i], glpk_max, highs_max, script, use_highs);
	else
		for (const char *const *a = def; *a; a++)
			run(*a, glpk_max, highs_max, script, use_highs);
	return 0;
}
