/* cmd_report.c - stopo report: link sharing among the jobs running now
 * (MLS/TLS, per-job table, most shared links, SVG picture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "topo/util/hl.h"

#include "evaluator/cmd/cli.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/sharing/svg.h"
#include "evaluator/sim/workload.h"
#include "policies/machine/machine.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define CMD "report"

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
	  .help = "most shared links to list (10; 0 = all shared)" },
	{ .id = 'c',
	  .name = "check",
	  .help = "exit 1 when any link is shared (MLS > 0)" },
	{ .id = 'j', .name = "json", .help = "machine-readable output" },
	{ .id = 'h', .name = "help", .help = "this text" },
	{ .name = NULL },
};

static const struct cli_spec cli = {
	.name = "report",
	.synopsis = "--topo SPEC [--routing R] [FILE | --jobs FILE]\n"
		    "[--json] [--svg FILE] [--top N] [--check]",
	.about =
		"Link sharing among running jobs (paper 003: MLS, the worst job's share\n"
		"of its links used by other jobs; TLS, the share of all used links used\n"
		"by two jobs or more).  Input: squeue --json output in FILE ('-' =\n"
		"stdin; without FILE and --jobs, runs 'squeue --json'), or --jobs FILE\n"
		"with one job per line: ID NODES [PATTERN], NODES a Slurm hostlist or\n"
		"node indices like 0-3,8.",
	.opts = options,
};

struct hot {
	uint32_t link, jobs;
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
	buf = wl_read_stream(p, len, err);
	st = pclose(p);
	if (!buf) {
		err_prefix(err, "'squeue --json'");
		return NULL;
	}
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

	if (topo_kind(t) == TOPO_FATTREE)
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

int cmd_report(int argc, char **argv)
{
	const char *spec = NULL, *rspec = NULL, *jpath = NULL, *svg = NULL;
	const char *input = NULL, *src;
	uint32_t top = 10, nhot = 0, nj = 0;
	bool json = false, check = false;
	struct machine *mach = NULL;
	const struct topo *t;
	const struct routing *r;
	struct workload w = { 0 };
	struct wl_opts wo;
	struct ls_job *jobs = NULL;
	struct ls_result res = { 0 };
	struct hot *hot = NULL;
	uint32_t **sets = NULL, *nset = NULL, *ids = NULL;
	struct err err = { "" };
	char *text = NULL;
	size_t len = 0;
	const char *arg;
	int c, rc = CLI_OK;

	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			spec = arg;
			break;
		case 'r':
			rspec = arg;
			break;
		case 'J':
			jpath = arg;
			break;
		case 's':
			svg = arg;
			break;
		case 'n':
			if (cli_parse_u32(CMD, "--top", arg, &top))
				return CLI_USAGE;
			break;
		case 'c':
			check = true;
			break;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (optind < argc)
		return cli_error(CMD, CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!spec)
		return cli_error(CMD, CLI_USAGE, "--topo SPEC is required");
	if (input && jpath)
		return cli_error(CMD, CLI_USAGE,
				 "give squeue output or --jobs, "
				 "not both");
	mach = machine_open(spec, rspec, &err);
	if (!mach)
		return cli_error(CMD, CLI_USAGE, "%s", err.msg);
	t = machine_topo(mach);
	r = machine_routing(mach);
	wl_opts_init(&wo);
	wo.machine = mach;
	wo.nnodes = topo_num_nodes(t);
	src = jpath ? jpath : input ? input : "squeue --json";
	if (jpath || input)
		text = workload_slurp(src, &len, &err);
	else
		text = run_squeue(&len, &err);
	if (!text) {
		rc = cli_error(CMD, CLI_USAGE, "%s", err.msg);
		goto out;
	}
	if (!strcmp(src, "-"))
		src = "<stdin>";
	if (jpath)
		c = workload_parse_running(src, text, len, &wo, &w, &err);
	else {
		wo.format = WL_JSON;
		c = workload_parse(src, text, len, &wo, &w, &err);
	}
	if (c) {
		rc = cli_error(CMD, CLI_USAGE, "%s", err.msg);
		goto out;
	}
	jobs = calloc(w.n ? w.n : 1, sizeof(*jobs));
	if (!jobs)
		goto oom;
	for (uint32_t i = 0; i < w.n; i++) {
		if (!w.jobs[i].running)
			continue;
		jobs[nj].id = w.jobs[i].id;
		jobs[nj].nodes = w.jobs[i].alloc;
		jobs[nj].n = w.jobs[i].nodes;
		jobs[nj].pattern = w.jobs[i].pattern;
		nj++;
	}
	if (linkshare_compute(r, jobs, nj, &res, &err)) {
		rc = cli_error(CMD, CLI_USAGE, "%s: %s", src, err.msg);
		goto out;
	}
	/* most shared links, with the jobs on them */
	hot = malloc((res.shared_links ? res.shared_links : 1) * sizeof(*hot));
	sets = calloc(nj ? nj : 1, sizeof(*sets));
	nset = calloc(nj ? nj : 1, sizeof(*nset));
	ids = malloc((nj ? nj : 1) * sizeof(*ids));
	if (!hot || !sets || !nset || !ids)
		goto oom;
	for (uint32_t l = 0; l < res.nlinks; l++)
		if (res.link_jobs[l] >= 2) {
			hot[nhot].link = l;
			hot[nhot++].jobs = res.link_jobs[l];
		}
	qsort(hot, nhot, sizeof(*hot), cmp_hot);
	if (top && nhot > top)
		nhot = top;
	if (nhot)
		for (uint32_t k = 0; k < nj; k++)
			if (linkshare_linkset(r, &jobs[k], NULL, &sets[k],
					      &nset[k], &err)) {
				rc = cli_error(CMD, CLI_FAIL, "%s", err.msg);
				goto out;
			}
	if (svg) {
		FILE *f = fopen(svg, "w");
		char title[256];

		if (!f) {
			rc = cli_error(CMD, CLI_FAIL, "%s: cannot write", svg);
			goto out;
		}
		snprintf(title, sizeof(title),
			 "Link sharing on %s (routing %s)", topo_spec(t),
			 routing_spec(r));
		if (svg_write(f, t, title, jobs, &res, &err) | fclose(f)) {
			rc = cli_error(CMD, CLI_FAIL, "%s: %s", svg,
				       err.msg[0] ? err.msg : "write error");
			goto out;
		}
	}
	if (json) {
		struct json_object *o = json_object_new_object();
		struct json_object *ja = json_object_new_array();
		struct json_object *la = json_object_new_array();

		json_object_object_add(o, "topology",
				       json_object_new_string(topo_spec(t)));
		json_object_object_add(o, "routing",
				       json_object_new_string(routing_spec(r)));
		json_object_object_add(o, "mls",
				       json_object_new_double(res.mls));
		json_object_object_add(o, "tls",
				       json_object_new_double(res.tls));
		json_object_object_add(o, "used_links",
				       json_object_new_int64(res.used_links));
		json_object_object_add(o, "shared_links",
				       json_object_new_int64(res.shared_links));
		for (uint32_t k = 0; k < nj; k++) {
			const struct ls_job_stat *s = &res.jobs[k];
			struct json_object *jo = json_object_new_object();
			struct json_object *sw = json_object_new_array();
			char *nl = node_text(mach, jobs[k].nodes, jobs[k].n);

			json_object_object_add(jo, "id",
					       json_object_new_int64(s->id));
			json_object_object_add(
				jo, "nodes", json_object_new_int64(jobs[k].n));
			json_object_object_add(jo, "node_list",
					       json_object_new_string(nl ? nl :
									   ""));
			free(nl);
			json_object_object_add(jo, "links",
					       json_object_new_int64(s->links));
			json_object_object_add(
				jo, "shared", json_object_new_int64(s->shared));
			json_object_object_add(jo, "shared_pct",
					       json_object_new_double(s->pct));
			for (uint32_t q = 0; q < s->nshares; q++)
				json_object_array_add(
					sw, json_object_new_int64(
						    s->shares_with[q]));
			json_object_object_add(jo, "shares_with", sw);
			json_object_object_add(
				jo, "isolated",
				json_object_new_boolean(s->isolated));
			json_object_array_add(ja, jo);
		}
		json_object_object_add(o, "jobs", ja);
		for (uint32_t h = 0; h < nhot; h++) {
			const struct topo_link *k = topo_link(t, hot[h].link);
			struct json_object *lo = json_object_new_object();
			struct json_object *jl = json_object_new_array();
			uint32_t m =
				jobs_on(hot[h].link, sets, nset, &res, ids, nj);

			json_object_object_add(
				lo, "link", json_object_new_int64(hot[h].link));
			json_object_object_add(lo, "from",
					       json_object_new_int64(k->from));
			json_object_object_add(lo, "to",
					       json_object_new_int64(k->to));
			json_object_object_add(
				lo, "jobs", json_object_new_int64(hot[h].jobs));
			for (uint32_t q = 0; q < m; q++)
				json_object_array_add(
					jl, json_object_new_int64(ids[q]));
			json_object_object_add(lo, "job_ids", jl);
			json_object_array_add(la, lo);
		}
		json_object_object_add(o, "links", la);
		cli_print_json(o);
	} else {
		printf("topology: %s (%u nodes), routing %s\n", topo_spec(t),
		       topo_num_nodes(t), routing_spec(r));
		printf("jobs: %u running\n", nj);
		printf("MLS: %.2f %%\n", res.mls);
		printf("TLS: %.2f %% (%u of %u used links shared)\n\n", res.tls,
		       res.shared_links, res.used_links);
		printf("%-10s %6s %7s %7s %8s %-9s %s\n", "JOB", "NODES",
		       "LINKS", "SHARED", "SHARED%", "ISOLATED", "SHARES WITH");
		for (uint32_t k = 0; k < nj; k++) {
			const struct ls_job_stat *s = &res.jobs[k];

			printf("%-10u %6u %7u %7u %8.2f %-9s ", s->id,
			       jobs[k].n, s->links, s->shared, s->pct,
			       s->isolated ? "yes" : "no");
			for (uint32_t q = 0; q < s->nshares && q < 12; q++)
				printf("%s%u", q ? "," : "", s->shares_with[q]);
			if (s->nshares > 12)
				printf(",... (%u jobs)", s->nshares);
			if (!s->nshares)
				fputs("-", stdout);
			putchar('\n');
		}
		if (nhot) {
			printf("\nmost shared links:\n%-8s %-28s %5s  %s\n",
			       "LINK", "SWITCHES", "JOBS", "JOB IDS");
			for (uint32_t h = 0; h < nhot; h++) {
				char lt[96];
				uint32_t m = jobs_on(hot[h].link, sets, nset,
						     &res, ids, nj);

				link_text(t, hot[h].link, lt, sizeof(lt));
				printf("%-8u %-28s %5u  ", hot[h].link, lt,
				       hot[h].jobs);
				for (uint32_t q = 0; q < m && q < 12; q++)
					printf("%s%u", q ? "," : "", ids[q]);
				if (m > 12)
					fputs(",...", stdout);
				putchar('\n');
			}
		}
	}
	if (check && res.shared_links)
		rc = CLI_FAIL;
	goto out;
oom:
	rc = cli_error(CMD, CLI_FAIL, "out of memory");
out:
	for (uint32_t k = 0; sets && k < nj; k++)
		free(sets[k]);
	free(sets);
	free(nset);
	free(ids);
	free(hot);
	linkshare_free(&res);
	free(jobs);
	free(text);
	workload_free(&w);
	machine_destroy(mach);
	return rc;
}
