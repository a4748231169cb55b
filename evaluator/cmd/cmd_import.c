/* cmd_import.c - stopo import: another tool's description of the fabric
 * to a Topology=graph topo.conf (stopo-import(1)). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "evaluator/cmd/cli.h"
#include "topo/import/import.h"

static const struct cli_opt options[] = {
	{ .id = 'g',
	  .name = "guids",
	  .arg = "MAP",
	  .help = "node names from MAP's \"HOST GUID\" lines "
		  "(ibnetdiscover;\nsee stopo adapters --map)" },
	{ .id = 't',
	  .name = "topology",
	  .arg = "NAME",
	  .help = "topology NAME of a topology.yaml (default: the "
		  "one\nwith cluster_default: true, else the only one)" },
	{ .id = 'o',
	  .name = "output",
	  .arg = "OUT",
	  .help = "write the topo.conf to OUT (default or -: standard "
		  "output)" },
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_spec cli = {
	.name = "import",
	.synopsis = "ibnetdiscover FILE [--guids MAP] [-o OUT]\n"
		    "slurm-topology FILE [--topology NAME] [-o OUT]",
	.about = "Write a topo.conf (Topology=graph: one SwitchName= line per "
		 "switch with\n"
		 "its Nodes= and Links=) from ibnetdiscover's output or from "
		 "Slurm's\n"
		 "topology.conf or topology.yaml (tree or block form).  "
		 "Capacities are\n"
		 "relative to the most common switch-to-switch link rate "
		 "(width x lane\n"
		 "speed).",
	.opts = options,
	.footer = "See stopo-import(1) and topo.conf(5).",
};

struct cmd_import_args {
	const char *format; /* "ibnetdiscover" or "slurm-topology" */
	const char *file;
	const char *guids; /* --guids */
	const char *topo;  /* --topology */
	const char *out;   /* -o */
};

static int parse(int argc, char **argv, struct cmd_import_args *a)
{
	const char *arg;
	int c;

	*a = (struct cmd_import_args){ 0 };
	optind = 1;
	while ((c = cli_getopt(&cli, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'g':
			a->guids = arg;
			break;
		case 'o':
			a->out = arg;
			break;
		case 't':
			a->topo = arg;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (argc - optind != 2)
		return cli_error("import", CLI_USAGE,
				 "want FORMAT FILE (FORMAT: ibnetdiscover or "
				 "slurm-topology)");
	a->format = argv[optind];
	a->file = argv[optind + 1];
	if (strcmp(a->format, "ibnetdiscover") &&
	    strcmp(a->format, "slurm-topology"))
		return cli_error("import", CLI_USAGE,
				 "unknown format '%s' (ibnetdiscover, "
				 "slurm-topology)",
				 a->format);
	if (a->guids && strcmp(a->format, "ibnetdiscover"))
		return cli_error("import", CLI_USAGE,
				 "--guids applies to ibnetdiscover only");
	if (a->topo && strcmp(a->format, "slurm-topology"))
		return cli_error("import", CLI_USAGE,
				 "--topology applies to slurm-topology only");
	return CLI_GO;
}

/* Whether PATH is a topology.yaml: by its extension, else by its first
 * line that is not blank or a comment ("---", "%YAML" or a list item "-";
 * a topology.conf line starts with a key). */
/* Whether FP's first line that is not blank or a comment starts YAML. */
static bool starts_yaml(FILE *fp)
{
	char line[256];

	while (fgets(line, sizeof(line), fp)) {
		const char *c = line + strspn(line, " \t\r\n");

		if (!*c || *c == '#')
			continue;
		return *c == '-' || *c == '%';
	}
	return false;
}

static bool is_yaml(const char *path)
{
	const char *dot = strrchr(path, '.');
	bool yaml;
	FILE *fp;

	if (dot && (!strcasecmp(dot, ".yaml") || !strcasecmp(dot, ".yml")))
		return true;
	if (!strcmp(path, "-")) { /* seekable (stdin_seekable) */
		yaml = starts_yaml(stdin);
		rewind(stdin);
		return yaml;
	}
	fp = fopen(path, "r");
	if (!fp)
		return false;
	yaml = starts_yaml(fp);
	fclose(fp);
	return yaml;
}

/* Standard input copied to a temporary file that becomes standard
 * input, so that is_yaml can read its start and rewind.  Returns 0 or
 * -1 with errno. */
static int stdin_seekable(void)
{
	FILE *tmp = tmpfile();
	char buf[65536];
	size_t n;

	if (!tmp)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		if (fwrite(buf, 1, n, tmp) != n)
			goto fail;
	if (ferror(stdin) || fflush(tmp) || dup2(fileno(tmp), 0) < 0)
		goto fail;
	fclose(tmp);
	clearerr(stdin);
	rewind(stdin);
	return 0;
fail:
	fclose(tmp);
	return -1;
}

static int run(const struct cmd_import_args *a)
{
	struct err err = { "" };
	struct import_fabric *f;
	FILE *out = stdout;
	int rc = CLI_OK;

	if (!strcmp(a->file, "-") && strcmp(a->format, "ibnetdiscover") &&
	    stdin_seekable())
		return cli_error("import", CLI_FAIL,
				 "standard input: cannot copy it: %s",
				 strerror(errno));
	if (!strcmp(a->format, "ibnetdiscover"))
		f = import_ibnetdiscover(a->file, a->guids, &err);
	else if (is_yaml(a->file))
		f = import_slurm_yaml(a->file, a->topo, &err);
	else if (a->topo)
		return cli_error("import", CLI_USAGE,
				 "%s: --topology applies to a topology.yaml, "
				 "not a topology.conf",
				 a->file);
	else
		f = import_slurm_topology(a->file, &err);
	if (!f)
		return cli_error("import", CLI_USAGE, "%s", err.msg);
	for (size_t i = 0; i < import_num_warnings(f); i++)
		fprintf(stderr, "stopo import: warning: %s\n",
			import_warning(f, i));
	if (a->out && strcmp(a->out, "-")) {
		out = fopen(a->out, "w");
		if (!out) {
			rc = cli_error("import", CLI_FAIL, "%s: %s", a->out,
				       strerror(errno));
			import_destroy(f);
			return rc;
		}
	}
	if (import_write_conf(f, out, &err))
		rc = cli_error("import", CLI_FAIL, "%s: %s",
			       out != stdout ? a->out : "standard output",
			       err.msg);
	if (out != stdout) {
		if (fclose(out) && rc == CLI_OK)
			rc = cli_error("import", CLI_FAIL, "%s: %s", a->out,
				       strerror(errno));
		if (rc == CLI_OK)
			printf("%s: %u switches, %u nodes, %u cables\n", a->out,
			       import_num_switches(f), import_num_nodes(f),
			       import_num_cables(f));
	}
	import_destroy(f);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	struct cmd_import_args a;
	int rc = parse(argc, argv, &a);

	if (rc != CLI_GO)
		return rc;
	return run(&a);
}
