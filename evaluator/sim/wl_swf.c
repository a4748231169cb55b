/* wl_swf.c - the Standard Workload Format of the Parallel Workloads
 * Archive (see workload.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

/* Numeric SWF field that may be written "12.0" (some archive logs);
 * *WHOLE false when it has a fraction (fields 6 and 7, CPU time and
 * memory averages, may; the ones read may not). */
static int swf_token(const char *s, size_t len, int64_t *out, bool *whole)
{
	char buf[40], *end;
	double v;

	*whole = true;
	if (!wl_int_token(s, len, out))
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

/* The header keys read: MaxNodes: and MaxProcs: (what --scale auto
 * scales to), each with the line that gave it and its value (-1:
 * unknown). */
struct swf_head {
	uint32_t line[2];
	long long v[2];
};

static const char *const swf_keys[] = { "MaxNodes:", "MaxProcs:" };

/* A header comment; MaxNodes: and MaxProcs: must start with a positive
 * whole number, or -1 or N/A (unknown), text after it (a note in
 * parentheses) ignored; a key given again must give the same value.
 * Other keys are not read.  Returns 0 or -1 with ERR. */
static int swf_header(struct swf_head *h, const char *s, size_t len,
		      const char *name, uint32_t line, struct err *err)
{
	for (int k = 0; k < 2; k++) {
		const char *p =
			memmem(s, len, swf_keys[k], strlen(swf_keys[k]));
		char num[32], *end, *at;
		size_t nl;
		long long v;

		if (!p)
			continue;
		/* the number within the line: TEXT need not end in a NUL */
		p += strlen(swf_keys[k]);
		nl = len - (size_t)(p - s);
		nl = nl < sizeof(num) - 1 ? nl : sizeof(num) - 1;
		memcpy(num, p, nl);
		num[nl] = '\0';
		at = num + strspn(num, " \t");
		errno = 0;
		v = strtoll(num, &end, 10);
		if (!strncmp(at, "N/A", 3) &&
		    (!at[3] || isspace((unsigned char)at[3]))) {
			v = -1; /* the archive's "not available" */
		} else if (!(v == -1 && !errno) &&
			   (end == num || errno || v <= 0 || v >= UINT32_MAX ||
			    (*end && !isspace((unsigned char)*end)))) {
			return err_set(err,
				       "%s:%u: %s '%.*s' is not a positive "
				       "whole number below 2^32 (nor -1 or "
				       "N/A: unknown)",
				       name, line, swf_keys[k],
				       (int)strcspn(at, "\r"), at);
		}
		if (h->line[k] && h->v[k] != v)
			return err_set(err,
				       "%s:%u: %s %lld, but line %u gave %lld",
				       name, line, swf_keys[k], v, h->line[k],
				       h->v[k]);
		if (!h->line[k]) {
			h->line[k] = line;
			h->v[k] = v;
		}
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
			return wl_bad(w, o, err, name, line, msg);
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
		return wl_bad(w, o, err, name, line, msg);
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
			return wl_bad(w, o, err, name, line, msg);
		}
	}
	if (f[0] <= 0 || f[0] >= UINT32_MAX)
		return wl_bad(w, o, err, name, line,
			      "field 1: job id must be "
			      "positive");
	if (f[1] < 0)
		return wl_bad(w, o, err, name, line,
			      "field 2: submit time is "
			      "negative");
	if (f[3] == -1)
		return wl_bad(w, o, err, name, line,
			      "field 4: run time unknown "
			      "(-1)");
	if (f[3] < 0) {
		snprintf(msg, sizeof(msg), "field 4: run time %lld is negative",
			 (long long)f[3]);
		return wl_bad(w, o, err, name, line, msg);
	}
	for (size_t k = 0; k < sizeof(swf_times) / sizeof(swf_times[0]); k++) {
		if (f[swf_times[k].f] > WL_TIME_MAX) {
			snprintf(msg, sizeof(msg),
				 "field %d (%s): out of range (at most %lld s)",
				 swf_times[k].f + 1, swf_times[k].what,
				 WL_TIME_MAX);
			return wl_bad(w, o, err, name, line, msg);
		}
	}
	if (f[4] <= 0 && f[7] <= 0)
		return wl_bad(w, o, err, name, line,
			      "fields 5 and 8: no processor "
			      "count");
	if ((f[4] > 0 ? f[4] : f[7]) >= UINT32_MAX)
		return wl_bad(w, o, err, name, line,
			      "fields 5/8: processor count "
			      "too large");
	j = wl_push(w);
	if (!j)
		return err_nomem(err, "%s:%u: out of memory", name, line);
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

int wl_parse_swf(const char *name, const char *text, size_t len,
		 const struct wl_opts *o, struct workload *w, struct err *err)
{
	struct swf_head h = { { 0, 0 }, { -1, -1 } };
	uint32_t line = 0;

	for (size_t p = 0; p < len && !(o->max_jobs && w->n >= o->max_jobs);) {
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
			if (swf_header(&h, s, l, name, line, err))
				return -1;
			continue;
		}
		if (parse_swf_line(w, o, name, line, s, l, err))
			return -1;
	}
	w->hdr_max_nodes = h.v[0] > 0 ? (uint32_t)h.v[0] : 0;
	w->hdr_max_procs = h.v[1] > 0 ? (uint32_t)h.v[1] : 0;
	/* the machine in the units the sizes are read in: with
	 * --cores-per-node, MaxProcs over it (the archive's HPC2N header
	 * gives MaxNodes 240 for 120 dual nodes: MaxProcs 240 / 2), so that
	 * --scale auto does not divide the sizes twice */
	if (o->cores_per_node > 1 && w->hdr_max_procs)
		w->max_nodes =
			procs_to_nodes(w->hdr_max_procs, o->cores_per_node);
	else
		w->max_nodes =
			w->hdr_max_nodes ? w->hdr_max_nodes :
			w->hdr_max_procs ? procs_to_nodes(w->hdr_max_procs,
							  o->cores_per_node) :
					   0;
	return 0;
}
