/* cmd_topo.c - stopo topo: describe a topology (stopo-topo(1)). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/models/model.h"
#include "policies/machine/machine.h"
#include "topo/topo.h"

enum { OPT_EXACT = CLI_LONG_ONLY, OPT_SAMPLES };

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "family:key=value,... or a topo.conf path" },
	{ .id = OPT_EXACT,
	  .name = "exact",
	  .help = "distances from a BFS at every switch, however long it "
		  "takes\n(default: exact or by symmetry within 10^9 steps, "
		  "else sampled)" },
	{ .id = OPT_SAMPLES,
	  .name = "samples",
	  .arg = "N",
	  .help = "sample the distances from N BFS sources (at least 64)\n"
		  "(default: sampled only beyond the budget)" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "topo",
	.synopsis = "--topo SPEC [--exact | --samples N] [--json]",
	.about = "Describe a network: family and parameters, switches, nodes, "
		 "directed\n"
		 "links (injection and ejection included), radix, "
		 "switch-to-switch\n"
		 "diameter and average hop count, groups or pods, unconnected "
		 "ports.\n"
		 "With a topo.conf file also its node names, routing and "
		 "policies.",
	.opts = options,
	.footer = "See stopo-topo(1) for the definitions and topo.conf(5).",
};

/* What `stopo topo` is asked. */
struct cmd_topo_args {
	const char *spec; /* --topo */
	bool json;
	bool exact;	  /* --exact */
	uint32_t samples; /* --samples, 0: by the budget */
};

/* What it found. */
struct cmd_topo_result {
	struct machine *m;
	struct topo_stats st;
};

static bool fattree_like(const struct topo *t)
{
	return topo_behaves_traits(t)->levels;
}

static const char *groups_key(const struct topo *t)
{
	return fattree_like(t) ? "pods" : "groups";
}

/* Leaves per pod of a recognised fat-tree graph, and the leaf count (the
 * level-0 switches with nodes).  Returns a malloc'ed array of
 * topo_num_groups entries (NULL when out of memory or no pods). */
static uint32_t *pod_leaves(const struct topo *t, uint32_t *leaves)
{
	uint32_t G = topo_num_groups(t);
	uint32_t *n = G ? calloc(G, sizeof(*n)) : NULL;

	*leaves = 0;
	for (uint32_t s = 0; s < topo_num_switches(t); s++) {
		uint32_t cnt;

		topo_switch_nodes(t, s, &cnt);
		if (topo_switch_level(t, s) != 0 || !cnt)
			continue;
		(*leaves)++;
		if (n && topo_switch_group(t, s) < G)
			n[topo_switch_group(t, s)]++;
	}
	return n;
}

/* Whether switch S is idle (IDLE) or hosts nodes above level 0. */
static bool special(const struct topo *t, uint32_t s, bool idle)
{
	uint32_t cnt;

	if (idle)
		return topo_switch_idle(t, s);
	topo_switch_nodes(t, s, &cnt);
	return cnt && topo_switch_level(t, s) > 0;
}

/* The names of the idle (IDLE) or hosting switches, as a JSON array. */
static struct json_object *special_json(const struct topo *t, bool idle)
{
	struct json_object *a = json_object_new_array();
	char b[80];

	for (uint32_t s = 0; s < topo_num_switches(t); s++)
		if (special(t, s, idle))
			json_object_array_add(
				a, json_object_new_string(topo_switch_label(
					   t, s, b, sizeof(b))));
	return a;
}

/* The first few idle or hosting switches, comma-separated, on stdout. */
static void special_text(const struct topo *t, bool idle, uint32_t n)
{
	uint32_t shown = 0;
	char b[80];

	for (uint32_t s = 0; s < topo_num_switches(t) && shown < 4; s++)
		if (special(t, s, idle))
			printf("%s%s", shown++ ? ", " : "",
			       topo_switch_label(t, s, b, sizeof(b)));
	if (n > shown)
		printf(", ...");
}

/* What the recognition of an explicit graph found (topo.conf(5)). */
static struct json_object *recog_json(const struct topo *t)
{
	struct json_object *o = json_object_new_object();
	struct topo_graph_info gi;

	topo_graph_info(t, &gi);
	json_object_object_add(o, "family",
			       gi.family ? json_object_new_string(gi.family) :
					   NULL);
	if (!gi.family) {
		json_object_object_add(o, "why",
				       json_object_new_string(gi.why));
	} else if (!strcmp(gi.family, "fattree")) {
		uint32_t leaves, *n = pod_leaves(t, &leaves);
		struct json_object *a = json_object_new_array();

		json_object_object_add(o, "levels",
				       json_object_new_int64(gi.levels));
		json_object_object_add(o, "pods",
				       json_object_new_int64(gi.groups));
		for (uint32_t g = 0; n && g < gi.groups; g++)
			json_object_array_add(a, json_object_new_int64(n[g]));
		json_object_object_add(o, "pod_leaves", a);
		json_object_object_add(o, "leaves",
				       json_object_new_int64(leaves));
		json_object_object_add(o, "idle_switches",
				       special_json(t, true));
		json_object_object_add(o, "hosting_switches",
				       special_json(t, false));
		free(n);
	} else {
		json_object_object_add(o, "groups",
				       json_object_new_int64(gi.groups));
		json_object_object_add(o, "group_switches",
				       json_object_new_int64(gi.group_size));
		if (!strcmp(gi.family, "cascade")) {
			json_object_object_add(o, "rows",
					       json_object_new_int64(gi.rows));
			json_object_object_add(o, "columns",
					       json_object_new_int64(gi.cols));
		}
		json_object_object_add(o, "global_links",
				       json_object_new_int64(gi.global_links));
		json_object_object_add(o, "pair_links_min",
				       json_object_new_int64(gi.pair_min));
		json_object_object_add(o, "pair_links_max",
				       json_object_new_int64(gi.pair_max));
	}
	return o;
}

/* "24" or "20..24": global links between two groups. */
static void print_pair(const struct topo_graph_info *gi)
{
	if (gi->pair_min == gi->pair_max)
		printf("%u", gi->pair_min);
	else
		printf("%u..%u", gi->pair_min, gi->pair_max);
}

static void recog_fattree(const struct topo *t,
			  const struct topo_graph_info *gi)
{
	uint32_t leaves, *n = pod_leaves(t, &leaves);

	printf("recognised:        fat-tree: %u levels, %u pod%s (leaves",
	       gi->levels, gi->groups, gi->groups == 1 ? "" : "s");
	for (uint32_t g = 0; n && g < gi->groups; g++)
		printf(" %u", n[g]);
	printf("), %u leaves\n", leaves);
	free(n);
	if (gi->hosting) {
		printf("hosting switches:  %u (", gi->hosting);
		special_text(t, false, gi->hosting);
		printf("; storage, login: in no pod)\n");
	}
	if (gi->idle) {
		printf("idle switches:     %u (", gi->idle);
		special_text(t, true, gi->idle);
		printf("; on no up/down route between two leaves)\n");
	}
}

static void recog_text(const struct topo *t)
{
	struct topo_graph_info gi;

	topo_graph_info(t, &gi);
	if (!gi.family) {
		printf("recognised:        no, only linear, clustered, random "
		       "apply (%s)\n",
		       gi.why);
	} else if (!strcmp(gi.family, "fattree")) {
		recog_fattree(t, &gi);
	} else if (!strcmp(gi.family, "cascade")) {
		printf("recognised:        Cascade: %u groups of %u x %u "
		       "switches, %u global links (",
		       gi.groups, gi.rows, gi.cols, gi.global_links);
		print_pair(&gi);
		printf(" per group pair)\n");
	} else {
		printf("recognised:        dragonfly: %u groups of %u "
		       "switches, %u global links\n",
		       gi.groups, gi.group_size, gi.global_links);
	}
}

/* A parameter value as a JSON number when it is one, else a string. */
static struct json_object *param_json(const char *v)
{
	char *end;
	long long i = strtoll(v, &end, 10);
	double d;

	if (*v && !*end)
		return json_object_new_int64(i);
	d = strtod(v, &end);
	if (*v && !*end)
		return json_object_new_double(d);
	return json_object_new_string(v);
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* The DefaultPolicy= text of M, the policy it resolved to when the file
 * names no policy at all ("default"), or NULL. */
static const char *default_policy(const struct machine *m)
{
	const char *text;
	const struct policy *p = machine_policy(m, NULL, &text, NULL);

	return p && text && !strcmp(text, POLICY_DEFAULT) ? policy_spec(p) :
							    text;
}

/* What to say after the default policy: whether it is the family's
 * because the file names no policy, or by DefaultPolicy=default. */
static const char *default_note(const struct machine *m)
{
	const char *text;
	uint32_t line;

	machine_policy(m, NULL, &text, &line);
	if (!text || strcmp(text, POLICY_DEFAULT))
		return "";
	return line ? " (DefaultPolicy=default: the family's)" :
		      " (the family's: the file names no policy)";
}

/* Why the family's own policy does not apply (the default fell back to
 * the next of its list), or NULL. */
static const char *fallback_why(const struct machine *m, char *buf, size_t len)
{
	const char *w = policy_default_why(machine_topo(m), machine_routing(m),
					   buf, len);
	const char *pfx = "policy ";

	/* "policy fattree-pods: why" reads "fattree-pods: why" here */
	return w && !strncmp(w, pfx, strlen(pfx)) ? w + strlen(pfx) : w;
}

/* Whether fattree-pods isolates on a recognised fat-tree graph, under the
 * machine's routing when it is ecmp or lft, else under ecmp: *ROUT gets
 * that routing's name; NULL when it does, else why not (in BUF). */
static const char *isolation(const struct machine *m, const char **rout,
			     char *buf, size_t len)
{
	const struct topo *t = machine_topo(m);
	const struct routing *r = machine_routing(m);
	struct routing *own = NULL;
	struct policy *p;
	struct err e = { 0 };
	const char *w = NULL;

	if (strcmp(routing_name(r), "ecmp") && strcmp(routing_name(r), "lft"))
		r = own = routing_create(t, "ecmp", &e);
	*rout = r ? routing_name(r) : "ecmp";
	p = r ? policy_create("fattree-pods", t, r, &e) : NULL;
	if (!p) {
		const char *msg = strncmp(e.msg, "policy fattree-pods: ", 21) ?
					  e.msg :
					  e.msg + 21;

		snprintf(buf, len, "%.*s", (int)len - 1, msg);
		w = buf;
	}
	policy_destroy(p);
	routing_destroy(own);
	return w;
}

static void print_json(const struct machine *m, const struct topo_stats *st)
{
	const struct topo *t = machine_topo(m);
	struct json_object *o = json_object_new_object();
	struct json_object *po = json_object_new_object();
	const struct topo_param *ps;
	size_t np = topo_params(t, &ps);

	json_object_object_add(o, "family",
			       json_object_new_string(topo_family(t)));
	json_object_object_add(o, "spec", json_object_new_string(topo_spec(t)));
	json_object_object_add(o, "family_default_policy",
			       json_object_new_string(policy_default_spec(
				       t, machine_routing(m))));
	{
		char why[400];

		json_object_object_add(
			o, "default_policy_fell_back",
			str_or_null(fallback_why(m, why, sizeof(why))));
	}
	for (size_t i = 0; i < np; i++)
		json_object_object_add(po, ps[i].key, param_json(ps[i].value));
	json_object_object_add(o, "parameters", po);
	json_object_object_add(o, "switches",
			       json_object_new_int64(topo_num_switches(t)));
	json_object_object_add(o, "nodes",
			       json_object_new_int64(topo_num_nodes(t)));
	json_object_object_add(o, "links",
			       json_object_new_int64(topo_num_links(t)));
	json_object_object_add(o, "radix_min",
			       json_object_new_int64(st->radix_min));
	json_object_object_add(o, "radix_max",
			       json_object_new_int64(st->radix_max));
	json_object_object_add(
		o, "diameter",
		st->connected ? json_object_new_int64(st->diameter) : NULL);
	json_object_object_add(o, "avg_hops",
			       json_object_new_double(st->avg_hops));
	{
		struct json_object *d = json_object_new_object();

		json_object_object_add(
			d, "method",
			json_object_new_string(
				topo_stats_method_name(st->method)));
		json_object_object_add(d, "sources",
				       json_object_new_int64(st->sources));
		json_object_object_add(
			d, "diameter_exact",
			json_object_new_boolean(st->method !=
						TOPO_STATS_SAMPLED));
		json_object_object_add(d, "avg_hops_stderr",
				       json_object_new_double(st->avg_hops_se));
		json_object_object_add(o, "distances", d);
	}
	json_object_object_add(o, "connected",
			       json_object_new_boolean(st->connected));
	if (topo_num_groups(t))
		json_object_object_add(
			o, groups_key(t),
			json_object_new_int64(topo_num_groups(t)));
	json_object_object_add(o, "unconnected_ports",
			       json_object_new_int64(st->unconnected_ports));
	if (topo_kind(t) == TOPO_GRAPH) {
		struct json_object *rj = recog_json(t);

		if (fattree_like(t)) {
			char why[400];
			const char *rout;
			const char *w = isolation(m, &rout, why, sizeof(why));
			struct json_object *io = json_object_new_object();

			json_object_object_add(io, "routing",
					       json_object_new_string(rout));
			json_object_object_add(io, "fattree_pods",
					       json_object_new_boolean(!w));
			json_object_object_add(io, "why", str_or_null(w));
			json_object_object_add(rj, "isolation", io);
		}
		json_object_object_add(o, "recognised", rj);
	}
	if (machine_source(m)) {
		struct json_object *pp = json_object_new_object();
		uint32_t n = topo_num_nodes(t);

		json_object_object_add(o, "first_node_name",
				       str_or_null(machine_node_name(m, 0)));
		json_object_object_add(
			o, "last_node_name",
			str_or_null(n ? machine_node_name(m, n - 1) : NULL));
		json_object_object_add(o, "routing",
				       str_or_null(machine_conf_routing(m)));
		for (uint32_t i = 0; i < machine_num_partitions(m); i++) {
			const char *part, *pol;

			machine_partition(m, i, &part, &pol, NULL);
			json_object_object_add(pp, part,
					       json_object_new_string(pol));
		}
		json_object_object_add(o, "partition_policies", pp);
		json_object_object_add(o, "default_policy",
				       str_or_null(default_policy(m)));
		json_object_object_add(
			o, "predict",
			json_object_new_string(machine_predict(m, NULL)));
		json_object_object_add(
			o, "predict_budget_ms",
			json_object_new_int64(machine_predict_budget(m, NULL)));
	}
	cli_print_json(o);
}

/* The prediction model and budget, "(default)" for what the file does not
 * give. */
static void print_predict(const struct machine *m)
{
	uint32_t mline, bline;
	const char *model = machine_predict(m, &mline);
	uint32_t ms = machine_predict_budget(m, &bline);

	printf("predict:           %s%s, budget %u ms%s\n", model,
	       mline ? "" : " (default)", ms, bline ? "" : " (default)");
}

static void print_text(const struct machine *m, const struct topo_stats *st)
{
	const struct topo *t = machine_topo(m);
	const struct topo_param *ps;
	size_t np = topo_params(t, &ps);

	printf("family:            %s\n", topo_family(t));
	printf("spec:              %s\n", topo_spec(t));
	printf("parameters:       ");
	for (size_t i = 0; i < np; i++)
		printf(" %s=%s", ps[i].key, ps[i].value);
	printf("%s\n", np ? "" : " (none)");
	printf("switches:          %u\n", topo_num_switches(t));
	printf("nodes:             %u\n", topo_num_nodes(t));
	printf("links (directed):  %u (%u switch-to-switch)\n",
	       topo_num_links(t), topo_num_links(t) - 2 * topo_num_nodes(t));
	printf("radix:             %u..%u\n", st->radix_min, st->radix_max);
	if (!st->connected)
		printf("diameter:          infinite (switch graph is "
		       "disconnected)\n");
	else if (st->method == TOPO_STATS_SAMPLED)
		printf("diameter:          >= %u hops (a lower bound)\n",
		       st->diameter);
	else
		printf("diameter:          %u hops\n", st->diameter);
	if (st->method == TOPO_STATS_SAMPLED)
		printf("average hops:      %.4f +- %.4f (standard error)\n",
		       st->avg_hops, st->avg_hops_se);
	else
		printf("average hops:      %.4f\n", st->avg_hops);
	if (st->method == TOPO_STATS_EXACT)
		printf("distances:         exact (BFS from all %u "
		       "switch%s%s)\n",
		       st->sources, st->sources == 1 ? "" : "es",
		       st->sources < topo_num_switches(t) ?
			       " on routes; the idle ones left out" :
			       "");
	else if (st->method == TOPO_STATS_SYMMETRY)
		printf("distances:         exact by symmetry (BFS from %u "
		       "switch%s, one per orbit)\n",
		       st->sources, st->sources == 1 ? "" : "es");
	else
		printf("distances:         sampled (BFS from %u of %u "
		       "switches; --exact for all)\n",
		       st->sources, topo_num_switches(t));
	if (topo_num_groups(t))
		printf("%-18s %u\n", fattree_like(t) ? "pods:" : "groups:",
		       topo_num_groups(t));
	printf("unconnected ports: %u\n", st->unconnected_ports);
	if (topo_kind(t) == TOPO_GRAPH)
		recog_text(t);
	if (fattree_like(t) && topo_kind(t) == TOPO_GRAPH) {
		char why[400];
		const char *rout, *w = isolation(m, &rout, why, sizeof(why));

		if (w)
			printf("isolation:         none (fattree-pods under "
			       "%s: %s)\n",
			       rout, w);
		else
			printf("isolation:         fattree-pods under %s\n",
			       rout);
	}
	if (!machine_source(m)) {
		char why[400];
		const char *w = fallback_why(m, why, sizeof(why));

		printf("default policy:    %s (the family's under %s)\n",
		       policy_default_spec(t, machine_routing(m)),
		       routing_spec(machine_routing(m)));
		if (w)
			printf("fell back:         %s\n", w);
		return;
	}
	if (machine_has_names(m) && topo_num_nodes(t))
		printf("node names:        %s .. %s\n", machine_node_name(m, 0),
		       machine_node_name(m, topo_num_nodes(t) - 1));
	if (machine_conf_routing(m))
		printf("routing:           %s\n", machine_conf_routing(m));
	for (uint32_t i = 0; i < machine_num_partitions(m); i++) {
		const char *part, *pol;

		machine_partition(m, i, &part, &pol, NULL);
		printf("policy:            %s: %s\n", part, pol);
	}
	if (default_policy(m)) {
		char why[400];
		const char *w = default_note(m)[0] ?
					fallback_why(m, why, sizeof(why)) :
					NULL;

		printf("default policy:    %s%s\n", default_policy(m),
		       default_note(m));
		if (w)
			printf("fell back:         %s\n", w);
	}
	print_predict(m);
}

/* argv -> A.  CLI_GO, or the exit status (a usage error, --help). */
static int parse(int argc, char **argv, struct cmd_topo_args *a)
{
	const char *arg;
	int c;

	*a = (struct cmd_topo_args){ 0 };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			a->spec = arg;
			break;
		case 'j':
			a->json = true;
			break;
		case OPT_EXACT:
			a->exact = true;
			break;
		case OPT_SAMPLES: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(arg, &end, 10);
			if (errno || *end || !*arg || *arg == '-' || v < 64 ||
			    v > UINT32_MAX)
				return cli_error(
					"topo", CLI_USAGE,
					"--samples %s: want a whole number "
					"from 64 to 4294967295",
					arg);
			a->samples = (uint32_t)v;
			break;
		}
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error("topo", CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!a->spec)
		return cli_error("topo", CLI_USAGE, "--topo SPEC is required");
	if (a->exact && a->samples)
		return cli_error("topo", CLI_USAGE,
				 "give --exact or --samples, not both");
	return CLI_GO;
}

/* Load the machine and measure it into R (freed by the caller, even on
 * failure).  Returns an exit status. */
/* A progress line on a terminal: "stopo topo: BFS 1024/100000". */
static void progress(void *ctx, uint32_t done, uint32_t total)
{
	(void)ctx;
	fprintf(stderr, "\rstopo topo: BFS %u/%u", done, total);
	fflush(stderr);
}

static int run(const struct cmd_topo_args *a, struct cmd_topo_result *r)
{
	struct err err = { 0 };
	struct topo_stats_opts o = { 0 };
	int rc;

	r->m = machine_open(a->spec, NULL, &err);
	if (!r->m || machine_check_predict(r->m, model_check_routing, &err))
		return cli_error("topo", cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	o.exact = a->exact;
	o.samples = a->samples;
	if (isatty(STDERR_FILENO))
		o.progress = progress;
	rc = topo_stats_opt(machine_topo(r->m), &o, &r->st, &err);
	if (o.progress)
		fprintf(stderr, "\r%40s\r", "");
	if (rc)
		return cli_error("topo", CLI_FAIL, "%s", err.msg);
	return CLI_OK;
}

/* R on stdout: text or JSON. */
static void emit(const struct cmd_topo_args *a, const struct cmd_topo_result *r)
{
	if (a->json)
		print_json(r->m, &r->st);
	else
		print_text(r->m, &r->st);
}

int cmd_topo(int argc, char **argv)
{
	struct cmd_topo_args a;
	struct cmd_topo_result r = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	rc = run(&a, &r);
	if (rc == CLI_OK)
		emit(&a, &r);
	machine_destroy(r.m);
	return rc;
}
