/* wl_json.c - JSON documents: a job list {"jobs":[{"id",...}]} (or a bare
 * array) read here, squeue --json handed job by job to wl_squeue.c; the
 * checks json-c does not make are wl_jsonscan.c's (see workload.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

/* Integer member KEY of O: 0 found, 1 absent or null, -1 not an integer. */
int wl_jint(struct json_object *o, const char *key, int64_t *v)
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
			return wl_jint(x, "number", v);
	}
	return -1;
}

const char *wl_jstr(struct json_object *o, const char *key)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
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
	double frac = NAN;
	char m[256];

	json_object_object_foreach(jo, key, val)
	{
		int known = !strcmp(key, "pattern") ||
			    !strcmp(key, "comm_fraction");

		(void)val;
		for (int k = 0; k < 5 && !known; k++)
			known = !strcmp(key, keys[k]);
		if (!known) {
			snprintf(m, sizeof(m),
				 "unknown key \"%.40s\" (id, submit, nodes, "
				 "runtime, limit, pattern, comm_fraction)",
				 key);
			return wl_jbad(w, o, err, name, idx, m);
		}
	}
	for (int k = 0; k < 5; k++) {
		int r = wl_jint(jo, keys[k], &v[k]);

		if (r < 0 || (r == 1 && k != 4)) {
			snprintf(m, sizeof(m), "\"%s\" %s", keys[k],
				 r < 0 ? "is not an integer" : "missing");
			return wl_jbad(w, o, err, name, idx, m);
		}
	}
	if (json_object_object_get_ex(jo, "pattern", &x) && x) {
		if (!json_object_is_type(x, json_type_string))
			return wl_jbad(w, o, err, name, idx,
				       "\"pattern\" is not a "
				       "string");
		pattern = json_object_get_string(x);
	}
	if (json_object_object_get_ex(jo, "comm_fraction", &x) && x) {
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int))
			return wl_jbad(w, o, err, name, idx,
				       "\"comm_fraction\" is not a number");
		frac = json_object_get_double(x);
	}
	j = wl_push(w);
	if (!j)
		return err_nomem(err, "%s: out of memory", name);
	msg = wl_fill_job(j, v[0], v[1], v[2], v[3], v[4], pattern, frac, m,
			  sizeof(m));
	j->line = idx + 1;
	if (msg) {
		wl_drop_last(w);
		return wl_jbad(w, o, err, name, idx, msg);
	}
	return 0;
}

int wl_parse_json(const char *name, const char *text, size_t len,
		  const struct wl_opts *o, struct workload *w, struct err *err)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root, *jobs = NULL;
	enum json_tokener_error je;
	size_t nj;
	int rc = 0;

	if (!tok)
		return err_nomem(err, "%s: out of memory", name);
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
			wl_offset_line(text, off),
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
				name, wl_offset_line(text, end));
			json_object_put(root);
			json_tokener_free(tok);
			return -1;
		}
	}
	json_tokener_free(tok);
	if (wl_json_keys(name, text, len, err)) {
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
	for (size_t i = 0;
	     i < nj && !rc && !(o->max_jobs && w->n >= o->max_jobs); i++) {
		struct json_object *jo = json_object_array_get_idx(jobs, i);
		if (!jo || !json_object_is_type(jo, json_type_object)) {
			if (wl_jbad(w, o, err, name, (uint32_t)i,
				    "job is not an object"))
				rc = -1;
			continue;
		}
		if (json_object_object_get_ex(jo, "job_id", NULL)) {
			w->squeue = true;
			rc = wl_squeue_job(w, o, name, (uint32_t)i, jo, err);
		} else {
			rc = list_job(w, o, name, (uint32_t)i, jo, err);
		}
	}
	json_object_put(root);
	return rc;
}
