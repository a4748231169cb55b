/* wl_squeue.c - the jobs of squeue --json, Slurm 22.05 and 24.11 (see
 * workload.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

#define DEFAULT_LIMIT 86400

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

int wl_squeue_job(struct workload *w, const struct wl_opts *o, const char *name,
		  uint32_t idx, struct json_object *jo, struct err *err)
{
	int64_t id, submit = 0, start = 0, tl, cnt = 0;
	const char *state = jstate(jo), *nodes;
	struct wl_job *j;
	char m[200];
	struct err e = { 0 };
	int r, rsub, rstart;

	if (wl_jint(jo, "job_id", &id) || id <= 0 || id >= UINT32_MAX)
		return wl_jbad(w, o, err, name, idx,
			       "job_id missing or not a "
			       "positive integer");
	if (!state) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": job_state missing (want a "
			 "string or a list of strings)",
			 id);
		return wl_jbad(w, o, err, name, idx, m);
	}
	r = wl_jint(jo, "time_limit", &tl);
	if (r < 0 || (r == 0 && tl <= 0)) {
		snprintf(m, sizeof(m), "job %" PRId64 ": bad time_limit", id);
		return wl_jbad(w, o, err, name, idx, m);
	}
	if (r == 0 && tl > WL_TIME_MAX / 60) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": time_limit: out of range (at most "
			 "%lld minutes)",
			 id, WL_TIME_MAX / 60);
		return wl_jbad(w, o, err, name, idx, m);
	}
	tl = r ? (o->default_limit > 0 ? o->default_limit : DEFAULT_LIMIT) :
		 tl * 60;
	rsub = wl_jint(jo, "submit_time", &submit);
	rstart = wl_jint(jo, "start_time", &start);
	if (rsub < 0 || rstart < 0 || wl_jint(jo, "node_count", &cnt) < 0) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": submit_time, "
			 "start_time or node_count is not an integer",
			 id);
		return wl_jbad(w, o, err, name, idx, m);
	}
	if (submit < 0 || submit > WL_TIME_MAX || start < 0 ||
	    start > WL_TIME_MAX) {
		snprintf(m, sizeof(m),
			 "job %" PRId64 ": %s: out of range (0 to %lld s)", id,
			 (submit < 0 || submit > WL_TIME_MAX) ? "submit_time" :
								"start_time",
			 WL_TIME_MAX);
		return wl_jbad(w, o, err, name, idx, m);
	}
	if (state_holds_nodes(state)) {
		uint32_t n;
		uint32_t *v;

		if (rsub == 0 && rstart == 0 && start < submit) {
			snprintf(m, sizeof(m),
				 "job %" PRId64 ": start_time %" PRId64
				 " before submit_time %" PRId64,
				 id, start, submit);
			return wl_jbad(w, o, err, name, idx, m);
		}
		nodes = wl_jstr(jo, "nodes");
		if (!nodes) { /* missing, or not a string */
			snprintf(m, sizeof(m),
				 "job %" PRId64 ": %s, but no \"nodes\" "
				 "string",
				 id, state);
			return wl_jbad(w, o, err, name, idx, m);
		}
		v = workload_nodes(nodes, o->machine, o->nnodes, &n, &e);
		if (!v) {
			snprintf(m, sizeof(m), "job %" PRId64 ": %.160s", id,
				 e.msg);
			return wl_jbad(w, o, err, name, idx, m);
		}
		j = wl_push(w);
		if (!j) {
			free(v);
			return err_nomem(err, "%s: out of memory", name);
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
			return wl_jbad(w, o, err, name, idx, m);
		}
		j = wl_push(w);
		if (!j)
			return err_nomem(err, "%s: out of memory", name);
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
	if (wl_jstr(jo, "partition") &&
	    !(j->partition = strdup(wl_jstr(jo, "partition"))))
		return err_nomem(err, "%s: out of memory", name);
	if (wl_jstr(jo, "admin_comment") && *wl_jstr(jo, "admin_comment") &&
	    !(j->comment = strdup(wl_jstr(jo, "admin_comment"))))
		return err_nomem(err, "%s: out of memory", name);
	return 0;
}
