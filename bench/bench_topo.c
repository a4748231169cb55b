/* bench_topo.c - `stopo topo` on paper 003's Table I machines
 * (fattree:k=22,n=3, dragonfly:p=7,a=15,h=8,g=106,
 * expressmesh:dims=12x10x10,gap=1,p=9; issue 2 asks < 2 s each on the
 * 2-core reference machine), plus the Cascade and a jellyfish of similar
 * size.  Times the library work (topo_create + topo_stats, best of 3) and
 * the whole command (./stopo topo --topo SPEC --json, run from the build
 * directory as `make bench` does; STOPO overrides the path).
 * Issue 13's sizes: statistics of 100,000-switch topologies (sampled or
 * exact by symmetry, "in seconds") and a 10,000-switch topo.conf graph
 * parsed (under a second).  Issue 17: 1,000-switch fat-trees and a
 * dragonfly given as Topology=graph, parsed and recognised.
 * Run by `make bench`; prints timings and exits 1 when the command takes
 * 2 s or more on a Table I machine. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"

extern char **environ;

/* Library time: create + stats, best of 3 (-1 on error). */
static double lib_time(const char *spec, struct topo_stats *st)
{
	double best = -1;

	for (int rep = 0; rep < 3; rep++) {
		struct err err = { 0 };
		double t0 = bench_wall();
		struct topo *t = topo_create(spec, &err);

		if (!t || topo_stats(t, st, &err)) {
			fprintf(stderr, "%s: %s\n", spec, err.msg);
			topo_destroy(t);
			return -1;
		}
		topo_destroy(t);
		t0 = bench_wall() - t0;
		if (best < 0 || t0 < best)
			best = t0;
	}
	return best;
}

/* Wall time of the command, output discarded (-1 on failure). */
static double cmd_time(const char *stopo, const char *spec)
{
	char *argv[] = { (char *)stopo, "topo",	  "--topo",
			 (char *)spec,	"--json", NULL };
	posix_spawn_file_actions_t fa;
	double t0 = bench_wall();
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
	if (posix_spawn(&pid, stopo, &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return bench_wall() - t0;
}

/* Parse a 10,000-switch graph (a ring with chords, 4 nodes a switch),
 * best of 3.  Returns 0, 1 on error. */
static int graph_parse(void)
{
	const unsigned S = 10000;
	size_t cap = (size_t)S * 64, len = 0;
	char *text = malloc(cap);
	double best = -1;

	if (!text)
		return 1;
	len += (size_t)snprintf(text, cap, "Topology=graph\n");
	for (unsigned i = 0; i < S; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"SwitchName=s%u Nodes=4 "
					"Links=s%u,s%u,s%u\n",
					i, (i + 1) % S, (i + 7) % S,
					(i + 101) % S);
	for (int rep = 0; rep < 3; rep++) {
		struct err err = { 0 };
		double t0 = bench_wall();
		struct topo_conf *c = topo_conf_parse("ring.conf", text, &err);

		t0 = bench_wall() - t0;
		if (!c) {
			fprintf(stderr, "%s\n", err.msg);
			free(text);
			return 1;
		}
		topo_conf_destroy(c);
		if (best < 0 || t0 < best)
			best = t0;
	}
	printf("topo.conf graph, %u switches, %zu bytes: parsed in %.3f s "
	       "(issue 13: < 1 s)\n",
	       S, len, best);
	free(text);
	return 0;
}

/* SPEC written out as Topology=graph text (open_memstream), parsed and
 * recognised, best of 3 (issue 17: a 1,000-switch fabric well under
 * 1 s).  Returns 0, 1 on error. */
static int recog_parse(const char *spec)
{
	struct err err = { 0 };
	struct topo *g = topo_create(spec, &err);
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	double best = -1;
	const char *fam = NULL;

	if (!g || !(f = open_memstream(&text, &len))) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		topo_destroy(g);
		return 1;
	}
	fprintf(f, "Topology=graph\n");
	for (uint32_t s = 0; s < topo_num_switches(g); s++) {
		uint32_t cnt, first = topo_switch_out(g, s, &cnt), nn;
		const char *sep = " Links=";

		topo_switch_nodes(g, s, &nn);
		fprintf(f, "SwitchName=s%u Nodes=%u", s, nn);
		for (uint32_t i = 0; i < cnt; i++)
			if (topo_link(g, first + i)->to > s) {
				fprintf(f, "%ss%u", sep,
					topo_link(g, first + i)->to);
				sep = ",";
			}
		fprintf(f, "\n");
	}
	fclose(f);
	for (int rep = 0; rep < 3; rep++) {
		double t0 = bench_wall();
		struct topo_conf *c =
			topo_conf_parse("fabric.conf", text, &err);

		t0 = bench_wall() - t0;
		if (!c) {
			fprintf(stderr, "%s\n", err.msg);
			free(text);
			topo_destroy(g);
			return 1;
		}
		fam = topo_graph_family(topo_conf_topo(c));
		topo_conf_destroy(c);
		if (best < 0 || t0 < best)
			best = t0;
	}
	printf("topo.conf graph of %s, %u switches: parsed and recognised "
	       "(%s) in %.3f s (issue 17: well under 1 s)\n",
	       spec, topo_num_switches(g), fam ? fam : "not recognised", best);
	free(text);
	topo_destroy(g);
	return !fam;
}

int main(void)
{
	static const struct {
		const char *spec;
		int table1;
	} cases[] = {
		{ "fattree:k=22,n=3", 1 },
		{ "dragonfly:p=7,a=15,h=8,g=106", 1 },
		{ "expressmesh:dims=12x10x10,gap=1,p=9", 1 },
		{ "cascade:groups=28", 0 },
		{ "jellyfish:n=1200,r=38,p=9,seed=1", 0 },
		{ "jellyfish:n=100000,r=12,p=2,seed=1", 0 },
		{ "torus:dims=300x300", 0 },
		{ "fattree:k=8,n=6", 0 },
		{ "expressmesh:dims=200x200,gap=2", 0 },
	};
	const char *stopo = getenv("STOPO") ? getenv("STOPO") : "./stopo";
	int slow = 0;

	printf("%-38s %7s %7s %9s %9s %8s %s\n", "spec", "nodes", "radix",
	       "lib (s)", "stopo (s)", "diameter", "distances");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topo_stats st;
		struct err err = { 0 };
		struct topo *t = topo_create(cases[i].spec, &err);
		double lt = lib_time(cases[i].spec, &st);
		double ct = access(stopo, X_OK) ?
				    -1 :
				    cmd_time(stopo, cases[i].spec);

		if (!t || lt < 0)
			return 1;
		printf("%-38s %7u %3u-%-3u %9.3f %9.3f %8u %s (%u sources)%s\n",
		       cases[i].spec, topo_num_nodes(t), st.radix_min,
		       st.radix_max, lt, ct, st.diameter,
		       topo_stats_method_name(st.method), st.sources,
		       cases[i].table1 && (ct >= 2 || lt >= 2) ? "  OVER 2 s" :
								 "");
		if (cases[i].table1 && (ct >= 2 || lt >= 2))
			slow = 1;
		topo_destroy(t);
	}
	return slow | graph_parse() | recog_parse("fattree:k=18,n=3") |
	       recog_parse("fattree:k=6,n=5") |
	       recog_parse("dragonfly:p=8,a=16,h=8,g=64");
}
