/* cmd_place.c - stopo place: plan a Cartesian nearest-neighbour job on a
 * dragonfly with paper 004's model (evaluator/nne/nne.h): every gamma
 * whose entries divide the grid and that the usable groups can hold,
 * under each routing and placement strategy, ranked by completion time;
 * the best plan's groups and, with --hostfile, its rank order. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/models/model.h"
#include "evaluator/nne/nne.h"
#include "evaluator/traffic/flows.h"
#include "evaluator/sim/workload.h"
#include "policies/machine/machine.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define CMD "place"

enum {
	O_ELEM_BYTES = CLI_LONG_ONLY,
	O_FREE,
	O_SQUEUE,
	O_BW,
	O_LINK_RATE,
	O_TPN,
	O_SEED,
	O_LINKS,
};

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "a dragonfly or Cascade: spec or topo.conf\n"
		  "(NodeName= gives the hostfile's names)" },
	{ .id = 'g',
	  .name = "grid",
	  .arg = "B0xB1x..",
	  .help = "the task grid beta (tasks per axis)" },
	{ .id = 'e',
	  .name = "elements",
	  .arg = "A0xA1x..",
	  .help = "the element grid alpha, a multiple of beta\n"
		  "(default: one element per task)" },
	{ .id = O_ELEM_BYTES,
	  .name = "elem-bytes",
	  .arg = "B",
	  .help = "bytes per element and face (default 1024)" },
	{ .id = 'r',
	  .name = "routing",
	  .arg = "R",
	  .help = "direct, indirect (Valiant) or auto (both, and\n"
		  "random placement); default: the machine's routing\n"
		  "(min: direct, vlb: indirect, ugal: auto)" },
	{ .id = O_FREE,
	  .name = "free",
	  .arg = "FILE",
	  .help = "plan on these nodes only: hostlists or index\n"
		  "lists, '#' comments ('-' = stdin)" },
	{ .id = O_SQUEUE,
	  .name = "squeue",
	  .arg = "FILE",
	  .help = "plan around the running jobs of squeue --json\n"
		  "output ('-' = stdin)" },
	{ .id = O_BW,
	  .name = "bw",
	  .arg = "P,L,G",
	  .help = "injection, local, global link bandwidth, GB/s\n"
		  "(default: capacities x --link-rate)" },
	{ .id = O_LINK_RATE,
	  .name = "link-rate",
	  .arg = "GBPS",
	  .help = "GB/s of a link of capacity 1 (default 5, the\n"
		  "paper's 40 Gbit/s)" },
	{ .id = O_TPN,
	  .name = "tasks-per-node",
	  .arg = "T",
	  .help = "ranks per node (default 1)" },
	{ .id = 'n',
	  .name = "top",
	  .arg = "N",
	  .help = "plans to list (default 10; 0 = all)" },
	{ .id = 'H',
	  .name = "hostfile",
	  .arg = "FILE",
	  .help = "write the best plan's hosts in rank order, for\n"
		  "srun --distribution=arbitrary" },
	{ .id = O_LINKS,
	  .name = "links",
	  .help = "also run the best plan's exchange through the\n"
		  "link-level model (stopo eval --model nne):\n"
		  "local links and routers included" },
	{ .id = O_SEED,
	  .name = "seed",
	  .arg = "S",
	  .help = "seed of a random placement's rank order (1)" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = CMD,
	.synopsis = "--topo SPEC --grid B0xB1x.. [--elements A0xA1x..]\n"
		    "[--routing direct|indirect|auto] [--free FILE | "
		    "--squeue FILE]\n"
		    "[--bw P,L,G] [--tasks-per-node T] [--top N]\n"
		    "[--hostfile FILE] [--links] [--json]",
	.about =
		"Plan a Cartesian nearest-neighbour exchange (a stencil code's halo\n"
		"exchange) on a dragonfly with Prisacari et al.'s model: for every\n"
		"sub-box gamma of the task grid that one group can hold (its entries\n"
		"dividing the grid's), and every strategy (Cartesian placement with\n"
		"direct or Valiant routing, random placement with direct routing), the\n"
		"bound on each task's bandwidth and the exchange's completion time;\n"
		"the fastest plan first, then its groups and rank order.",
	.opts = options,
	.footer =
		"Times assume the job alone on the network (paper 004 Sec. 3.2).  See\n"
		"stopo-place(1).",
};

struct cmd_place_args {
	const char *spec, *grid, *elements, *free_file, *squeue, *hostfile;
	double mu, bw[3], link_rate; /* bytes, bytes/s */
	unsigned mask;		     /* strategies (1 << enum nne_strategy) */
	uint32_t top, tpn;
	uint64_t seed;
	bool json, links;
};

struct cmd_place_result {
	struct machine *m;
	const struct topo *t;
	struct nne_app app;
	struct nne_net net;
	uint8_t *usable;      /* [N] */
	uint32_t *group_free; /* [groups] usable nodes per group */
	uint32_t nusable, free_groups;
	struct nne_plan *plans;
	uint32_t nplans;
	uint32_t *rank_node; /* [tasks] the best plan's, rank order */
	uint32_t *groups;    /* [best.groups] in box order */
	uint32_t routers;    /* routers the best plan uses in its first group */
	/* --links: the generic model on the best plan's explicit flows */
	double link_bw;	    /* B_eff, bytes/s */
	char link_kind[16]; /* the kind of the most loaded link */
};

static int parse_pos(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !(*v > 0) || !isfinite(*v))
		return cli_error(CMD, CLI_USAGE,
				 "%s %s: want a positive number", opt, s);
	/* sizes and rates past 1e15 (a petabyte per element, a petabyte
	 * per second) only give inf or 0 ms */
	if (*v > 1e15)
		return cli_error(CMD, CLI_USAGE, "%s %s: at most 1e15", opt, s);
	return 0;
}

static int parse(int argc, char **argv, struct cmd_place_args *a)
{
	const char *arg;
	int c;

	/* mask 0: from the machine's routing (plan) */
	*a = (struct cmd_place_args){ .top = 10, .tpn = 1, .seed = 1 };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			a->spec = arg;
			break;
		case 'g':
			a->grid = arg;
			break;
		case 'e':
			a->elements = arg;
			break;
		case O_ELEM_BYTES:
			if (parse_pos("--elem-bytes", arg, &a->mu))
				return CLI_USAGE;
			break;
		case 'r':
			if (!strcmp(arg, "direct"))
				a->mask = 1u << NNE_CART_DIRECT |
					  1u << NNE_RANDOM_DIRECT;
			else if (!strcmp(arg, "indirect"))
				a->mask = 1u << NNE_CART_INDIRECT;
			else if (!strcmp(arg, "auto"))
				a->mask = 1u << NNE_CART_DIRECT |
					  1u << NNE_CART_INDIRECT |
					  1u << NNE_RANDOM_DIRECT;
			else
				return cli_error(CMD, CLI_USAGE,
						 "--routing %s: want direct, "
						 "indirect or auto",
						 arg);
			break;
		case O_FREE:
			a->free_file = arg;
			break;
		case O_SQUEUE:
			a->squeue = arg;
			break;
		case O_BW:
			if (cli_parse_bw(CMD, arg, "GB/s", a->bw))
				return CLI_USAGE;
			for (int k = 0; k < 3; k++)
				a->bw[k] *= 1e9;
			break;
		case O_LINK_RATE:
			if (parse_pos("--link-rate", arg, &a->link_rate))
				return CLI_USAGE;
			a->link_rate *= 1e9;
			break;
		case O_TPN:
			if (cli_parse_u32(CMD, "--tasks-per-node", arg,
					  &a->tpn))
				return CLI_USAGE;
			if (!a->tpn)
				return cli_error(CMD, CLI_USAGE,
						 "--tasks-per-node: want 1 or "
						 "more");
			break;
		case 'n':
			if (cli_parse_u32(CMD, "--top", arg, &a->top))
				return CLI_USAGE;
			break;
		case 'H':
			a->hostfile = arg;
			break;
		case O_SEED:
			if (cli_parse_u64(CMD, "--seed", arg, &a->seed))
				return CLI_USAGE;
			break;
		case 'j':
			a->json = true;
			break;
		case O_LINKS:
			a->links = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error(CMD, CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!a->spec)
		return cli_error(CMD, CLI_USAGE, "--topo SPEC is required");
	if (!a->grid)
		return cli_error(CMD, CLI_USAGE, "--grid B0xB1x.. is required");
	if (a->free_file && a->squeue)
		return cli_error(CMD, CLI_USAGE,
				 "give --free or --squeue, not both");
	if (a->links && a->tpn != 1)
		return cli_error(CMD, CLI_USAGE,
				 "--links models one task per node; "
				 "--tasks-per-node is %u",
				 a->tpn);
	if (a->json && a->hostfile && !strcmp(a->hostfile, "-"))
		return cli_error(CMD, CLI_USAGE,
				 "--json prints to stdout: give --hostfile a "
				 "file");
	return CLI_GO;
}

/* R->usable from a --free file: every listed node usable, the rest not.
 * Returns an exit status. */
static int read_free(const char *path, struct cmd_place_result *r)
{
	uint32_t N = topo_num_nodes(r->t), line = 1;
	struct err err = { 0 };
	size_t len;
	char *text = workload_slurp(path, &len, &err), *p;
	const char *name = strcmp(path, "-") ? path : "<stdin>";

	if (!text)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	memset(r->usable, 0, N);
	for (p = text; *p;) {
		char *tok, save;
		uint32_t *nodes, n;

		if (*p == '\n') {
			line++;
			p++;
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',') {
			p++;
			continue;
		}
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		/* a token: up to blank; commas inside brackets belong to it
		 * (read in place, however long) */
		tok = p;
		for (int depth = 0;
		     *p && *p != '\n' && *p != ' ' && *p != '\t' &&
		     *p != '\r' && *p != '#' && (depth || *p != ',');
		     p++)
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		save = *p;
		*p = '\0';
		nodes = workload_nodes(tok, r->m, N, &n, &err);
		*p = save;
		if (!nodes) {
			free(text);
			return cli_error(CMD, cli_status(&err, CLI_USAGE),
					 "%s:%u: %s", name, line, err.msg);
		}
		for (uint32_t i = 0; i < n; i++)
			r->usable[nodes[i]] = 1;
		free(nodes);
	}
	free(text);
	return CLI_OK;
}

/* Mark the nodes of the running jobs in squeue --json output PATH busy.
 * Returns an exit status. */
static int read_squeue(const char *path, struct cmd_place_result *r)
{
	struct wl_opts wo;
	struct workload w = { 0 };
	struct err err = { 0 };

	wl_opts_init(&wo);
	wo.machine = r->m;
	wo.nnodes = topo_num_nodes(r->t);
	wo.format = WL_JSON;
	if (workload_load(path, &wo, &w, &err))
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	for (uint32_t j = 0; j < w.n; j++)
		if (w.jobs[j].running && w.jobs[j].alloc)
			for (uint32_t i = 0; i < w.jobs[j].nodes; i++)
				r->usable[w.jobs[j].alloc[i]] = 0;
	workload_free(&w);
	return CLI_OK;
}

/* R->link_bw: the best plan's stencil flows through model nne on the
 * machine's topology, with the plan's routing and R->net's bandwidths.
 * Returns an exit status. */
static int link_level(struct cmd_place_result *r)
{
	const struct nne_plan *b = &r->plans[0];
	const struct nne_app *ap = &r->app;
	char pat[256], spec[256];
	struct flows f;
	struct model_result res = { 0 };
	struct model_opts o;
	struct err err = { 0 };
	int rc = CLI_OK;

	nne_pattern(ap, pat, sizeof(pat));
	snprintf(spec, sizeof(spec),
		 "nne:route=%s,inject=%.17g,local=%.17g,global=%.17g",
		 b->strategy == NNE_CART_INDIRECT ? "indirect" : "direct",
		 r->net.bp, r->net.bl, r->net.br);
	flows_init(&f);
	model_opts_init(&o);
	o.top_links = 1;
	if (flows_pattern(pat, r->rank_node, (uint32_t)nne_tasks(ap), 1, &f,
			  &err) ||
	    model_run(spec, machine_routing(r->m), &f, &o, &res, &err)) {
		rc = cli_error(CMD, CLI_FAIL, "--links: %s", err.msg);
		goto out;
	}
	r->link_bw = res.alpha;
	if (res.ntop) {
		enum topo_link_kind kind =
			topo_link(r->t, res.top[0].link)->kind;

		snprintf(r->link_kind, sizeof(r->link_kind), "%s",
			 kind == TOPO_LINK_GLOBAL ? "global" :
			 kind == TOPO_LINK_LOCAL  ? "local" :
			 kind == TOPO_LINK_INJECT ? "injection" :
						    "ejection");
	}
out:
	model_result_free(&res);
	flows_free(&f);
	return rc;
}

static int run(const struct cmd_place_args *a, struct cmd_place_result *r)
{
	struct err err = { 0 };
	uint32_t N, G;
	uint64_t tasks;
	unsigned mask;
	int rc;

	r->m = machine_open(a->spec, NULL, &err);
	if (!r->m)
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	r->t = machine_topo(r->m);
	mask = a->mask;
	if (!mask) {
		/* the strategies the machine's routing allows, as the nne
		 * policy takes them */
		const char *rn = routing_name(machine_routing(r->m));

		mask = 1u << NNE_CART_DIRECT | 1u << NNE_RANDOM_DIRECT;
		if (!strcmp(rn, "vlb"))
			mask = 1u << NNE_CART_INDIRECT;
		else if (strcmp(rn, "min"))
			mask |= 1u << NNE_CART_INDIRECT;
	}
	if (nne_app_init(&r->app, a->grid, a->elements, a->mu, &err) ||
	    nne_net_from_topo(r->t, a->link_rate, a->bw, &r->net, &err))
		return cli_error(CMD, cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	r->net.tasks_per_node = a->tpn;
	N = topo_num_nodes(r->t);
	G = topo_num_groups(r->t);
	tasks = nne_tasks(&r->app);
	r->usable = malloc(N);
	r->group_free = calloc(G, sizeof(*r->group_free));
	if (!r->usable || !r->group_free)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	memset(r->usable, 1, N);
	if (a->free_file && (rc = read_free(a->free_file, r)) != CLI_OK)
		return rc;
	if (a->squeue && (rc = read_squeue(a->squeue, r)) != CLI_OK)
		return rc;
	for (uint32_t i = 0; i < N; i++)
		if (r->usable[i]) {
			r->group_free[topo_switch_group(
				r->t, topo_node_switch(r->t, i))]++;
			r->nusable++;
		}
	for (uint32_t g = 0; g < G; g++)
		r->free_groups += r->group_free[g] == r->net.nodes_per_group;
	if (nne_plan_all(&r->app, &r->net, r->group_free, mask, &r->plans,
			 &r->nplans, &err))
		return cli_error(CMD, CLI_FAIL, "%s", err.msg);
	if (!r->nplans) {
		uint32_t most = 0;

		for (uint32_t g = 0; g < G; g++)
			if (r->group_free[g] > most)
				most = r->group_free[g];
		return cli_error(CMD, CLI_FAIL,
				 "no plan fits: %llu tasks (%u per node) on "
				 "%u usable nodes in %u groups need %llu or "
				 "more tasks in a group, which holds at most "
				 "%llu (%u nodes); try more --tasks-per-node",
				 (unsigned long long)tasks, a->tpn, r->nusable,
				 G, (unsigned long long)((tasks + G - 1) / G),
				 (unsigned long long)most * a->tpn, most);
	}
	r->rank_node = malloc(tasks * sizeof(*r->rank_node));
	r->groups = malloc((r->plans[0].groups + 1) * sizeof(*r->groups));
	if (!r->rank_node || !r->groups)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	if (nne_layout(r->t, r->usable, &r->app, &r->plans[0], a->tpn, a->seed,
		       r->rank_node, r->groups, &err))
		return cli_error(CMD, CLI_FAIL, "%s", err.msg);
	{
		uint32_t S = topo_num_switches(r->t);
		uint8_t *seen = calloc(S, 1);

		if (!seen)
			return cli_error(CMD, CLI_FAIL, "out of memory");
		for (uint64_t i = 0; i < tasks; i++) {
			uint32_t sw = topo_node_switch(r->t, r->rank_node[i]);

			if (topo_switch_group(r->t, sw) == r->groups[0] &&
			    !seen[sw]) {
				seen[sw] = 1;
				r->routers++;
			}
		}
		free(seen);
	}
	if (a->links && (rc = link_level(r)) != CLI_OK)
		return rc;
	if (a->hostfile) {
		FILE *f = strcmp(a->hostfile, "-") ? fopen(a->hostfile, "w") :
						     stdout;

		if (!f)
			return cli_error(CMD, CLI_FAIL, "%s: %s", a->hostfile,
					 strerror(errno));
		for (uint64_t i = 0; i < tasks; i++) {
			const char *nm =
				machine_node_name(r->m, r->rank_node[i]);

			if (nm)
				fprintf(f, "%s\n", nm);
			else
				fprintf(f, "%u\n", r->rank_node[i]);
		}
		if (f != stdout && fclose(f))
			return cli_error(CMD, CLI_FAIL, "%s: %s", a->hostfile,
					 strerror(errno));
	}
	return CLI_OK;
}

static struct json_object *dims_json(const uint32_t *v, uint32_t d)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < d; i++)
		json_object_array_add(a, json_object_new_int64(v[i]));
	return a;
}

static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *plan_json(const struct cmd_place_result *r,
				     const struct nne_plan *p, uint32_t rank)
{
	struct json_object *o = json_object_new_object();
	bool rnd = p->strategy == NNE_RANDOM_DIRECT;

	json_object_object_add(o, "rank", json_object_new_int64(rank));
	json_object_object_add(
		o, "strategy",
		json_object_new_string(nne_strategy_name(p->strategy)));
	json_object_object_add(o, "gamma",
			       rnd ? NULL : dims_json(p->gamma, r->app.d));
	json_object_object_add(o, "lambda",
			       rnd ? NULL : dims_json(p->lambda, r->app.d));
	json_object_object_add(o, "groups", json_object_new_int64(p->groups));
	json_object_object_add(o, "tasks_per_group",
			       json_object_new_int64(p->per_group));
	json_object_object_add(o, "nodes_per_group",
			       json_object_new_int64(p->nodes_per_group));
	json_object_object_add(o, "delta", jnum(p->delta));
	json_object_object_add(o, "delta_paper", jnum(p->delta_paper));
	json_object_object_add(o, "bandwidth", jnum(p->bw));
	json_object_object_add(o, "limit",
			       json_object_new_string(p->inject_bound ?
							      "injection" :
							      "global"));
	json_object_object_add(o, "seconds", jnum(p->seconds));
	return o;
}

static void emit_json(const struct cmd_place_args *a,
		      const struct cmd_place_result *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *bw = json_object_new_object();
	struct json_object *plans = json_object_new_array();
	struct json_object *best, *groups = json_object_new_array();
	uint32_t n = a->top && a->top < r->nplans ? a->top : r->nplans;

	json_object_object_add(o, "topology",
			       json_object_new_string(topo_spec(r->t)));
	json_object_object_add(o, "groups",
			       json_object_new_int64(r->net.groups));
	json_object_object_add(o, "pair_links",
			       json_object_new_int64(r->net.pair_links));
	json_object_object_add(bw, "inject", jnum(r->net.bp));
	json_object_object_add(bw, "local", jnum(r->net.bl));
	json_object_object_add(bw, "global", jnum(r->net.br));
	json_object_object_add(o, "bandwidth", bw);
	json_object_object_add(o, "grid", dims_json(r->app.beta, r->app.d));
	json_object_object_add(o, "elements",
			       dims_json(r->app.alpha, r->app.d));
	json_object_object_add(o, "elem_bytes", jnum(r->app.mu));
	json_object_object_add(
		o, "tasks", json_object_new_int64((int64_t)nne_tasks(&r->app)));
	json_object_object_add(o, "tasks_per_node",
			       json_object_new_int64(a->tpn));
	json_object_object_add(o, "task_bytes", jnum(nne_task_bytes(&r->app)));
	json_object_object_add(o, "usable_nodes",
			       json_object_new_int64(r->nusable));
	json_object_object_add(o, "plans_fitting",
			       json_object_new_int64(r->nplans));
	for (uint32_t i = 0; i < n; i++)
		json_object_array_add(plans, plan_json(r, &r->plans[i], i + 1));
	json_object_object_add(o, "plans", plans);
	best = plan_json(r, &r->plans[0], 1);
	for (uint32_t i = 0; i < r->plans[0].groups; i++)
		json_object_array_add(groups,
				      json_object_new_int64(r->groups[i]));
	json_object_object_add(best, "group_ids", groups);
	json_object_object_add(best, "routers_per_group",
			       json_object_new_int64(r->routers));
	json_object_object_add(
		best, "hostfile",
		a->hostfile ? json_object_new_string(a->hostfile) : NULL);
	if (a->links) {
		struct json_object *lk = json_object_new_object();

		json_object_object_add(lk, "bandwidth", jnum(r->link_bw));
		json_object_object_add(lk, "limit",
				       json_object_new_string(r->link_kind));
		json_object_object_add(
			lk, "seconds",
			jnum(nne_task_bytes(&r->app) / r->link_bw));
		json_object_object_add(best, "links", lk);
	}
	json_object_object_add(o, "best", best);
	cli_print_json(o);
}

static void emit_text(const struct cmd_place_args *a,
		      const struct cmd_place_result *r)
{
	const struct nne_app *ap = &r->app;
	const struct nne_plan *b = &r->plans[0];
	uint32_t n = a->top && a->top < r->nplans ? a->top : r->nplans;
	uint64_t tasks = nne_tasks(ap);
	char g[64], l[64], buf[64];
	char *ranges;
	FILE *out = a->hostfile && !strcmp(a->hostfile, "-") ? stderr : stdout;

	fprintf(out,
		"topology   %s: %u groups of %u nodes, %u global link%s per "
		"group pair\n",
		topo_spec(r->t), r->net.groups, r->net.nodes_per_group,
		r->net.pair_links, r->net.pair_links == 1 ? "" : "s");
	fprintf(out,
		"bandwidth  injection %.3g GB/s, local %.3g GB/s, global %.3g "
		"GB/s per link\n",
		r->net.bp / 1e9, r->net.bl / 1e9, r->net.br / 1e9);
	nne_dims_format(ap->beta, ap->d, g, sizeof(g));
	nne_dims_format(ap->alpha, ap->d, l, sizeof(l));
	fprintf(out,
		"grid       %s = %llu tasks, %u per node; elements %s, %g B per "
		"element and face\n",
		g, (unsigned long long)tasks, a->tpn, l, ap->mu);
	fprintf(out, "exchange   %.4g MiB sent per task; messages",
		nne_task_bytes(ap) / 1048576);
	for (uint32_t k = 0; k < ap->d; k++)
		fprintf(out, "%s %.4g KiB", k ? "," : "",
			ap->beta[k] > 1 ? nne_msg_bytes(ap, k) / 1024 : 0);
	fprintf(out, " along axes 0..%u\n", ap->d - 1);
	fprintf(out, "usable     %u nodes in %u groups (%u wholly free)\n\n",
		r->nusable, r->net.groups, r->free_groups);
	fprintf(out, "plans (%u fit; %s)\n", r->nplans,
		n < r->nplans ? "the fastest first" : "fastest first");
	fprintf(out, "%4s  %-10s %-10s %6s %9s  %-19s %9s %10s %10s  %s\n", "#",
		"gamma", "lambda", "groups", "tasks/grp", "strategy", "delta",
		"B_eff GB/s", "time ms", "bound");
	for (uint32_t i = 0; i < n; i++) {
		const struct nne_plan *p = &r->plans[i];

		if (p->strategy == NNE_RANDOM_DIRECT) {
			snprintf(g, sizeof(g), "-");
			snprintf(l, sizeof(l), "-");
		} else {
			nne_dims_format(p->gamma, ap->d, g, sizeof(g));
			nne_dims_format(p->lambda, ap->d, l, sizeof(l));
		}
		fprintf(out,
			"%4u  %-10s %-10s %6u %9u  %-19s %9.4f %10.4f %10.4f  "
			"%s\n",
			i + 1, g, l, p->groups, p->per_group,
			nne_strategy_name(p->strategy), p->delta, p->bw / 1e9,
			p->seconds * 1e3,
			p->inject_bound ? "injection" : "global links");
	}
	nne_dims_format(b->gamma, ap->d, g, sizeof(g));
	fprintf(out, "\nbest: %s, %u tasks per group in %u groups",
		nne_strategy_name(b->strategy), b->per_group, b->groups);
	if (b->strategy != NNE_RANDOM_DIRECT) {
		nne_dims_format(b->lambda, ap->d, l, sizeof(l));
		fprintf(out, " (gamma %s, lambda %s)", g, l);
	}
	fprintf(out,
		"\n  B_eff %.4g GB/s per task (%s); the exchange completes "
		"in %.4g ms\n",
		b->bw / 1e9,
		b->inject_bound ? "injection-bound" : "global-link-bound",
		b->seconds * 1e3);
	ranges = cli_format_ranges(r->groups, b->groups);
	fprintf(out, "  groups %s; %u node%s per group on %u router%s\n",
		ranges ? ranges : "?", b->nodes_per_group,
		b->nodes_per_group == 1 ? "" : "s", r->routers,
		r->routers == 1 ? "" : "s");
	free(ranges);
	if (a->links)
		fprintf(out,
			"  link by link (local links included): B_eff %.4g "
			"GB/s per task, a %s link the\n  most loaded; the "
			"exchange completes in %.4g ms\n",
			r->link_bw / 1e9, r->link_kind,
			nne_task_bytes(ap) / r->link_bw * 1e3);
	if (b->strategy == NNE_CART_INDIRECT)
		fprintf(out,
			"  Valiant routing sends the job's traffic through "
			"every group's global links:\n  it shares links "
			"with the other jobs\n");
	if (a->hostfile) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)tasks);
		fprintf(out,
			"  hostfile %s: %s ranks in order%s; run with\n"
			"    SLURM_HOSTFILE=%s srun --distribution=arbitrary "
			"-n %s ./app\n",
			a->hostfile, buf,
			machine_has_names(r->m) ? "" :
						  " (node indices: the "
						  "topology has no NodeName=)",
			a->hostfile, buf);
	} else {
		fprintf(out, "  --hostfile FILE writes the rank order for srun "
			     "--distribution=arbitrary\n");
	}
}

static void result_free(struct cmd_place_result *r)
{
	free(r->usable);
	free(r->group_free);
	free(r->plans);
	free(r->rank_node);
	free(r->groups);
	machine_destroy(r->m);
}

int cmd_place(int argc, char **argv)
{
	struct cmd_place_args a;
	struct cmd_place_result r = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	rc = run(&a, &r);
	if (rc == CLI_OK) {
		if (a.json)
			emit_json(&a, &r);
		else
			emit_text(&a, &r);
	}
	result_free(&r);
	return rc;
}
