/* cmd_import.c - stopo import: another tool's description of the fabric
 * to a Topology=graph topo.conf (stopo-import(1)). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "evaluator/cmd/cli.h"
#include "topo/import/import.h"

enum { OPT_SUBNET = CLI_LONG_ONLY, OPT_LFT };

#define MAX_INPUTS 64

static const struct cli_opt options[] = {
	{ .id = 'g',
	  .name = "guids",
	  .arg = "MAP",
	  .help = "node names from MAP's \"HOST GUID\" or \"GUID HOST\" "
		  "lines\n(ibnetdiscover; see stopo adapters --map)" },
	{ .id = OPT_SUBNET,
	  .name = "subnet",
	  .arg = "ID",
	  .help = "import only subnet ID (of ib-subnet-ID.txt, or its "
		  "position\namong the files, from 1)" },
	{ .id = OPT_LFT,
	  .name = "lft",
	  .arg = "PATH",
	  .help = "the switches' forwarding tables (ibroute, "
		  "dump_lfts.sh; a\nfile or a directory; repeatable): "
		  "Routing=lft" },
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
	.synopsis = "ibnetdiscover FILE... [--guids MAP] [--subnet ID] "
		    "[--lft PATH]... [-o OUT]\n"
		    "slurm-topology FILE [--topology NAME] [-o OUT]\n"
		    "aries FILE [-o OUT]",
	.about = "Write a topo.conf (Topology=graph: one SwitchName= line per "
		 "switch with\n"
		 "its Nodes= and Links=) from ibnetdiscover's output, from "
		 "Slurm's\n"
		 "topology.conf or topology.yaml (tree or block form), or "
		 "from a Cray\n"
		 "Aries link list (parallel cables merged into capacities).  "
		 "Capacities are\n"
		 "relative to the most common switch-to-switch link rate "
		 "(width x lane\n"
		 "speed).  The routing the recognised family implies is "
		 "named (ecmp\n"
		 "for a fat-tree, ugal for a dragonfly or Cascade, lft with "
		 "--lft).",
	.opts = options,
	.footer = "See stopo-import(1) and topo.conf(5).",
};

struct cmd_import_args {
	const char *format; /* "ibnetdiscover" or "slurm-topology" */
	const char *file;   /* the first FILE */
	const char *files[MAX_INPUTS + 1];
	size_t nfiles;
	const char *guids;		 /* --guids */
	const char *subnet;		 /* --subnet */
	const char *lft[MAX_INPUTS + 1]; /* --lft, NULL-terminated */
	size_t nlft;
	const char *topo; /* --topology */
	const char *out;  /* -o */
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
		case OPT_SUBNET:
			a->subnet = arg;
			break;
		case OPT_LFT:
			if (a->nlft == MAX_INPUTS)
				return cli_error("import", CLI_USAGE,
						 "--lft: at most %d paths",
						 MAX_INPUTS);
			a->lft[a->nlft++] = arg;
			break;
		default:
			return cli_opt_end(&cli, c);
		}
	}
	if (argc - optind < 2)
		return cli_error("import", CLI_USAGE,
				 "want FORMAT FILE (FORMAT: ibnetdiscover, "
				 "slurm-topology or aries)");
	a->format = argv[optind];
	a->file = argv[optind + 1];
	for (int i = optind + 1; i < argc; i++) {
		if (a->nfiles == MAX_INPUTS)
			return cli_error("import", CLI_USAGE,
					 "at most %d files", MAX_INPUTS);
		a->files[a->nfiles++] = argv[i];
	}
	if (strcmp(a->format, "ibnetdiscover") &&
	    strcmp(a->format, "slurm-topology") && strcmp(a->format, "aries"))
		return cli_error("import", CLI_USAGE,
				 "unknown format '%s' (ibnetdiscover, "
				 "slurm-topology, aries)",
				 a->format);
	if (a->guids && strcmp(a->format, "ibnetdiscover"))
		return cli_error("import", CLI_USAGE,
				 "--guids applies to ibnetdiscover only");
	if ((a->subnet || a->nlft) && strcmp(a->format, "ibnetdiscover"))
		return cli_error("import", CLI_USAGE,
				 "--%s applies to ibnetdiscover only",
				 a->subnet ? "subnet" : "lft");
	if (a->nfiles > 1 && strcmp(a->format, "ibnetdiscover"))
		return cli_error("import", CLI_USAGE,
				 "%s: one FILE (several are subnets of "
				 "ibnetdiscover)",
				 a->format);
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

/* The fabric of A's input, or NULL with ERR set (*RC: the exit status
 * when the error is not the input's). */
static struct import_fabric *read_input(const struct cmd_import_args *a,
					struct err *err, int *rc)
{
	*rc = CLI_USAGE;
	if (!strcmp(a->file, "-") && !strcmp(a->format, "slurm-topology") &&
	    stdin_seekable()) {
		*rc = CLI_FAIL;
		err_sys(err, errno, "standard input: cannot copy it: %s",
			strerror(errno));
		return NULL;
	}
	if (!strcmp(a->format, "ibnetdiscover")) {
		struct import_ib_opts o = { .guids = a->guids,
					    .subnet = a->subnet,
					    .lft = a->lft };

		return import_ibnet(a->files, a->nfiles, &o, err);
	}
	if (!strcmp(a->format, "aries"))
		return import_aries(a->file, err);
	if (is_yaml(a->file))
		return import_slurm_yaml(a->file, a->topo, err);
	if (a->topo) {
		err_set(err,
			"%s: --topology applies to a topology.yaml, not a "
			"topology.conf",
			a->file);
		return NULL;
	}
	return import_slurm_topology(a->file, err);
}

/* TEXT to -o's file (or standard output), then the summary line. */
static int emit(const struct cmd_import_args *a, const struct import_fabric *f,
		const char *text, size_t len)
{
	FILE *out = stdout;

	if (a->out && strcmp(a->out, "-")) {
		out = fopen(a->out, "w");
		if (!out)
			return cli_error("import", CLI_FAIL, "%s: %s", a->out,
					 strerror(errno));
	}
	if (fwrite(text, 1, len, out) != len || fflush(out) || ferror(out)) {
		if (out != stdout)
			fclose(out);
		return cli_error("import", CLI_FAIL, "%s: write error",
				 out != stdout ? a->out : "standard output");
	}
	if (out == stdout)
		return CLI_OK;
	if (fclose(out))
		return cli_error("import", CLI_FAIL, "%s: %s", a->out,
				 strerror(errno));
	printf("%s: %u switches, %u nodes, %u cables\n", a->out,
	       import_num_switches(f), import_num_nodes(f),
	       import_num_cables(f));
	return CLI_OK;
}

static int run(const struct cmd_import_args *a)
{
	struct err err = { 0 };
	struct import_fabric *f;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	f = read_input(a, &err, &rc);
	if (!f)
		return cli_error("import", cli_status(&err, rc), "%s", err.msg);
	for (size_t i = 0; i < import_num_warnings(f); i++)
		fprintf(stderr, "stopo import: warning: %s\n",
			import_warning(f, i));
	/* written in memory first: a fabric whose topo.conf would not
	 * load (recognition checks it) writes nothing */
	mem = open_memstream(&text, &len);
	if (!mem) {
		import_destroy(f);
		return cli_error("import", CLI_FAIL, "out of memory");
	}
	rc = import_write_conf(f, mem, &err);
	if (fclose(mem) && !rc)
		rc = err_nomem(&err, "out of memory");
	rc = rc ? cli_error("import", cli_status(&err, CLI_USAGE), "%s",
			    err.msg) :
		  emit(a, f, text, len);
	free(text);
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
