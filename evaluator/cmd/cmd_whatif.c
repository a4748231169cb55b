/* cmd_whatif.c - stopo whatif: simulate a workload under one or more
 * allocation policies and compare them side by side. */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/models/model.h"
#include "evaluator/traffic/flows.h"
#include "evaluator/sim/whatif.h"
#include "evaluator/sim/workload.h"
#include "evaluator/cmd/svg_whatif.h"
#include "policies/machine/machine.h"
#include "policies/policy.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/util/par.h"

#define CMD "whatif"
#define MAX_POLICIES 16
#define MAX_THREADS 1024u /* --threads */
#define MAX_SWEEP 1000u	  /* values of a sweep LO:HI:STEP */

enum {
	OPT_SKIP = CLI_LONG_ONLY,
	OPT_NORATES,
	OPT_PATTERN,
	OPT_BFDEPTH,
	OPT_MODEL,
	OPT_PROGRESS,
	OPT_THREADS,
	OPT_GAIN,
	OPT_FRAC,
	OPT_ARRAY,
	OPT_MERGE,
	OPT_CELL,
	OPT_SVG,
	OPT_HTML
};

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "family:key=value,... or a topo.conf path" },
	{ .id = 'r',
	  .name = "routing",
	  .arg = "R",
	  .help = "routing (default: the family's, or Routing=)" },
	{ .id = 'w',
	  .name = "workload",
	  .arg = "FILE",
	  .help = "SWF, CSV, JSON job list or squeue --json ('-'\n"
		  "= stdin)" },
	{ .id = 'p',
	  .name = "policy",
	  .arg = "P[,P...]",
	  .help = "policies to compare (name[:key=value,...]; default:\n"
		  "the topo.conf's DefaultPolicy=, else the topology\n"
		  "family's default policy)" },
	{ .id = 'c',
	  .name = "cores-per-node",
	  .arg = "N",
	  .help = "SWF processors per node (default 1; 'host':\n"
		  "the cores of this machine, from hwloc)" },
	{ .id = 's',
	  .name = "scale",
	  .arg = "F|auto",
	  .help = "multiply job sizes by F, each rounded down or up\n"
		  "so that the node-seconds offered are F times the\n"
		  "workload's (printed); auto = topology nodes / the\n"
		  "workload's MaxNodes" },
	{ .id = 'n',
	  .name = "limit-jobs",
	  .arg = "N",
	  .help = "only the first N jobs" },
	{ .id = 'S',
	  .name = "seed",
	  .arg = "S",
	  .help = "seed of random policies and patterns (1)" },
	{ .id = OPT_SKIP,
	  .name = "skip-bad",
	  .help = "skip bad records (counted) instead of failing" },
	{ .id = OPT_NORATES,
	  .name = "no-rates",
	  .help = "do not predict communication rates (faster)" },
	{ .id = OPT_PATTERN,
	  .name = "pattern",
	  .arg = "P",
	  .help = "traffic of jobs without a pattern, for rates\n"
		  "(default " WHATIF_DEFAULT_PATTERN ")" },
	{ .id = OPT_MODEL,
	  .name = "model",
	  .arg = "M",
	  .help = "throughput model of the rates (default jm; hm:\n"
		  "Hoefler's, counts kept current, the fastest; nne:\n"
		  "paper 004's bound, a grid job's own)" },
	{ .id = OPT_GAIN,
	  .name = "isolation-gain",
	  .arg = "G|LO:HI:STEP",
	  .help = "run times hold interference: a job runs 1+G\n"
		  "times faster while it shares no link (0: as\n"
		  "traced); a sweep LO:HI:STEP gives the G from\n"
		  "which each isolating policy beats each baseline" },
	{ .id = OPT_FRAC,
	  .name = "comm-fraction",
	  .arg = "F|LO:HI:STEP",
	  .help = "run times are times alone: a fraction F (0 to 1;\n"
		  "a job's own where the workload gives one) is\n"
		  "communication, slowed by the model's rate now over\n"
		  "its rate alone; a job reaching its limit is killed;\n"
		  "a sweep as for --isolation-gain" },
	{ .id = OPT_BFDEPTH,
	  .name = "bf-depth",
	  .arg = "N",
	  .help = "jobs tried for backfill per pass (500)" },
	{ .id = 'o',
	  .name = "jobs-out",
	  .arg = "FILE",
	  .help = "per-job CSV: policy,id,submit,start,end,nodes,\n"
		  "isolated (claimed at start),ran_isolated,rate,why\n"
		  "(with a run-time model also stretch,killed)" },
	{ .id = OPT_PROGRESS,
	  .name = "progress",
	  .arg = "S",
	  .help = "seconds between progress lines on stderr (5; 0:\n"
		  "after every job placed)" },
	{ .id = OPT_THREADS,
	  .name = "threads",
	  .arg = "N",
	  .help = "threads (default: the CPUs this may run on): one per\n"
		  "policy simulated at once; the rest share their\n"
		  "predicted rates (dragonfly, Cascade)" },
	{ .id = OPT_ARRAY,
	  .name = "array",
	  .arg = "DIR",
	  .help = "write the run as a Slurm job array into DIR (one\n"
		  "cell, a value and a policy, per task: an sbatch\n"
		  "script and copies of the inputs); sbatch it, then\n"
		  "--merge DIR" },
	{ .id = OPT_MERGE,
	  .name = "merge",
	  .arg = "DIR",
	  .help = "print the run --array wrote into DIR from its\n"
		  "cells, as the run itself prints it" },
	{ .id = OPT_CELL,
	  .name = "cell",
	  .arg = "K",
	  .help = "with --array DIR: run cell K of DIR's run into\n"
		  "DIR/cells (what its array tasks do)" },
	{ .id = OPT_SVG,
	  .name = "svg",
	  .arg = "FILE",
	  .help = "charts of the policies into FILE (SVG): utilisation,\n"
		  "MLS, TLS over time, CDFs of waits and turnarounds;\n"
		  "with a sweep, turnaround and throughput against it" },
	{ .id = OPT_HTML,
	  .name = "html",
	  .arg = "FILE",
	  .help = "the charts and a table of the outcomes (HTML)" },
	{ .id = 'q', .name = "quiet", .help = "no progress on stderr" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "whatif",
	.synopsis = "--topo SPEC [--routing R] --workload FILE\n"
		    "[--policy P[,P...]] [options]",
	.about =
		"Dry-run a job queue: FCFS + EASY backfill (Slurm's default, using each\n"
		"job's time limit), every job placed by the policy; compare policies\n"
		"side by side (utilisation, makespan, wait, bounded slowdown, isolated\n"
		"jobs, MLS/TLS over time, predicted communication rates).  With\n"
		"--isolation-gain or --comm-fraction run times move with interference\n"
		"(turnaround, throughput, stretch, killed jobs; a sweep gives each\n"
		"isolating policy's break-even); --array runs a sweep on Slurm.",
	.opts = options,
};

/* One policy of --policy: as given (its column's label) and as run
 * (random gets --seed). */
struct policy_arg {
	char label[256];
	char spec[300];
};

/* A value or a sweep LO:HI:STEP of a run-time model's parameter:
 * values LO + k STEP, k < N. */
struct sweep {
	const char *arg; /* as given, NULL: not given */
	double lo, step;
	uint32_t n;
};

static double sweep_at(const struct sweep *w, uint32_t k)
{
	return w->lo + (double)k * w->step;
}

/* What `stopo whatif` is asked. */
struct cmd_whatif_args {
	const char *spec, *routing; /* --topo, --routing (NULL: default) */
	const char *workload;	    /* --workload FILE ("-" = stdin) */
	const char *wl_name;	    /* it as reports name it (--array's
				     * cells read a copy) */
	const char *policies;	    /* --policy as given */
	bool policy_given;	    /* --policy given (else the topo.conf's
				     * DefaultPolicy=, or the family's) */
	const char *scale;	    /* --scale as given (run checks it) */
	const char *jobs_out;	    /* --jobs-out FILE ("-" = stdout) */
	const char *svg, *html;	    /* --svg FILE, --html FILE */
	FILE *jobs_f;		    /* it, opened before the run */
	uint32_t limit;		    /* --limit-jobs (0 = all) */
	uint32_t every;		    /* --progress seconds */
	uint32_t threads;	    /* --threads (0 = par_cpus()) */
	bool cores_given;	    /* --cores-per-node given */
	const char *array, *merge;  /* --array DIR, --merge DIR */
	const char *cell;	    /* --cell K as given */
	uint32_t cell_k;
	/* a run of --array DIR: the copies of its inputs read */
	char wl_copy[4096], conf_copy[4096];
	bool json, quiet;
	struct sweep gain;	/* --isolation-gain */
	struct sweep frac;	/* --comm-fraction */
	const struct sweep *sw; /* the one given, or NULL */
	uint32_t nval;		/* values of the sweep (1: none) */
	struct wl_opts wl;	/* run sets the machine */
	struct whatif_opts sim; /* run sets the progress callback */
	struct policy_arg pol[MAX_POLICIES]; /* [npol] */
	int npol;
};

/* What it found: the workload and one simulation per cell, a value of
 * the sweep and a policy (the simulator's struct whatif_result). */
struct cmd_whatif_result {
	struct machine *m;
	struct workload w;
	/* --scale: the factor and what the node-seconds offered got */
	double scale_factor, scale_realised;
	/* [nres]: cell v * npol + p, value v of the sweep (one when none),
	 * policy p in --policy order */
	struct whatif_result *res;
	int nres;
};

/* Seconds between progress lines (--progress). */
#define PROGRESS_EVERY_S 5

struct progress {
	const char *policy;
	bool on;
	double every;	  /* seconds between lines */
	double t0, last;  /* wall clock at the start, at the last line */
	const char *what; /* what is counted ("jobs", "rates") */
	double w0;	  /* since when (the estimate's start) */
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A line every --progress seconds of a long run, whatever the
 * workload's size (predicted rates on a large dragonfly take seconds per
 * job): jobs placed (or, when the rates are computed after the
 * simulation, rates done), time so far, and the time left at the pace of
 * that count so far.  The last one's line is left to "done in". */
static void progress(void *arg, uint32_t done, uint32_t total, const char *what)
{
	struct progress *p = arg;
	double now = wall_now(), el;

	if (!p->what || strcmp(p->what, what)) { /* a new count */
		p->what = what;
		p->w0 = now;
	}
	el = now - p->w0;
	if (!p->on || now - p->last < p->every || !done || done >= total)
		return;
	p->last = now;
	fprintf(stderr,
		"stopo whatif: %s: %u/%u %s after %.0f s (about %.0f s "
		"left)\n",
		p->policy, done, total, what, now - p->t0,
		el * (total - done) / done);
}

/* Split "a:k=v,k=v,b" into policies: a comma token with '=' and no ':'
 * continues the previous policy's options. */
static int split_policies(const char *list, struct policy_arg *pol, int max)
{
	int n = 0;
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		char tok[sizeof(pol[0].label)];

		if (!len || len >= sizeof(tok))
			return -2; /* "a,,b", "a,", ",a", or too long */
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (n && strchr(tok, '=') && !strchr(tok, ':')) {
			size_t l = strlen(pol[n - 1].label);

			if (l + 1 + len >= sizeof(pol[0].label))
				return -2;
			pol[n - 1].label[l] = ',';
			memcpy(pol[n - 1].label + l + 1, tok, len + 1);
		} else {
			if (n == max)
				return -1;
			memcpy(pol[n].label, tok, len + 1);
			n++;
		}
		if (!p[len])
			return n;
		p += len + 1;
	}
}

/* "random" without a seed gets --seed. */
static void seeded(const char *p, uint64_t seed, char *out, size_t len)
{
	if (!strncmp(p, "random", 6) && (p[6] == '\0' || p[6] == ':') &&
	    !strstr(p, "seed="))
		snprintf(out, len, "%s%sseed=%llu", p, p[6] ? "," : ":",
			 (unsigned long long)seed);
	else
		snprintf(out, len, "%s", p);
}

/* The simulated jobs' sizes of W times F: each job gets the whole
 * number of nodes next below or above its size times F (at least one),
 * the one that keeps the node-seconds offered so far (sizes times trace
 * run times, in workload order) nearest F times the workload's; a job
 * of run time 0 the nearest.  So the whole workload offers F times its
 * node-seconds up to a job's rounding, where rounding every size up
 * offered far more (1-node jobs at F = 1.015 became 2-node jobs).
 * Returns the factor realised on node-seconds (F when there are none). */
static double scale_sizes(struct workload *w, double f)
{
	double err = 0, got = 0, had = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		struct wl_job *j = &w->jobs[i];
		double x = (double)j->nodes * f, rt = (double)j->runtime;
		double lo = floor(x), m;

		if (j->running)
			continue;
		if (rt > 0)
			m = x + err / rt < lo + 0.5 ? lo : lo + 1;
		else
			m = floor(x + 0.5);
		if (x - lo < 1e-9) /* a whole size stays */
			m = lo;
		if (m < 1)
			m = 1;
		/* beyond 32 bits (a job far above MaxNodes): the most a
		 * count holds, dropped as larger than the machine like the
		 * job it stands for */
		if (m > UINT32_MAX)
			m = UINT32_MAX;
		err += (x - m) * rt;
		got += m * rt;
		had += (double)j->nodes * rt;
		j->nodes = (uint32_t)m;
	}
	return had > 0 ? got / had : f;
}

/* --scale SCALE (a factor, or auto: NODES over the workload's MaxNodes,
 * else its largest job) on W: *FACTOR the factor, *REALISED what the
 * node-seconds got (scale_sizes).  Returns 0, or -1 for a bad SCALE. */
static int scale_jobs(struct workload *w, const char *scale, uint32_t nodes,
		      double *factor, double *realised)
{
	uint32_t maxn = w->max_nodes;
	double f;
	char *end;

	if (!strcmp(scale, "auto")) {
		if (!maxn)
			for (uint32_t i = 0; i < w->n; i++)
				if (w->jobs[i].nodes > maxn)
					maxn = w->jobs[i].nodes;
		f = maxn ? (double)nodes / maxn : 1;
	} else {
		f = strtod(scale, &end);
		if (*end || !(f > 0) || f > 1e6)
			return -1;
	}
	*factor = f;
	*realised = scale_sizes(w, f);
	return 0;
}

static struct json_object *jdouble(double v)
{
	return json_object_new_double(v);
}

/* What a run-time model changes, into O. */
static void outcomes_json(struct json_object *o, const struct whatif_result *r)
{
	bool any = r->started - r->snapshot_running > 0;

	json_object_object_add(o, "mean_turnaround",
			       any ? jdouble(r->mean_turnaround) : NULL);
	json_object_object_add(o, "p95_turnaround",
			       any ? jdouble(r->p95_turnaround) : NULL);
	json_object_object_add(o, "jobs_per_day", jdouble(r->jobs_per_day));
	json_object_object_add(o, "nodeh_per_day", jdouble(r->nodeh_per_day));
	json_object_object_add(o, "mean_stretch",
			       any ? jdouble(r->mean_stretch) : NULL);
	json_object_object_add(o, "max_stretch",
			       any ? jdouble(r->max_stretch) : NULL);
	json_object_object_add(o, "killed", json_object_new_int64(r->killed));
	json_object_object_add(o, "lost_nodeh", jdouble(r->lost_nodeh));
}

/* R as one policy's object; with OUTCOMES what a run-time model
 * changes (always in a sweep, whose first value may be 0). */
static struct json_object *policy_json(const struct whatif_result *r,
				       const char *label, bool outcomes)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "policy", json_object_new_string(label));
	json_object_object_add(o, "spec", json_object_new_string(r->policy));
	json_object_object_add(o, "jobs", json_object_new_int64(r->njobs));
	json_object_object_add(o, "started", json_object_new_int64(r->started));
	json_object_object_add(o, "dropped", json_object_new_int64(r->dropped));
	json_object_object_add(o, "utilization", jdouble(r->utilization));
	json_object_object_add(o, "makespan", jdouble(r->makespan));
	/* means over the started jobs: none when no job started */
	json_object_object_add(o, "mean_wait",
			       r->started ? jdouble(r->mean_wait) : NULL);
	json_object_object_add(o, "mean_bsld",
			       r->started ? jdouble(r->mean_bsld) : NULL);
	json_object_object_add(o, "isolated_jobs",
			       json_object_new_int64(r->isolated_jobs));
	json_object_object_add(o, "isolation_violations",
			       json_object_new_int64(r->violations));
	json_object_object_add(o, "isolated_later_shared",
			       json_object_new_int64(r->later_shared));
	json_object_object_add(o, "backfilled",
			       json_object_new_int64(r->backfilled));
	json_object_object_add(o, "mls_max", jdouble(r->mls_max));
	json_object_object_add(o, "tls_max", jdouble(r->tls_max));
	json_object_object_add(o, "mls_mean", jdouble(r->mls_mean));
	json_object_object_add(o, "tls_mean", jdouble(r->tls_mean));
	json_object_object_add(o, "rate_sum",
			       r->rates ? jdouble(r->rate_sum) : NULL);
	json_object_object_add(o, "rate_mean",
			       r->rates && r->started ? jdouble(r->rate_mean) :
							NULL);
	if (outcomes)
		outcomes_json(o, r);
	json_object_object_add(o, "seconds", jdouble(r->seconds));
	return o;
}

/* Column width: the longest policy as given. */
static int width(const struct policy_arg *pol, int n)
{
	int w = 12;

	for (int i = 0; i < n; i++)
		if ((int)strlen(pol[i].label) > w)
			w = (int)strlen(pol[i].label);
	return w;
}

static void row(const char *label, const struct whatif_result *res, int n,
		int w, int prec, double (*get)(const struct whatif_result *))
{
	printf("%-24s", label);
	for (int i = 0; i < n; i++) {
		char cell[64];
		double v = get(&res[i]);

		if (isnan(v)) /* a mean over no job */
			snprintf(cell, sizeof(cell), "n/a");
		else
			snprintf(cell, sizeof(cell), "%.*f", prec, v);
		printf("  %*s", w, cell);
	}
	putchar('\n');
}

#define GETTER(name, expr)                                \
	static double name(const struct whatif_result *r) \
	{                                                 \
		return (expr);                            \
	}
GETTER(g_started, r->started)
GETTER(g_dropped, r->dropped)
GETTER(g_backfilled, r->backfilled)
GETTER(g_util, r->utilization * 100)
GETTER(g_makespan, r->makespan)
GETTER(g_wait, r->started ? r->mean_wait : NAN)
GETTER(g_bsld, r->started ? r->mean_bsld : NAN)
GETTER(g_iso, r->isolated_jobs)
GETTER(g_viol, r->violations)
GETTER(g_later, r->later_shared)
GETTER(g_mlsmax, r->mls_max)
GETTER(g_mlsmean, r->mls_mean)
GETTER(g_tlsmax, r->tls_max)
GETTER(g_tlsmean, r->tls_mean)
GETTER(g_ratesum, r->rate_sum)
GETTER(g_ratemean, r->started ? r->rate_mean : NAN)
GETTER(g_ta, r->started > r->snapshot_running ? r->mean_turnaround : NAN)
GETTER(g_ta95, r->started > r->snapshot_running ? r->p95_turnaround : NAN)
GETTER(g_jobsday, r->jobs_per_day)
GETTER(g_nodehday, r->nodeh_per_day)
GETTER(g_stretch, r->started > r->snapshot_running ? r->mean_stretch : NAN)
GETTER(g_maxstretch, r->started > r->snapshot_running ? r->max_stretch : NAN)
GETTER(g_killed, r->killed)
GETTER(g_lost, r->lost_nodeh)

/* The rows a run-time model adds (and a sweep shows per value). */
static const struct outcome_row {
	const char *label;
	int prec;
	double (*get)(const struct whatif_result *);
} outcome_rows[] = {
	{ "mean turnaround s", 1, g_ta },
	{ "95th pct turnaround s", 1, g_ta95 },
	{ "throughput jobs/day", 2, g_jobsday },
	{ "throughput node-h/day", 1, g_nodehday },
	{ "mean stretch", 4, g_stretch },
	{ "max stretch", 4, g_maxstretch },
	{ "jobs killed at limit", 0, g_killed },
	{ "work lost node-h", 2, g_lost },
};

static void print_table(const struct whatif_result *res, int n,
			const struct policy_arg *pol)
{
	int w = width(pol, n);

	printf("%-24s", "policy");
	for (int i = 0; i < n; i++)
		printf("  %*s", w, pol[i].label);
	putchar('\n');
	row("jobs started", res, n, w, 0, g_started);
	row("jobs dropped (never)", res, n, w, 0, g_dropped);
	row("jobs backfilled", res, n, w, 0, g_backfilled);
	row("utilization %", res, n, w, 2, g_util);
	row("makespan s", res, n, w, 0, g_makespan);
	row("mean wait s", res, n, w, 1, g_wait);
	row("mean bounded slowdown", res, n, w, 2, g_bsld);
	row("jobs run isolated", res, n, w, 0, g_iso);
	row("isolation violations", res, n, w, 0, g_viol);
	row("isolated, later shared", res, n, w, 0, g_later);
	row("MLS max %", res, n, w, 2, g_mlsmax);
	row("MLS time-avg %", res, n, w, 2, g_mlsmean);
	row("TLS max %", res, n, w, 2, g_tlsmax);
	row("TLS time-avg %", res, n, w, 2, g_tlsmean);
	if (res[0].rates) {
		row("comm. rate sum", res, n, w, 3, g_ratesum);
		row("comm. rate per job", res, n, w, 4, g_ratemean);
	}
	if (res[0].runtime_model)
		for (size_t k = 0;
		     k < sizeof(outcome_rows) / sizeof(outcome_rows[0]); k++)
			row(outcome_rows[k].label, res, n, w,
			    outcome_rows[k].prec, outcome_rows[k].get);
}

/* S in double quotes, a quote doubled. */
static void csv_escaped(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The last field of a row, then the newline: nothing when S is empty,
 * else S quoted. */
static void csv_quoted(FILE *f, const char *s)
{
	if (*s)
		csv_escaped(f, s);
	fputc('\n', f);
}

/* The field S (quoted, nothing when empty), then TAIL and the
 * newline. */
static void csv_last(FILE *f, const char *s, const char *tail)
{
	if (*s)
		csv_escaped(f, s);
	fputs(tail, f);
	fputc('\n', f);
}

/* S as a CSV field: as it is, or quoted when it holds a comma, a quote
 * or a line break (a policy label with several options). */
static void csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n"))
		csv_escaped(f, s);
	else
		fputs(s, f);
}

/* The rows of R's jobs, each starting with PREFIX (the sweep's value
 * and a comma, or ""), then LABEL; with MODEL the stretch and killed
 * columns after why. */
static int write_jobs(FILE *f, const struct whatif_result *r,
		      const char *prefix, const char *label, bool model)
{
	for (uint32_t i = 0; i < r->njob_out; i++) {
		const struct whatif_job *j = &r->jobs[i];
		char *ranges;

		fputs(prefix, f);
		csv_field(f, label);
		if (j->dropped) {
			fprintf(f, ",%u,%lld,,,,,,,", j->id,
				(long long)j->submit);
			csv_last(f, j->reason, model ? ",," : "");
			continue;
		}
		ranges = cli_format_ranges(j->nodes, j->n);
		if (!ranges)
			return -1;
		fprintf(f, ",%u,%lld,%lld,%lld,\"%s\",%s,%s,", j->id,
			(long long)j->submit, (long long)j->start,
			(long long)j->end, ranges,
			j->claimed_isolated ? "yes" : "no",
			j->ran_isolated ? "yes" : "no");
		if (r->rates)
			fprintf(f, "%.12g", j->rate);
		fputc(',', f);
		if (model) {
			char tail[64];

			snprintf(tail, sizeof(tail), ",%.6g,%s", j->stretch,
				 j->killed ? "yes" : "no");
			csv_last(f, j->reason, tail);
		} else {
			csv_quoted(f, j->reason);
		}
		free(ranges);
	}
	return 0;
}

/* --isolation-gain ARG (OPT, values from 0 to MAX): a value, or
 * LO:HI:STEP (LO <= HI, STEP > 0, at most MAX_SWEEP values).  CLI_GO,
 * or the exit status. */
static int parse_sweep(const char *opt, const char *arg, double max,
		       struct sweep *w)
{
	double v[3];
	int n = 0;
	const char *p = arg;

	for (;;) {
		char *end;

		errno = 0;
		v[n++] = strtod(p, &end);
		if (end == p || errno || !isfinite(v[n - 1]) ||
		    (*end && *end != ':') || (*end == ':' && n == 3))
			return cli_error(CMD, CLI_USAGE,
					 "--%s '%s': want a number or "
					 "LO:HI:STEP",
					 opt, arg);
		if (!*end)
			break;
		p = end + 1;
	}
	if (n == 2)
		return cli_error(CMD, CLI_USAGE,
				 "--%s '%s': a sweep is LO:HI:STEP", opt, arg);
	for (int k = 0; k < n; k++)
		if (v[k] < 0 || v[k] > max)
			return cli_error(CMD, CLI_USAGE,
					 "--%s '%s': want values from 0 to %g",
					 opt, arg, max);
	w->arg = arg;
	w->lo = v[0];
	w->step = 0;
	w->n = 1;
	if (n == 1)
		return CLI_GO;
	if (!(v[2] > 0) || v[1] < v[0])
		return cli_error(CMD, CLI_USAGE,
				 "--%s '%s': want LO <= HI and a STEP above 0",
				 opt, arg);
	if ((v[1] - v[0]) / v[2] >= MAX_SWEEP - 1 + 1e-9)
		return cli_error(CMD, CLI_USAGE,
				 "--%s '%s': more than %u values; take a "
				 "larger STEP",
				 opt, arg, MAX_SWEEP);
	w->step = v[2];
	/* HI itself when the steps meet it, up to rounding */
	w->n = (uint32_t)floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
	return CLI_GO;
}

/* --cores-per-node: N, or 'host' for this machine's cores (hwloc).
 * CLI_GO, or the exit status. */
static int parse_cores(const char *arg, uint32_t *out)
{
	if (!strcmp(arg, "host")) {
		struct err herr = { 0 };

		if (cli_host_cores(out, &herr))
			return cli_error(CMD, CLI_FAIL, "%s", herr.msg);
	} else if (cli_parse_u32(CMD, "--cores-per-node", arg, out)) {
		return CLI_USAGE;
	}
	if (!*out)
		return cli_error(CMD, CLI_USAGE,
				 "--cores-per-node must be positive");
	return CLI_GO;
}

/* Option C (argument ARG) into A.  CLI_GO, or the exit status. */
static int set_opt(struct cmd_whatif_args *a, int c, const char *arg)
{
	switch (c) {
	case 't':
		a->spec = arg;
		break;
	case 'r':
		a->routing = arg;
		break;
	case 'w':
		a->workload = arg;
		break;
	case 'p':
		a->policies = arg;
		break;
	case 'c':
		a->cores_given = true;
		return parse_cores(arg, &a->wl.cores_per_node);
	case 's':
		a->scale = arg;
		break;
	case 'n':
		if (cli_parse_u32(CMD, "--limit-jobs", arg, &a->limit))
			return CLI_USAGE;
		if (!a->limit)
			return cli_error(CMD, CLI_USAGE,
					 "--limit-jobs 0: want 1 or more jobs");
		break;
	case OPT_SVG:
		a->svg = arg;
		break;
	case OPT_HTML:
		a->html = arg;
		break;
	case 'S':
		if (cli_parse_u64(CMD, "--seed", arg, &a->sim.seed))
			return CLI_USAGE;
		break;
	case OPT_SKIP:
		a->wl.skip_bad = true;
		break;
	case OPT_NORATES:
		a->sim.rates = false;
		break;
	case OPT_PATTERN: {
		struct err perr = { 0 };

		if (flows_pattern_check(arg, &perr))
			return cli_error(CMD, cli_status(&perr, CLI_USAGE),
					 "--pattern: %s", perr.msg);
		a->sim.pattern = arg;
		break;
	}
	case OPT_MODEL:
		a->sim.model = arg;
		break;
	case OPT_BFDEPTH:
		if (cli_parse_u32(CMD, "--bf-depth", arg, &a->sim.bf_depth))
			return CLI_USAGE;
		break;
	case OPT_GAIN:
		return parse_sweep("isolation-gain", arg, 1e6, &a->gain);
	case OPT_ARRAY:
		a->array = arg;
		break;
	case OPT_MERGE:
		a->merge = arg;
		break;
	case OPT_CELL:
		a->cell = arg;
		return cli_parse_u32(CMD, "--cell", arg, &a->cell_k) ?
			       CLI_USAGE :
			       CLI_GO;
	case OPT_FRAC:
		return parse_sweep("comm-fraction", arg, 1, &a->frac);
	case 'o':
		a->jobs_out = arg;
		break;
	case OPT_PROGRESS:
		if (cli_parse_u32(CMD, "--progress", arg, &a->every))
			return CLI_USAGE;
		break;
	case OPT_THREADS:
		if (cli_parse_u32(CMD, "--threads", arg, &a->threads))
			return CLI_USAGE;
		if (!a->threads)
			return cli_error(CMD, CLI_USAGE,
					 "--threads must be positive");
		if (a->threads > MAX_THREADS)
			return cli_error(CMD, CLI_USAGE,
					 "--threads %u: at most %u", a->threads,
					 MAX_THREADS);
		break;
	case 'q':
		a->quiet = true;
		break;
	case 'j':
		a->json = true;
		break;
	default:
		return cli_opt_end(&cli, c);
	}
	return CLI_GO;
}

/* argv -> A.  CLI_GO, or the exit status (a usage error, --help). */
static int parse(int argc, char **argv, struct cmd_whatif_args *a)
{
	const char *arg;
	int c, rc, nopts = 0;

	memset(a, 0, sizeof(*a));
	wl_opts_init(&a->wl);
	whatif_opts_init(&a->sim);
	a->sim.rates = true;
	a->sim.seed = 1;
	a->every = PROGRESS_EVERY_S;
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		rc = set_opt(a, c, arg);
		if (rc != CLI_GO)
			return rc;
		nopts++;
	}
	if (optind < argc)
		return cli_error(CMD, CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (a->cell && !a->array)
		return cli_error(CMD, CLI_USAGE,
				 "--cell K runs a cell of a sweep written by "
				 "--array DIR: give --array DIR");
	if (a->merge || a->cell) /* the run's options come from DIR */
		return nopts == 1 + !!a->cell ?
			       CLI_GO :
			       cli_error(CMD, CLI_USAGE,
					 "%s takes the options --array wrote "
					 "into DIR: give no other",
					 a->merge ? "--merge DIR" :
						    "--array DIR --cell K");
	if (!a->spec || !a->workload)
		return cli_error(CMD, CLI_USAGE, "%s required (see --help)",
				 !a->spec && !a->workload ?
					 "--topo and --workload are" :
				 !a->spec ? "--topo is" :
					    "--workload is");
	if (a->json && a->jobs_out && !strcmp(a->jobs_out, "-"))
		return cli_error(CMD, CLI_USAGE,
				 "--json prints to stdout: give --jobs-out a "
				 "file");
	a->policy_given = a->policies != NULL;
	if (!a->policies)
		a->policies = "default";
	a->npol = split_policies(a->policies, a->pol, MAX_POLICIES);
	if (a->npol == -2)
		return cli_error(CMD, CLI_USAGE,
				 "--policy %s: an empty policy between commas, "
				 "or one longer than %zu characters",
				 a->policies, sizeof(a->pol[0].label) - 1);
	if (a->npol <= 0)
		return cli_error(CMD, CLI_USAGE,
				 "--policy: give 1 to %d policies",
				 MAX_POLICIES);
	for (int i = 0; i < a->npol; i++)
		seeded(a->pol[i].label, a->sim.seed, a->pol[i].spec,
		       sizeof(a->pol[i].spec));
	if (a->gain.arg && a->frac.arg)
		return cli_error(CMD, CLI_USAGE,
				 "--isolation-gain and --comm-fraction read "
				 "the trace's run times two ways (with the "
				 "interference of the traced machine, or "
				 "alone): give one");
	if (a->frac.arg && !a->sim.rates)
		return cli_error(CMD, CLI_USAGE,
				 "--comm-fraction slows jobs by their "
				 "predicted rates: drop --no-rates (--model "
				 "hm is the fastest)");
	a->sw = a->gain.arg ? &a->gain : a->frac.arg ? &a->frac : NULL;
	a->nval = a->sw ? a->sw->n : 1;
	a->wl_name = a->workload;
	return CLI_GO;
}

/* --skip-bad: how many records were skipped, and why (each reason with
 * its first record's message and place). */
static void print_skips(const char *name, const struct workload *w)
{
	fprintf(stderr,
		"stopo whatif: %s: skipped %u bad record%s, by "
		"reason:\n",
		name, w->skipped, w->skipped == 1 ? "" : "s");
	for (uint32_t i = 0; i < w->nskips; i++) {
		const struct wl_skip *k = &w->skips[i];

		if (k->json)
			fprintf(stderr,
				"stopo whatif:   %9u  %s (the first: "
				"jobs[%u])\n",
				k->count, k->what, k->line - 1);
		else
			fprintf(stderr,
				"stopo whatif:   %9u  %s (the first: line "
				"%u)\n",
				k->count, k->what, k->line);
	}
	if (w->skipped_other)
		fprintf(stderr, "stopo whatif:   %9u  for other reasons\n",
			w->skipped_other);
}

/* An SWF header whose MaxProcs is above its MaxNodes counts cores as
 * processors: without --cores-per-node every processor is read as a
 * node. */
static void warn_cores(const char *name, const struct workload *w)
{
	uint32_t n = w->hdr_max_nodes, p = w->hdr_max_procs;

	if (w->format != WL_SWF || !n || p <= n)
		return;
	if (p % n == 0)
		fprintf(stderr,
			"stopo whatif: %s: warning: the header's MaxProcs "
			"(%u) is above its MaxNodes (%u): processors are "
			"cores, read here as nodes; give --cores-per-node %u "
			"(MaxProcs / MaxNodes)\n",
			name, p, n, p / n);
	else
		fprintf(stderr,
			"stopo whatif: %s: warning: the header's MaxProcs "
			"(%u) is above its MaxNodes (%u): processors are "
			"cores, read here as nodes; give --cores-per-node "
			"(MaxProcs / MaxNodes is %.2f)\n",
			name, p, n, (double)p / n);
}

/* The machine and the workload (the first --limit-jobs jobs, sizes
 * scaled by --scale) into R.  Returns an exit status. */
static int load(const struct cmd_whatif_args *a, struct cmd_whatif_result *r)
{
	struct wl_opts wo = a->wl;
	struct workload *w = &r->w;
	struct err err = { 0 };

	r->m = machine_open(a->spec, a->routing, &err);
	if (!r->m)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	if (a->sim.model &&
	    model_check_routing(a->sim.model, machine_routing(r->m), &err))
		return cli_error(CMD, cli_status(&err, CLI_USAGE),
				 "--model: %s", err.msg);
	wo.machine = r->m;
	wo.nnodes = topo_num_nodes(machine_topo(r->m));
	wo.max_jobs = a->limit; /* the rest is not read */
	if (workload_load(a->workload, &wo, w, &err))
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s%s",
				 err.msg,
				 w->refused ? " (--skip-bad skips such records "
					      "and counts them by reason)" :
					      "");
	if (!w->n) /* an empty file, or a failed squeue --json upstream */
		return cli_error(
			CMD, CLI_USAGE, "%s: no jobs%s", a->wl_name,
			w->skipped ? " (every record bad and skipped)" : "");
	if (a->scale && scale_jobs(w, a->scale, wo.nnodes, &r->scale_factor,
				   &r->scale_realised))
		return cli_error(CMD, CLI_USAGE,
				 "--scale: '%s': want a number above 0, at "
				 "most 1e6, or 'auto'",
				 a->scale);
	if (w->skipped)
		print_skips(a->wl_name, w);
	if (!a->cores_given)
		warn_cores(a->wl_name, w);
	return CLI_OK;
}

/* The threads of the run (--threads, or the CPUs it may run on) and how many
 * of its NCELLS simulations run at once (never more than the cells or
 * MAX_POLICIES); each one's predicted rates share the rest
 * (whatif_opts.rate_threads: THREADS / AT_ONCE, at least 1). */
static void thread_plan(const struct cmd_whatif_args *a, int ncells,
			int *at_once, uint32_t *rate_threads, uint32_t *threads)
{
	uint32_t ncpu = par_cpus();
	uint32_t total = a->threads	    ? a->threads :
			 ncpu > MAX_THREADS ? MAX_THREADS :
					      ncpu;
	int n = total > MAX_POLICIES ? MAX_POLICIES : (int)total;

	if (n > ncells)
		n = ncells;
	if (n < 1)
		n = 1;
	*at_once = n;
	*rate_threads = total / (uint32_t)n ? total / (uint32_t)n : 1;
	*threads = total;
}

/* The run-time model's parameter: its JSON name and its symbol. */
static const char *sw_name(const struct cmd_whatif_args *a)
{
	return a->sw == &a->frac ? "comm_fraction" : "isolation_gain";
}

static const char *sw_sym(const struct cmd_whatif_args *a)
{
	return a->sw == &a->frac ? "F" : "G";
}

/* The options of cell C (value C / npol of the sweep) into SO. */
static void cell_opts(const struct cmd_whatif_args *a, int c,
		      struct whatif_opts *so)
{
	*so = a->sim;
	if (a->gain.arg)
		so->isolation_gain = sweep_at(&a->gain, (uint32_t)c / a->npol);
	if (a->frac.arg)
		so->comm_fraction = sweep_at(&a->frac, (uint32_t)c / a->npol);
}

/* Simulate R->w in cell C of A (policy C % npol) into R->res[C], its
 * rates on RATE_THREADS threads (thread_plan; hm's, with RUNNING the
 * cells going on, THREADS / *RUNNING where more), with progress on stderr
 * for long workloads, giving up once STOP is set.  Returns 0, or -1 with
 * ERR set. */
static int simulate(const struct cmd_whatif_args *a,
		    struct cmd_whatif_result *r, int c, uint32_t rate_threads,
		    uint32_t threads, const atomic_uint *running,
		    const atomic_bool *stop, struct err *err)
{
	const struct policy_arg *pol = &a->pol[c % a->npol];
	struct whatif_opts so;
	char label[sizeof(pol->label) + 64];
	struct progress pg = { label, !a->quiet, a->every, 0, 0, NULL, 0 };

	cell_opts(a, c, &so);
	if (a->nval > 1)
		snprintf(label, sizeof(label), "%s, %s %g", pol->label,
			 sw_sym(a), sweep_at(a->sw, (uint32_t)c / a->npol));
	else
		snprintf(label, sizeof(label), "%s", pol->label);
	so.stop = stop;
	so.rate_threads = rate_threads;
	so.threads = threads;
	so.cells_running = running;

	pg.t0 = pg.last = wall_now();
	so.progress = progress;
	so.progress_arg = &pg;
	if (whatif_run(machine_topo(r->m), machine_routing(r->m), pol->spec,
		       &r->w, &so, &r->res[c], err))
		return -1;
	/* large workloads, or runs long enough to have shown progress */
	if (pg.on && (r->w.n >= 2000 || pg.last > pg.t0))
		fprintf(stderr, "stopo whatif: %s: done in %.1f s\n", label,
			r->res[c].seconds);
	return 0;
}

/* The cells shared out among threads: each takes the next one not yet
 * taken.  The simulations share the machine and the workload read only
 * (routings may be shared between threads); each has its own policy
 * instance and result. */
struct pool {
	const struct cmd_whatif_args *a;
	struct cmd_whatif_result *r;
	int ncells;
	uint32_t rate_threads; /* thread_plan's, for every cell */
	uint32_t threads;      /* the run's: hm's rates take more as cells
				* end (whatif_opts.cells_running) */
	atomic_uint running;   /* cells being simulated now */
	const int *order;      /* [ncells] the cells in the order taken */
	atomic_int next;
	atomic_bool stop; /* a cell failed: the others give up */
	int *failed;	  /* [ncells] */
	struct err *err;  /* [ncells] */
};

static void pool_worker(void *arg, uint32_t part)
{
	struct pool *p = arg;
	int c;

	(void)part; /* each takes the next cell not yet taken (order) */
	atomic_fetch_add(&p->running, 1);
	while ((c = atomic_fetch_add(&p->next, 1)) < p->ncells &&
	       !atomic_load(&p->stop)) {
		c = p->order[c];
		if (simulate(p->a, p->r, c, p->rate_threads, p->threads,
			     &p->running, &p->stop, &p->err[c])) {
			p->failed[c] = 1;
			atomic_store(&p->stop, true);
		}
	}
	atomic_fetch_sub(&p->running, 1);
	model_thread_done(); /* GLPK's environment, if a model used it */
}

/* The order in which the threads take A's cells into ORDER[NCELLS]:
 * under --comm-fraction, the cells of policies that place every job
 * isolated (policy_isolating, not _shares) last, in their order, after
 * the others in theirs; else the cells in order.  Such a policy's jobs
 * share no link, so they are never rated again: its cells cost least,
 * and taken last they leave no costly cell alone on one thread at the
 * end (cells that end give their threads to hm's ratings in the others,
 * whatif_opts.cells_running).  With rates at the starts only, the
 * ratings cost alike and a queue held for isolation can make such a
 * cell the longest: no order is better known than the user's. */
static void cell_order(const struct cmd_whatif_args *a,
		       const struct cmd_whatif_result *r, int ncells,
		       int *order)
{
	bool *last = calloc((size_t)ncells + 1, sizeof(*last));
	int k = 0;

	for (int c = 0; last && a->sim.rates && a->frac.arg && c < ncells;
	     c++) {
		struct err err = { 0 };
		struct policy *p = policy_create(a->pol[c % a->npol].spec,
						 machine_topo(r->m),
						 machine_routing(r->m), &err);

		/* a policy that fails here fails in its cell, in order */
		last[c] = p && policy_isolating(p) && !policy_shares(p);
		policy_destroy(p);
	}
	for (int pass = 0; pass < 2; pass++)
		for (int c = 0; c < ncells; c++)
			if ((last && last[c]) == pass)
				order[k++] = c;
	free(last);
}

/* Every cell of A, on --threads threads (par_cpus() by default,
 * never more than the cells); R->res in cell order whatever the order
 * they finish in.  The first cell (in that order) that failed gives the
 * error.  Returns an exit status. */
static int simulate_all(const struct cmd_whatif_args *a,
			struct cmd_whatif_result *r)
{
	struct pool p = { .a = a, .r = r, .ncells = (int)a->nval * a->npol };
	int nth, rc = CLI_OK;
	int *order = malloc(((size_t)p.ncells + 1) * sizeof(*order));

	r->res = calloc((size_t)p.ncells, sizeof(*r->res));
	p.failed = calloc((size_t)p.ncells, sizeof(*p.failed));
	p.err = calloc((size_t)p.ncells, sizeof(*p.err));
	if (!r->res || !p.failed || !p.err || !order) {
		free(p.failed);
		free(p.err);
		free(order);
		return cli_error(CMD, CLI_FAIL, "out of memory");
	}
	cell_order(a, r, p.ncells, order);
	p.order = order;
	atomic_init(&p.next, 0);
	atomic_init(&p.stop, false);
	atomic_init(&p.running, 0);
	thread_plan(a, p.ncells, &nth, &p.rate_threads, &p.threads);
	par_run(nth > 1 ? (uint32_t)nth : 1, true, pool_worker, &p, NULL);
	r->nres = p.ncells; /* failed ones are left empty */
	for (int c = 0; c < p.ncells; c++)
		if (p.failed[c] && p.err[c].code != ECANCELED) {
			rc = cli_error(CMD, cli_status(&p.err[c], CLI_USAGE),
				       "%s", p.err[c].msg);
			break;
		}
	free(p.failed);
	free(p.err);
	free(order);
	return rc;
}

/* Load the machine and the workload into R (freed by the caller, even
 * on failure) and name the policies run by default.  Returns an exit
 * status. */
static int prepare(struct cmd_whatif_args *a, struct cmd_whatif_result *r)
{
	int rc = load(a, r);
	const char *text = NULL;
	uint32_t line = 0;

	/* no --policy: the topo.conf's DefaultPolicy=, what the plugin runs
	 * for partitions without a line of their own */
	if (rc == CLI_OK && !a->policy_given &&
	    machine_policy(r->m, NULL, &text, &line) && text &&
	    strcmp(text, POLICY_DEFAULT)) {
		seeded(text, a->sim.seed, a->pol[0].spec,
		       sizeof(a->pol[0].spec));
		snprintf(a->pol[0].label, sizeof(a->pol[0].label),
			 "%s (DefaultPolicy)", text);
	}
	/* --policy default: the family's, named in its column */
	for (int i = 0; rc == CLI_OK && i < a->npol; i++)
		if (!strcmp(a->pol[i].spec, POLICY_DEFAULT)) {
			const char *d = policy_default_spec(
				machine_topo(r->m), machine_routing(r->m));

			snprintf(a->pol[i].spec, sizeof(a->pol[i].spec), "%s",
				 d);
			snprintf(a->pol[i].label, sizeof(a->pol[i].label),
				 "%s (default)", d);
		}
	return rc;
}

/* The warning of a snapshot whose running jobs share nodes. */
static void warn_shared(const struct cmd_whatif_args *a,
			const struct cmd_whatif_result *r)
{
	if (r->nres && r->res[0].snapshot_shared_nodes)
		fprintf(stderr,
			"stopo whatif: %s: warning: %u node%s held by two or "
			"more running jobs (nodes shared in Slurm): each stays "
			"busy until the last of them ends\n",
			a->wl_name, r->res[0].snapshot_shared_nodes,
			r->res[0].snapshot_shared_nodes == 1 ? "" : "s");
}

/* prepare, then simulate every cell into R.  Returns an exit status. */
static int run(struct cmd_whatif_args *a, struct cmd_whatif_result *r)
{
	int rc = prepare(a, r);

	if (rc == CLI_OK)
		rc = simulate_all(a, r);
	if (rc == CLI_OK)
		warn_shared(a, r);
	return rc;
}

/* The per-job CSV of every policy into --jobs-out ("-" = stdout).
 * Returns an exit status. */
static int write_jobs_out(struct cmd_whatif_args *a,
			  const struct cmd_whatif_result *r)
{
	FILE *f = a->jobs_f;

	bool sweep = a->nval > 1, model = sweep || r->res[0].runtime_model;

	fprintf(f,
		"%s%spolicy,id,submit,start,end,nodes,isolated,ran_isolated,"
		"rate,why%s\n",
		sweep ? sw_name(a) : "", sweep ? "," : "",
		model ? ",stretch,killed" : "");
	for (int c = 0; c < r->nres; c++) {
		char pre[64] = "";

		if (sweep)
			snprintf(pre, sizeof(pre), "%g,",
				 sweep_at(a->sw, (uint32_t)c / a->npol));
		if (write_jobs(f, &r->res[c], pre, a->pol[c % a->npol].label,
			       model))
			return cli_error(CMD, CLI_FAIL, "out of memory");
	}
	if (f == stdout)
		return CLI_OK;
	errno = 0;
	a->jobs_f = NULL;
	if ((fflush(f) == EOF || ferror(f)) | (fclose(f) == EOF))
		return cli_error(CMD, CLI_FAIL, "%s: %s", a->jobs_out,
				 errno ? strerror(errno) : "write error");
	return CLI_OK;
}

/* The header every form of the report shares (topology, workload). */
static void head_json(const struct cmd_whatif_args *a,
		      const struct cmd_whatif_result *r, struct json_object *o)
{
	json_object_object_add(
		o, "topology",
		json_object_new_string(topo_spec(machine_topo(r->m))));
	json_object_object_add(
		o, "routing",
		json_object_new_string(routing_spec(machine_routing(r->m))));
	json_object_object_add(o, "workload",
			       json_object_new_string(a->wl_name));
	json_object_object_add(o, "jobs", json_object_new_int64(r->w.n));
	json_object_object_add(o, "skipped",
			       json_object_new_int64(r->w.skipped));
	if (a->scale) {
		struct json_object *sc = json_object_new_object();

		json_object_object_add(sc, "factor", jdouble(r->scale_factor));
		json_object_object_add(sc, "realised",
				       jdouble(r->scale_realised));
		json_object_object_add(o, "scale", sc);
	}
	json_object_object_add(o, "bsld_threshold", jdouble(WHATIF_BSLD_TAU));
}

/* The policies of value V of the sweep, in --policy order. */
static struct json_object *policies_json(const struct cmd_whatif_args *a,
					 const struct cmd_whatif_result *r,
					 uint32_t v)
{
	struct json_object *pa = json_object_new_array();

	for (int p = 0; p < a->npol; p++) {
		const struct whatif_result *x =
			&r->res[v * (uint32_t)a->npol + (uint32_t)p];

		json_object_array_add(
			pa, policy_json(x, a->pol[p].label,
					a->nval > 1 || x->runtime_model));
	}
	return pa;
}

/* Where isolating policy P beats baseline B on mean turnaround over
 * the sweep: FROM, the first value from which it does at every larger
 * value (-1: not at the last), and CROSSING, where the difference
 * crosses 0 between the value before FROM and FROM, linearly (NAN when
 * FROM is the first value or none). */
struct break_even {
	int from;
	double crossing;
};

static struct break_even break_even(const struct cmd_whatif_args *a,
				    const struct cmd_whatif_result *r, int p,
				    int b)
{
	struct break_even e = { -1, NAN };
	double prev = NAN;

	for (uint32_t v = a->nval; v-- > 0;) {
		const struct whatif_result *x =
			&r->res[v * (uint32_t)a->npol + (uint32_t)p];
		const struct whatif_result *y =
			&r->res[v * (uint32_t)a->npol + (uint32_t)b];
		double d = g_ta(x) - g_ta(y);

		if (!(d < 0)) { /* NAN (no job started) does not beat */
			if (e.from >= 0 && !isnan(d))
				e.crossing = sweep_at(a->sw, v) +
					     a->sw->step * d / (d - prev);
			break;
		}
		e.from = (int)v;
		prev = d;
	}
	return e;
}

static void print_json(const struct cmd_whatif_args *a,
		       const struct cmd_whatif_result *r)
{
	struct json_object *o = json_object_new_object();

	head_json(a, r, o);
	if (r->res[0].runtime_model)
		json_object_object_add(o, sw_name(a),
				       jdouble(sweep_at(a->sw, 0)));
	json_object_object_add(o, "policies", policies_json(a, r, 0));
	cli_print_json(o);
}

static void print_sweep_json(const struct cmd_whatif_args *a,
			     const struct cmd_whatif_result *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vals = json_object_new_array();
	struct json_object *cells = json_object_new_array();
	struct json_object *be = json_object_new_array();
	struct json_object *sw = json_object_new_object();

	head_json(a, r, o);
	for (uint32_t v = 0; v < a->nval; v++) {
		struct json_object *c = json_object_new_object();

		json_object_array_add(vals, jdouble(sweep_at(a->sw, v)));
		json_object_object_add(c, sw_name(a),
				       jdouble(sweep_at(a->sw, v)));
		json_object_object_add(c, "policies", policies_json(a, r, v));
		json_object_array_add(cells, c);
	}
	json_object_object_add(sw, "parameter",
			       json_object_new_string(sw_name(a)));
	json_object_object_add(sw, "values", vals);
	json_object_object_add(o, "sweep", sw);
	json_object_object_add(o, "cells", cells);
	for (int p = 0; p < a->npol; p++)
		for (int b = 0; b < a->npol; b++) {
			struct json_object *e;
			struct break_even x;

			if (!r->res[p].isolating || r->res[b].isolating)
				continue;
			x = break_even(a, r, p, b);
			e = json_object_new_object();
			json_object_object_add(
				e, "policy",
				json_object_new_string(a->pol[p].label));
			json_object_object_add(
				e, "baseline",
				json_object_new_string(a->pol[b].label));
			json_object_object_add(
				e, "from",
				x.from < 0 ? NULL :
					     jdouble(sweep_at(
						     a->sw, (uint32_t)x.from)));
			json_object_object_add(
				e, "crossing",
				isnan(x.crossing) ? NULL : jdouble(x.crossing));
			json_object_array_add(be, e);
		}
	json_object_object_add(o, "break_even", be);
	cli_print_json(o);
}

static void print_head(const struct cmd_whatif_args *a,
		       const struct cmd_whatif_result *r)
{
	const struct topo *t = machine_topo(r->m);

	printf("topology: %s (%u nodes), routing %s\n", topo_spec(t),
	       topo_num_nodes(t), routing_spec(machine_routing(r->m)));
	printf("workload: %s (%u job%s%s)\n", a->wl_name, r->w.n,
	       r->w.n == 1 ? "" : "s", r->w.squeue ? ", squeue snapshot" : "");
	if (a->scale)
		printf("scale: %s, factor %.6g (each size rounded down or up "
		       "to keep the node-seconds);\nnode-seconds offered "
		       "times %.6g\n",
		       a->scale, r->scale_factor, r->scale_realised);
}

static void print_text(const struct cmd_whatif_args *a,
		       const struct cmd_whatif_result *r)
{
	print_head(a, r);
	putchar('\n');
	print_table(r->res, r->nres, a->pol);
	printf("\nbounded slowdown threshold %.0f s; MLS/TLS "
	       "time-averaged over the makespan\n",
	       WHATIF_BSLD_TAU);
	if (r->res[0].runtime_model && a->sw == &a->gain)
		printf("isolation gain %g: a job runs %g times faster while "
		       "it shares no link\n",
		       sweep_at(a->sw, 0), 1 + sweep_at(a->sw, 0));
	else if (r->res[0].runtime_model)
		printf("comm. fraction %g (jobs without their own): run times "
		       "are times alone, communication slowed by the rate now "
		       "over the rate alone\n",
		       sweep_at(a->sw, 0));
}

/* A sweep: per metric a block, a row per value, a column per policy;
 * then each isolating policy's break-even against each baseline. */
static void print_sweep(const struct cmd_whatif_args *a,
			const struct cmd_whatif_result *r)
{
	static const struct outcome_row more[] = {
		{ "mean wait s", 1, g_wait },
		{ "utilization %", 2, g_util },
	};
	/* the killed jobs last, under a comm fraction (a gain kills
	 * none) */
	static const struct outcome_row *const rows[] = {
		&outcome_rows[0], &outcome_rows[1], &outcome_rows[2],
		&outcome_rows[3], &more[0],	    &more[1],
		&outcome_rows[4], &outcome_rows[5], &outcome_rows[6],
		&outcome_rows[7],
	};
	size_t nrows =
		sizeof(rows) / sizeof(rows[0]) - (a->sw == &a->frac ? 0 : 2);
	int w = width(a->pol, a->npol), nb = 0, ni = 0;

	print_head(a, r);
	if (a->sw == &a->gain)
		printf("isolation gain G from %g to %g by %g: a job runs 1 + G "
		       "times faster while\nit shares no link\n\n",
		       a->sw->lo, sweep_at(a->sw, a->nval - 1), a->sw->step);
	else
		printf("comm. fraction F from %g to %g by %g (jobs without "
		       "their own): run times\nare times alone, "
		       "communication slowed by the rate now over the rate "
		       "alone\n\n",
		       a->sw->lo, sweep_at(a->sw, a->nval - 1), a->sw->step);
	printf("%-24s", "policy");
	for (int p = 0; p < a->npol; p++)
		printf("  %*s", w, a->pol[p].label);
	putchar('\n');
	for (size_t k = 0; k < nrows; k++) {
		const struct outcome_row *m = rows[k];

		printf("%s\n", m->label);
		for (uint32_t v = 0; v < a->nval; v++) {
			char lab[64];

			snprintf(lab, sizeof(lab), "  %s %g", sw_sym(a),
				 sweep_at(a->sw, v));
			row(lab, r->res + v * (uint32_t)a->npol, a->npol, w,
			    m->prec, m->get);
		}
	}
	for (int p = 0; p < a->npol; p++) {
		nb += !r->res[p].isolating;
		ni += r->res[p].isolating;
	}
	if (!nb || !ni) {
		printf("\nbreak-even: give an isolating policy and a baseline "
		       "(one that does not isolate, e.g. linear) in "
		       "--policy\n");
		return;
	}
	printf("\nbreak-even on mean turnaround (the least %s of the sweep "
	       "from which the\npolicy does better than the baseline at "
	       "every larger %s of the sweep):\n",
	       sw_sym(a), sw_sym(a));
	for (int p = 0; p < a->npol; p++)
		for (int b = 0; b < a->npol; b++) {
			struct break_even x;

			if (!r->res[p].isolating || r->res[b].isolating)
				continue;
			x = break_even(a, r, p, b);
			printf("  %s against %s: ", a->pol[p].label,
			       a->pol[b].label);
			if (x.from < 0)
				printf("not at %s %g\n", sw_sym(a),
				       sweep_at(a->sw, a->nval - 1));
			else if (isnan(x.crossing))
				printf("at every %s of the sweep\n", sw_sym(a));
			else
				printf("from %s %g (the difference crosses 0 "
				       "near %s %.3f)\n",
				       sw_sym(a),
				       sweep_at(a->sw, (uint32_t)x.from),
				       sw_sym(a), x.crossing);
		}
}

/* --svg or --html (HTML) into PATH: the charts of svg_whatif.h, the
 * break-even marked against the first baseline.  Returns an exit
 * status. */
static int write_chart(const struct cmd_whatif_args *a,
		       const struct cmd_whatif_result *r, const char *path,
		       bool html)
{
	const char *labels[MAX_POLICIES];
	double val[MAX_SWEEP], be[MAX_POLICIES];
	struct whatif_chart c = {
		.title = "stopo whatif: the policies side by side",
		.labels = labels,
		.npol = (uint32_t)a->npol,
		.res = r->res,
		.nval = a->nval,
		.val = val,
		.sweep_label = a->sw == &a->gain ? "isolation gain G" :
			       a->sw		 ? "communication fraction F" :
						   NULL,
		.break_even = be,
		.w = &r->w,
		.seed = a->sim.seed,
		.r = machine_routing(r->m),
		.nnodes = topo_num_nodes(machine_topo(r->m)),
	};
	struct err err = { 0 };
	int b = -1, rc;
	FILE *f;

	for (int p = 0; p < a->npol; p++) {
		labels[p] = a->pol[p].label;
		be[p] = NAN;
		if (b < 0 && !r->res[p].isolating)
			b = p;
	}
	for (uint32_t v = 0; v < a->nval; v++)
		val[v] = a->sw ? sweep_at(a->sw, v) : 0;
	for (int p = 0; a->nval > 1 && b >= 0 && p < a->npol; p++)
		if (r->res[p].isolating) {
			struct break_even x = break_even(a, r, p, b);

			if (x.from >= 0)
				be[p] = isnan(x.crossing) ? val[x.from] :
							    x.crossing;
		}
	if (!(f = fopen(path, "w")))
		return cli_error(CMD, CLI_FAIL, "%s: %s", path,
				 strerror(errno));
	rc = (html ? html_whatif : svg_whatif)(f, &c, &err);
	if ((fclose(f) || rc) && !err.msg[0])
		err_set(&err, "write error");
	if (err.msg[0])
		return cli_error(CMD, CLI_FAIL, "%s: %s", path, err.msg);
	return CLI_OK;
}

/* With --jobs-out the per-job CSV, with --svg / --html the charts, then
 * R on stdout: text or JSON.  Returns an exit status. */
static int emit(struct cmd_whatif_args *a, const struct cmd_whatif_result *r)
{
	if (a->jobs_out) {
		int rc = write_jobs_out(a, r);

		if (rc != CLI_OK)
			return rc;
	}
	if (a->svg || a->html) {
		int rc = a->svg ? write_chart(a, r, a->svg, false) : CLI_OK;

		if (rc == CLI_OK && a->html)
			rc = write_chart(a, r, a->html, true);
		if (rc != CLI_OK)
			return rc;
	}
	if (a->json)
		(a->nval > 1 ? print_sweep_json : print_json)(a, r);
	else
		(a->nval > 1 ? print_sweep : print_text)(a, r);
	return CLI_OK;
}

static void result_free(struct cmd_whatif_result *r)
{
	for (int i = 0; i < r->nres; i++)
		whatif_result_free(&r->res[i]);
	free(r->res);
	workload_free(&r->w);
	machine_destroy(r->m);
}

/* ---- --array DIR, --cell K, --merge DIR ---- */

/* The first line of DIR/args: what wrote it, and its format. */
#define ARRAY_MAGIC "# stopo whatif --array 1"

/* Write LEN bytes of DATA to PATH whole: a file beside it renamed into
 * place, so that a reader sees all of it or nothing.  0, or -1 with
 * ERR "PATH: why". */
static int write_whole(const char *path, const void *data, size_t len,
		       struct err *err)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f)
		return err_sys(err, errno, "%s: %s", tmp, strerror(errno));
	errno = 0;
	if ((fwrite(data, 1, len, f) != len) | (fclose(f) == EOF) ||
	    rename(tmp, path)) {
		err_sys(err, errno, "%s: %s", path,
			errno ? strerror(errno) : "write error");
		remove(tmp);
		return -1;
	}
	return 0;
}

/* PATH of DIR: DIR/NAME into BUF (LEN bytes).  Returns BUF. */
static char *in_dir(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	/* too long a path: "", which no open finds (and says so) */
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	return buf;
}

/* S as a single-quoted shell word into F. */
static void shell_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

/* DIR/whatif.sbatch: the array of NCELLS tasks, each running stopo
 * whatif --array DIR --cell $SLURM_ARRAY_TASK_ID with this stopo.  0,
 * or -1 with ERR. */
static int write_sbatch(const char *dir, uint32_t ncells, struct err *err)
{
	char self[4096], path[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (n <= 0)
		return err_sys(err, errno, "/proc/self/exe: %s",
			       strerror(errno));
	self[n] = '\0';
	f = open_memstream(&text, &len);
	if (!f)
		return err_nomem(err, "out of memory");
	fprintf(f, "#!/bin/sh\n"
		   "# stopo whatif --array: one cell of the run per task; "
		   "then\n#   stopo whatif --merge ");
	shell_word(f, dir);
	fprintf(f,
		"\n#SBATCH --job-name=stopo-whatif\n"
		"#SBATCH --array=0-%u\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --output=%s/logs/cell-%%a.out\n"
		"#SBATCH --error=%s/logs/cell-%%a.err\n"
		"exec ",
		ncells - 1, dir, dir);
	shell_word(f, self);
	fputs(" whatif --array ", f);
	shell_word(f, dir);
	fputs(" --cell \"$SLURM_ARRAY_TASK_ID\"\n", f);
	if (fclose(f))
		return err_nomem(err, "out of memory");
	rc = write_whole(in_dir(path, sizeof(path), dir, "whatif.sbatch"), text,
			 len, err);
	free(text);
	if (!rc && chmod(path, 0755))
		rc = err_sys(err, errno, "%s: %s", path, strerror(errno));
	return rc;
}

/* The workload (A->workload, "-": standard input) and a topo.conf
 * (A->spec when a file) copied into DIR/inputs.  0 or -1 with ERR. */
static int copy_inputs(const struct cmd_whatif_args *a, const char *dir,
		       const struct machine *m, struct err *err)
{
	char path[4096];
	size_t len;
	char *text;
	int rc;

	if (!(text = workload_slurp(a->workload, &len, err)))
		return -1;
	rc = write_whole(in_dir(path, sizeof(path), dir, "inputs/workload"),
			 text, len, err);
	free(text);
	if (rc || !machine_source(m))
		return rc;
	if (!(text = workload_slurp(machine_source(m), &len, err)))
		return -1;
	rc = write_whole(in_dir(path, sizeof(path), dir, "inputs/topo.conf"),
			 text, len, err);
	free(text);
	return rc;
}

/* --array DIR: A's run written as a Slurm job array into DIR (created;
 * an existing one must be empty): DIR/args (ARGV, read back by the
 * tasks and --merge), DIR/inputs (the workload, a topo.conf),
 * DIR/cells (one result per task), DIR/logs and DIR/whatif.sbatch.
 * The run is checked first (the topology, the workload, the policies),
 * as far as a run checks them before simulating.  Returns an exit
 * status. */
static int write_array(struct cmd_whatif_args *a, int argc, char **argv)
{
	struct cmd_whatif_result r = { 0 };
	char dir[4096], path[4096];
	struct err err = { 0 };
	uint32_t ncells = a->nval * (uint32_t)a->npol;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(a->workload, "-"))
		return cli_error(CMD, CLI_USAGE,
				 "--array: the workload is copied into DIR "
				 "for the tasks: give a file, not -");
	rc = prepare(a, &r);
	if (rc != CLI_OK)
		goto out;
	if (mkdir(a->array, 0755) &&
	    (errno != EEXIST || rmdir(a->array) || mkdir(a->array, 0755))) {
		rc = cli_error(CMD, CLI_FAIL,
			       "--array %s: %s (give a new or empty "
			       "directory)",
			       a->array, strerror(errno));
		goto out;
	}
	if (!realpath(a->array, dir)) {
		rc = cli_error(CMD, CLI_FAIL, "--array %s: %s", a->array,
			       strerror(errno));
		goto out;
	}
	if (mkdir(in_dir(path, sizeof(path), dir, "inputs"), 0755) ||
	    mkdir(in_dir(path, sizeof(path), dir, "cells"), 0755) ||
	    mkdir(in_dir(path, sizeof(path), dir, "logs"), 0755)) {
		rc = cli_error(CMD, CLI_FAIL, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (copy_inputs(a, dir, r.m, &err) || write_sbatch(dir, ncells, &err)) {
		rc = cli_error(CMD, CLI_FAIL, "%s", err.msg);
		goto out;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	fprintf(f, "%s\n", ARRAY_MAGIC);
	for (int i = 1; i < argc; i++)
		fprintf(f, "%s\n", argv[i]);
	if (fclose(f) || write_whole(in_dir(path, sizeof(path), dir, "args"),
				     text, len, &err)) {
		rc = cli_error(CMD, CLI_FAIL, "%s",
			       err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	printf("%s: %u cell%s (%u polic%s x %u value%s); submit with\n"
	       "  sbatch %s/whatif.sbatch\n"
	       "then, once its tasks are done:\n"
	       "  stopo whatif --merge %s\n",
	       dir, ncells, ncells == 1 ? "" : "s", a->npol,
	       a->npol == 1 ? "y" : "ies", a->nval, a->nval == 1 ? "" : "s",
	       dir, dir);
out:
	free(text);
	result_free(&r);
	return rc;
}

/* DIR/args into A: the options of the run --array wrote, parsed again,
 * reading the copies of its inputs under their own names.  Returns an
 * exit status (CLI_GO: parsed). */
static int read_array(const char *dir, struct cmd_whatif_args *a, char **text,
		      char ***argv)
{
	char path[4096];
	struct err err = { 0 };
	size_t len, n = 0;
	char *p, *nl;
	int rc;

	*argv = NULL;
	*text = workload_slurp(in_dir(path, sizeof(path), dir, "args"), &len,
			       &err);
	if (!*text)
		return cli_error(CMD, cli_status(&err, CLI_USAGE),
				 "%s (not a directory --array wrote)", err.msg);
	if (strncmp(*text, ARRAY_MAGIC "\n", strlen(ARRAY_MAGIC) + 1))
		return cli_error(CMD, CLI_USAGE,
				 "%s:1: not '%s' (not a file --array wrote)",
				 path, ARRAY_MAGIC);
	*argv = calloc(len + 2, sizeof(**argv));
	if (!*argv)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	(*argv)[n++] = (char *)"whatif";
	for (p = *text + strlen(ARRAY_MAGIC) + 1; *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			return cli_error(CMD, CLI_USAGE,
					 "%s: no end of line at its end "
					 "(cut short?)",
					 path);
		*nl = '\0';
		(*argv)[n++] = p;
	}
	rc = parse((int)n, *argv, a);
	if (rc != CLI_GO)
		return rc;
	a->wl_name = a->workload;
	a->workload =
		in_dir(a->wl_copy, sizeof(a->wl_copy), dir, "inputs/workload");
	if (!access(in_dir(a->conf_copy, sizeof(a->conf_copy), dir,
			   "inputs/topo.conf"),
		    R_OK))
		a->spec = a->conf_copy;
	a->array = NULL; /* a run of the array now, not its writing */
	return CLI_GO;
}

/* A cell's file: DIR/cells/K.json. */
static char *cell_path(char *buf, size_t len, const char *dir, uint32_t k)
{
	int n = snprintf(buf, len, "%s/cells/%u.json", dir, k);

	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	return buf;
}

/* --array DIR --cell K: cell K of DIR's run simulated into
 * DIR/cells/K.json (its jobs too when the run has --jobs-out).
 * Returns an exit status. */
static int run_cell(const char *dir, uint32_t k)
{
	struct cmd_whatif_args a;
	struct cmd_whatif_result r = { 0 };
	struct err err = { 0 };
	char *text = NULL, **argv = NULL, path[4096];
	uint32_t ncells, rt, total;
	int rc = read_array(dir, &a, &text, &argv), nth;
	struct json_object *o = NULL;
	const char *s;

	if (rc != CLI_GO)
		goto out;
	ncells = a.nval * (uint32_t)a.npol;
	if (k >= ncells) {
		rc = cli_error(CMD, CLI_USAGE,
			       "--cell %u: %s has cells 0 to %u", k, dir,
			       ncells - 1);
		goto out;
	}
	rc = prepare(&a, &r);
	if (rc != CLI_OK)
		goto out;
	r.res = calloc(ncells, sizeof(*r.res));
	if (!r.res) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	r.nres = (int)ncells;
	thread_plan(&a, 1, &nth, &rt, &total);
	if (simulate(&a, &r, (int)k, rt, total, NULL, NULL, &err)) {
		rc = cli_error(CMD, cli_status(&err, CLI_USAGE), "%s", err.msg);
		goto out;
	}
	/* the jobs too when --jobs-out or the charts (--svg, --html)
	 * need them at --merge */
	o = whatif_result_json(&r.res[k], a.jobs_out || a.svg || a.html);
	s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) :
		NULL;
	if (!s) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	if (write_whole(cell_path(path, sizeof(path), dir, k), s, strlen(s),
			&err))
		rc = cli_error(CMD, CLI_FAIL, "%s", err.msg);
out:
	json_object_put(o);
	result_free(&r);
	free(text);
	free(argv);
	return rc;
}

/* Cell K of DIR into *RES.  0, or -1 with ERR. */
static int read_cell(const char *dir, uint32_t k, struct whatif_result *res,
		     struct err *err)
{
	char path[4096];
	size_t len;
	char *text = workload_slurp(cell_path(path, sizeof(path), dir, k), &len,
				    err);
	struct json_tokener *tok;
	struct json_object *o;
	int rc = -1;

	if (!text)
		return -1;
	tok = json_tokener_new();
	o = tok && len <= INT32_MAX ?
		    json_tokener_parse_ex(tok, text, (int)len) :
		    NULL;
	if (!o || json_tokener_get_parse_end(tok) != len)
		err_set(err, "%s: not a whole cell (a task cut short?)", path);
	else if (!whatif_json_check(path, text, len, err))
		rc = whatif_result_from_json(o, path, res, err);
	json_object_put(o);
	json_tokener_free(tok);
	free(text);
	return rc;
}

/* --merge DIR: DIR's run printed from its cells, as the run prints it.
 * Returns an exit status. */
static int merge(const char *dir)
{
	struct cmd_whatif_args a;
	struct cmd_whatif_result r = { 0 };
	struct err err = { 0 };
	char *text = NULL, **argv = NULL, *missing = NULL;
	size_t mlen = 0;
	uint32_t ncells, nmiss = 0;
	FILE *mf = NULL;
	int rc = read_array(dir, &a, &text, &argv);

	if (rc != CLI_GO)
		goto out;
	ncells = a.nval * (uint32_t)a.npol;
	rc = prepare(&a, &r);
	if (rc != CLI_OK)
		goto out;
	r.res = calloc(ncells, sizeof(*r.res));
	mf = open_memstream(&missing, &mlen);
	if (!r.res || !mf) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	r.nres = (int)ncells;
	for (uint32_t k = 0; k < ncells; k++) {
		char path[4096];

		if (access(cell_path(path, sizeof(path), dir, k), F_OK)) {
			fprintf(mf, "%s%u", nmiss++ ? "," : "", k);
			continue;
		}
		if (read_cell(dir, k, &r.res[k], &err)) {
			rc = cli_error(CMD, cli_status(&err, CLI_USAGE),
				       "%s; run it again: sbatch --array=%u "
				       "%s/whatif.sbatch",
				       err.msg, k, dir);
			goto out;
		}
	}
	fclose(mf);
	mf = NULL;
	if (nmiss) {
		rc = cli_error(CMD, CLI_USAGE,
			       "%s: %u of %u cells not done (%s; see %s/logs); "
			       "run them again: sbatch --array=%s "
			       "%s/whatif.sbatch",
			       dir, nmiss, ncells, missing, dir, missing, dir);
		goto out;
	}
	warn_shared(&a, &r);
	if (a.jobs_out) {
		a.jobs_f = strcmp(a.jobs_out, "-") ? fopen(a.jobs_out, "w") :
						     stdout;
		if (!a.jobs_f) {
			rc = cli_error(CMD, CLI_FAIL, "--jobs-out %s: %s",
				       a.jobs_out, strerror(errno));
			goto out;
		}
	}
	rc = emit(&a, &r);
	if (a.jobs_f && a.jobs_f != stdout)
		fclose(a.jobs_f);
out:
	if (mf)
		fclose(mf);
	free(missing);
	result_free(&r);
	free(text);
	free(argv);
	return rc;
}

int cmd_whatif(int argc, char **argv)
{
	struct cmd_whatif_args a;
	struct cmd_whatif_result r = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	if (a.merge)
		return merge(a.merge);
	if (a.cell)
		return run_cell(a.array, a.cell_k);
	if (a.array)
		return write_array(&a, argc, argv);
	/* a file that cannot be written fails now, not after the run */
	if (a.jobs_out) {
		a.jobs_f = strcmp(a.jobs_out, "-") ? fopen(a.jobs_out, "w") :
						     stdout;
		if (!a.jobs_f)
			return cli_error(CMD, CLI_FAIL, "--jobs-out %s: %s",
					 a.jobs_out, strerror(errno));
	}
	rc = run(&a, &r);
	if (rc == CLI_OK)
		rc = emit(&a, &r);
	if (a.jobs_f && a.jobs_f != stdout)
		fclose(a.jobs_f);
	result_free(&r);
	return rc;
}
