/* cmd_paths.c - stopo paths: the path set of one flow under a routing,
 * counted by class (MIN/VLB) and hop count, optionally listed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/cli.h"
#include "policies/machine/machine.h"
#include "topo/routing.h"

#define DEFAULT_MAX_LIST 100000

static const struct cli_opt options[] = {
	{ .id = 't',
	  .name = "topo",
	  .arg = "SPEC",
	  .help = "family:key=value,... or a topo.conf path" },
	{ .id = 'r',
	  .name = "routing",
	  .arg = "R",
	  .help = "NAME[:key=value,...]; default: the topo.conf's\n"
		  "Routing= or the family's default (ugal, ecmp,\n"
		  "dor, shortest)" },
	{ .id = 's',
	  .name = "src",
	  .arg = "I",
	  .help = "source node (index, or Slurm name with a\n"
		  "topo.conf that names nodes)" },
	{ .id = 'd', .name = "dst", .arg = "J", .help = "destination node" },
	{ .id = 'l', .name = "list", .help = "list the paths" },
	{ .id = 'm',
	  .name = "max",
	  .arg = "N",
	  .help = "refuse to list more than N paths (default 100000)" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "paths",
	.synopsis = "--topo SPEC [--routing R] --src I --dst J\n"
		    "[--list] [--max N] [--json]",
	.about =
		"Count the paths a flow from node I to node J may take under routing R,\n"
		"by class (MIN/VLB) and by hop count (switch-to-switch links); --list\n"
		"prints every path as its switch sequence and its link ids (injection\n"
		"and ejection included).  Counts come from closed forms where the\n"
		"routing has them, so they are instant even for millions of paths.",
	.opts = options,
	.footer = "See stopo-paths(1) for the path conventions.",
};

/* What `stopo paths` is asked. */
struct cmd_paths_args {
	const char *spec, *routing; /* --topo, --routing (NULL: default) */
	const char *src, *dst;	    /* as given: names need the machine */
	bool list, json;
	uint64_t max; /* --max: most paths to list */
};

/* What it found: the flow's path count and, with --list, its paths. */
struct cmd_paths_result {
	struct machine *m;
	uint32_t src, dst;
	struct routing_count count;
	struct pathset ps;
};

/* Node by index or, when the topo.conf names nodes, by Slurm name. */
static int parse_node(const char *opt, const char *s, const struct machine *m,
		      uint32_t n, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (machine_has_names(m)) {
		uint32_t i = machine_node_index(m, s);

		if (i != TOPO_NONE) {
			*out = i;
			return 0;
		}
	}
	if (*s >= '0' && *s <= '9') {
		v = strtoul(s, &end, 10);
		if (!*end && v < n) {
			*out = (uint32_t)v;
			return 0;
		}
		if (!*end)
			return cli_error("paths", CLI_USAGE,
					 "%s %s: the "
					 "topology has nodes 0..%u",
					 opt, s, n - 1);
	}
	return cli_error(
		"paths", CLI_USAGE, "%s: '%s' is not a node index%s", opt, s,
		machine_has_names(m) ? " or a node name of the topo.conf" : "");
}

static const char *class_name(uint8_t cls)
{
	return cls == PATH_VLB ? "vlb" : "min";
}

static struct json_object *count_json(const struct routing_count *c)
{
	struct json_object *cls = json_object_new_object();
	struct json_object *hops = json_object_new_object();
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "total",
			       json_object_new_int64((int64_t)c->total));
	json_object_object_add(
		cls, "min",
		json_object_new_int64((int64_t)c->by_class[PATH_MIN]));
	json_object_object_add(
		cls, "vlb",
		json_object_new_int64((int64_t)c->by_class[PATH_VLB]));
	json_object_object_add(o, "by_class", cls);
	for (int h = 0; h <= ROUTING_MAX_HOPS; h++) {
		char key[16];

		if (!c->by_hops[h])
			continue;
		snprintf(key, sizeof(key), "%d", h);
		json_object_object_add(
			hops, key,
			json_object_new_int64((int64_t)c->by_hops[h]));
	}
	json_object_object_add(o, "by_hops", hops);
	return o;
}

static struct json_object *paths_json(const struct topo *t,
				      const struct pathset *ps)
{
	struct json_object *arr = json_object_new_array();

	for (uint32_t i = 0; i < ps->n; i++) {
		struct json_object *p = json_object_new_object();
		struct json_object *sw = json_object_new_array();
		struct json_object *ln = json_object_new_array();

		json_object_object_add(
			p, "class",
			json_object_new_string(class_name(ps->cls[i])));
		json_object_object_add(
			p, "hops",
			json_object_new_int64(pathset_hops(ps, t, i)));
		for (uint32_t k = ps->off[i]; k < ps->off[i + 1]; k++) {
			const struct topo_link *lk = topo_link(t, ps->links[k]);

			if (lk->kind != TOPO_LINK_EJECT)
				json_object_array_add(
					sw, json_object_new_int64(lk->to));
			json_object_array_add(
				ln, json_object_new_int64(ps->links[k]));
		}
		json_object_object_add(p, "switches", sw);
		json_object_object_add(p, "links", ln);
		json_object_array_add(arr, p);
	}
	return arr;
}

static void print_text(const struct topo *t, const struct routing *r,
		       uint32_t src, uint32_t dst,
		       const struct routing_count *c, const struct pathset *ps)
{
	uint32_t ss = topo_node_switch(t, src), ds = topo_node_switch(t, dst);
	const char *unit = topo_behaves_traits(t)->unit;

	printf("topology:  %s\n", topo_spec(t));
	printf("routing:   %s\n", routing_spec(r));
	for (int k = 0; k < 2; k++) {
		uint32_t node = k ? dst : src, sw = k ? ds : ss;
		const char *name = topo_switch_name(t, sw);

		/* a graph's switches by their topo.conf names too */
		printf("%snode %u (switch %u%s%s",
		       k ? " -> " : "flow:      ", node, sw, name ? " " : "",
		       name ? name : "");
		if (topo_switch_group(t, sw) != TOPO_NONE)
			printf(", %s %u", unit ? unit : "group",
			       topo_switch_group(t, sw));
		printf(")");
	}
	printf("\n");
	printf("paths:     %llu\n", (unsigned long long)c->total);
	printf("  min:     %llu\n", (unsigned long long)c->by_class[PATH_MIN]);
	printf("  vlb:     %llu\n", (unsigned long long)c->by_class[PATH_VLB]);
	printf("by hops:\n");
	for (int h = 0; h <= ROUTING_MAX_HOPS; h++)
		if (c->by_hops[h])
			printf("  %2d%s hops: %llu\n", h,
			       h == ROUTING_MAX_HOPS ? "+" : "",
			       (unsigned long long)c->by_hops[h]);
	if (!ps)
		return;
	printf("paths (class, hops: switches | links):\n");
	for (uint32_t i = 0; i < ps->n; i++) {
		printf("  %s %u:", class_name(ps->cls[i]),
		       pathset_hops(ps, t, i));
		for (uint32_t k = ps->off[i]; k < ps->off[i + 1]; k++) {
			const struct topo_link *lk = topo_link(t, ps->links[k]);

			if (lk->kind != TOPO_LINK_EJECT)
				printf(" %u", lk->to);
		}
		printf(" |");
		for (uint32_t k = ps->off[i]; k < ps->off[i + 1]; k++)
			printf(" %u", ps->links[k]);
		printf("\n");
	}
}

static void print_json(const struct cmd_paths_result *r, bool list)
{
	const struct topo *t = machine_topo(r->m);
	struct json_object *o = json_object_new_object();
	struct json_object *cj = count_json(&r->count);

	json_object_object_add(o, "topology",
			       json_object_new_string(topo_spec(t)));
	json_object_object_add(o, "src", json_object_new_int64(r->src));
	json_object_object_add(o, "dst", json_object_new_int64(r->dst));
	json_object_object_add(
		o, "routing",
		json_object_new_string(routing_spec(machine_routing(r->m))));
	json_object_object_foreach(cj, key, val)
		json_object_object_add(o, key, json_object_get(val));
	json_object_put(cj);
	if (list)
		json_object_object_add(o, "paths", paths_json(t, &r->ps));
	cli_print_json(o);
}

/* argv -> A.  CLI_GO, or the exit status (a usage error, --help). */
static int parse(int argc, char **argv, struct cmd_paths_args *a)
{
	const char *arg;
	int c;

	*a = (struct cmd_paths_args){ .max = DEFAULT_MAX_LIST };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			a->spec = arg;
			break;
		case 'r':
			a->routing = arg;
			break;
		case 's':
			a->src = arg;
			break;
		case 'd':
			a->dst = arg;
			break;
		case 'l':
			a->list = true;
			break;
		case 'm':
			if (cli_parse_u64("paths", "--max", arg, &a->max))
				return CLI_USAGE;
			break;
		case 'j':
			a->json = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error("paths", CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!a->spec)
		return cli_error("paths", CLI_USAGE, "--topo SPEC is required");
	if (!a->src || !a->dst)
		return cli_error("paths", CLI_USAGE,
				 "--src and --dst are required");
	return CLI_GO;
}

/* Load the machine, resolve the nodes, count (and with --list find) the
 * paths into R (freed by the caller, even on failure).  Returns an exit
 * status. */
static int run(const struct cmd_paths_args *a, struct cmd_paths_result *r)
{
	const struct routing *rt;
	struct err err = { 0 };
	uint32_t n;

	pathset_init(&r->ps);
	r->m = machine_open(a->spec, a->routing, &err);
	if (!r->m)
		return cli_error("paths", cli_status(&err, CLI_USAGE), "%s",
				 err.msg);
	rt = machine_routing(r->m);
	n = topo_num_nodes(machine_topo(r->m));
	if (parse_node("--src", a->src, r->m, n, &r->src) ||
	    parse_node("--dst", a->dst, r->m, n, &r->dst))
		return CLI_USAGE;
	if (r->src == r->dst)
		return cli_error("paths", CLI_USAGE,
				 "--src and --dst are the same node %u",
				 r->src);
	if (routing_count(rt, r->src, r->dst, &r->count, &err))
		return cli_error("paths", CLI_FAIL, "%s", err.msg);
	if (a->list && r->count.total > a->max)
		return cli_error("paths", CLI_FAIL,
				 "%llu paths; raise --max to list them",
				 (unsigned long long)r->count.total);
	if (a->list && routing_paths(rt, r->src, r->dst, &r->ps, &err))
		return cli_error("paths", CLI_FAIL, "%s", err.msg);
	return CLI_OK;
}

/* R on stdout: text or JSON. */
static void emit(const struct cmd_paths_args *a,
		 const struct cmd_paths_result *r)
{
	if (a->json)
		print_json(r, a->list);
	else
		print_text(machine_topo(r->m), machine_routing(r->m), r->src,
			   r->dst, &r->count, a->list ? &r->ps : NULL);
}

int cmd_paths(int argc, char **argv)
{
	struct cmd_paths_args a;
	struct cmd_paths_result r = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	rc = run(&a, &r);
	if (rc == CLI_OK)
		emit(&a, &r);
	pathset_free(&r.ps);
	machine_destroy(r.m);
	return rc;
}
