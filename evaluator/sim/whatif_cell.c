/* whatif_cell.c - a simulation's result as JSON and back, every number
 * exact: the cells of stopo whatif --array, written by one Slurm array
 * task each and read back by --merge (see whatif.h). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "evaluator/sim/whatif.h"
#include "evaluator/sim/wl_impl.h"

/* The fields kept, by type: a table each for the result and for a job
 * (their names are the keys). */
enum ftype { F_U32, F_I64, F_DBL, F_BOOL, F_STR };

struct field {
	const char *key;
	enum ftype type;
	size_t off, size; /* size: F_STR's room */
};

#define FLD(s, key, type)                                           \
	{                                                           \
#key, type, offsetof(s, key), sizeof(((s *)0)->key) \
	}

static const struct field res_fields[] = {
	FLD(struct whatif_result, policy, F_STR),
	FLD(struct whatif_result, njobs, F_U32),
	FLD(struct whatif_result, started, F_U32),
	FLD(struct whatif_result, dropped, F_U32),
	FLD(struct whatif_result, utilization, F_DBL),
	FLD(struct whatif_result, makespan, F_DBL),
	FLD(struct whatif_result, mean_wait, F_DBL),
	FLD(struct whatif_result, mean_bsld, F_DBL),
	FLD(struct whatif_result, isolated_jobs, F_U32),
	FLD(struct whatif_result, violations, F_U32),
	FLD(struct whatif_result, later_shared, F_U32),
	FLD(struct whatif_result, mls_max, F_DBL),
	FLD(struct whatif_result, tls_max, F_DBL),
	FLD(struct whatif_result, mls_mean, F_DBL),
	FLD(struct whatif_result, tls_mean, F_DBL),
	FLD(struct whatif_result, rates, F_BOOL),
	FLD(struct whatif_result, rate_sum, F_DBL),
	FLD(struct whatif_result, rate_mean, F_DBL),
	FLD(struct whatif_result, backfilled, F_U32),
	FLD(struct whatif_result, snapshot_shared_nodes, F_U32),
	FLD(struct whatif_result, snapshot_running, F_U32),
	FLD(struct whatif_result, mean_turnaround, F_DBL),
	FLD(struct whatif_result, p95_turnaround, F_DBL),
	FLD(struct whatif_result, jobs_per_day, F_DBL),
	FLD(struct whatif_result, nodeh_per_day, F_DBL),
	FLD(struct whatif_result, mean_stretch, F_DBL),
	FLD(struct whatif_result, max_stretch, F_DBL),
	FLD(struct whatif_result, killed, F_U32),
	FLD(struct whatif_result, lost_nodeh, F_DBL),
	FLD(struct whatif_result, runtime_model, F_BOOL),
	FLD(struct whatif_result, isolating, F_BOOL),
	FLD(struct whatif_result, seconds, F_DBL),
};

static const struct field job_fields[] = {
	FLD(struct whatif_job, id, F_U32),
	FLD(struct whatif_job, submit, F_I64),
	FLD(struct whatif_job, start, F_I64),
	FLD(struct whatif_job, end, F_I64),
	FLD(struct whatif_job, dropped, F_BOOL),
	FLD(struct whatif_job, was_running, F_BOOL),
	FLD(struct whatif_job, claimed_isolated, F_BOOL),
	FLD(struct whatif_job, ran_isolated, F_BOOL),
	FLD(struct whatif_job, shared_at_start, F_BOOL),
	FLD(struct whatif_job, order, F_U32),
	FLD(struct whatif_job, links, F_U32),
	FLD(struct whatif_job, rate, F_DBL),
	FLD(struct whatif_job, stretch, F_DBL),
	FLD(struct whatif_job, killed, F_BOOL),
	FLD(struct whatif_job, reason, F_STR),
};

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* The fields of table T (N of them) of the struct at P into O: a double
 * as a C99 hex string, which reads back to the same bits. */
static void put_fields(struct json_object *o, const struct field *t, size_t n,
		       const void *p)
{
	for (size_t i = 0; i < n; i++) {
		const char *at = (const char *)p + t[i].off;
		struct json_object *x = NULL;
		char hex[40];
		uint32_t u;
		int64_t v;
		double d;

		switch (t[i].type) {
		case F_U32:
			memcpy(&u, at, sizeof(u));
			x = json_object_new_int64(u);
			break;
		case F_I64:
			memcpy(&v, at, sizeof(v));
			x = json_object_new_int64(v);
			break;
		case F_DBL:
			memcpy(&d, at, sizeof(d));
			snprintf(hex, sizeof(hex), "%a", d);
			x = json_object_new_string(hex);
			break;
		case F_BOOL:
			x = json_object_new_boolean(*(const bool *)at);
			break;
		case F_STR:
			x = json_object_new_string(at);
			break;
		}
		json_object_object_add(o, t[i].key, x);
	}
}

/* Table T's fields from O into the struct at P.  0, or -1 with err
 * "WHAT: FIELD: why". */
static int get_fields(struct json_object *o, const struct field *t, size_t n,
		      void *p, const char *what, struct err *err)
{
	for (size_t i = 0; i < n; i++) {
		char *at = (char *)p + t[i].off, *end;
		struct json_object *x;
		const char *s;
		int64_t v;
		double d;

		if (!json_object_object_get_ex(o, t[i].key, &x) || !x)
			return err_set(err, "%s: %s missing", what, t[i].key);
		switch (t[i].type) {
		case F_U32:
		case F_I64:
			if (!json_object_is_type(x, json_type_int))
				return err_set(err, "%s: %s: not an integer",
					       what, t[i].key);
			v = json_object_get_int64(x);
			if (t[i].type == F_U32) {
				uint32_t u = (uint32_t)v;

				if (v < 0 || v > UINT32_MAX)
					return err_set(err,
						       "%s: %s: out of range",
						       what, t[i].key);
				memcpy(at, &u, sizeof(u));
			} else {
				memcpy(at, &v, sizeof(v));
			}
			break;
		case F_DBL:
			s = json_object_is_type(x, json_type_string) ?
				    json_object_get_string(x) :
				    "";
			errno = 0;
			d = strtod(s, &end);
			if (!*s || *end || errno == EINVAL)
				return err_set(err,
					       "%s: %s: not a number as "
					       "written (hexadecimal)",
					       what, t[i].key);
			memcpy(at, &d, sizeof(d));
			break;
		case F_BOOL:
			if (!json_object_is_type(x, json_type_boolean))
				return err_set(err, "%s: %s: not true or false",
					       what, t[i].key);
			*(bool *)at = json_object_get_boolean(x);
			break;
		case F_STR:
			if (!json_object_is_type(x, json_type_string) ||
			    (size_t)json_object_get_string_len(x) >= t[i].size)
				return err_set(err,
					       "%s: %s: not a string of at "
					       "most %zu bytes",
					       what, t[i].key, t[i].size - 1);
			memcpy(at, json_object_get_string(x),
			       (size_t)json_object_get_string_len(x) + 1);
			break;
		}
	}
	return 0;
}

/* NODES[0..N) as index ranges "0-3,8" (ascending runs), a new string. */
static char *ranges(const uint32_t *nodes, uint32_t n)
{
	size_t cap = 16 + (size_t)n * 22, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;

		while (j + 1 < n && nodes[j + 1] == nodes[j] + 1)
			j++;
		len += (size_t)snprintf(s + len, cap - len, "%s%" PRIu32,
					i ? "," : "", nodes[i]);
		if (j > i)
			len += (size_t)snprintf(s + len, cap - len, "-%" PRIu32,
						nodes[j]);
		i = j + 1;
	}
	return s;
}

struct json_object *whatif_result_json(const struct whatif_result *r, bool jobs)
{
	struct json_object *o = json_object_new_object(), *a;

	if (!o)
		return NULL;
	put_fields(o, res_fields, NFIELDS(res_fields), r);
	if (!jobs)
		return o;
	a = json_object_new_array();
	json_object_object_add(o, "jobs", a);
	for (uint32_t i = 0; i < r->njob_out; i++) {
		struct json_object *j = json_object_new_object();
		char *nodes = ranges(r->jobs[i].nodes, r->jobs[i].n);

		if (!j || !nodes) {
			json_object_put(j);
			free(nodes);
			json_object_put(o);
			return NULL;
		}
		put_fields(j, job_fields, NFIELDS(job_fields), &r->jobs[i]);
		json_object_object_add(j, "nodes",
				       json_object_new_string(nodes));
		free(nodes);
		json_object_array_add(a, j);
	}
	return o;
}

/* Job K of A (WHAT names the cell) into R->jobs[K]. */
static int get_job(struct json_object *a, uint32_t k, struct whatif_result *r,
		   const char *what, struct err *err)
{
	struct json_object *j = json_object_array_get_idx(a, k), *x;
	struct whatif_job *o = &r->jobs[k];
	char at[64];

	snprintf(at, sizeof(at), "%.30s: jobs[%u]", what, k);
	if (!j || !json_object_is_type(j, json_type_object))
		return err_set(err, "%s: not an object", at);
	if (get_fields(j, job_fields, NFIELDS(job_fields), o, at, err))
		return -1;
	if (!json_object_object_get_ex(j, "nodes", &x) ||
	    !json_object_is_type(x, json_type_string))
		return err_set(err, "%s: nodes missing", at);
	if (!*json_object_get_string(x))
		return 0;
	o->nodes =
		workload_nodes(json_object_get_string(x), NULL, 0, &o->n, err);
	return o->nodes ? 0 : err_prefix(err, "%s: nodes", at);
}

int whatif_result_from_json(struct json_object *o, const char *what,
			    struct whatif_result *r, struct err *err)
{
	struct json_object *a;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object))
		return err_set(err, "%s: not an object", what);
	if (get_fields(o, res_fields, NFIELDS(res_fields), r, what, err))
		return -1;
	if (!json_object_object_get_ex(o, "jobs", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return err_set(err, "%s: jobs: not an array", what);
	n = json_object_array_length(a);
	if (n >= UINT32_MAX)
		return err_range(err, "%s: jobs: too many", what);
	r->jobs = calloc(n ? n : 1, sizeof(*r->jobs));
	if (!r->jobs)
		return err_nomem(err, "%s: out of memory", what);
	r->njob_out = (uint32_t)n;
	for (uint32_t k = 0; k < n; k++)
		if (get_job(a, k, r, what, err)) {
			whatif_result_free(r);
			return -1;
		}
	return 0;
}

int whatif_json_check(const char *name, const char *text, size_t len,
		      struct err *err)
{
	return wl_nul_byte(name, text, len, err) ||
			       wl_json_keys(name, text, len, err) ?
		       -1 :
		       0;
}
