/* workload.c - SWF, CSV, JSON job lists and squeue --json (see
 * workload.h for the formats). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include "topo/util/hl.h"
#include "topo/util/limits.h"

#include "evaluator/traffic/flows.h"

#include "evaluator/sim/workload.h"

#define DEFAULT_LIMIT 86400

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
	memset(w, 0, sizeof(*w));
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
		err_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = wl_read_stream(f, path, len, err);
	if (f != stdin)
		fclose(f);
	return buf;
}

static struct wl_job *push(struct workload *w)
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
	return &w->jobs[w->n++];
}

static void drop_last(struct workload *w)
{
	w->n--;
	free(w->jobs[w->n].pattern);
	free(w->jobs[w->n].alloc);
}

/* Parse a decimal integer token (optionally negative) in full. */
static int int_token(const char *s, size_t len, int64_t *out)
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

/* Numeric SWF field that may be written "12.0" (some archive logs);
 * *WHOLE false when it has a fraction (fields 6 and 7, CPU time and
 * memory averages, may; the ones read may not). */
static int swf_token(const char *s, size_t len, int64_t *out, bool *whole)
{
	char buf[40], *end;
	double v;

	*whole = true;
	if (!int_token(s, len, out))
		return 0;
	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || v != v || v > 9e15 || v < -9e15)
		return -1;
	*out = (int64_t)v;
	*whole = (double)*out == v;
	return 0;
}

static uint32_t procs_to_nodes(int64_t procs, uint32_t cpn)
{
	uint64_t c = cpn ? cpn : 1;

	return (uint32_t)(((uint64_t)procs + c - 1) / c);
}

/* One record's trouble: an error, or skipped and counted. */
static int bad(struct workload *w, const struct wl_opts *o, struct err *err,
	       const char *name, uint32_t line, const char *what)
{
	if (o->skip_bad) {
		w->skipped++;
		return 0;
	}
	return err_set(err, "%s:%u: %s", name, line, what);
}

/* The same for JSON job I (0-based): "FILE: jobs[I]: what". */
static int jbad(struct workload *w, const struct wl_opts *o, struct err *err,
		const char *name, uint32_t i, const char *what)
{
	if (o->skip_bad) {
		w->skipped++;
		return 0;
	}
	return err_set(err, "%s: jobs[%u]: %s", name, i, what);
}

/* A header comment; MaxNodes: and MaxProcs: (what --scale auto scales
 * to) must start with a positive whole number (-1: unknown, ignored;
 * text may follow it).  Returns 0 or -1 with ERR. */
static int swf_header(struct workload *w, const char *s, size_t len,
		      uint32_t cpn, const char *name, uint32_t line,
		      struct err *err)
{
	static const char *const keys[] = { "MaxNodes:", "MaxProcs:" };

	for (int k = 0; k < 2; k++) {
		const char *p = memmem(s, len, keys[k], strlen(keys[k]));
		char num[32], *end;
		size_t nl;
		long long v;

		if (!p)
			continue;
		/* the number within the line: TEXT need not end in a NUL */
		p += strlen(keys[k]);
		nl = len - (size_t)(p - s);
		nl = nl < sizeof(num) - 1 ? nl : sizeof(num) - 1;
		memcpy(num, p, nl);
		num[nl] = '\0';
		errno = 0;
		v = strtoll(num, &end, 10);
		if (v == -1 && !errno)
			continue;
		if (end == num || errno || v <= 0 || v >= UINT32_MAX ||
		    (*end && !isspace((unsigned char)*end)))
			return err_set(err,
				       "%s:%u: %s '%.*s' is not a positive "
				       "whole number below 2^32",
				       name, line, keys[k],
				       (int)strcspn(num + strspn(num, " \t"),
						    "\r"),
				       num + strspn(num, " \t"));
		if (k == 0)
			w->max_nodes = (uint32_t)v;
		else if (!w->max_nodes)
			w->max_nodes = procs_to_nodes(v, cpn);
	}
	return 0;
}

/* The SWF time fields (0-based) bounded by WL_TIME_MAX. */
static const struct {
	int f;
	const char *what;
} swf_times[] = { { 1, "submit time" },
		  { 3, "run time" },
		  { 8, "requested time" } };

static int parse_swf_line(struct workload *w, const struct wl_opts *o,
			  const char *name, uint32_t line, const char *s,
			  size_t len, struct err *err)
{
	int64_t f[18];
	bool whole[18];
	uint32_t nf = 0;
	size_t i = 0;
	struct wl_job *j;
	char msg[128];

	while (i < len && nf < 18) {
		size_t b;

		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i == len)
			break;
		b = i;
		while (i < len && !isspace((unsigned char)s[i]))
			i++;
		if (swf_token(s + b, i - b, &f[nf], &whole[nf])) {
			snprintf(msg, sizeof(msg),
				 "field %u: '%.*s' is not a "
				 "number",
				 nf + 1, (int)(i - b > 20 ? 20 : i - b), s + b);
			return bad(w, o, err, name, line, msg);
		}
		nf++;
	}
	if (nf == 0)
		return 0;
	if (nf < 9) {
		snprintf(msg, sizeof(msg),
			 "%u fields, SWF needs at least 9 "
			 "(18 in full)",
			 nf);
		return bad(w, o, err, name, line, msg);
	}
	/* the fields read: id, submit, run time, processors (allocated,
	 * requested), requested time */
	for (int k = 0; k < 6; k++) {
		static const int used[] = { 0, 1, 3, 4, 7, 8 };

		if (!whole[used[k]]) {
			snprintf(msg, sizeof(msg),
				 "field %d: not a whole number (SWF counts "
				 "seconds and processors in integers)",
				 used[k] + 1);
			return bad(w, o, err, name, line, msg);
		}
	}
	if (f[0] <= 0 || f[0] >= UINT32_MAX)
		return bad(w, o, err, name, line,
			   "field 1: job id must be "
			   "positive");
	if (f[1] < 0)
		return bad(w, o, err, name, line,
			   "field 2: submit time is "
			   "negative");
	if (f[3] < 0)
		return bad(w, o, err, name, line,
			   "field 4: run time unknown "
			   "(-1)");
	for (size_t k = 0; k < sizeof(swf_times) / sizeof(swf_times[0]); k++) {
		if (f[swf_times[k].f] > WL_TIME_MAX) {
			snprintf(msg, sizeof(msg),
				 "field %d (%s): out of range (at most %lld s)",
				 swf_times[k].f + 1, swf_times[k].what,
				 WL_TIME_MAX);
			return bad(w, o, err, name, line, msg);
		}
	}
	if (f[4] <= 0 && f[7] <= 0)
		return bad(w, o, err, name, line,
			   "fields 5 and 8: no processor "
			   "count");
	if ((f[4] > 0 ? f[4] : f[7]) >= UINT32_MAX)
		return bad(w, o, err, name, line,
			   "fields 5/8: processor count "
			   "too large");
	j = push(w);
	if (!j)
		return err_set(err, "%s:%u: out of memory", name, line);
	j->id = (uint32_t)f[0];
	j->submit = f[1];
	j->nodes = procs_to_nodes(f[4] > 0 ? f[4] : f[7], o->cores_per_node);
	j->limit = f[8] > 0 ? f[8] : f[3];
	if (j->limit <= 0)
		j->limit = 1;
	/* Slurm ends a job at its time limit */
	j->runtime = f[3] < j->limit ? f[3] : j->limit;
	j->line = line;
	return 0;
}

static int parse_swf(const char *name, const char *text, size_t len,
		     const struct wl_opts *o, struct workload *w,
		     struct err *err)
{
	uint32_t line = 0;

	for (size_t p = 0; p < len;) {
		const char *e = memchr(text + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (text + p)) : len - p;
		const char *s = text + p;

		line++;
		p += l + 1;
		while (l && isspace((unsigned char)*s)) {
			s++;
			l--;
		}
		if (!l)
			continue;
		if (*s == ';') {
			if (swf_header(w, s, l, o->cores_per_node, name, line,
				       err))
				return -1;
			continue;
		}
		if (parse_swf_line(w, o, name, line, s, l, err))
			return -1;
	}
	return 0;
}

/* Split a CSV line into at most MAXF fields (no quoting: patterns are
 * written without commas or quoted with "..."). */
static uint32_t csv_split(char *s, char **f, uint32_t maxf)
{
	uint32_t n = 0;

	while (n < maxf) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '"') {
			char *q = strchr(s + 1, '"');

			f[n++] = s + 1;
			if (!q)
				return UINT32_MAX;
			*q = '\0';
			s = q + 1;
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s == ',') {
				s++;
				continue;
			}
			if (*s)
				return UINT32_MAX;
			return n;
		}
		f[n++] = s;
		s += strcspn(s, ",");
		if (*s == ',') {
			char *e = s;

			*s++ = '\0';
			while (e > f[n - 1] &&
			       (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
				*--e = '\0';
			continue;
		}
		while (s > f[n - 1] &&
		       (s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\r'))
			*--s = '\0';
		return n;
	}
	return UINT32_MAX;
}

static int csv_int(const char *s, int64_t *v)
{
	return int_token(s, strlen(s), v);
}

/* Fill a job from id, submit, nodes, runtime, limit, pattern strings (CSV
 * fields or JSON values converted to text).  Returns NULL when fine or the
 * message. */
static const char *fill_job(struct wl_job *j, int64_t id, int64_t submit,
			    int64_t nodes, int64_t runtime, int64_t limit,
			    const char *pattern, char *m, size_t mlen)
{
	struct err e = { "" };

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
	j->id = (uint32_t)id;
	j->submit = submit;
	j->nodes = (uint32_t)nodes;
	j->limit = limit > 0 ? limit : (runtime > 0 ? runtime : 1);
	j->runtime = runtime < j->limit ? runtime : j->limit;
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

static int parse_csv(const char *name, const char *text, size_t len,
		     const struct wl_opts *o, struct workload *w,
		     struct err *err)
{
	static const char *const cols[] = { "id",      "submit", "nodes",
					    "runtime", "limit",	 "pattern" };
	uint32_t line = 0, ncols = 0;
	char *buf = NULL;
	size_t bcap = 0;

	for (size_t p = 0; p < len;) {
		const char *e = memchr(text + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (text + p)) : len - p;
		char *f[8];
		uint32_t nf;
		int64_t v[5];
		const char *msg = NULL;
		char m[256];

		line++;
		if (l + 1 > bcap) {
			char *q = realloc(buf, l + 1);

			if (!q) {
				free(buf);
				return err_set(err, "%s:%u: out of memory",
					       name, line);
			}
			buf = q;
			bcap = l + 1;
		}
		memcpy(buf, text + p, l);
		buf[l] = '\0';
		p += l + 1;
		{
			char *s = buf;

			while (isspace((unsigned char)*s))
				s++;
			if (!*s || *s == '#')
				continue;
		}
		nf = csv_split(buf, f, 8);
		if (!ncols) {
			/* nf is UINT32_MAX for a broken line: F is not
			 * filled then */
			for (ncols = 0;
			     nf != UINT32_MAX && ncols < nf && ncols < 6;
			     ncols++)
				if (strcmp(f[ncols], cols[ncols]))
					break;
			if (nf == UINT32_MAX || ncols < 5 || nf != ncols) {
				free(buf);
				return err_set(err,
					       "%s:%u: header must be "
					       "id,submit,nodes,runtime,limit"
					       "[,pattern]",
					       name, line);
			}
			continue;
		}
		if (nf == UINT32_MAX || nf < 5 || nf > ncols) {
			snprintf(m, sizeof(m), "want %u comma-separated fields",
				 ncols);
			if (bad(w, o, err, name, line, m)) {
				free(buf);
				return -1;
			}
			continue;
		}
		for (uint32_t k = 0; k < 5 && !msg; k++) {
			if (k == 4 && !*f[k]) {
				v[k] = -1;
				continue;
			}
			if (csv_int(f[k], &v[k])) {
				snprintf(m, sizeof(m),
					 "%s: '%.32s' is not an "
					 "integer",
					 cols[k], f[k]);
				msg = m;
			}
		}
		if (!msg) {
			struct wl_job *j = push(w);

			if (!j) {
				free(buf);
				return err_set(err, "%s:%u: out of memory",
					       name, line);
			}
			msg = fill_job(j, v[0], v[1], v[2], v[3], v[4],
				       nf > 5 ? f[5] : NULL, m, sizeof(m));
			j->line = line;
			if (msg)
				drop_last(w);
		}
		if (msg && bad(w, o, err, name, line, msg)) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	if (!ncols)
		return err_set(err, "%s:%u: empty CSV (no header)", name,
			       line ? line : 1);
	return 0;
}

/* ---- node lists ---- */

static int all_index_chars(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != '-' && *s != ',')
			return 0;
	return 1;
}

static int add_node(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 16;
		uint32_t *q = realloc(*v, c * sizeof(*q));

		if (!q)
			return -1;
		*v = q;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static uint32_t *index_list(const char *s, uint32_t nnodes, uint32_t *n,
			    struct err *err)
{
	uint32_t *v = NULL, cap = 0, cnt = 0;
	const char *p = s;

	while (*p) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if (errno || b < a || (nnodes && b >= nnodes) ||
		    b >= UINT32_MAX)
			goto bad;
		for (unsigned long x = a; x <= b; x++)
			if (add_node(&v, &cnt, &cap, (uint32_t)x)) {
				free(v);
				err_set(err, "out of memory");
				return NULL;
			}
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (!cnt)
		goto bad;
	*n = cnt;
	return v;
bad:
	free(v);
	if (nnodes)
		err_set(err,
			"bad node list '%.64s' (want indices like 0-3,8 "
			"below %u)",
			s, nnodes);
	else
		err_set(err, "bad node list '%.64s' (want indices like 0-3,8)",
			s);
	return NULL;
}

uint32_t *workload_nodes(const char *list, const struct machine *m,
			 uint32_t nnodes, uint32_t *n, struct err *err)
{
	struct hl *hl;
	uint32_t *v = NULL, cap = 0, cnt = 0;
	char *h;

	*n = 0;
	if (!list || !*list) {
		err_set(err, "empty node list");
		return NULL;
	}
	if (all_index_chars(list))
		return index_list(list, nnodes, n, err);
	if (!m || !machine_has_names(m)) {
		err_set(err,
			"node names '%.64s' need a topo.conf with "
			"NodeName= (--topo FILE)",
			list);
		return NULL;
	}
	hl = hl_parse(list);
	if (!hl) {
		const char *why = hl_error(list);

		err_set(err, "bad hostlist '%.64s': %s", list,
			why ? why : "out of memory");
		return NULL;
	}
	while ((h = hl_shift(hl))) {
		uint32_t x = machine_node_index(m, h);

		if (x == TOPO_NONE) {
			err_set(err,
				"node '%.64s' is not in topo.conf "
				"NodeName=",
				h);
			free(h);
			goto fail;
		}
		free(h);
		if (add_node(&v, &cnt, &cap, x)) {
			err_set(err, "out of memory");
			goto fail;
		}
	}
	hl_destroy(hl);
	if (!cnt) {
		err_set(err, "empty node list '%.64s'", list);
		free(v);
		return NULL;
	}
	*n = cnt;
	return v;
fail:
	hl_destroy(hl);
	free(v);
	return NULL;
}

/* ---- JSON ---- */

static uint32_t offset_line(const char *text, size_t off)
{
	uint32_t line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* Integer member KEY of O: 0 found, 1 absent or null, -1 not an integer. */
static int jint(struct json_object *o, const char *key, int64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 1;
	if (json_object_is_type(x, json_type_int)) {
		*v = json_object_get_int64(x);
		return 0;
	}
	if (json_object_is_type(x, json_type_double)) {
		double d = json_object_get_double(x);

		/* in range before the cast (2^63 and beyond, NaN: not an
		 * integer), then whole */
		if (!(d >= -9223372036854775808.0 &&
		      d < 9223372036854775808.0) ||
		    d != (double)(int64_t)d)
			return -1;
		*v = (int64_t)d;
		return 0;
	}
	/* Slurm 23.02+ writes {"set":true,"infinite":false,"number":N} */
	if (json_object_is_type(x, json_type_object)) {
		struct json_object *s, *num, *inf;

		if (json_object_object_get_ex(x, "infinite", &inf) &&
		    json_object_get_boolean(inf))
			return 1;
		if (json_object_object_get_ex(x, "set", &s) &&
		    !json_object_get_boolean(s))
			return 1;
		if (json_object_object_get_ex(x, "number", &num))
			return jint(x, "number", v);
	}
	return -1;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

/* job_state of squeue --json: one string (Slurm 22.05), or a list of the
 * base state and then its flags (24.11's data_parser v0.0.42:
 * ["PENDING", "REQUEUED"]), whose first entry is taken.  NULL when
 * missing or neither. */
static const char *jstate(struct json_object *o)
{
	struct json_object *x, *first;

	if (!json_object_object_get_ex(o, "job_state", &x) || !x)
		return NULL;
	if (json_object_is_type(x, json_type_string))
		return json_object_get_string(x);
	if (!json_object_is_type(x, json_type_array) ||
	    !json_object_array_length(x))
		return NULL;
	first = json_object_array_get_idx(x, 0);
	if (!first || !json_object_is_type(first, json_type_string))
		return NULL;
	return json_object_get_string(first);
}

static bool state_holds_nodes(const char *s)
{
	static const char *const st[] = { "RUNNING", "CONFIGURING",
					  "COMPLETING", "SUSPENDED", NULL };

	for (int i = 0; st[i]; i++)
		if (!strncmp(s, st[i], strlen(st[i])))
			return true;
	return false;
}

static int squeue_job(struct workload *w, const struct wl_opts *o,
		      const char *name, uint32_t idx, struct json_object *jo,
		      struct err *err)
{
	int64_t id, submit = 0, start = 0, tl, cnt = 0;
	const char *state = jstate(jo), *nodes;
	struct wl_job *j;
	char m[200];
	struct err e = { "" };
	int r, rsub, rstart;

	if (jint(jo, "job_id", &id) || id <= 0 || id >= UINT32_MAX)
		return jbad(w, o, err, name, idx,
			    "job_id missing or not a "
			    "positive integer");
	if (!state) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": job_state missing (want a "
			 "string or a list of strings)",
			 id);
		return jbad(w, o, err, name, idx, m);
	}
	r = jint(jo, "time_limit", &tl);
	if (r < 0 || (r == 0 && tl <= 0)) {
		snprintf(m, sizeof(m), "job %" PRId64 ": bad time_limit", id);
		return jbad(w, o, err, name, idx, m);
	}
	if (r == 0 && tl > WL_TIME_MAX / 60) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": time_limit: out of range (at most "
			 "%lld minutes)",
			 id, WL_TIME_MAX / 60);
		return jbad(w, o, err, name, idx, m);
	}
	tl = r ? (o->default_limit > 0 ? o->default_limit : DEFAULT_LIMIT) :
		 tl * 60;
	rsub = jint(jo, "submit_time", &submit);
	rstart = jint(jo, "start_time", &start);
	if (rsub < 0 || rstart < 0 || jint(jo, "node_count", &cnt) < 0) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": submit_time, "
			 "start_time or node_count is not an integer",
			 id);
		return jbad(w, o, err, name, idx, m);
	}
	if (submit < 0 || submit > WL_TIME_MAX || start < 0 ||
	    start > WL_TIME_MAX) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": %s: out of range (0 to %lld s)", id,
			 (submit < 0 || submit > WL_TIME_MAX) ? "submit_time" :
								"start_time",
			 WL_TIME_MAX);
		return jbad(w, o, err, name, idx, m);
	}
	if (state_holds_nodes(state)) {
		uint32_t n;
		uint32_t *v;

		if (rsub == 0 && rstart == 0 && start < submit) {
			snprintf(m, sizeof(m),
				 "job %" PRId64 ": start_time %" PRId64
				 " before submit_time %" PRId64,
				 id, start, submit);
			return jbad(w, o, err, name, idx, m);
		}
		nodes = jstr(jo, "nodes");
		if (!nodes) { /* missing, or not a string */
			snprintf(m, sizeof(m),
				 "job %" PRId64 ": %s, but no \"nodes\" "
				 "string",
				 id, state);
			return jbad(w, o, err, name, idx, m);
		}
		v = workload_nodes(nodes, o->machine, o->nnodes, &n, &e);
		if (!v) {
			snprintf(m, sizeof(m), "job %" PRId64 ": %.160s", id,
				 e.msg);
			return jbad(w, o, err, name, idx, m);
		}
		j = push(w);
		if (!j) {
			free(v);
			return err_set(err, "%s: out of memory", name);
		}
		j->running = true;
		j->alloc = v;
		j->nodes = n;
		j->start = start;
		if (start > w->now)
			w->now = start;
	} else if (!strncmp(state, "PENDING", 7)) {
		if (cnt <= 0 || cnt >= UINT32_MAX) {
			snprintf(m, sizeof(m),
				 "job %" PRId64 ": pending with "
				 "no node_count",
				 id);
			return jbad(w, o, err, name, idx, m);
		}
		j = push(w);
		if (!j)
			return err_set(err, "%s: out of memory", name);
		j->nodes = (uint32_t)cnt;
	} else {
		w->ignored++;
		return 0;
	}
	j->id = (uint32_t)id;
	j->submit = submit;
	if (submit > w->now)
		w->now = submit;
	j->limit = tl;
	j->runtime = tl;
	j->line = idx + 1;
	if (jstr(jo, "partition") &&
	    !(j->partition = strdup(jstr(jo, "partition"))))
		return err_set(err, "%s: out of memory", name);
	if (jstr(jo, "admin_comment") && *jstr(jo, "admin_comment") &&
	    !(j->comment = strdup(jstr(jo, "admin_comment"))))
		return err_set(err, "%s: out of memory", name);
	return 0;
}

static int list_job(struct workload *w, const struct wl_opts *o,
		    const char *name, uint32_t idx, struct json_object *jo,
		    struct err *err)
{
	static const char *const keys[] = { "id", "submit", "nodes", "runtime",
					    "limit" };
	int64_t v[5] = { 0, 0, 0, 0, -1 };
	const char *pattern = NULL, *msg;
	struct json_object *x;
	struct wl_job *j;
	char m[256];

	json_object_object_foreach(jo, key, val)
	{
		int known = !strcmp(key, "pattern");

		(void)val;
		for (int k = 0; k < 5 && !known; k++)
			known = !strcmp(key, keys[k]);
		if (!known) {
			snprintf(m, sizeof(m),
				 "unknown key \"%.40s\" (id, submit, nodes, "
				 "runtime, limit, pattern)",
				 key);
			return jbad(w, o, err, name, idx, m);
		}
	}
	for (int k = 0; k < 5; k++) {
		int r = jint(jo, keys[k], &v[k]);

		if (r < 0 || (r == 1 && k != 4)) {
			snprintf(m, sizeof(m), "\"%s\" %s", keys[k],
				 r < 0 ? "is not an integer" : "missing");
			return jbad(w, o, err, name, idx, m);
		}
	}
	if (json_object_object_get_ex(jo, "pattern", &x) && x) {
		if (!json_object_is_type(x, json_type_string))
			return jbad(w, o, err, name, idx,
				    "\"pattern\" is not a "
				    "string");
		pattern = json_object_get_string(x);
	}
	j = push(w);
	if (!j)
		return err_set(err, "%s: out of memory", name);
	msg = fill_job(j, v[0], v[1], v[2], v[3], v[4], pattern, m, sizeof(m));
	j->line = idx + 1;
	if (msg) {
		drop_last(w);
		return jbad(w, o, err, name, idx, msg);
	}
	return 0;
}

/* The rule of every reader: a NUL byte is an error at its line (it would
 * end a string or a line early). */
static int nul_byte(const char *name, const char *text, size_t len,
		    struct err *err)
{
	const char *z = memchr(text, '\0', len);

	if (!z)
		return 0;
	return err_set(err, "%s:%u: NUL byte", name,
		       offset_line(text, (size_t)(z - text)));
}

/* A key of an object being scanned: its text (decoded when it has
 * escapes, then owned) and where its token starts. */
struct jkey {
	const char *s;
	size_t len, off;
	char *own;
};

static int cmp_jkey(const void *a, const void *b)
{
	const struct jkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* The keys of one object: sorted, a repeat is adjacent (the later token
 * second).  Returns the index of the repeat's second token, or -1. */
static long repeated_key(struct jkey *k, size_t n)
{
	long best = -1;

	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_jkey);
	for (size_t i = 1; i < n; i++)
		if (k[i].len == k[i - 1].len &&
		    !memcmp(k[i].s, k[i - 1].s, k[i].len) &&
		    (best < 0 || k[i].off < k[best].off))
			best = (long)i;
	return best;
}

/* Decode the escapes of key token TOK (quotes included, LEN bytes) into
 * K->own (json-c reads the token alone).  0, or -1 out of memory. */
static int decode_key(const char *tok, size_t len, struct jkey *k)
{
	char *t = strndup(tok, len);
	struct json_object *d = t ? json_tokener_parse(t) : NULL;
	const char *v = tok + 1;

	free(t);
	if (!t)
		return -1;
	/* a token json-c does not read alone stays as written */
	k->len = d ? (size_t)json_object_get_string_len(d) : len - 2;
	if (d)
		v = json_object_get_string(d);
	k->own = malloc(k->len + 1);
	if (k->own) {
		memcpy(k->own, v, k->len);
		k->own[k->len] = '\0';
	}
	json_object_put(d);
	k->s = k->own;
	return k->own ? 0 : -1;
}

/* json-c keeps the last of two equal keys in an object without a word;
 * here that is an error.  TEXT is a document json-c accepted (so its
 * syntax is known good): scan its tokens, collect each object's keys
 * (escaped ones decoded by json-c) and report the first repeat as
 * "NAME:LINE: bad JSON: key "K" repeated (first on line M)". */
static int duplicate_keys(const char *name, const char *text, size_t len,
			  struct err *err)
{
	enum { DEPTH = 64 };
	struct {
		struct jkey *k;
		size_t n, cap;
		bool object, want_key;
	} st[DEPTH];
	int top = -1, rc = 0;

	for (size_t i = 0; i < len && !rc; i++) {
		char c = text[i];

		if (c == '{' || c == '[') {
			if (++top == DEPTH) {
				rc = err_set(err,
					     "%s:%u: bad JSON: nested deeper "
					     "than %d",
					     name, offset_line(text, i), DEPTH);
				top--;
				break;
			}
			st[top].k = NULL;
			st[top].n = st[top].cap = 0;
			st[top].object = c == '{';
			st[top].want_key = c == '{';
		} else if ((c == '}' || c == ']') && top >= 0) {
			long r = repeated_key(st[top].k, st[top].n);

			if (r >= 0) {
				const struct jkey *b = &st[top].k[r],
						  *a = &st[top].k[r - 1];

				rc = err_set(err,
					     "%s:%u: bad JSON: key \"%.*s\" "
					     "repeated (first on line %u)",
					     name, offset_line(text, b->off),
					     (int)(b->len > 60 ? 60 : b->len),
					     b->s, offset_line(text, a->off));
			}
			for (size_t q = 0; q < st[top].n; q++)
				free(st[top].k[q].own);
			free(st[top].k);
			top--;
		} else if (c == ',' && top >= 0 && st[top].object) {
			st[top].want_key = true;
		} else if (c == '/') {
			/* json-c takes comments; this scan would read the
			 * keys in them as keys, and JSON has none */
			rc = err_set(err,
				     "%s:%u: bad JSON: a comment (JSON has "
				     "none)",
				     name, offset_line(text, i));
		} else if (c == '"' || c == '\'') {
			/* json-c also takes 'single-quoted' strings */
			size_t e = i + 1;
			bool esc = c == '\'';

			while (e < len && text[e] != c) {
				if (text[e] == '\\') {
					esc = true;
					e++;
				}
				e++;
			}
			if (e >= len) /* json-c accepted it: cannot happen */
				break;
			/* (a single-quoted key is always decoded by json-c) */
			if (top >= 0 && st[top].object && st[top].want_key) {
				struct jkey k = { text + i + 1, e - i - 1, i,
						  NULL };

				if (esc &&
				    decode_key(text + i, e - i + 1, &k)) {
					rc = err_set(err, "%s: out of memory",
						     name);
					break;
				}
				if (st[top].n == st[top].cap) {
					size_t nc = st[top].cap ?
							    2 * st[top].cap :
							    16;
					struct jkey *q = realloc(
						st[top].k, nc * sizeof(*q));

					if (!q) {
						free(k.own);
						rc = err_set(
							err,
							"%s: out of memory",
							name);
						break;
					}
					st[top].k = q;
					st[top].cap = nc;
				}
				st[top].k[st[top].n++] = k;
				st[top].want_key = false;
			}
			i = e;
		}
	}
	for (; top >= 0; top--) {
		for (size_t q = 0; q < st[top].n; q++)
			free(st[top].k[q].own);
		free(st[top].k);
	}
	return rc;
}

static int parse_json(const char *name, const char *text, size_t len,
		      const struct wl_opts *o, struct workload *w,
		      struct err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root, *jobs = NULL;
	enum json_tokener_error je;
	size_t nj;
	int rc = 0;

	if (!tok)
		return err_set(err, "%s: out of memory", name);
	if (len > INT_MAX) {
		json_tokener_free(tok);
		return err_set(err, "%s: JSON larger than %d bytes", name,
			       INT_MAX);
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	if (!root || je != json_tokener_success) {
		size_t off = json_tokener_get_parse_end(tok);

		if (off >= len) /* the end: the last line, not the next */
			off = len ? len - 1 : 0;
		err_set(err, "%s:%u: bad JSON: %s", name,
			offset_line(text, off),
			je == json_tokener_success ||
					je == json_tokener_continue ?
				"unexpected end of input" :
				json_tokener_error_desc(je));
		json_object_put(root);
		json_tokener_free(tok);
		return -1;
	}
	{
		size_t end = json_tokener_get_parse_end(tok);

		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len) {
			err_set(err,
				"%s:%u: bad JSON: text after the end of the "
				"document",
				name, offset_line(text, end));
			json_object_put(root);
			json_tokener_free(tok);
			return -1;
		}
	}
	json_tokener_free(tok);
	if (duplicate_keys(name, text, len, err)) {
		json_object_put(root);
		return -1;
	}
	if (json_object_is_type(root, json_type_array))
		jobs = root;
	else if (json_object_is_type(root, json_type_object))
		json_object_object_get_ex(root, "jobs", &jobs);
	if (!jobs || !json_object_is_type(jobs, json_type_array)) {
		json_object_put(root);
		return err_set(err,
			       "%s:1: no \"jobs\" array (want a job list "
			       "or squeue --json output)",
			       name);
	}
	nj = json_object_array_length(jobs);
	for (size_t i = 0; i < nj && !rc; i++) {
		struct json_object *jo = json_object_array_get_idx(jobs, i);
		if (!jo || !json_object_is_type(jo, json_type_object)) {
			if (jbad(w, o, err, name, (uint32_t)i,
				 "job is not an object"))
				rc = -1;
			continue;
		}
		if (json_object_object_get_ex(jo, "job_id", NULL)) {
			w->squeue = true;
			rc = squeue_job(w, o, name, (uint32_t)i, jo, err);
		} else {
			rc = list_job(w, o, name, (uint32_t)i, jo, err);
		}
	}
	json_object_put(root);
	return rc;
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
static int unique_ids(const char *name, const struct wl_opts *o,
		      struct workload *w, struct err *err)
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
		return err_set(err, "%s: out of memory", name);
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
			free(w->jobs[i].pattern);
			free(w->jobs[i].alloc);
			free(w->jobs[i].partition);
			free(w->jobs[i].comment);
			w->skipped++;
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
	if (nul_byte(name, text, len, err))
		return -1;
	w->format = o->format != WL_AUTO ? o->format : sniff(text, len);
	switch (w->format) {
	case WL_CSV:
		rc = parse_csv(name, text, len, o, w, err);
		break;
	case WL_JSON:
		rc = parse_json(name, text, len, o, w, err);
		break;
	default:
		rc = parse_swf(name, text, len, o, w, err);
		break;
	}
	if (!rc)
		rc = unique_ids(name, o, w, err);
	if (!rc && !(w->name = strdup(name)))
		rc = err_set(err, "%s: out of memory", name);
	if (rc) {
		workload_free(w);
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

/* Running jobs of a job file hold each node once: two jobs on a node (or
 * one listing it twice) would read as isolation where none is.  Returns
 * 0, or -1 with err "NAME:LINE: ..." naming both jobs. */
static int held_once(const char *name, const struct wl_opts *o,
		     const struct workload *w, struct err *err)
{
	uint32_t n = o->nnodes, k, i, *by;
	int rc = 0;

	for (k = 0; k < w->n && !o->nnodes; k++)
		for (i = 0; i < w->jobs[k].nodes; i++)
			if (w->jobs[k].alloc[i] >= n)
				n = w->jobs[k].alloc[i] + 1;
	by = calloc(n ? n : 1, sizeof(*by)); /* 1 + job index */
	if (!by)
		return err_set(err, "%s: out of memory", name);
	for (k = 0; k < w->n && !rc; k++) {
		const struct wl_job *j = &w->jobs[k];

		for (i = 0; i < j->nodes && !rc; i++) {
			uint32_t x = j->alloc[i];
			const char *nm =
				o->machine && machine_has_names(o->machine) ?
					machine_node_name(o->machine, x) :
					NULL;
			char node[64];

			if (x >= n)
				continue;
			if (nm)
				snprintf(node, sizeof(node), "%s", nm);
			else
				snprintf(node, sizeof(node), "%u", x);
			if (by[x] == k + 1)
				rc = err_set(
					err,
					"%s:%u: job %u lists node %s twice",
					name, j->line, j->id, node);
			else if (by[x])
				rc = err_set(
					err,
					"%s:%u: node %s is held by job %u (line %u) and job %u",
					name, j->line, node,
					w->jobs[by[x] - 1].id,
					w->jobs[by[x] - 1].line, j->id);
			else
				by[x] = k + 1;
		}
	}
	free(by);
	return rc;
}

int workload_parse_running(const char *name, const char *text, size_t len,
			   const struct wl_opts *o, struct workload *w,
			   struct err *err)
{
	uint32_t line = 0;
	char *buf = NULL;
	size_t bcap = 0;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	if (nul_byte(name, text, len, err))
		return -1;
	for (size_t p = 0; p < len && !rc;) {
		const char *e = memchr(text + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (text + p)) : len - p;
		char *f[4] = { NULL }, *save = NULL, *c;
		uint32_t nf = 0, n;
		uint32_t *v;
		int64_t id;
		struct wl_job *j;
		struct err e2 = { "" };
		char m[256];

		line++;
		if (l + 1 > bcap) {
			char *q = realloc(buf, l + 1);

			if (!q) {
				rc = err_set(err, "%s:%u: out of memory", name,
					     line);
				break;
			}
			buf = q;
			bcap = l + 1;
		}
		memcpy(buf, text + p, l);
		buf[l] = '\0';
		p += l + 1;
		if ((c = strchr(buf, '#')))
			*c = '\0';
		for (char *tok = strtok_r(buf, " \t\r", &save); tok && nf < 4;
		     tok = strtok_r(NULL, " \t\r", &save))
			f[nf++] = tok;
		if (!nf)
			continue;
		if (nf < 2 || nf > 3) {
			rc = bad(w, o, err, name, line,
				 "want: ID NODES "
				 "[PATTERN]");
			continue;
		}
		if (int_token(f[0], strlen(f[0]), &id) || id <= 0 ||
		    id >= UINT32_MAX) {
			snprintf(m, sizeof(m),
				 "job id '%.32s' is not a positive "
				 "integer",
				 f[0]);
			rc = bad(w, o, err, name, line, m);
			continue;
		}
		v = workload_nodes(f[1], o->machine, o->nnodes, &n, &e2);
		if (!v) {
			snprintf(m, sizeof(m), "job %" PRId64 ": %.160s", id,
				 e2.msg);
			rc = bad(w, o, err, name, line, m);
			continue;
		}
		j = push(w);
		if (!j) {
			free(v);
			rc = err_set(err, "%s:%u: out of memory", name, line);
			break;
		}
		j->id = (uint32_t)id;
		j->running = true;
		j->alloc = v;
		j->nodes = n;
		j->line = line;
		j->limit = j->runtime = 1;
		if (nf == 3 && flows_pattern_check(f[2], &e2)) {
			snprintf(m, sizeof(m), "job %" PRId64 ": %.200s", id,
				 e2.msg);
			rc = bad(w, o, err, name, line, m);
			drop_last(w);
			continue;
		}
		if (nf == 3 && !(j->pattern = strdup(f[2])))
			rc = err_set(err, "%s:%u: out of memory", name, line);
	}
	free(buf);
	if (!rc)
		rc = unique_ids(name, o, w, err);
	if (!rc)
		rc = held_once(name, o, w, err);
	if (!rc && !(w->name = strdup(name)))
		rc = err_set(err, "%s: out of memory", name);
	if (rc)
		workload_free(w);
	return rc;
}
