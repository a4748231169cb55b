/* cmd_eval.c - stopo eval: predict the rate of every flow of a traffic
 * pattern on a topology and routing with the HM, JM, MCF and MMF
 * throughput models (paper 000), per-node fairness (paper 001). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/sim/workload.h"
#include "evaluator/traffic/flows.h"
#include "evaluator/models/model.h"
#include "policies/machine/machine.h"
#include "topo/routing.h"
#include "topo/topo.h"

enum {
	O_TIME = CLI_LONG_ONLY,
	O_TOP,
	O_CSV,
	O_PROGRESS,
	O_GAP,
	O_EXACT,
	O_FAST,
	O_BW
};

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "family:key=value,... or a topo.conf path" },
	{ .id = 'r',
	  .name = "routing",
	  .arg = "R",
	  .help = "routing (default: the topo.conf's Routing=,\n"
		  "else the family's default)" },
	{ .id = 'p',
	  .name = "pattern",
	  .arg = "P",
	  .help = "traffic pattern, e.g. random:1, perm:2, shift:3,\n"
		  "transpose, hotregion, stencil:dims=8x8x4 (see\n"
		  "stopo-eval(1) for all)" },
	{ .id = 'f',
	  .name = "flows",
	  .arg = "FILE",
	  .help = "flows file: 'src dst [demand]' per line ('-': stdin)" },
	{ .id = 'm',
	  .name = "model",
	  .arg = "M",
	  .help = "hm, jm, mcf, mmf, ugal0 .. ugal5, nne or all\n"
		  "(default all: every model that applies)" },
	{ .id = 'n',
	  .name = "nodes",
	  .arg = "LIST",
	  .help = "run the pattern on these nodes (ids or a hostlist),\n"
		  "in rank order (with --flows: ids in FILE are ranks\n"
		  "in LIST)" },
	{ .id = 's',
	  .name = "seed",
	  .arg = "S",
	  .help = "seed of random patterns (default 1)" },
	{ .id = 'R',
	  .name = "repeat",
	  .arg = "N",
	  .help = "average over seeds S..S+N-1 (N <= 1000000), 95%\n"
		  "confidence" },
	{ .id = O_TIME,
	  .name = "time-limit",
	  .arg = "MS",
	  .help = "stop each LP model after MS milliseconds" },
	{ .id = O_GAP,
	  .name = "gap",
	  .arg = "G",
	  .help = "certified relative gap of the first-order LP\n"
		  "solver: 0.01 or 1% (default 1%)" },
	{ .id = O_EXACT,
	  .name = "exact",
	  .help = "solve mcf and the ugal models with GLPK's\n"
		  "simplex, exactly, whatever their size" },
	{ .id = O_FAST,
	  .name = "fast",
	  .help = "solve them with the first-order solver to\n"
		  "--gap, whatever their size (default: exactly\n"
		  "up to 20,000 LP non-zeros, else to --gap)" },
	{ .id = O_BW,
	  .name = "bw",
	  .arg = "P,L,G",
	  .help = "nne: injection, local and global link bandwidths\n"
		  "in units of link capacity (default: the\n"
		  "topology's capacities)" },
	{ .id = O_TOP,
	  .name = "top",
	  .arg = "N",
	  .help = "most loaded links to show (default 5)" },
	CLI_OPT_JSON,
	{ .id = O_CSV,
	  .name = "csv",
	  .help = "per-flow table (src, dst, demand, paths, rates)" },
	{ .id = O_PROGRESS,
	  .name = "progress",
	  .help = "progress on stderr (default: when a terminal)" },
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "eval",
	.synopsis = "--topo SPEC [--routing R] (--pattern P | --flows FILE)\n"
		    "[--model hm|jm|mcf|mmf|ugalK|nne|all] [--nodes LIST]\n"
		    "[--seed S] [--repeat N] [--time-limit MS]\n"
		    "[--gap G | --exact | --fast] [--bw P,L,G] [--top N]\n"
		    "[--json | --csv] [--progress]",
	.about =
		"Predict the rate of every flow (in units of link capacity) with the\n"
		"throughput models of Faizian et al.: hm (Hoefler), jm (Jain), mcf\n"
		"(maximum concurrent flow, one LP) and mmf (max-min fair, iterative\n"
		"LPs or progressive filling), and under ugal routing on a dragonfly\n"
		"or Cascade with the UGAL-G LP Models 0-5 of Mollah et al. (ugal0 ..\n"
		"ugal5), and on a dragonfly with paper 004's demand-based bottleneck\n"
		"model (nne: every node injects the same B_eff); report aggregate, per-flow and per-node rates, Jain's\n"
		"fairness index and the most loaded links.",
	.opts = options,
};

struct eval {
	const char *topo_spec, *routing_spec, *pattern, *flows_file;
	const char *model, *nodes_arg;
	uint64_t seed;
	uint32_t repeat, top;
	bool json, csv, progress;
	struct model_opts opts;
	struct machine *m;
	const struct topo *t;	 /* the machine's */
	const struct routing *r; /* the machine's */
	uint32_t *nodes, nnodes;
	const char *bw;	     /* --bw P,L,G, or NULL */
	char nne_spec[512];  /* the nne model's spec with --bw's options */
	bool all;	     /* --model all: every registered model */
	const char **models; /* the models run (run() allocates them) */
	uint32_t nmodels;
};

static const char *status_name(int st)
{
	switch (st) {
	case MODEL_OPTIMAL:
		return "optimal";
	case MODEL_TIME_LIMIT:
		return "time-limit";
	case MODEL_INFEASIBLE:
		return "infeasible";
	default:
		return "failed";
	}
}

/* Two-sided 95 % Student t quantile for DF degrees of freedom. */
static double t95(uint32_t df)
{
	static const double q[] = {
		0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
		2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
		2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
		2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042,
	};
	/* beyond 30: the tabulated 40, 60, 120, infinity, linear in 1/df */
	static const double dfs[] = { 30, 40, 60, 120, INFINITY };
	static const double qs[] = { 2.042, 2.021, 2.000, 1.980, 1.960 };

	if (df == 0)
		return 0;
	if (df <= 30)
		return q[df];
	for (int i = 0; i < 4; i++)
		if (df <= dfs[i + 1]) {
			double a = 1 / dfs[i], b = 1 / dfs[i + 1], x = 1.0 / df;

			return qs[i] + (qs[i + 1] - qs[i]) * (a - x) / (a - b);
		}
	return 1.960;
}

/* ---- flows of one run ---- */

static int make_flows(struct eval *e, uint64_t seed, struct flows *f,
		      struct err *err)
{
	uint32_t n = e->nodes ? e->nnodes : topo_num_nodes(e->t);

	if (e->pattern)
		return flows_pattern(e->pattern, e->nodes, n, seed, f, err);
	if (flows_load(e->flows_file, n, f, err))
		return -1;
	if (e->nodes)
		for (uint32_t i = 0; i < f->n; i++) {
			f->src[i] = e->nodes[f->src[i]];
			f->dst[i] = e->nodes[f->dst[i]];
		}
	return 0;
}

/* ---- output of one run ---- */

static struct json_object *jd(double v)
{
	return json_object_new_double(v);
}

/* A number, or null when it is not finite (JSON has no infinity). */
static struct json_object *jfin(double v)
{
	return isfinite(v) ? jd(v) : NULL;
}

/* Whether RES has an alpha: mcf, mmf (its first level) and the template
 * LP models, which also report a bound, a gap and their solver. */
static bool has_alpha(const struct model_result *res)
{
	return !strcmp(res->model, "mcf") || !strcmp(res->model, "mmf") ||
	       res->solver;
}

static struct json_object *result_json(const struct eval *e,
				       const struct model_result *res)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rates = json_object_new_array();
	struct json_object *nodes = json_object_new_object();
	struct json_object *links = json_object_new_array();
	bool lp = has_alpha(res);

	json_object_object_add(o, "model", json_object_new_string(res->model));
	json_object_object_add(
		o, "status", json_object_new_string(status_name(res->status)));
	json_object_object_add(o, "flows", json_object_new_int64(res->nflows));
	json_object_object_add(
		o, "paths", json_object_new_int64((int64_t)res->paths_total));
	json_object_object_add(o, "aggregate", jd(res->aggregate));
	json_object_object_add(o, "mean_rate", jd(res->mean_rate));
	json_object_object_add(o, "min_rate", jd(res->min_rate));
	json_object_object_add(o, "max_rate", jd(res->max_rate));
	for (uint32_t i = 0; i < res->nflows; i++)
		json_object_array_add(rates, jd(res->rates[i]));
	json_object_object_add(o, "rates", rates);
	json_object_object_add(o, "alpha", lp ? jd(res->alpha) : NULL);
	if (!strcmp(res->model, "nne")) {
		json_object_object_add(o, "route",
				       json_object_new_string(res->solver));
	} else if (res->solver) {
		json_object_object_add(
			o, "variables",
			json_object_new_int64((int64_t)res->variables));
		json_object_object_add(o, "bound", jfin(res->bound));
		json_object_object_add(o, "gap", jfin(res->gap));
		json_object_object_add(o, "solver",
				       json_object_new_string(res->solver));
	}
	json_object_object_add(nodes, "count",
			       json_object_new_int64(res->nnodes));
	json_object_object_add(nodes, "min", jd(res->node_min));
	json_object_object_add(nodes, "mean", jd(res->node_mean));
	json_object_object_add(nodes, "max", jd(res->node_max));
	json_object_object_add(nodes, "jain", jd(res->node_jain));
	json_object_object_add(o, "nodes", nodes);
	for (uint32_t k = 0; k < res->ntop && k < e->top; k++) {
		struct json_object *l = json_object_new_object();
		const struct topo_link *tl = topo_link(e->t, res->top[k].link);

		json_object_object_add(l, "link",
				       json_object_new_int64(res->top[k].link));
		json_object_object_add(l, "from",
				       json_object_new_int64(tl->from));
		json_object_object_add(l, "to", json_object_new_int64(tl->to));
		json_object_object_add(l, "load", jd(res->top[k].load));
		json_object_object_add(l, "capacity", jd(res->top[k].capacity));
		json_object_array_add(links, l);
	}
	json_object_object_add(o, "links", links);
	json_object_object_add(o, "iterations",
			       json_object_new_int64(res->iterations));
	if (lp) {
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "rows",
				       json_object_new_int64(res->lp_rows));
		json_object_object_add(s, "cols",
				       json_object_new_int64(res->lp_cols));
		json_object_object_add(
			s, "nonzeros",
			json_object_new_int64((int64_t)res->lp_nonzeros));
		json_object_object_add(o, "lp", s);
	}
	json_object_object_add(o, "seconds", jd(res->seconds));
	return o;
}

static void add_context(const struct eval *e, struct json_object *o,
			uint64_t seed)
{
	json_object_object_add(o, "topology",
			       json_object_new_string(topo_spec(e->t)));
	json_object_object_add(o, "routing",
			       json_object_new_string(routing_spec(e->r)));
	if (e->pattern) {
		json_object_object_add(o, "pattern",
				       json_object_new_string(e->pattern));
		json_object_object_add(o, "seed",
				       json_object_new_int64((int64_t)seed));
	} else {
		json_object_object_add(o, "flows_file",
				       json_object_new_string(e->flows_file));
	}
}

static void link_name(const struct topo *t, uint32_t id, char *buf, size_t len)
{
	const struct topo_link *l = topo_link(t, id);

	switch (l->kind) {
	case TOPO_LINK_INJECT:
		snprintf(buf, len, "node %u -> switch %u", l->from, l->to);
		break;
	case TOPO_LINK_EJECT:
		snprintf(buf, len, "switch %u -> node %u", l->from, l->to);
		break;
	default:
		snprintf(buf, len, "switch %u -> switch %u", l->from, l->to);
		break;
	}
}

static void print_table_head(void)
{
	printf("%-5s %-10s %10s %9s %9s %9s %9s %9s %9s %7s %6s %8s\n", "model",
	       "status", "aggregate", "mean", "min", "max", "node-min",
	       "node-mean", "node-max", "jain", "iter", "seconds");
}

static void print_row(const struct model_result *res)
{
	printf("%-5s %-10s %10.4f %9.5f %9.5f %9.5f %9.5f %9.5f %9.5f "
	       "%7.4f %6u %8.3f\n",
	       res->model, status_name(res->status), res->aggregate,
	       res->mean_rate, res->min_rate, res->max_rate, res->node_min,
	       res->node_mean, res->node_max, res->node_jain, res->iterations,
	       res->seconds);
}

/* The line of a template LP model (mcf, ugal0 .. ugal5): alpha, the
 * certified bound and the gap between them, and the solver. */
static void print_tpl(const struct model_result *r)
{
	printf("\n%s: alpha %.6f, bound %.6f, gap %.3g (%s); %llu variables, "
	       "LP %u rows x %u columns, %llu non-zeros, %u iterations\n",
	       r->model, r->alpha, r->bound, r->gap, r->solver,
	       (unsigned long long)r->variables, r->lp_rows, r->lp_cols,
	       (unsigned long long)r->lp_nonzeros, r->iterations);
}

static void print_text(const struct eval *e, const struct model_result *res,
		       uint32_t n, const struct flows *f,
		       const struct model_input *in, uint64_t seed)
{
	printf("topology  %s (%u nodes, %u links)\n", topo_spec(e->t),
	       topo_num_nodes(e->t), topo_num_links(e->t));
	printf("routing   %s\n", routing_spec(e->r));
	if (e->pattern)
		printf("pattern   %s, seed %llu", e->pattern,
		       (unsigned long long)seed);
	else
		printf("flows     %s", e->flows_file);
	printf(" (%u flows, %llu paths, %u nodes sending)\n\n", f->n,
	       (unsigned long long)(in ? in->npaths :
				    n  ? res[0].paths_total :
					 0),
	       n ? res[0].nnodes : 0);
	print_table_head();
	for (uint32_t m = 0; m < n; m++)
		print_row(&res[m]);
	for (uint32_t m = 0; m < n; m++) {
		if (!strcmp(res[m].model, "nne"))
			printf("\nnne: B_eff %.6f per node, %s routing (the "
			       "most loaded link sets it)\n",
			       res[m].alpha, res[m].solver);
		else if (res[m].solver)
			print_tpl(&res[m]);
		else if (!strcmp(res[m].model, "mmf"))
			printf("\n%s: alpha %.6f, LP %u rows x %u columns, %llu "
			       "non-zeros, %u iteration%s (LPs and filling "
			       "levels)\n",
			       res[m].model, res[m].alpha, res[m].lp_rows,
			       res[m].lp_cols,
			       (unsigned long long)res[m].lp_nonzeros,
			       res[m].iterations,
			       res[m].iterations == 1 ? "" : "s");
	}
	for (uint32_t m = 0; m < n; m++) {
		if (!res[m].ntop || !e->top)
			continue;
		printf("\n%s: most loaded links\n", res[m].model);
		printf("  %6s  %-28s %10s %9s %6s\n", "link", "", "load",
		       "capacity", "use");
		for (uint32_t k = 0; k < res[m].ntop && k < e->top; k++) {
			char name[96];
			const struct model_link_load *l = &res[m].top[k];

			link_name(e->t, l->link, name, sizeof(name));
			printf("  %6u  %-28s %10.5f %9.3f %5.1f%%\n", l->link,
			       name, l->load, l->capacity,
			       l->capacity > 0 ? 100 * l->load / l->capacity :
						 0);
		}
	}
}

/* Paths of flow I: from IN when built, else counted by the routing. */
static uint64_t flow_paths(const struct eval *e, const struct flows *f,
			   const struct model_input *in, uint32_t i)
{
	struct routing_count c;

	if (in)
		return in->flow_off[i + 1] - in->flow_off[i];
	if (f->src[i] == f->dst[i] ||
	    routing_count(e->r, f->src[i], f->dst[i], &c, NULL))
		return 0;
	return c.total;
}

static void print_csv(const struct eval *e, const struct flows *f,
		      const struct model_input *in,
		      const struct model_result *res, uint32_t n)
{
	printf("flow,src,dst,demand,paths");
	for (uint32_t m = 0; m < n; m++)
		printf(",%s", res[m].model);
	printf("\n");
	for (uint32_t i = 0; i < f->n; i++) {
		printf("%u,%u,%u,%.17g,%llu", i, f->src[i], f->dst[i],
		       f->demand[i],
		       (unsigned long long)flow_paths(e, f, in, i));
		for (uint32_t m = 0; m < n; m++)
			printf(",%.17g", res[m].rates[i]);
		printf("\n");
	}
}

/* ---- --repeat: mean and 95 % confidence half-width ---- */

enum {
	S_FLOWS,
	S_AGG,
	S_MEAN,
	S_MIN,
	S_MAX,
	S_ALPHA,
	S_NMIN,
	S_NMEAN,
	S_NMAX,
	S_JAIN,
	S_SECONDS,
	NSTAT
};
static const char *const stat_names[NSTAT] = {
	"flows",    "aggregate", "mean_rate", "min_rate", "max_rate", "alpha",
	"node_min", "node_mean", "node_max",  "jain",	  "seconds",
};

/* Welford's running mean and sum of squared deviations (no cancellation
 * when every run gives the same value). */
struct acc {
	uint32_t n;
	double mean[NSTAT], m2[NSTAT];
	int worst;
	bool alpha; /* the model has an alpha (has_alpha) */
};

static void acc_add(struct acc *a, const struct model_result *r)
{
	double v[NSTAT] = {
		r->nflows,   r->aggregate, r->mean_rate, r->min_rate,
		r->max_rate, r->alpha,	   r->node_min,	 r->node_mean,
		r->node_max, r->node_jain, r->seconds,
	};

	a->n++;
	for (int k = 0; k < NSTAT; k++) {
		double d = v[k] - a->mean[k];

		a->mean[k] += d / a->n;
		a->m2[k] += d * (v[k] - a->mean[k]);
	}
	if (r->status > a->worst)
		a->worst = r->status;
	a->alpha = has_alpha(r);
}

static void acc_get(const struct acc *a, uint32_t n, int k, double *mean,
		    double *ci)
{
	double var = n > 1 ? a->m2[k] / (n - 1) : 0;

	*mean = a->mean[k];
	*ci = n > 1 && var > 0 ? t95(n - 1) * sqrt(var / n) : 0;
}

static struct json_object *acc_json(const struct acc *a, uint32_t n,
				    const char *model)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ci = json_object_new_object();
	struct json_object *nodes = json_object_new_object();
	bool lp = a->alpha;
	double m, c;

	json_object_object_add(o, "model", json_object_new_string(model));
	json_object_object_add(o, "status",
			       json_object_new_string(status_name(a->worst)));
	for (int k = 0; k < NSTAT; k++) {
		acc_get(a, n, k, &m, &c);
		if (k == S_ALPHA && !lp)
			continue;
		if (k >= S_NMIN && k <= S_JAIN)
			json_object_object_add(
				nodes, stat_names[k] + (k == S_JAIN ? 0 : 5),
				jd(m));
		else
			json_object_object_add(o, stat_names[k], jd(m));
		json_object_object_add(ci, stat_names[k], jd(c));
	}
	if (!lp)
		json_object_object_add(o, "alpha", NULL);
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "ci95", ci);
	return o;
}

static void print_repeat_text(const struct eval *e, const struct acc *acc,
			      uint32_t n)
{
	printf("topology  %s (%u nodes, %u links)\n", topo_spec(e->t),
	       topo_num_nodes(e->t), topo_num_links(e->t));
	printf("routing   %s\n", routing_spec(e->r));
	printf("pattern   %s, seeds %llu..%llu: mean +- 95%% confidence "
	       "half-width (Student t, %u runs)\n\n",
	       e->pattern ? e->pattern : e->flows_file,
	       (unsigned long long)e->seed,
	       (unsigned long long)(e->seed + e->repeat - 1), e->repeat);
	printf("%-5s %-10s %20s %20s %20s %20s %18s\n", "model", "status",
	       "aggregate", "mean", "min", "node-min", "jain");
	for (uint32_t m = 0; m < n; m++) {
		static const int cols[] = { S_AGG, S_MEAN, S_MIN, S_NMIN };
		double mean, ci;

		printf("%-5s %-10s", e->models[m], status_name(acc[m].worst));
		for (int k = 0; k < 4; k++) {
			acc_get(&acc[m], e->repeat, cols[k], &mean, &ci);
			printf(" %10.5f +- %-6.4f", mean, ci);
		}
		acc_get(&acc[m], e->repeat, S_JAIN, &mean, &ci);
		printf(" %7.4f +- %-6.4f\n", mean, ci);
	}
}

/* ---- main ---- */

static int parse_models(struct eval *e)
{
	struct err err = { 0 };

	e->all = !strcmp(e->model, "all");
	if (!e->all && model_check(e->model, &err))
		return cli_error("eval", cli_status(&err, CLI_USAGE),
				 "--model: %s; --model all runs them all",
				 err.msg);
	return 0;
}

/* Whether SPEC names the nne model. */
static bool is_nne(const char *spec)
{
	return !strncmp(spec, "nne", 3) && (!spec[3] || spec[3] == ':');
}

/* E->nne_spec: the nne model's spec (--model's, or "nne") with --bw's
 * bandwidths as its options.  Returns 0, or -1 after a message. */
static int nne_spec(struct eval *e)
{
	const char *base = !e->all && is_nne(e->model) ? e->model : "nne";
	double v[3];
	char extra[200] = "";
	int len = 0;

	if (e->bw) {
		if (!e->all && !is_nne(e->model)) {
			cli_error("eval", CLI_USAGE,
				  "--bw sets the nne model's bandwidths; "
				  "--model is %s",
				  e->model);
			return -1;
		}
		if (cli_parse_bw("eval", e->bw, "bandwidth", v))
			return -1;
		if (strstr(base, "inject=") || strstr(base, "local=") ||
		    strstr(base, "global=")) {
			cli_error("eval", CLI_USAGE,
				  "--bw and --model %s both set bandwidths: "
				  "give them once",
				  base);
			return -1;
		}
		len = snprintf(extra, sizeof(extra),
			       "inject=%.17g,local=%.17g,global=%.17g", v[0],
			       v[1], v[2]);
	}
	if ((size_t)snprintf(e->nne_spec, sizeof(e->nne_spec), "%s%s%s", base,
			     !len	       ? "" :
			     strchr(base, ':') ? "," :
						 ":",
			     extra) >= sizeof(e->nne_spec)) {
		cli_error("eval", CLI_USAGE, "--model %s: too long", base);
		return -1;
	}
	return 0;
}

/* The models to run: for --model all every registered one (as many as
 * the registry has) that applies to the routing (the UGAL models need
 * routing ugal on a dragonfly or cascade), else the one given. */
static int list_models(struct eval *e)
{
	size_t n = e->all ? model_count() : 1;

	e->models = calloc(n + 1, sizeof(*e->models));
	if (!e->models)
		return -1;
	e->nmodels = 0;
	if (!e->all) {
		e->models[e->nmodels++] = is_nne(e->model) ? e->nne_spec :
							     e->model;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!model_applies(model_name(i), e->r, NULL))
			e->models[e->nmodels++] = is_nne(model_name(i)) ?
							  e->nne_spec :
							  model_name(i);
	return 0;
}

/* Whether a model of the run works on enumerated paths (the struct
 * model_input is built only then: the UGAL models never enumerate). */
static bool need_paths(const struct eval *e)
{
	for (uint32_t m = 0; m < e->nmodels; m++)
		if (model_uses_paths(e->models[m], e->r))
			return true;
	return false;
}

/* Run model M of the run on flows F (IN: their paths, when built). */
static int run_model(const struct eval *e, uint32_t m, const struct flows *f,
		     const struct model_input *in, struct model_result *res,
		     struct err *err)
{
	if (model_uses_paths(e->models[m], e->r))
		return model_solve(e->models[m], in, &e->opts, res, err);
	return model_run(e->models[m], e->r, f, &e->opts, res, err);
}

/* What run() computed for emit(): with one seed, the flows, their paths
 * (when built) and every model's result; with --repeat, the per-model
 * accumulators.  WORST is the worst status a model finished with. */
struct eval_result {
	struct flows f;
	struct model_input in;
	bool paths;
	struct model_result *res; /* [nmodels] */
	uint32_t nres;		  /* res[0 .. nres) to free */
	struct acc *acc;	  /* [nmodels] */
	uint64_t seed;		  /* the last run's */
	int worst;
};

static void result_free(struct eval_result *r)
{
	for (uint32_t m = 0; m < r->nres; m++)
		model_result_free(&r->res[m]);
	r->nres = 0;
	model_input_free(&r->in);
	memset(&r->in, 0, sizeof(r->in));
}

/* The flows of one seed through every model of the run into R. */
static int run_seed(struct eval *e, uint32_t rep, struct eval_result *r)
{
	struct err err = { 0 };

	memset(&r->in, 0, sizeof(r->in));
	if (make_flows(e, r->seed, &r->f, &err))
		return cli_error("eval", cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	if (r->paths && model_input_build(e->r, &r->f, &r->in, &err))
		return cli_error("eval", cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	for (uint32_t m = 0; m < e->nmodels; m++) {
		if (e->progress && r->paths)
			fprintf(stderr,
				"stopo eval: [%u/%u] seed %llu, "
				"%s on %u flows, %u paths...\n",
				rep + 1, e->repeat, (unsigned long long)r->seed,
				e->models[m], r->in.nflows, r->in.npaths);
		else if (e->progress)
			fprintf(stderr,
				"stopo eval: [%u/%u] seed %llu, "
				"%s on %u flows...\n",
				rep + 1, e->repeat, (unsigned long long)r->seed,
				e->models[m], r->f.n);
		if (run_model(e, m, &r->f, r->paths ? &r->in : NULL, &r->res[m],
			      &err))
			return cli_error("eval", CLI_FAIL, "%s: %s",
					 e->models[m], err.msg);
		r->nres = m + 1;
		if (r->res[m].status > r->worst)
			r->worst = r->res[m].status;
		acc_add(&r->acc[m], &r->res[m]);
	}
	return CLI_OK;
}

/* Open the machine, resolve the models and nodes, and run every seed
 * into R (the last seed's results kept when there is one).  Returns an
 * exit status. */
static int run(struct eval *e, struct eval_result *r)
{
	struct err err = { 0 };
	int rc;

	e->m = machine_open(e->topo_spec, e->routing_spec, &err);
	if (!e->m)
		return cli_error("eval", cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	e->t = machine_topo(e->m);
	e->r = machine_routing(e->m);
	if (!e->all && model_applies(e->model, e->r, &err))
		return cli_error("eval", cli_status(&err, CLI_USAGE),
				 "--model: %s", err.msg);
	if (e->nodes_arg) {
		/* a hostlist through the topo.conf's names, or ids */
		e->nodes = workload_nodes(e->nodes_arg, e->m,
					  topo_num_nodes(e->t), &e->nnodes,
					  &err);
		if (!e->nodes)
			return cli_error("eval", cli_status(&err, CLI_USAGE),
					 "--nodes: %s", err.msg);
	}
	if (list_models(e) ||
	    !(r->res = calloc(e->nmodels + 1, sizeof(*r->res))) ||
	    !(r->acc = calloc(e->nmodels + 1, sizeof(*r->acc))))
		return cli_error("eval", CLI_FAIL, "out of memory");
	r->paths = need_paths(e);
	for (uint32_t rep = 0; rep < e->repeat; rep++) {
		r->seed = e->seed + rep;
		rc = run_seed(e, rep, r);
		if (rc != CLI_OK)
			return rc;
		if (rep + 1 < e->repeat)
			result_free(r);
	}
	return CLI_OK;
}

/* R on stdout: one seed's results (text, JSON or CSV), or the --repeat
 * statistics (text or JSON). */
static void emit(const struct eval *e, const struct eval_result *r)
{
	struct json_object *o, *a;

	if (e->repeat == 1 && e->json) {
		if (e->nmodels == 1) {
			o = result_json(e, &r->res[0]);
		} else {
			a = json_object_new_array();
			o = json_object_new_object();
			for (uint32_t m = 0; m < e->nmodels; m++)
				json_object_array_add(
					a, result_json(e, &r->res[m]));
			json_object_object_add(o, "models", a);
		}
		add_context(e, o, r->seed);
		cli_print_json(o);
	} else if (e->repeat == 1 && e->csv) {
		print_csv(e, &r->f, r->paths ? &r->in : NULL, r->res,
			  e->nmodels);
	} else if (e->repeat == 1) {
		print_text(e, r->res, e->nmodels, &r->f,
			   r->paths ? &r->in : NULL, r->seed);
	} else if (e->json) {
		a = json_object_new_array();
		for (uint32_t m = 0; m < e->nmodels; m++)
			json_object_array_add(a, acc_json(&r->acc[m], e->repeat,
							  e->models[m]));
		if (e->nmodels == 1) {
			o = json_object_array_get_idx(a, 0);
			json_object_get(o);
			json_object_put(a);
		} else {
			o = json_object_new_object();
			json_object_object_add(o, "models", a);
		}
		add_context(e, o, e->seed);
		json_object_object_add(o, "repeat",
				       json_object_new_int64(e->repeat));
		cli_print_json(o);
	} else {
		print_repeat_text(e, r->acc, e->nmodels);
	}
}

/* --gap: a fraction (0.01) or a percentage (1%), from 1e-6 to below 1. */
static int parse_gap(const char *s, double *gap)
{
	char *end;
	double g;

	g = strtod(s, &end);
	if (end != s && *end == '%' && !end[1]) {
		g /= 100;
		end++;
	}
	if (end == s || *end || !isfinite(g) || g < 1e-6 || g >= 1)
		return cli_error("eval", CLI_USAGE,
				 "--gap %s: want a relative gap from 1e-6 to "
				 "below 1, e.g. 0.01 or 1%%",
				 s);
	*gap = g;
	return 0;
}

/* The options into E.  Returns CLI_GO, or an exit status (help, bad
 * usage). */
static int parse(int argc, char **argv, struct eval *e)
{
	const char *arg;
	bool gap_given = false;
	int c;

	memset(e, 0, sizeof(*e));
	e->model = "all";
	e->seed = 1;
	e->repeat = 1;
	e->top = 5;
	e->progress = isatty(STDERR_FILENO);
	model_opts_init(&e->opts);
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			e->topo_spec = arg;
			break;
		case 'r':
			e->routing_spec = arg;
			break;
		case 'p':
			e->pattern = arg;
			break;
		case 'f':
			e->flows_file = arg;
			break;
		case 'm':
			e->model = arg;
			break;
		case 'n':
			e->nodes_arg = arg;
			break;
		case 's':
			if (cli_parse_u64("eval", "--seed", arg, &e->seed))
				return CLI_USAGE;
			break;
		case 'R':
			if (cli_parse_u32("eval", "--repeat", arg, &e->repeat))
				return CLI_USAGE;
			if (e->repeat == 0 || e->repeat > 1000000)
				return cli_error("eval", CLI_USAGE,
						 "--repeat %s: want 1 to "
						 "1000000",
						 arg);
			break;
		case O_TIME:
			if (cli_parse_u32("eval", "--time-limit", arg,
					  &e->opts.time_limit_ms))
				return CLI_USAGE;
			break;
		case O_GAP:
			if (parse_gap(arg, &e->opts.gap))
				return CLI_USAGE;
			gap_given = true;
			break;
		case O_BW:
			e->bw = arg;
			break;
		case O_EXACT:
		case O_FAST:
			if (e->opts.engine != MODEL_ENGINE_AUTO)
				return cli_error("eval", CLI_USAGE,
						 "--exact and --fast exclude "
						 "each other");
			e->opts.engine = c == O_EXACT ? MODEL_ENGINE_EXACT :
							MODEL_ENGINE_FAST;
			break;
		case O_TOP:
			if (cli_parse_u32("eval", "--top", arg, &e->top))
				return CLI_USAGE;
			break;
		case 'j':
			e->json = true;
			break;
		case O_CSV:
			e->csv = true;
			break;
		case O_PROGRESS:
			e->progress = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error("eval", CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!e->topo_spec)
		return cli_error("eval", CLI_USAGE, "--topo SPEC is required");
	if (!e->pattern == !e->flows_file)
		return cli_error("eval", CLI_USAGE,
				 "give exactly one of --pattern and --flows");
	if (e->json && e->csv)
		return cli_error("eval", CLI_USAGE,
				 "--json and --csv exclude each other");
	if (gap_given && e->opts.engine == MODEL_ENGINE_EXACT)
		return cli_error("eval", CLI_USAGE,
				 "--gap is the first-order solver's; --exact "
				 "has none");
	if (e->csv && e->repeat > 1)
		return cli_error("eval", CLI_USAGE,
				 "--csv prints the flows of one run, not "
				 "--repeat");
	if (e->repeat > 1 && (!e->pattern || !flows_pattern_random(e->pattern)))
		return cli_error("eval", CLI_USAGE,
				 "--repeat needs a random pattern (the same "
				 "flows would repeat)");
	if (parse_models(e) || nne_spec(e))
		return CLI_USAGE;
	e->opts.top_links = e->top;
	return CLI_GO;
}

int cmd_eval(int argc, char **argv)
{
	struct eval e;
	struct eval_result r = { .worst = MODEL_OPTIMAL };
	int rc = parse(argc, argv, &e);

	if (rc != CLI_GO)
		return rc;
	flows_init(&r.f);
	rc = run(&e, &r);
	if (rc == CLI_OK) {
		emit(&e, &r);
		if (r.worst != MODEL_OPTIMAL)
			rc = cli_error("eval", CLI_FAIL,
				       "a model did not finish: %s (the rates "
				       "shown are a feasible lower bound)",
				       status_name(r.worst));
	}
	result_free(&r);
	flows_free(&r.f);
	free(r.res);
	free(r.acc);
	free(e.models);
	free(e.nodes);
	machine_destroy(e.m);
	return rc;
}
