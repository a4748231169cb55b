/* cmd_adapters.c - stopo adapters: this host's network adapters as hwloc
 * sees them (stopo-adapters(1)), and the "HOST GUID" lines that
 * `stopo import ibnetdiscover --guids` reads. */
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/cli.h"

enum { OPT_MAP = CLI_LONG_ONLY, OPT_INPUT, OPT_HOSTNAME };

static const struct cli_opt options[] = {
	{ .id = OPT_MAP,
	  .name = "map",
	  .help = "print \"HOST GUID\" for each InfiniBand adapter\n"
		  "(the --guids MAP of stopo import ibnetdiscover)" },
	{ .id = OPT_INPUT,
	  .name = "input",
	  .arg = "XML",
	  .help = "read an hwloc XML topology instead of this machine" },
	{ .id = OPT_HOSTNAME,
	  .name = "hostname",
	  .arg = "NAME",
	  .help = "the HOST of --map (default: hwloc's HostName, up to "
		  "the first '.')" },
	CLI_OPT_JSON,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "adapters",
	.synopsis = "[--json | --map [--hostname NAME]] [--input XML]",
	.about = "List this host's network adapters (hwloc OS devices of "
		 "type OpenFabrics\n"
		 "and Network): name, GUIDs, ports (state, LID, LMC, GID), "
		 "PCI address\n"
		 "and NUMA locality.",
	.opts = options,
	.footer = "See stopo-adapters(1) and stopo-import(1).",
};

struct cmd_adapters_args {
	bool json, map;
	const char *input, *hostname;
};

static int parse(int argc, char **argv, struct cmd_adapters_args *a)
{
	const char *arg;
	int c;

	*a = (struct cmd_adapters_args){ 0 };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'j':
			a->json = true;
			break;
		case OPT_MAP:
			a->map = true;
			break;
		case OPT_INPUT:
			a->input = arg;
			break;
		case OPT_HOSTNAME:
			a->hostname = arg;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (optind < argc)
		return cli_error("adapters", CLI_USAGE,
				 "unexpected argument '%s'", argv[optind]);
	if (a->json && a->map)
		return cli_error("adapters", CLI_USAGE,
				 "give --json or --map, not both");
	if (a->hostname && !a->map)
		return cli_error("adapters", CLI_USAGE,
				 "--hostname applies to --map only");
	/* stopo import --guids reads "HOST GUID" words, # comments */
	if (a->hostname && (!*a->hostname || strlen(a->hostname) > 255 ||
			    a->hostname[strcspn(a->hostname, " \t\r\n#")]))
		return cli_error("adapters", CLI_USAGE,
				 "--hostname '%s': want a name of 1 to 255 "
				 "characters without blanks or '#'",
				 a->hostname);
	return CLI_GO;
}

static const char *port_state(const char *v)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"
	};
	int n = atoi(v);

	return n >= 0 && n <= 5 ? names[n] : "?";
}

/* PCI bus id of OBJ's PCI parent into BUF ("" when none). */
static void pci_busid(hwloc_obj_t obj, char *buf, size_t len)
{
	*buf = '\0';
	for (hwloc_obj_t p = obj->parent; p; p = p->parent)
		if (p->type == HWLOC_OBJ_PCI_DEVICE) {
			snprintf(buf, len, "%04x:%02x:%02x.%01x",
				 p->attr->pcidev.domain, p->attr->pcidev.bus,
				 p->attr->pcidev.dev, p->attr->pcidev.func);
			return;
		}
}

/* The highest N with a PortN* info of OBJ. */
static unsigned num_ports(hwloc_obj_t obj)
{
	unsigned n = 0;

	for (unsigned i = 0; i < obj->infos_count; i++) {
		unsigned p;

		if (sscanf(obj->infos[i].name, "Port%u", &p) == 1 && p > n)
			n = p;
	}
	return n;
}

static const char *port_info(hwloc_obj_t obj, unsigned p, const char *what)
{
	char key[64];

	snprintf(key, sizeof(key), "Port%u%s", p, what);
	return hwloc_obj_get_info_by_name(obj, key);
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

/* GUID "0002:c903:0000:1003" as "0x0002c90300001003". */
static void guid_hex(const char *g, char *buf, size_t len)
{
	size_t n = 0;

	if (len < 3)
		return;
	buf[n++] = '0';
	buf[n++] = 'x';
	for (; *g && n + 1 < len; g++)
		if (*g != ':')
			buf[n++] = *g;
	buf[n] = '\0';
}

static bool wanted(hwloc_obj_t o)
{
	return o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS ||
	       o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK;
}

static void emit(hwloc_topology_t topo, const struct cmd_adapters_args *a,
		 const char *host)
{
	struct json_object *arr = a->json ? json_object_new_array() : NULL;
	unsigned shown = 0;

	for (hwloc_obj_t o = hwloc_get_next_osdev(topo, NULL); o;
	     o = hwloc_get_next_osdev(topo, o)) {
		bool ib = o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
		const char *guid = hwloc_obj_get_info_by_name(o, "NodeGUID");
		const char *sys = hwloc_obj_get_info_by_name(o, "SysImageGUID");
		const char *addr = hwloc_obj_get_info_by_name(o, "Address");
		hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
		char pci[32], *numa = NULL, hex[40];
		unsigned np = num_ports(o);

		if (!wanted(o))
			continue;
		if (a->map) {
			if (ib && guid) {
				guid_hex(guid, hex, sizeof(hex));
				printf("%s %s\n", host, hex);
				shown++;
			}
			continue;
		}
		shown++;
		pci_busid(o, pci, sizeof(pci));
		if (anc && anc->nodeset &&
		    hwloc_bitmap_list_asprintf(&numa, anc->nodeset) < 0)
			numa = NULL;
		if (arr) {
			struct json_object *j = json_object_new_object();
			struct json_object *ports = json_object_new_array();

			add_str(j, "name", o->name);
			add_str(j, "type", ib ? "OpenFabrics" : "Network");
			add_str(j, "pci_busid", *pci ? pci : NULL);
			add_str(j, "numa_nodes", numa);
			add_str(j, "node_guid", guid);
			add_str(j, "sys_image_guid", sys);
			add_str(j, "address", addr);
			for (unsigned p = 1; p <= np; p++) {
				struct json_object *jp =
					json_object_new_object();
				const char *st = port_info(o, p, "State");

				json_object_object_add(
					jp, "port",
					json_object_new_int((int)p));
				add_str(jp, "state",
					st ? port_state(st) : NULL);
				add_str(jp, "lid", port_info(o, p, "LID"));
				add_str(jp, "lmc", port_info(o, p, "LMC"));
				add_str(jp, "gid0", port_info(o, p, "GID0"));
				json_object_array_add(ports, jp);
			}
			json_object_object_add(j, "ports", ports);
			json_object_array_add(arr, j);
		} else {
			printf("%s (%s): PCI %s, NUMA node %s\n", o->name,
			       ib ? "OpenFabrics" : "Network",
			       *pci ? pci : "none", numa ? numa : "none");
			if (guid)
				printf("  NodeGUID     %s\n", guid);
			if (sys)
				printf("  SysImageGUID %s\n", sys);
			if (addr)
				printf("  Address      %s\n", addr);
			for (unsigned p = 1; p <= np; p++) {
				const char *st = port_info(o, p, "State");
				const char *lid = port_info(o, p, "LID");
				const char *gid = port_info(o, p, "GID0");

				printf("  port %u: %s, LID %s, GID0 %s\n", p,
				       st ? port_state(st) : "?",
				       lid ? lid : "?", gid ? gid : "?");
			}
		}
		free(numa);
	}
	if (arr)
		cli_print_json(arr);
	/* an empty answer is a finding, not a silent success */
	if (!shown)
		fprintf(stderr, "stopo adapters: %s\n",
			a->map ? "no InfiniBand adapter with a NodeGUID: "
				 "nothing to map" :
				 "no network adapter found");
}

/* HOST for --map: --hostname, else hwloc's HostName (or gethostname)
 * up to the first '.', in BUF. */
static void host_name(hwloc_topology_t topo, const char *opt, char *buf,
		      size_t len)
{
	const char *h = opt ? opt :
			      hwloc_obj_get_info_by_name(
				      hwloc_get_root_obj(topo), "HostName");

	if (h)
		snprintf(buf, len, "%s", h);
	else if (gethostname(buf, len))
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	if (!opt)
		buf[strcspn(buf, ".")] = '\0';
}

int cmd_adapters(int argc, char **argv)
{
	struct cmd_adapters_args a;
	hwloc_topology_t topo;
	char host[256];
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	if (hwloc_topology_init(&topo) < 0)
		return cli_error("adapters", CLI_FAIL,
				 "hwloc: cannot initialise");
	hwloc_topology_set_io_types_filter(topo,
					   HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (a.input && access(a.input, R_OK)) {
		hwloc_topology_destroy(topo);
		return cli_error("adapters", CLI_USAGE, "%s: %s", a.input,
				 strerror(errno));
	}
	if (a.input && hwloc_topology_set_xml(topo, a.input) < 0) {
		hwloc_topology_destroy(topo);
		return cli_error("adapters", CLI_USAGE,
				 "%s: not an hwloc XML topology", a.input);
	}
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		if (a.input)
			return cli_error("adapters", CLI_USAGE,
					 "%s: not an hwloc XML topology",
					 a.input);
		return cli_error("adapters", CLI_FAIL,
				 "this machine: hwloc cannot load the "
				 "topology");
	}
	host_name(topo, a.hostname, host, sizeof(host));
	emit(topo, &a, host);
	hwloc_topology_destroy(topo);
	return CLI_OK;
}
