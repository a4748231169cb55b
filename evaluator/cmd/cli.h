/* cli.h - what every stopo subcommand shares: the command table, exit
 * codes, option helpers and JSON output. */
#ifndef STOPO_CLI_H
#define STOPO_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h> /* optind: reset to 1 before a cli_getopt loop */

#include <json-c/json.h>

#include "topo/util/err.h"

/* Exit status: 0 success, 1 the work failed, 2 bad usage or bad input.
 * CLI_GO is no exit status: a subcommand's parse step returns it when the
 * command goes on to run (and an exit status when it stops there). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_GO = -1 };

struct cli_cmd {
	const char *name;
	const char *summary;
	/* argv[0] is the subcommand name; returns an exit status. */
	int (*run)(int argc, char **argv);
};

/* One option of a subcommand, declared once: the getopt_long table, the
 * short-option string and the usage text are all generated from the
 * subcommand's table (an array ended by an entry with .name NULL). */
struct cli_opt {
	/* What cli_getopt returns for it: the short letter ('t' for -t), or
	 * a code >= CLI_LONG_ONLY for an option with no short form. */
	int id;
	const char *name; /* long name, without "--" */
	const char *arg;  /* argument's name in the usage ("SPEC"), NULL for
			   * a flag */
	const char *help; /* description; '\n' starts an indented line */
};
#define CLI_LONG_ONLY 256

/* The rows every subcommand's table has, declared here once. */
#define CLI_OPT_JSON                                                         \
	{                                                                    \
		.id = 'j', .name = "json", .help = "machine-readable output" \
	}
#define CLI_OPT_HELP                                           \
	{                                                      \
		.id = 'h', .name = "help", .help = "this text" \
	}
#define CLI_OPT_END          \
	{                    \
		.name = NULL \
	}

/* A subcommand's interface: its usage text is
 *   usage: stopo NAME SYNOPSIS   (synopsis lines after the first are
 *                                 indented under the first)
 *   <blank> ABOUT <blank> the options <blank> FOOTER */
struct cli_spec {
	const char *name;
	const char *synopsis;
	const char *about;
	const struct cli_opt *opts;
	const char *footer; /* NULL for none */
};

/* Write SPEC's usage text to F. */
void cli_usage(const struct cli_spec *spec, FILE *f);

/* getopt_long over SPEC's options.  Returns the id of the next option
 * (its argument in *arg, NULL for a flag), -1 at the end of the options
 * (optind is the first operand), or '?' after getopt's own message on a
 * bad option or missing argument.  -h/--help is handled here: the usage
 * goes to stdout and cli_getopt returns 'h' (the caller exits with
 * CLI_OK). */
int cli_getopt(const struct cli_spec *spec, int argc, char **argv,
	       const char **arg);

/* The standard end of a subcommand's option loop for id C: 'h' -> CLI_OK,
 * anything else -> usage on stderr and CLI_USAGE. */
int cli_opt_end(const struct cli_spec *spec, int c);

/* Print "stopo NAME: message" to stderr; returns CODE. */
int cli_error(const char *cmd, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The exit status for error E met where the command's own is STATUS:
 * CLI_FAIL when E's code says memory ran out (ENOMEM: the work failed,
 * whatever the input), else STATUS. */
int cli_status(const struct err *e, int status);

/* Parse an unsigned integer option value; -1 on error (message printed). */
int cli_parse_u32(const char *cmd, const char *opt, const char *s,
		  uint32_t *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t *out);

/* Parse --bw's "P,L,G" (injection, local, global bandwidth: three
 * positive finite numbers) into V[3].  Returns 0, or -1 after "stopo
 * CMD: --bw S: want three positive UNIT values P,L,G". */
int cli_parse_bw(const char *cmd, const char *s, const char *unit, double *v);

/* Number of processor cores of this machine, from hwloc (for options such
 * as `--cores-per-node host`).  Returns 0 or -1 with err set. */
int cli_host_cores(uint32_t *out, struct err *err);

/* Print OBJ to stdout (pretty, followed by a newline) and release it. */
void cli_print_json(struct json_object *obj);

/* Parse a node list "0-3,8,10-11" into a new array (*n entries, caller
 * frees).  Returns NULL with err set on a malformed list or ids >= limit. */
uint32_t *cli_parse_ranges(const char *s, uint32_t limit, uint32_t *n,
			   struct err *err);
/* Format NODES (sorted or not) as ranges "0-3,8" into a new string. */
char *cli_format_ranges(const uint32_t *nodes, uint32_t n);

/* The subcommands (one file each: cmd_<name>.c). */
int cmd_topo(int argc, char **argv);
int cmd_paths(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_adapters(int argc, char **argv);

#endif
