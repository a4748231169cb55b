/* wl_running.c - node lists (Slurm hostlists or index ranges) and the
 * running-jobs file of stopo report, "ID NODES [PATTERN]" per line (see
 * workload.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/util/hl.h"

#include "evaluator/traffic/flows.h"

#include "evaluator/sim/wl_impl.h"
#include "evaluator/sim/workload.h"

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
				err_nomem(err, "out of memory");
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

		err_code(err, why ? EINVAL : ENOMEM, "bad hostlist '%.64s': %s",
			 list, why ? why : "out of memory");
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
			err_nomem(err, "out of memory");
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
		return err_nomem(err, "%s: out of memory", name);
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
	if (wl_nul_byte(name, text, len, err))
		return -1;
	for (size_t p = 0; p < len && !rc;) {
		const char *e = memchr(text + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (text + p)) : len - p;
		char *f[4] = { NULL }, *save = NULL, *c;
		uint32_t nf = 0, n;
		uint32_t *v;
		int64_t id;
		struct wl_job *j;
		struct err e2 = { 0 };
		char m[256];

		line++;
		if (l + 1 > bcap) {
			char *q = realloc(buf, l + 1);

			if (!q) {
				rc = err_nomem(err, "%s:%u: out of memory",
					       name, line);
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
			rc = wl_bad(w, o, err, name, line,
				    "want: ID NODES "
				    "[PATTERN]");
			continue;
		}
		if (wl_int_token(f[0], strlen(f[0]), &id) || id <= 0 ||
		    id >= UINT32_MAX) {
			snprintf(m, sizeof(m),
				 "job id '%.32s' is not a positive "
				 "integer",
				 f[0]);
			rc = wl_bad(w, o, err, name, line, m);
			continue;
		}
		v = workload_nodes(f[1], o->machine, o->nnodes, &n, &e2);
		if (!v) {
			snprintf(m, sizeof(m), "job %" PRId64 ": %.160s", id,
				 e2.msg);
			rc = wl_bad(w, o, err, name, line, m);
			continue;
		}
		j = wl_push(w);
		if (!j) {
			free(v);
			rc = err_nomem(err, "%s:%u: out of memory", name, line);
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
			rc = wl_bad(w, o, err, name, line, m);
			wl_drop_last(w);
			continue;
		}
		if (nf == 3 && !(j->pattern = strdup(f[2])))
			rc = err_nomem(err, "%s:%u: out of memory", name, line);
	}
	free(buf);
	if (!rc)
		rc = wl_unique_ids(name, o, w, err);
	if (!rc)
		rc = held_once(name, o, w, err);
	if (!rc && !(w->name = strdup(name)))
		rc = err_nomem(err, "%s: out of memory", name);
	if (rc)
		workload_free(w);
	return rc;
}
