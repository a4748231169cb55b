/* workload.c - what every workload reader shares (see workload.h for the
 * formats): options, reading a file, the record and error helpers,
 * recognising the format, unique job ids; one reader per format beside
 * it (wl_swf.c, wl_csv.c, wl_json.c and wl_squeue.c, wl_running.c), as
 * hwloc keeps one file per backend. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/util/limits.h"

#include "evaluator/traffic/flows.h"

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

void wl_opts_init(struct wl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cores_per_node = 1;
	o->format = WL_AUTO;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->n; i++) {
		free(w->jobs[i].pattern);
		free(w->jobs[i].partition);
		free(w->jobs[i].comment);
		free(w->jobs[i].alloc);
	}
	free(w->jobs);
	free(w->name);
	free(w->skips);
	memset(w, 0, sizeof(*w));
}

/* WHAT with its values left out, into KEY: a quoted '...' and the digits
 * of a number (but a field's) stand for any. */
static void skip_key(const char *what, char *key, size_t len)
{
	size_t o = 0;

	for (const char *p = what; *p && o + 4 < len; p++) {
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');

			key[o++] = '\'';
			key[o++] = '\'';
			if (!q)
				break;
			p = q;
		} else if (isdigit((unsigned char)*p) &&
			   !(p - what >= 6 && !strncmp(p - 6, "field ", 6)) &&
			   !(p - what >= 7 && !strncmp(p - 7, "fields ", 7)) &&
			   !(p - what >= 5 && !strncmp(p - 5, " and ", 5))) {
			key[o++] = '#';
			while (isdigit((unsigned char)p[1]))
				p++;
		} else {
			key[o++] = *p;
		}
	}
	key[o] = '\0';
}

/* A record skipped at LINE (JSON: index + 1) for WHAT: counted under its
 * reason. */
static void note_skip(struct workload *w, uint32_t line, bool json,
		      const char *what)
{
	char key[sizeof(w->skips[0].key)];
	struct wl_skip *s;

	w->skipped++;
	skip_key(what, key, sizeof(key));
	for (uint32_t i = 0; i < w->nskips; i++)
		if (!strcmp(w->skips[i].key, key)) {
			w->skips[i].count++;
			return;
		}
	if (w->nskips == WL_SKIP_REASONS ||
	    (!w->skips &&
	     !(w->skips = calloc(WL_SKIP_REASONS, sizeof(*w->skips))))) {
		w->skipped_other++;
		return;
	}
	s = &w->skips[w->nskips++];
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->line = line;
	s->json = json;
	s->count = 1;
}

char *wl_read_stream(FILE *f, const char *name, size_t *len, struct err *err)
{
	return lim_read(f, name, 0, len, err);
}

char *workload_slurp(const char *path, size_t *len, struct err *err)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf;

	if (!f) {
		err_sys(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = wl_read_stream(f, path, len, err);
	if (f != stdin)
		fclose(f);
	return buf;
}

struct wl_job *wl_push(struct workload *w)
{
	if (w->n == w->cap) {
		uint32_t cap = w->cap ? 2 * w->cap : 256;
		struct wl_job *v = realloc(w->jobs, cap * sizeof(*v));

		if (!v)
			return NULL;
		w->jobs = v;
		w->cap = cap;
	}
	memset(&w->jobs[w->n], 0, sizeof(w->jobs[0]));
	w->jobs[w->n].comm_fraction = -1;
	return &w->jobs[w->n++];
}

void wl_drop_last(struct workload *w)
{
	w->n--;
	free(w->jobs[w->n].pattern);
	free(w->jobs[w->n].alloc);
}

/* Parse a decimal integer token (optionally negative) in full. */
int wl_int_token(const char *s, size_t len, int64_t *out)
{
	char buf[32], *end;
	long long v;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One record's trouble: an error, or skipped and counted. */
int wl_bad(struct workload *w, const struct wl_opts *o, struct err *err,
	   const char *name, uint32_t line, const char *what)
{
	if (o->skip_bad) {
		note_skip(w, line, false, what);
		return 0;
	}
	w->refused = true;
	return err_set(err, "%s:%u: %s", name, line, what);
}

/* The same for JSON job I (0-based): "FILE: jobs[I]: what". */
int wl_jbad(struct workload *w, const struct wl_opts *o, struct err *err,
	    const char *name, uint32_t i, const char *what)
{
	if (o->skip_bad) {
		note_skip(w, i + 1, true, what);
		return 0;
	}
	w->refused = true;
	return err_set(err, "%s: jobs[%u]: %s", name, i, what);
}

/* Fill a job from id, submit, nodes, runtime, limit, pattern strings (CSV
 * fields or JSON values converted to text).  Returns NULL when fine or the
 * message. */
const char *wl_fill_job(struct wl_job *j, int64_t id, int64_t submit,
			int64_t nodes, int64_t runtime, int64_t limit,
			const char *pattern, double frac, char *m, size_t mlen)
{
	struct err e = { 0 };

	if (id <= 0 || id >= UINT32_MAX)
		return "id must be a positive integer";
	if (submit < 0)
		return "submit time is negative";
	if (nodes <= 0 || nodes >= UINT32_MAX)
		return "nodes must be a positive integer";
	if (runtime < 0)
		return "runtime is negative";
	if (limit == 0 || limit < -1)
		return "limit must be positive (or -1 for the run time)";
	if (submit > WL_TIME_MAX)
		return "submit: out of range (at most 1000000000000 s)";
	if (runtime > WL_TIME_MAX)
		return "runtime: out of range (at most 1000000000000 s)";
	if (limit > WL_TIME_MAX)
		return "limit: out of range (at most 1000000000000 s)";
	if (!isnan(frac) && !(frac >= 0 && frac <= 1))
		return "comm_fraction must be from 0 to 1";
	j->id = (uint32_t)id;
	j->submit = submit;
	j->nodes = (uint32_t)nodes;
	j->limit = limit > 0 ? limit : (runtime > 0 ? runtime : 1);
	j->runtime = runtime < j->limit ? runtime : j->limit;
	j->comm_fraction = isnan(frac) ? -1 : frac;
	if (pattern && *pattern) {
		if (flows_pattern_check(pattern, &e)) {
			snprintf(m, mlen, "job %" PRId64 ": %s", id, e.msg);
			return m;
		}
		j->pattern = strdup(pattern);
		if (!j->pattern)
			return "out of memory";
	}
	return NULL;
}

uint32_t wl_offset_line(const char *text, size_t off)
{
	uint32_t line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* The rule of every reader: a NUL byte is an error at its line (it would
 * end a string or a line early). */
int wl_nul_byte(const char *name, const char *text, size_t len, struct err *err)
{
	const char *z = memchr(text, '\0', len);

	if (!z)
		return 0;
	return err_set(err, "%s:%u: NUL byte", name,
		       wl_offset_line(text, (size_t)(z - text)));
}

static enum wl_format sniff(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i < len && text[i] == '#') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		break;
	}
	if (i < len && (text[i] == '{' || text[i] == '['))
		return WL_JSON;
	if (len - i >= 3 && !strncmp(text + i, "id", 2) &&
	    (text[i + 2] == ',' || text[i + 2] == ' '))
		return WL_CSV;
	return WL_SWF;
}

/* Where job I of W was read, in messages: "NAME:LINE" ("NAME: jobs[K]"
 * for JSON, job lists and squeue alike, whose line is its index + 1). */
static void where(const char *name, const struct workload *w, uint32_t i,
		  char *buf, size_t len)
{
	if (w->format == WL_JSON)
		snprintf(buf, len, "%s: jobs[%u]", name, w->jobs[i].line - 1);
	else
		snprintf(buf, len, "%s:%u", name, w->jobs[i].line);
}

static int cmp_id_line(const void *a, const void *b)
{
	const struct wl_job *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* Job ids are unique in every format: a repeated id is an error naming
 * both records (or, with skip_bad, the later one is skipped and counted).
 * Order of W is kept. */
int wl_unique_ids(const char *name, const struct wl_opts *o, struct workload *w,
		  struct err *err)
{
	struct wl_job *v;
	uint32_t k = 0;
	uint8_t *drop;
	int rc = 0;

	if (w->n < 2)
		return 0;
	v = malloc(w->n * sizeof(*v));
	drop = calloc(w->n, 1);
	if (!v || !drop) {
		free(v);
		free(drop);
		return err_nomem(err, "%s: out of memory", name);
	}
	for (uint32_t i = 0; i < w->n; i++) {
		v[i] = w->jobs[i];
		v[i].limit = i; /* the index, carried through the sort */
	}
	qsort(v, w->n, sizeof(*v), cmp_id_line);
	for (uint32_t i = 1; i < w->n && !rc; i++) {
		const struct wl_job *a = &v[i - 1], *b = &v[i];

		if (b->id != a->id)
			continue;
		if (o->skip_bad) {
			drop[b->limit] = 1;
			continue;
		}
		w->refused = true;
		if (w->format == WL_JSON)
			rc = err_set(err,
				     "%s: jobs[%u]: job id %u repeats jobs[%u]",
				     name, b->line - 1, b->id, a->line - 1);
		else
			rc = err_set(err, "%s:%u: job id %u repeats line %u",
				     name, b->line, b->id, a->line);
	}
	free(v);
	for (uint32_t i = 0; i < w->n && !rc; i++) {
		if (drop[i]) {
			char m[64];

			snprintf(m, sizeof(m), "job id %u repeated",
				 w->jobs[i].id);
			note_skip(w, w->jobs[i].line, w->format == WL_JSON, m);
			free(w->jobs[i].pattern);
			free(w->jobs[i].alloc);
			free(w->jobs[i].partition);
			free(w->jobs[i].comment);
			continue;
		}
		w->jobs[k++] = w->jobs[i];
	}
	if (!rc)
		w->n = k;
	free(drop);
	return rc;
}

int workload_job_where(const struct workload *w, uint32_t i, struct err *err)
{
	char at[300];

	if (!w->name || !w->jobs[i].line)
		return err_prefix(err, "job %u", w->jobs[i].id);
	where(w->name, w, i, at, sizeof(at));
	return err_prefix(err, "%s: job %u", at, w->jobs[i].id);
}

const char *workload_job_place(const struct workload *w, uint32_t i, char *buf,
			       size_t len)
{
	if (!w->name || !w->jobs[i].line)
		return NULL;
	where(w->name, w, i, buf, len);
	return buf;
}

int workload_parse(const char *name, const char *text, size_t len,
		   const struct wl_opts *o, struct workload *w, struct err *err)
{
	struct wl_opts def;
	int rc;

	if (!o) {
		wl_opts_init(&def);
		o = &def;
	}
	memset(w, 0, sizeof(*w));
	if (wl_nul_byte(name, text, len, err))
		return -1;
	w->format = o->format != WL_AUTO ? o->format : sniff(text, len);
	switch (w->format) {
	case WL_CSV:
		rc = wl_parse_csv(name, text, len, o, w, err);
		break;
	case WL_JSON:
		rc = wl_parse_json(name, text, len, o, w, err);
		break;
	default:
		rc = wl_parse_swf(name, text, len, o, w, err);
		break;
	}
	if (!rc)
		rc = wl_unique_ids(name, o, w, err);
	if (!rc && !(w->name = strdup(name)))
		rc = err_nomem(err, "%s: out of memory", name);
	if (rc) {
		bool refused = w->refused;

		workload_free(w);
		w->refused = refused;
		return -1;
	}
	return 0;
}

int workload_load(const char *path, const struct wl_opts *o, struct workload *w,
		  struct err *err)
{
	size_t len;
	char *text = workload_slurp(path, &len, err);
	int rc;

	memset(w, 0, sizeof(*w));
	if (!text)
		return -1;
	rc = workload_parse(strcmp(path, "-") ? path : "<stdin>", text, len, o,
			    w, err);
	free(text);
	return rc;
}
