/* cli.c - helpers shared by stopo's subcommands. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "evaluator/cmd/cli.h"

/* "  -t, --topo SPEC" or "      --top N": the option column of the usage. */
static int opt_label(const struct cli_opt *o, char *buf, size_t len)
{
	char sh[8] = "    ";

	if (o->id < CLI_LONG_ONLY)
		snprintf(sh, sizeof(sh), "-%c, ", o->id);
	return snprintf(buf, len, "  %s--%s%s%s", sh, o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

static void put_indented(FILE *f, const char *text, int indent)
{
	for (const char *p = text; *p; p++) {
		fputc(*p, f);
		if (*p == '\n' && p[1])
			fprintf(f, "%*s", indent, "");
	}
}

void cli_usage(const struct cli_spec *spec, FILE *f)
{
	char label[96];
	int width = 0, lead;
	const struct cli_opt *o;

	lead = fprintf(f, "usage: stopo %s ", spec->name);
	put_indented(f, spec->synopsis, lead);
	fprintf(f, "\n\n%s\n\n", spec->about);
	for (o = spec->opts; o->name; o++) {
		int n = opt_label(o, label, sizeof(label));

		if (n > width)
			width = n;
	}
	width += 3;
	for (o = spec->opts; o->name; o++) {
		fprintf(f, "%-*s", width,
			(opt_label(o, label, sizeof(label)), label));
		put_indented(f, o->help, width);
		fputc('\n', f);
	}
	if (spec->footer)
		fprintf(f, "\n%s\n", spec->footer);
}

/* The option of SPEC whose id is C, or NULL. */
static const struct cli_opt *opt_by_id(const struct cli_spec *spec, int c)
{
	for (const struct cli_opt *o = spec->opts; o->name; o++)
		if (o->id == c)
			return o;
	return NULL;
}

int cli_getopt(const struct cli_spec *spec, int argc, char **argv,
	       const char **arg)
{
	/* options with a value seen in this loop (a loop starts at optind
	 * 1: every option taken moves optind past 1 but a flag inside a
	 * cluster at argv[1], which is not recorded) */
	static bool seen[64];
	struct option lo[64];
	char so[3 * 64 + 3] = ":";
	size_t n = 0, k = 1;
	const struct cli_opt *o;
	int c;

	if (optind <= 1)
		memset(seen, 0, sizeof(seen));
	for (o = spec->opts; o->name && n < 63; o++) {
		lo[n++] =
			(struct option){ .name = o->name,
					 .has_arg = o->arg ? required_argument :
							     no_argument,
					 .val = o->id };
		if (o->id < CLI_LONG_ONLY) {
			so[k++] = (char)o->id;
			if (o->arg)
				so[k++] = ':';
		}
	}
	lo[n] = (struct option){ 0 };
	so[k] = '\0';
	opterr = 0; /* the messages below say "stopo NAME:" */
	c = getopt_long(argc, argv, so, lo, NULL);
	*arg = c == -1 ? NULL : optarg;
	if (c == '?') {
		if (optopt && optopt < CLI_LONG_ONLY &&
		    !opt_by_id(spec, optopt))
			cli_error(spec->name, CLI_USAGE,
				  "unknown option '-%c'; see 'stopo %s --help'",
				  optopt, spec->name);
		else
			cli_error(spec->name, CLI_USAGE,
				  "unknown or ambiguous option '%s'; see "
				  "'stopo %s --help'",
				  optind > 0 && optind <= argc ?
					  argv[optind - 1] :
					  "?",
				  spec->name);
		return '?';
	}
	if (c == ':') {
		o = opt_by_id(spec, optopt);
		if (o)
			cli_error(spec->name, CLI_USAGE,
				  "--%s needs a value (%s)", o->name, o->arg);
		else
			cli_error(spec->name, CLI_USAGE, "'%s' needs a value",
				  optind > 0 && optind <= argc ?
					  argv[optind - 1] :
					  "?");
		return '?';
	}
	if (c == 'h')
		cli_usage(spec, stdout);
	o = c == -1 ? NULL : opt_by_id(spec, c);
	if (o && o->arg && optarg && !*optarg) {
		/* no option takes an empty value ('stopo eval: : No such
		 * file' said nothing) */
		cli_error(spec->name, CLI_USAGE, "--%s: empty %s", o->name,
			  o->arg);
		return '?';
	}
	if (o && o->arg) {
		size_t i = (size_t)(o - spec->opts);

		if (i < 64 && seen[i]) {
			cli_error(spec->name, CLI_USAGE,
				  "--%s given twice: give it once%s", o->name,
				  strstr(o->arg, "[,") ?
					  ", with a comma-separated list" :
					  "");
			return '?';
		}
		if (i < 64)
			seen[i] = true;
	}
	return c;
}

int cli_opt_end(const struct cli_spec *spec, int c)
{
	if (c == 'h')
		return CLI_OK;
	if (c != '?') /* cli_getopt said what is wrong */
		cli_usage(spec, stderr);
	return CLI_USAGE;
}

int cli_error(const char *cmd, int code, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "stopo%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
	return code;
}

int cli_status(const struct err *e, int status)
{
	/* running out of memory (or another resource) is the work failing,
	 * whatever the input: readers and builders report it through the
	 * same err as bad input, with its own code */
	switch (e->code) {
	case ENOMEM:
		return CLI_FAIL;
	default:
		return status;
	}
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !*s || *s == '-')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	*out = v;
	return 0;
bad:
	cli_error(cmd, CLI_USAGE, "%s: '%s' is not a non-negative integer", opt,
		  s ? s : "");
	return -1;
}

int cli_parse_u32(const char *cmd, const char *opt, const char *s,
		  uint32_t *out)
{
	uint64_t v;

	if (cli_parse_u64(cmd, opt, s, &v))
		return -1;
	if (v >= UINT32_MAX) {
		cli_error(cmd, CLI_USAGE, "%s: %s is too large", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

void cli_print_json(struct json_object *obj)
{
	fputs(json_object_to_json_string_ext(
		      obj,
		      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE),
	      stdout);
	fputc('\n', stdout);
	json_object_put(obj);
}

uint32_t *cli_parse_ranges(const char *s, uint32_t limit, uint32_t *n,
			   struct err *err)
{
	size_t cap = 16, cnt = 0;
	uint32_t *v = malloc(cap * sizeof(*v));
	const char *p = s;

	if (!v) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	while (*p) {
		char *end;
		unsigned long a, b;

		errno = 0;
		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				goto bad;
			b = strtoul(p, &end, 10);
		}
		if (errno || b < a || b >= limit)
			goto bad;
		for (unsigned long x = a; x <= b; x++) {
			if (cnt == cap) {
				uint32_t *q = realloc(v, 2 * cap * sizeof(*v));

				if (!q) {
					free(v);
					err_nomem(err, "out of memory");
					return NULL;
				}
				v = q;
				cap *= 2;
			}
			v[cnt++] = (uint32_t)x;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	*n = (uint32_t)cnt;
	return v;
bad:
	free(v);
	err_set(err, "bad node list '%s' (want ranges like 0-3,8 below %u)", s,
		limit);
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

char *cli_format_ranges(const uint32_t *nodes, uint32_t n)
{
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t cap = 32, len = 0;
	char *s = malloc(cap);

	if (!v || !s) {
		free(v);
		free(s);
		return NULL;
	}
	memcpy(v, nodes, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u32);
	s[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		char buf[32];
		int w;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		w = j > i ? snprintf(buf, sizeof(buf), "%s%u-%u",
				     len ? "," : "", v[i], v[j]) :
			    snprintf(buf, sizeof(buf), "%s%u", len ? "," : "",
				     v[i]);
		if (len + (size_t)w + 1 > cap) {
			char *q;

			while (len + (size_t)w + 1 > cap)
				cap *= 2;
			q = realloc(s, cap);
			if (!q) {
				free(v);
				free(s);
				return NULL;
			}
			s = q;
		}
		memcpy(s + len, buf, (size_t)w + 1);
		len += (size_t)w;
		i = j + 1;
	}
	free(v);
	return s;
}

int cli_host_cores(uint32_t *out, struct err *err)
{
	hwloc_topology_t topo;
	int n;

	if (hwloc_topology_init(&topo) < 0)
		return err_set(err, "hwloc: cannot initialise");
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return err_set(err,
			       "hwloc: cannot read this machine's topology");
	}
	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	if (n <= 0) /* some virtual machines expose no cores: count PUs */
		n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	hwloc_topology_destroy(topo);
	if (n <= 0)
		return err_set(err, "hwloc: this machine reports no cores");
	*out = (uint32_t)n;
	return 0;
}

int cli_parse_bw(const char *cmd, const char *s, const char *unit, double *v)
{
	const char *p = s;

	for (int k = 0; k < 3; k++) {
		char *end;

		errno = 0;
		v[k] = strtod(p, &end);
		if (errno || end == p || !(v[k] > 0) || !isfinite(v[k]) ||
		    (k < 2 ? *end != ',' : *end != 0)) {
			cli_error(cmd, CLI_USAGE,
				  "--bw %s: want three positive %s values "
				  "P,L,G",
				  s, unit);
			return -1;
		}
		p = end + 1;
	}
	return 0;
}
