/* stopo.c - the administrators' command: subcommands in the style of git,
 * one file each (cmd_<name>.c), resolved through this table. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "evaluator/cmd/cli.h"

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
	  .summary = "predict flow rates with the HM, JM, MCF and MMF models",
	  .run = cmd_eval },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: stopo [--version] [--help] COMMAND [ARGS]\n\n"
		   "Interference-free job placement for HPC networks.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\n'stopo COMMAND --help' describes a command; see also "
		   "stopo(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("stopo %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cli_error(NULL, CLI_USAGE, "'%s' is not a command; see 'stopo --help'",
		  argv[1]);
	return CLI_USAGE;
}
