/* cmd_report.c - stopo report: link sharing among the jobs running now
 * (MLS/TLS, per-job table, most shared links, SVG picture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "topo/util/hl.h"

#include "evaluator/cmd/cli.h"
#include "evaluator/cmd/report_history.h"
#include "evaluator/cmd/report_metrics.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/sharing/svg.h"
#include "evaluator/sim/workload.h"
#include "policies/machine/machine.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define CMD "report"

enum { OPT_SINCE = CLI_LONG_ONLY, OPT_UNTIL, OPT_SACCT };

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "topo.conf (NodeName= maps Slurm names) or a spec" },
	{ .id = 'r',
	  .name = "routing",
	  .arg = "R",
	  .help = "routing (default: Routing= or the family's)" },
	{ .id = 'J',
	  .name = "jobs",
	  .arg = "FILE",
	  .help = "running jobs, one per line" },
	{ .id = 's',
	  .name = "svg",
	  .arg = "FILE",
	  .help = "also draw the machine coloured by sharing" },
	{ .id = 'n',
	  .name = "top",
	  .arg = "N",
	  .help = "most shared links to list (10; 0 = all shared);\n"
		  "--history: most shared jobs per day and partition (3)" },
	{ .id = 'm',
	  .name = "metrics",
	  .help = "print the figures in Prometheus's text format\n"
		  "(for node_exporter's textfile collector)" },
	{ .id = 'H',
	  .name = "history",
	  .help = "link sharing per partition and day from select/topo's\n"
		  "records in LOG (default: StateSaveLocation/\n"
		  "topo_jobs.log); no --topo needed" },
	{ .id = OPT_SINCE,
	  .name = "since",
	  .arg = "T",
	  .help = "--history from T on (YYYY-MM-DD[THH:MM:SS])" },
	{ .id = OPT_UNTIL,
	  .name = "until",
	  .arg = "T",
	  .help = "--history before T" },
	{ .id = OPT_SACCT,
	  .name = "sacct",
	  .arg = "FILE",
	  .help = "--history: run times from sacct --json output\n"
		  "(for the node-hours that shared links)" },
	{ .id = 'c',
	  .name = "check",
	  .help = "exit 1 when any link or node is shared (MLS > 0,\n"
		  "or a node held by two jobs)" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "report",
	.synopsis = "--topo SPEC [--routing R] [FILE | --jobs FILE]\n"
		    "[--json | --metrics] [--svg FILE] [--top N] [--check]\n"
		    "or:  --history [--since T] [--until T] [--sacct FILE]\n"
		    "[--json | --metrics] [--svg FILE] [--top N] [LOG]",
	.about =
		"Link sharing among running jobs (paper 003: MLS, the worst job's share\n"
		"of its links used by other jobs; TLS, the share of all used links used\n"
		"by two jobs or more).  Input: squeue --json output in FILE ('-' =\n"
		"stdin; without FILE and --jobs, runs 'squeue --json'), or --jobs FILE\n"
		"with one job per line: ID NODES [PATTERN], NODES a Slurm hostlist or\n"
		"node indices like 0-3,8.  --metrics prints the figures for\n"
		"Prometheus; --history sums select/topo's records of past starts\n"
		"(topo_jobs.log) per partition and day.",
	.opts = options,
};

/* What `stopo report` is asked. */
struct cmd_report_args {
	const char *spec, *routing; /* --topo, --routing (NULL: default) */
	const char *input; /* squeue --json output ("-" = stdin), or NULL */
	const char *jobs;  /* --jobs FILE, or NULL */
	const char *svg;   /* --svg FILE, or NULL */
	uint32_t top;	   /* most shared links to list (0 = all) */
	bool json, check, metrics;
	bool history; /* --history: the rest is in hist */
	bool top_given;
	struct history_args hist;
};

/* One of the most shared links and the jobs on it. */
struct hot {
	uint32_t link, jobs;
	uint32_t *ids; /* [nids] ids of the jobs on it, in job order */
	uint32_t nids;
};

/* What it found. */
struct cmd_report_result {
	struct machine *m;
	struct workload w;   /* the jobs read (own the node lists) */
	struct ls_job *jobs; /* [njobs] the running ones */
	uint32_t njobs;
	struct ls_result ls;
	struct hot *hot; /* [nhot] most shared first, at most --top */
	uint32_t nhot;
	/* Nodes held by two jobs or more (or listed twice by one), in node
	 * order: two jobs on a node share its injection link, which no
	 * isolating placement allows. */
	struct hot *snodes; /* .link = the node, .ids = the jobs */
	uint32_t nsnodes;
	const char **part; /* [njobs] each job's partition (squeue) or NULL */
	/* [njobs] what select/topo said of each job's placement (its
	 * AdminComment's placement=), and why it is shared (or "") */
	enum policy_placement *placed;
	char (*why)[160];
	uint32_t nplaced[POLICY_PLACEMENT_N]; /* jobs per placement */
	uint32_t *widx;	  /* [njobs] each one's index in w */
	uint32_t nbroken; /* jobs of isolating partitions sharing links */
};

static int cmp_hot(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->jobs != y->jobs)
		return x->jobs > y->jobs ? -1 : 1;
	return x->link < y->link ? -1 : x->link > y->link;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static char *run_squeue(size_t *len, struct err *err)
{
	FILE *p = popen("squeue --json", "r");
	char *buf;
	int st;

	if (!p) {
		err_set(err, "cannot run 'squeue --json'");
		return NULL;
	}
	buf = wl_read_stream(p, "'squeue --json'", len, err);
	st = pclose(p);
	if (!buf)
		return NULL;
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		free(buf);
		err_set(err,
			"'squeue --json' failed (exit %d); give a file or "
			"--jobs",
			WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return NULL;
	}
	return buf;
}

/* Node list of a job for people: Slurm names when the machine has them. */
static char *node_text(const struct machine *m, const uint32_t *v, uint32_t n)
{
	struct hl *hl;
	char *out;
	uint32_t *sorted;

	if (!machine_has_names(m))
		return cli_format_ranges(v, n);
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	hl = hl_new();
	if (!hl || !sorted) {
		free(sorted);
		if (hl)
			hl_destroy(hl);
		return NULL;
	}
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	for (uint32_t i = 0; i < n; i++)
		hl_push(hl, machine_node_name(m, sorted[i]));
	free(sorted);
	out = hl_ranged(hl);
	hl_destroy(hl);
	return out;
}

/* "sw20(L1) -> sw32(L2) up" (fat-tree levels, groups elsewhere). */
static void sw_text(const struct topo *t, uint32_t sw, char *buf, size_t len)
{
	uint32_t g = topo_switch_group(t, sw);

	if (topo_traits(t)->levels)
		snprintf(buf, len, "sw%u(L%u)", sw, topo_switch_level(t, sw));
	else if (g != TOPO_NONE)
		snprintf(buf, len, "sw%u(g%u)", sw, g);
	else
		snprintf(buf, len, "sw%u", sw);
}

static void link_text(const struct topo *t, uint32_t l, char *buf, size_t len)
{
	const struct topo_link *k = topo_link(t, l);
	static const char *const kind[] = { "inject", "eject", "local",
					    "global", "up",    "down" };
	char a[32], b[32];

	sw_text(t, k->from, a, sizeof(a));
	sw_text(t, k->to, b, sizeof(b));
	snprintf(buf, len, "%s -> %s %s", a, b,
		 (unsigned)k->kind < 6 ? kind[k->kind] : "");
}

/* Ids of the jobs whose link set holds L (the sets are ascending). */
static uint32_t jobs_on(uint32_t l, uint32_t **sets, const uint32_t *nset,
			const struct ls_result *res, uint32_t *out,
			uint32_t max)
{
	uint32_t c = 0;

	for (uint32_t k = 0; k < res->njobs && c < max; k++) {
		uint32_t lo = 0, hi = nset[k];

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (sets[k][mid] < l)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nset[k] && sets[k][lo] == l)
			out[c++] = res->jobs[k].id;
	}
	return c;
}

/* A's --history options into A->hist.  CLI_GO or CLI_USAGE. */
static int history_args(struct cmd_report_args *a)
{
	if (a->jobs || a->check || a->spec)
		return cli_error(CMD, CLI_USAGE,
				 "--history reads the log alone: no --topo, "
				 "--jobs or --check");
	a->hist.log = a->input; /* NULL: scontrol's StateSaveLocation */
	a->hist.svg = a->svg;
	a->hist.json = a->json;
	a->hist.metrics = a->metrics;
	a->hist.top = a->top_given ? a->top : 3;
	return CLI_GO;
}

/* argv -> A.  CLI_GO, or the exit status (a usage error, --help). */
static int parse(int argc, char **argv, struct cmd_report_args *a)
{
	const char *arg;
	int c;

	*a = (struct cmd_report_args){ .top = 10 };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			a->spec = arg;
			break;
		case 'r':
			a->routing = arg;
			break;
		case 'J':
			a->jobs = arg;
			break;
		case 's':
			a->svg = arg;
			break;
		case 'n':
			if (cli_parse_u32(CMD, "--top", arg, &a->top))
				return CLI_USAGE;
			a->top_given = true;
			break;
		case 'c':
			a->check = true;
			break;
		case 'm':
			a->metrics = true;
			break;
		case 'H':
			a->history = true;
			break;
		case OPT_SINCE:
			a->hist.since = arg;
			break;
		case OPT_UNTIL:
			a->hist.until = arg;
			break;
		case OPT_SACCT:
			a->hist.sacct = arg;
			break;
		case 'j':
			a->json = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		a->input = argv[optind++];
	if (optind < argc)
		return cli_error(CMD, CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (a->history)
		return history_args(a);
	if (a->hist.since || a->hist.until || a->hist.sacct)
		return cli_error(CMD, CLI_USAGE,
				 "--since, --until and --sacct go with "
				 "--history");
	if (!a->spec)
		return cli_error(CMD, CLI_USAGE, "--topo SPEC is required");
	if (a->json && a->metrics)
		return cli_error(CMD, CLI_USAGE,
				 "give --json or --metrics, not both");
	if (a->input && a->jobs)
		return cli_error(CMD, CLI_USAGE,
				 "give squeue output or --jobs, not both");
	return CLI_GO;
}

/* R->jobs: the running jobs of R->w.  Returns an exit status. */
static int running_jobs(struct cmd_report_result *r)
{
	r->jobs = calloc(r->w.n ? r->w.n : 1, sizeof(*r->jobs));
	r->part = calloc(r->w.n ? r->w.n : 1, sizeof(*r->part));
	r->widx = calloc(r->w.n ? r->w.n : 1, sizeof(*r->widx));
	r->placed = calloc(r->w.n ? r->w.n : 1, sizeof(*r->placed));
	r->why = calloc(r->w.n ? r->w.n : 1, sizeof(*r->why));
	if (!r->jobs || !r->part || !r->widx || !r->placed || !r->why)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	for (uint32_t i = 0; i < r->w.n; i++) {
		const struct wl_job *j = &r->w.jobs[i];
		struct ls_job *l = &r->jobs[r->njobs];

		if (!j->running)
			continue;
		l->id = j->id;
		l->nodes = j->alloc;
		l->n = j->nodes;
		l->pattern = j->pattern;
		r->part[r->njobs] = j->partition;
		r->placed[r->njobs] = policy_placement_parse(
			j->comment, r->why[r->njobs], sizeof(r->why[0]));
		r->nplaced[r->placed[r->njobs]]++;
		r->widx[r->njobs] = i;
		r->njobs++;
	}
	return CLI_OK;
}

/* Read the jobs (A's file, or what 'squeue --json' prints) into R->w and
 * the running ones into R->jobs; *SRC names the input in messages.
 * Returns an exit status. */
static int read_jobs(const struct cmd_report_args *a,
		     struct cmd_report_result *r, const char **src)
{
	struct wl_opts wo;
	struct err err = { 0 };
	char *text;
	size_t len = 0;
	int c;

	wl_opts_init(&wo);
	wo.machine = r->m;
	wo.nnodes = topo_num_nodes(machine_topo(r->m));
	*src = a->jobs ? a->jobs : a->input ? a->input : "squeue --json";
	if (a->jobs || a->input)
		text = workload_slurp(*src, &len, &err);
	else
		text = run_squeue(&len, &err);
	if (!text)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	if (!strcmp(*src, "-"))
		*src = "<stdin>";
	if (a->jobs) {
		c = workload_parse_running(*src, text, len, &wo, &r->w, &err);
	} else {
		wo.format = WL_JSON;
		c = workload_parse(*src, text, len, &wo, &r->w, &err);
	}
	free(text);
	if (c)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	return running_jobs(r);
}

/* R->hot: the links two jobs or more use, most jobs first, at most
 * A->top of them (0 = all).  Returns an exit status. */
static int pick_hot(const struct cmd_report_args *a,
		    struct cmd_report_result *r)
{
	const struct ls_result *ls = &r->ls;

	r->hot = calloc(ls->shared_links ? ls->shared_links : 1,
			sizeof(*r->hot));
	if (!r->hot)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	for (uint32_t l = 0; l < ls->nlinks; l++)
		if (ls->link_jobs[l] >= 2) {
			r->hot[r->nhot].link = l;
			r->hot[r->nhot++].jobs = ls->link_jobs[l];
		}
	qsort(r->hot, r->nhot, sizeof(*r->hot), cmp_hot);
	if (a->top && r->nhot > a->top)
		r->nhot = a->top;
	return CLI_OK;
}

/* The ids of the jobs on each of R->hot, from the jobs' link sets.
 * Returns an exit status. */
static int hot_job_ids(struct cmd_report_result *r)
{
	uint32_t nj = r->njobs, **sets, *nset, *ids;
	struct err err = { 0 };
	int rc = CLI_OK;

	if (!r->nhot)
		return CLI_OK;
	sets = calloc(nj ? nj : 1, sizeof(*sets));
	nset = calloc(nj ? nj : 1, sizeof(*nset));
	ids = malloc((nj ? nj : 1) * sizeof(*ids));
	if (!sets || !nset || !ids) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	for (uint32_t k = 0; k < nj; k++)
		if (linkshare_linkset(machine_routing(r->m), &r->jobs[k], NULL,
				      &sets[k], &nset[k], &err)) {
			rc = cli_error(CMD, CLI_FAIL, "%s", err.msg);
			goto out;
		}
	for (uint32_t h = 0; h < r->nhot; h++) {
		struct hot *hs = &r->hot[h];

		hs->nids = jobs_on(hs->link, sets, nset, &r->ls, ids, nj);
		hs->ids = malloc((hs->nids ? hs->nids : 1) * sizeof(*ids));
		if (!hs->ids) {
			rc = cli_error(CMD, CLI_FAIL, "out of memory");
			goto out;
		}
		memcpy(hs->ids, ids, hs->nids * sizeof(*ids));
	}
out:
	for (uint32_t k = 0; sets && k < nj; k++)
		free(sets[k]);
	free(sets);
	free(nset);
	free(ids);
	return rc;
}

/* The policy of job K's partition (topo.conf's PartitionPolicy= or
 * DefaultPolicy=), NULL when unknown or none. */
static const struct policy *job_policy(const struct cmd_report_result *r,
				       uint32_t k)
{
	if (!r->part || !r->part[k])
		return NULL;
	return machine_policy(r->m, r->part[k], NULL, NULL);
}

/* Index of job ID in R, or njobs. */
static uint32_t job_index(const struct cmd_report_result *r, uint32_t id)
{
	uint32_t k;

	for (k = 0; k < r->njobs && r->jobs[k].id != id; k++)
		;
	return k;
}

/* Whether job K shares links though it should not: select/topo placed
 * it isolated and it shares with a job not placed shared by design (a
 * job placed shared later may use an isolated job's links: the policy
 * said so when it placed it), or (placement not recorded) it runs under
 * an isolating policy that never shares by design. */
static bool broken(const struct cmd_report_result *r, uint32_t k)
{
	const struct ls_job_stat *st = &r->ls.jobs[k];
	const struct policy *p;

	if (!st->nshares)
		return false;
	if (r->placed[k] == POLICY_PLACEMENT_ISOLATED) {
		for (uint32_t q = 0; q < st->nshares; q++) {
			uint32_t b = job_index(r, st->shares_with[q]);

			if (b >= r->njobs ||
			    r->placed[b] != POLICY_PLACEMENT_SHARED)
				return true;
		}
		return false;
	}
	if (r->placed[k] != POLICY_PLACEMENT_UNKNOWN)
		return false;
	p = job_policy(r, k);
	return p && policy_isolating(p) && !policy_shares(p);
}

/* "ID (PARTITION, POLICY)" of job K. */
static void job_label(const struct cmd_report_result *r, uint32_t k, char *buf,
		      size_t len)
{
	const struct policy *p = job_policy(r, k);

	snprintf(buf, len, "%u (%s, %s)", r->jobs[k].id,
		 r->part[k] ? r->part[k] : "?",
		 p ? policy_spec(p) : "no policy");
}

/* The nodes held twice into R->snodes; the jobs holding them are not
 * isolated.  Returns an exit status. */
static int shared_nodes(struct cmd_report_result *r)
{
	uint32_t n = topo_num_nodes(machine_topo(r->m)), k, i, x, q = 0;
	uint32_t *count = calloc(n ? n : 1, sizeof(*count));
	uint32_t *entry = calloc(n ? n : 1, sizeof(*entry));
	int rc = CLI_OK;

	if (!count || !entry) {
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	for (k = 0; k < r->njobs; k++)
		for (i = 0; i < r->jobs[k].n; i++)
			if (r->jobs[k].nodes[i] < n)
				count[r->jobs[k].nodes[i]]++;
	for (x = 0; x < n; x++)
		r->nsnodes += count[x] > 1;
	if (!r->nsnodes)
		goto out;
	r->snodes = calloc(r->nsnodes, sizeof(*r->snodes));
	if (!r->snodes) {
		r->nsnodes = 0;
		rc = cli_error(CMD, CLI_FAIL, "out of memory");
		goto out;
	}
	for (x = 0; x < n; x++) {
		if (count[x] < 2)
			continue;
		r->snodes[q].link = x;
		r->snodes[q].jobs = count[x];
		r->snodes[q].ids = calloc(count[x], sizeof(uint32_t));
		if (!r->snodes[q].ids) {
			rc = cli_error(CMD, CLI_FAIL, "out of memory");
			goto out;
		}
		entry[x] = ++q; /* 1 + its index */
	}
	for (k = 0; k < r->njobs; k++)
		for (i = 0; i < r->jobs[k].n; i++) {
			struct hot *h;

			x = r->jobs[k].nodes[i];
			if ((x >= n) || !entry[x])
				continue;
			h = &r->snodes[entry[x] - 1];
			h->ids[h->nids++] = r->jobs[k].id;
			r->ls.jobs[k].isolated = false;
		}
out:
	free(count);
	free(entry);
	return rc;
}

/* Load the machine and the jobs, compute the link sharing and the most
 * shared links into R (freed by the caller, even on failure).  Returns an
 * exit status. */
static int run(const struct cmd_report_args *a, struct cmd_report_result *r)
{
	struct err err = { 0 };
	const char *src;
	int rc;

	r->m = machine_open(a->spec, a->routing, &err);
	if (!r->m)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	rc = read_jobs(a, r, &src);
	if (rc != CLI_OK)
		return rc;
	if (linkshare_compute(machine_routing(r->m), r->jobs, r->njobs, &r->ls,
			      &err)) {
		uint32_t k = r->ls.bad_job;
		char at[300];
		const char *place =
			k < r->njobs ? workload_job_place(&r->w, r->widx[k], at,
							  sizeof(at)) :
				       NULL;

		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s: %s",
				 place ? place : src, err.msg);
	}
	rc = pick_hot(a, r);
	if (rc != CLI_OK)
		return rc;
	rc = hot_job_ids(r);
	if (rc != CLI_OK)
		return rc;
	for (uint32_t k = 0; k < r->njobs; k++)
		r->nbroken += broken(r, k);
	return shared_nodes(r);
}

/* The picture of R into PATH.  Returns an exit status. */
static int write_svg(const char *path, const struct cmd_report_result *r)
{
	const struct topo *t = machine_topo(r->m);
	FILE *f = fopen(path, "w");
	struct err err = { 0 };
	char title[256];

	if (!f)
		return cli_error(CMD, CLI_FAIL, "%s: cannot write", path);
	snprintf(title, sizeof(title), "Link sharing on %s (routing %s)",
		 topo_spec(t), routing_spec(machine_routing(r->m)));
	if (svg_write(f, t, title, r->jobs, &r->ls, &err) | fclose(f))
		return cli_error(CMD, CLI_FAIL, "%s: %s", path,
				 err.msg[0] ? err.msg : "write error");
	return CLI_OK;
}

static struct json_object *job_json(const struct cmd_report_result *r,
				    uint32_t k)
{
	const struct ls_job_stat *s = &r->ls.jobs[k];
	struct json_object *jo = json_object_new_object();
	struct json_object *sw = json_object_new_array();
	char *nl = node_text(r->m, r->jobs[k].nodes, r->jobs[k].n);

	json_object_object_add(jo, "id", json_object_new_int64(s->id));
	json_object_object_add(jo, "nodes",
			       json_object_new_int64(r->jobs[k].n));
	json_object_object_add(jo, "node_list",
			       json_object_new_string(nl ? nl : ""));
	free(nl);
	json_object_object_add(jo, "links", json_object_new_int64(s->links));
	json_object_object_add(jo, "shared", json_object_new_int64(s->shared));
	json_object_object_add(jo, "shared_pct",
			       json_object_new_double(s->pct));
	for (uint32_t q = 0; q < s->nshares; q++)
		json_object_array_add(sw,
				      json_object_new_int64(s->shares_with[q]));
	json_object_object_add(jo, "shares_with", sw);
	json_object_object_add(jo, "isolated",
			       json_object_new_boolean(s->isolated));
	json_object_object_add(
		jo, "placement",
		r->placed[k] ? json_object_new_string(
				       policy_placement_name(r->placed[k])) :
			       NULL);
	if (r->placed[k] == POLICY_PLACEMENT_SHARED)
		json_object_object_add(jo, "placement_why",
				       json_object_new_string(r->why[k]));
	return jo;
}

static struct json_object *hot_json(const struct topo *t, const struct hot *h)
{
	const struct topo_link *k = topo_link(t, h->link);
	struct json_object *lo = json_object_new_object();
	struct json_object *jl = json_object_new_array();

	json_object_object_add(lo, "link", json_object_new_int64(h->link));
	json_object_object_add(lo, "from", json_object_new_int64(k->from));
	json_object_object_add(lo, "to", json_object_new_int64(k->to));
	json_object_object_add(lo, "jobs", json_object_new_int64(h->jobs));
	for (uint32_t q = 0; q < h->nids; q++)
		json_object_array_add(jl, json_object_new_int64(h->ids[q]));
	json_object_object_add(lo, "job_ids", jl);
	return lo;
}

/* [{"node": NAME, "index": X, "jobs": [ID, ...]}] of the nodes held
 * twice (a job id twice: the job lists the node twice). */
static struct json_object *snodes_json(const struct cmd_report_result *r)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t q = 0; q < r->nsnodes; q++) {
		struct json_object *no = json_object_new_object();
		struct json_object *ids = json_object_new_array();
		char *name = node_text(r->m, &r->snodes[q].link, 1);

		json_object_object_add(
			no, "node", json_object_new_string(name ? name : ""));
		free(name);
		json_object_object_add(
			no, "index", json_object_new_int64(r->snodes[q].link));
		for (uint32_t i = 0; i < r->snodes[q].nids; i++)
			json_object_array_add(
				ids,
				json_object_new_int64(r->snodes[q].ids[i]));
		json_object_object_add(no, "jobs", ids);
		json_object_array_add(a, no);
	}
	return a;
}

/* [{"job", "partition", "policy", "by":[{"job", "partition", "policy",
 * "isolating"}]}]: each job of an isolating partition sharing links and
 * the jobs it shares them with (partition and policy null when unknown). */
static struct json_object *broken_json(const struct cmd_report_result *r)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t k = 0; k < r->njobs; k++) {
		const struct ls_job_stat *st = &r->ls.jobs[k];
		struct json_object *o, *by;

		if (!broken(r, k))
			continue;
		o = json_object_new_object();
		by = json_object_new_array();
		json_object_object_add(o, "job",
				       json_object_new_int64(r->jobs[k].id));
		json_object_object_add(o, "partition",
				       json_object_new_string(r->part[k]));
		json_object_object_add(
			o, "policy",
			json_object_new_string(policy_spec(job_policy(r, k))));
		for (uint32_t q = 0; q < st->nshares; q++) {
			uint32_t b = job_index(r, st->shares_with[q]);
			const struct policy *p =
				b < r->njobs ? job_policy(r, b) : NULL;
			struct json_object *x = json_object_new_object();

			json_object_object_add(
				x, "job",
				json_object_new_int64(st->shares_with[q]));
			json_object_object_add(
				x, "partition",
				b < r->njobs && r->part[b] ?
					json_object_new_string(r->part[b]) :
					NULL);
			json_object_object_add(
				x, "policy",
				p ? json_object_new_string(policy_spec(p)) :
				    NULL);
			json_object_object_add(
				x, "isolating",
				json_object_new_boolean(p &&
							policy_isolating(p)));
			json_object_array_add(by, x);
		}
		json_object_object_add(o, "by", by);
		json_object_array_add(a, o);
	}
	return a;
}

/* {"isolated": N, "shared": N, "oblivious": N, "unknown": N}: the jobs
 * per placement select/topo recorded. */
static struct json_object *placements_json(const struct cmd_report_result *r)
{
	struct json_object *o = json_object_new_object();

	for (int k = POLICY_PLACEMENT_ISOLATED; k < POLICY_PLACEMENT_N; k++)
		json_object_object_add(o, policy_placement_name(k),
				       json_object_new_int64(r->nplaced[k]));
	json_object_object_add(
		o, "unknown",
		json_object_new_int64(r->nplaced[POLICY_PLACEMENT_UNKNOWN]));
	return o;
}

static void print_json(const struct cmd_report_result *r)
{
	const struct topo *t = machine_topo(r->m);
	struct json_object *o = json_object_new_object();
	struct json_object *ja = json_object_new_array();
	struct json_object *la = json_object_new_array();

	json_object_object_add(o, "topology",
			       json_object_new_string(topo_spec(t)));
	json_object_object_add(
		o, "routing",
		json_object_new_string(routing_spec(machine_routing(r->m))));
	json_object_object_add(o, "mls", json_object_new_double(r->ls.mls));
	json_object_object_add(o, "tls", json_object_new_double(r->ls.tls));
	json_object_object_add(o, "used_links",
			       json_object_new_int64(r->ls.used_links));
	json_object_object_add(o, "shared_links",
			       json_object_new_int64(r->ls.shared_links));
	for (uint32_t k = 0; k < r->njobs; k++)
		json_object_array_add(ja, job_json(r, k));
	json_object_object_add(o, "jobs", ja);
	for (uint32_t h = 0; h < r->nhot; h++)
		json_object_array_add(la, hot_json(t, &r->hot[h]));
	json_object_object_add(o, "links", la);
	json_object_object_add(o, "shared_nodes",
			       json_object_new_int64(r->nsnodes));
	json_object_object_add(o, "nodes_held_twice", snodes_json(r));
	json_object_object_add(o, "broken", broken_json(r));
	json_object_object_add(o, "placements", placements_json(r));
	cli_print_json(o);
}

/* One row of the jobs table; PLACED (with the PLACED column, or NULL
 * without it) what select/topo said of the placement. */
static void print_job_row(const struct ls_job_stat *s, uint32_t nodes,
			  const char *placed)
{
	printf("%-10u %6u %7u %7u %8.2f %-9s ", s->id, nodes, s->links,
	       s->shared, s->pct, s->isolated ? "yes" : "no");
	if (placed)
		printf("%-9s ", placed);
	for (uint32_t q = 0; q < s->nshares && q < 12; q++)
		printf("%s%u", q ? "," : "", s->shares_with[q]);
	if (s->nshares > 12)
		printf(",... (%u jobs)", s->nshares);
	if (!s->nshares)
		fputs("-", stdout);
	putchar('\n');
}

static void print_hot_row(const struct topo *t, const struct hot *h)
{
	char lt[96];

	link_text(t, h->link, lt, sizeof(lt));
	printf("%-8u %-28s %5u  ", h->link, lt, h->jobs);
	for (uint32_t q = 0; q < h->nids && q < 12; q++)
		printf("%s%u", q ? "," : "", h->ids[q]);
	if (h->nids > 12)
		fputs(",...", stdout);
	putchar('\n');
}

static void print_text(const struct cmd_report_result *r)
{
	const struct topo *t = machine_topo(r->m);
	bool claims = r->nplaced[POLICY_PLACEMENT_UNKNOWN] < r->njobs;

	printf("topology: %s (%u nodes), routing %s\n", topo_spec(t),
	       topo_num_nodes(t), routing_spec(machine_routing(r->m)));
	printf("jobs: %u running\n", r->njobs);
	printf("MLS: %.2f %%\n", r->ls.mls);
	printf("TLS: %.2f %% (%u of %u used links shared)\n", r->ls.tls,
	       r->ls.shared_links, r->ls.used_links);
	printf("shared nodes: %u\n", r->nsnodes);
	if (claims)
		printf("placed by select/topo: %u isolated, %u shared by design, %u oblivious, %u not recorded\n",
		       r->nplaced[POLICY_PLACEMENT_ISOLATED],
		       r->nplaced[POLICY_PLACEMENT_SHARED],
		       r->nplaced[POLICY_PLACEMENT_OBLIVIOUS],
		       r->nplaced[POLICY_PLACEMENT_UNKNOWN]);
	putchar('\n');
	printf("%-10s %6s %7s %7s %8s %-9s ", "JOB", "NODES", "LINKS", "SHARED",
	       "SHARED%", "ISOLATED");
	if (claims)
		printf("%-9s ", "PLACED");
	printf("%s\n", "SHARES WITH");
	for (uint32_t k = 0; k < r->njobs; k++)
		print_job_row(&r->ls.jobs[k], r->jobs[k].n,
			      !claims ? NULL :
			      r->placed[k] ?
					policy_placement_name(r->placed[k]) :
					"-");
	if (r->nplaced[POLICY_PLACEMENT_SHARED]) {
		printf("\nshared by design (the policy's reason at the start):\n");
		for (uint32_t k = 0; k < r->njobs; k++)
			if (r->placed[k] == POLICY_PLACEMENT_SHARED)
				printf("  job %u: %s\n", r->jobs[k].id,
				       r->why[k][0] ? r->why[k] : "-");
	}
	if (r->nsnodes) {
		printf("\nnodes held by two jobs (or listed twice by one): %u\n",
		       r->nsnodes);
		printf("%-20s %s\n", "NODE", "JOB IDS");
		for (uint32_t q = 0; q < r->nsnodes; q++) {
			char *name = node_text(r->m, &r->snodes[q].link, 1);

			printf("%-20s ", name ? name : "?");
			free(name);
			for (uint32_t i = 0; i < r->snodes[q].nids; i++)
				printf("%s%u", i ? "," : "",
				       r->snodes[q].ids[i]);
			putchar('\n');
		}
	}
	if (r->nbroken) {
		printf("\nisolation broken: %u job%s placed isolated share%s links\n",
		       r->nbroken, r->nbroken == 1 ? "" : "s",
		       r->nbroken == 1 ? "s" : "");
		for (uint32_t k = 0; k < r->njobs; k++) {
			const struct ls_job_stat *st = &r->ls.jobs[k];
			char lab[160];

			if (!broken(r, k))
				continue;
			job_label(r, k, lab, sizeof(lab));
			printf("  job %s: %u of its %u links used by ", lab,
			       st->shared, st->links);
			for (uint32_t q = 0; q < st->nshares; q++) {
				uint32_t b = job_index(r, st->shares_with[q]);

				if (b < r->njobs)
					job_label(r, b, lab, sizeof(lab));
				else
					snprintf(lab, sizeof(lab), "%u",
						 st->shares_with[q]);
				printf("%s%s", q ? ", " : "", lab);
			}
			putchar('\n');
		}
	}
	if (!r->nhot)
		return;
	printf("\nmost shared links:\n%-8s %-28s %5s  %s\n", "LINK", "SWITCHES",
	       "JOBS", "JOB IDS");
	for (uint32_t h = 0; h < r->nhot; h++)
		print_hot_row(t, &r->hot[h]);
}

/* R on stdout as Prometheus metrics.  Returns an exit status. */
static int print_metrics(const struct cmd_report_result *r)
{
	struct metrics_in in = {
		.r = machine_routing(r->m),
		.jobs = r->jobs,
		.ls = &r->ls,
		.part = r->part,
		.njobs = r->njobs,
		.nodes_shared = r->nsnodes,
		.broken = r->nbroken,
	};
	struct err err = { 0 };

	if (report_metrics(stdout, &in, &err))
		return cli_error(CMD, CLI_FAIL, "%s", err.msg);
	return CLI_OK;
}

/* With --svg the picture, then R on stdout: text, JSON or metrics.  Returns an
 * exit status. */
static int emit(const struct cmd_report_args *a,
		const struct cmd_report_result *r)
{
	if (a->svg) {
		int rc = write_svg(a->svg, r);

		if (rc != CLI_OK)
			return rc;
	}
	if (a->metrics)
		return print_metrics(r);
	if (a->json)
		print_json(r);
	else
		print_text(r);
	return CLI_OK;
}

static void result_free(struct cmd_report_result *r)
{
	for (uint32_t h = 0; r->hot && h < r->nhot; h++)
		free(r->hot[h].ids);
	free(r->hot);
	for (uint32_t q = 0; r->snodes && q < r->nsnodes; q++)
		free(r->snodes[q].ids);
	free(r->snodes);
	free(r->part);
	free(r->placed);
	free(r->why);
	free(r->widx);
	linkshare_free(&r->ls);
	free(r->jobs);
	workload_free(&r->w);
	machine_destroy(r->m);
}

int cmd_report(int argc, char **argv)
{
	struct cmd_report_args a;
	struct cmd_report_result r = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	if (a.history)
		return report_history(&a.hist);
	rc = run(&a, &r);
	if (rc == CLI_OK)
		rc = emit(&a, &r);
	if (rc == CLI_OK && a.check && (r.ls.shared_links || r.nsnodes))
		rc = CLI_FAIL; /* --check: links or nodes are shared */
	result_free(&r);
	return rc;
}
