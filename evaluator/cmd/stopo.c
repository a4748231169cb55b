/* stopo.c - the administrators' command: subcommands in the style of git,
 * one file each (cmd_<name>.c), resolved through this table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "evaluator/cmd/cli.h"
#include "topo/util/limits.h"

static const struct cli_cmd commands[] = {
	{ .name = "topo",
	  .summary = "describe a network topology",
	  .run = cmd_topo },
	{ .name = "whatif",
	  .summary = "simulate a job queue under allocation policies",
	  .run = cmd_whatif },
	{ .name = "report",
	  .summary = "link sharing among running jobs (MLS/TLS)",
	  .run = cmd_report },
	{ .name = "paths",
	  .summary = "count and list the paths of a flow under a routing",
	  .run = cmd_paths },
	{ .name = "eval",
	  .summary = "predict flow rates (HM, JM, MCF, MMF, UGAL-G, nne)",
	  .run = cmd_eval },
	{ .name = "place",
	  .summary = "plan a stencil job's placement on a dragonfly",
	  .run = cmd_place },
	{ .name = "import",
	  .summary = "write a topo.conf from ibnetdiscover or Slurm's "
		     "topology.conf",
	  .run = cmd_import },
	{ .name = "adapters",
	  .summary = "list this host's network adapters (hwloc)",
	  .run = cmd_adapters },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: stopo [--version] [--help] [--limit NAME=N ...] "
		   "COMMAND [ARGS]\n\n"
		   "Interference-free job placement for HPC networks.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\n--limit NAME=N (anywhere, repeatable) raises a cap on "
		   "what one input may\nbuild or read; the defaults:");
	for (int k = 0; k < LIM_COUNT; k++)
		fprintf(f, " %s=%llu", lim_name((enum lim_key)k),
			(unsigned long long)lim_default((enum lim_key)k));
	fprintf(f, ".\n\n'stopo COMMAND --help' describes a command; see also "
		   "stopo(1).\n");
}

/* Take every --limit NAME=N (or --limit=NAME=N) out of ARGV, before
 * "--", and set it.  Returns the new argc, or -1 after a message. */
static int take_limits(int argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		struct err err = { 0 };

		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--limit")) {
			if (i + 1 == argc) {
				cli_error(NULL, CLI_USAGE,
					  "--limit needs NAME=N");
				return -1;
			}
			v = argv[++i];
		} else if (!strncmp(argv[i], "--limit=", 8)) {
			v = argv[i] + 8;
		}
		if (!v) {
			argv[out++] = argv[i];
			continue;
		}
		if (lim_set(v, &err)) {
			/* whatif's job count is --limit-jobs (-n) */
			cli_error(NULL, cli_status(&err, CLI_USAGE), "%s%s",
				  err.msg,
				  strchr(v, '=') ? "" :
						   " (the first N jobs of "
						   "whatif: --limit-jobs N)");
			return -1;
		}
	}
	argv[out] = NULL;
	return out;
}

/* RC, or 1 when what went to standard output could not all be written
 * (a full disk, a closed file): a script reading it must not take a cut
 * result for a whole one. */
static int out_checked(int rc)
{
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (rc == CLI_OK)
			cli_error(NULL, CLI_FAIL, "standard output: %s",
				  errno ? strerror(errno) : "write error");
		return rc == CLI_OK ? CLI_FAIL : rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	argc = take_limits(argc, argv);
	if (argc < 0)
		return CLI_USAGE;
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return out_checked(CLI_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2)
			return cli_error(NULL, CLI_USAGE,
					 "--version takes no arguments");
		printf("stopo %s\n", PACKAGE_VERSION);
		return out_checked(CLI_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return out_checked(commands[i].run(argc - 1, argv + 1));
	cli_error(NULL, CLI_USAGE, "'%s' is not a command; see 'stopo --help'",
		  argv[1]);
	return CLI_USAGE;
}
