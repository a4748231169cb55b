/* wl_impl.h - what the workload readers (workload.c and one wl_*.c per
 * format) share inside evaluator/sim; not part of workload.h's
 * interface. */
#ifndef STOPO_WL_IMPL_H
#define STOPO_WL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evaluator/sim/workload.h"
#include "topo/util/err.h"

struct json_object;

/* A new job at the end of W, zeroed but for comm_fraction -1 (NULL
 * out of memory). */
struct wl_job *wl_push(struct workload *w);
/* Take W's last job back (its pattern and nodes freed). */
void wl_drop_last(struct workload *w);

/* The decimal integer (optionally negative) of S[0..LEN) in full.
 * Returns 0, or -1 when it is not one. */
int wl_int_token(const char *s, size_t len, int64_t *out);

/* One record's trouble at NAME:LINE: with o->skip_bad skipped and
 * counted (returns 0), else the error "NAME:LINE: WHAT" (returns -1). */
int wl_bad(struct workload *w, const struct wl_opts *o, struct err *err,
	   const char *name, uint32_t line, const char *what);
/* The same for JSON job I (0-based): "NAME: jobs[I]: WHAT". */
int wl_jbad(struct workload *w, const struct wl_opts *o, struct err *err,
	    const char *name, uint32_t i, const char *what);

/* Fill J from a job list's fields (CSV or JSON; LIMIT -1: the run time,
 * PATTERN NULL or "": none, FRAC NAN: none; M, MLEN room for a
 * message).  Returns NULL when fine, else what is wrong. */
const char *wl_fill_job(struct wl_job *j, int64_t id, int64_t submit,
			int64_t nodes, int64_t runtime, int64_t limit,
			const char *pattern, double frac, char *m, size_t mlen);

/* The line (from 1) of byte OFF of TEXT. */
uint32_t wl_offset_line(const char *text, size_t off);
/* A NUL byte in TEXT[0..LEN) is an error "NAME:LINE: NUL byte"
 * (returns -1), else 0. */
int wl_nul_byte(const char *name, const char *text, size_t len,
		struct err *err);
/* Job ids repeated in W: an error naming both records, or with
 * o->skip_bad the later ones skipped and counted.  Returns 0 or -1. */
int wl_unique_ids(const char *name, const struct wl_opts *o, struct workload *w,
		  struct err *err);

/* The readers: TEXT[0..LEN) of NAME into W (its format set).  Return 0,
 * or -1 with err set (W then freed by the caller). */
int wl_parse_swf(const char *name, const char *text, size_t len,
		 const struct wl_opts *o, struct workload *w, struct err *err);
int wl_parse_csv(const char *name, const char *text, size_t len,
		 const struct wl_opts *o, struct workload *w, struct err *err);
int wl_parse_json(const char *name, const char *text, size_t len,
		  const struct wl_opts *o, struct workload *w, struct err *err);

/* JSON members of O: wl_jint, integer KEY (also Slurm's {"set",
 * "infinite","number"}): 0 found, 1 absent, null or not set, -1 not an
 * integer; wl_jstr, string KEY or NULL. */
int wl_jint(struct json_object *o, const char *key, int64_t *v);
const char *wl_jstr(struct json_object *o, const char *key);
/* squeue --json job IDX (0-based), the object JO, into W.  Returns 0
 * (also when skipped or ignored) or -1 with err set. */
int wl_squeue_job(struct workload *w, const struct wl_opts *o, const char *name,
		  uint32_t idx, struct json_object *jo, struct err *err);
/* What json-c accepted in TEXT[0..LEN) and JSON does not allow: a key
 * repeated in one object ("NAME:LINE: bad JSON: key "K" repeated (first
 * on line M)"), a comment, nesting deeper than 64, an escaped NUL in a
 * string (key or value).  Returns 0 or -1. */
int wl_json_keys(const char *name, const char *text, size_t len,
		 struct err *err);

#endif
