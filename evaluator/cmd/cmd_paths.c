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
	{ .id = 'j', .name = "json", .help = "machine-readable output" },
	{ .id = 'h', .name = "help", .help = "this text" },
	{ .name = NULL },
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

	printf("topology:  %s\n", topo_spec(t));
	printf("routing:   %s\n", routing_spec(r));
	printf("flow:      node %u (switch %u", src, ss);
	if (topo_switch_group(t, ss) != TOPO_NONE)
		printf(", %s %u",
		       topo_kind(t) == TOPO_FATTREE ? "pod" : "group",
		       topo_switch_group(t, ss));
	printf(") -> node %u (switch %u", dst, ds);
	if (topo_switch_group(t, ds) != TOPO_NONE)
		printf(", %s %u",
		       topo_kind(t) == TOPO_FATTREE ? "pod" : "group",
		       topo_switch_group(t, ds));
	printf(")\n");
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

int cmd_paths(int argc, char **argv)
{
	const char *spec = NULL, *rspec = NULL, *ssrc = NULL, *sdst = NULL;
	bool json = false, list = false;
	uint64_t max = DEFAULT_MAX_LIST;
	struct machine *m = NULL;
	const struct topo *t;
	const struct routing *r;
	struct routing_count cnt;
	struct pathset ps;
	struct err err = { "" };
	uint32_t src, dst;
	const char *arg;
	int c, rc = CLI_USAGE;

	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 't':
			spec = arg;
			break;
		case 'r':
			rspec = arg;
			break;
		case 's':
			ssrc = arg;
			break;
		case 'd':
			sdst = arg;
			break;
		case 'l':
			list = true;
			break;
		case 'm':
			if (cli_parse_u64("paths", "--max", arg, &max))
				return CLI_USAGE;
			break;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error("paths", CLI_USAGE, "unexpected argument '%s'",
				 argv[optind]);
	if (!spec)
		return cli_error("paths", CLI_USAGE, "--topo SPEC is required");
	if (!ssrc || !sdst)
		return cli_error("paths", CLI_USAGE,
				 "--src and --dst are required");
	pathset_init(&ps);
	m = machine_open(spec, rspec, &err);
	if (!m) {
		cli_error("paths", CLI_USAGE, "%s", err.msg);
		goto out;
	}
	t = machine_topo(m);
	r = machine_routing(m);
	if (parse_node("--src", ssrc, m, topo_num_nodes(t), &src) ||
	    parse_node("--dst", sdst, m, topo_num_nodes(t), &dst))
		goto out;
	if (src == dst) {
		cli_error("paths", CLI_USAGE,
			  "--src and --dst are the same "
			  "node %u",
			  src);
		goto out;
	}
	rc = CLI_FAIL;
	if (routing_count(r, src, dst, &cnt, &err)) {
		cli_error("paths", CLI_FAIL, "%s", err.msg);
		goto out;
	}
	if (list && cnt.total > max) {
		cli_error("paths", CLI_FAIL,
			  "%llu paths; raise --max to list "
			  "them",
			  (unsigned long long)cnt.total);
		goto out;
	}
	if (list && routing_paths(r, src, dst, &ps, &err)) {
		cli_error("paths", CLI_FAIL, "%s", err.msg);
		goto out;
	}
	if (json) {
		struct json_object *o = json_object_new_object();
		struct json_object *cj = count_json(&cnt);

		json_object_object_add(o, "topology",
				       json_object_new_string(topo_spec(t)));
		json_object_object_add(o, "src", json_object_new_int64(src));
		json_object_object_add(o, "dst", json_object_new_int64(dst));
		json_object_object_add(o, "routing",
				       json_object_new_string(routing_spec(r)));
		json_object_object_foreach(cj, key, val)
			json_object_object_add(o, key, json_object_get(val));
		json_object_put(cj);
		if (list)
			json_object_object_add(o, "paths", paths_json(t, &ps));
		cli_print_json(o);
	} else {
		print_text(t, r, src, dst, &cnt, list ? &ps : NULL);
	}
	rc = CLI_OK;
out:
	pathset_free(&ps);
	machine_destroy(m);
	return rc;
}
