/* report_history.c - stopo report --history (see report_history.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/cmd/report_history.h"
#include "evaluator/sim/workload.h"

#define CMD "report"

/* One record of the log: a job start. */
struct rec {
	char stamp[20]; /* YYYY-MM-DDTHH:MM:SS */
	uint32_t job, nodes, links, shared, node_shared;
	bool failed;
	/* point into the log's text */
	char *partition, *with, *links_with;
	double elapsed; /* s, from sacct (< 0: unknown) */
};

/* A run time and partition sacct gave a job. */
struct acct {
	uint32_t job;
	double elapsed;
	char part[64];
};

/* "YYYY-MM-DDTHH:MM:SS" followed by a "+hhmm"/"-hhmm" offset (STRICT)
 * or by nothing (an option's time; the date alone too). */
static bool stamp_ok(const char *s, bool strict)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	size_t i, n = strlen(s);

	if (!strict && (n == 10 || n == 19))
		;
	else if (strict && n == 24 && (s[19] == '+' || s[19] == '-') &&
		 isdigit((unsigned char)s[20]) &&
		 isdigit((unsigned char)s[21]) &&
		 isdigit((unsigned char)s[22]) && isdigit((unsigned char)s[23]))
		n = 19;
	else
		return false;
	for (i = 0; i < n; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)s[i]) :
				     s[i] != form[i])
			return false;
	return true;
}

static int u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Parse LINE (NUL-terminated, modified: values end in place) into R.
 * Returns 0, or -1 with WHY set. */
static int parse_rec(char *line, struct rec *r, const char **why)
{
	char *p = line, *tok;
	bool has_job = false, has_nodes = false;

	memset(r, 0, sizeof(*r));
	r->elapsed = -1;
	r->partition = "-";
	r->with = "";
	r->links_with = "";
	tok = p;
	p = strchr(p, ' ');
	if (p)
		*p++ = '\0';
	if (!stamp_ok(tok, true)) {
		*why = "want a time YYYY-MM-DDTHH:MM:SS+hhmm first";
		return -1;
	}
	memcpy(r->stamp, tok, 19);
	while (p && *p) {
		char *eq, *val;
		uint32_t *num = NULL;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		tok = p;
		eq = strchr(tok, '=');
		if (!eq || memchr(tok, ' ', (size_t)(eq - tok))) {
			*why = "want KEY=VALUE";
			return -1;
		}
		*eq = '\0';
		val = eq + 1;
		if (*val == '"') {
			char *q = strchr(val + 1, '"');

			if (!q) {
				*why = "a quoted value without its end";
				return -1;
			}
			*q = '\0';
			val++;
			p = q + 1;
		} else {
			p = strchr(val, ' ');
		}
		if (p && *p == ' ')
			*p++ = '\0';
		if (!strcmp(tok, "job"))
			num = &r->job, has_job = true;
		else if (!strcmp(tok, "nodes"))
			num = &r->nodes, has_nodes = true;
		else if (!strcmp(tok, "links"))
			num = &r->links;
		else if (!strcmp(tok, "shared"))
			num = &r->shared;
		else if (!strcmp(tok, "node_shared"))
			num = &r->node_shared;
		else if (!strcmp(tok, "partition"))
			r->partition = val;
		else if (!strcmp(tok, "node_shares_with"))
			r->with = val;
		else if (!strcmp(tok, "shares_with"))
			r->links_with = val;
		else if (!strcmp(tok, "status"))
			r->failed = !strcmp(val, "failed");
		if (num && u32(val, num)) {
			*why = "want a whole number";
			return -1;
		}
	}
	if (!has_job || !has_nodes) {
		*why = "not a job start (no job= or nodes=)";
		return -1;
	}
	return 0;
}

/* Integer or {"number": N} member KEY of O into *V.  Returns 0 or -1. */
static int jnum(struct json_object *o, const char *key, double *v)
{
	struct json_object *x, *n;

	if (!json_object_object_get_ex(o, key, &x) || !x)
		return -1;
	if (json_object_is_type(x, json_type_object) &&
	    json_object_object_get_ex(x, "number", &n))
		x = n;
	if (!json_object_is_type(x, json_type_int) &&
	    !json_object_is_type(x, json_type_double))
		return -1;
	*v = json_object_get_double(x);
	return 0;
}

/* sacct --json output in PATH: each job's run time (time.elapsed, else
 * time.end - time.start) and partition into *A ([*n]).  Returns an exit
 * status. */
static int read_sacct(const char *path, struct acct **a, uint32_t *n)
{
	struct err err = { 0 };
	size_t len;
	char *text = workload_slurp(path, &len, &err);
	struct json_object *o, *jobs;
	size_t nj;

	*a = NULL;
	*n = 0;
	if (!text)
		return cli_error(CMD, CLI_USAGE, "%s", err.msg);
	o = json_tokener_parse(text);
	free(text);
	if (!o || !json_object_object_get_ex(o, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array)) {
		json_object_put(o);
		return cli_error(CMD, CLI_USAGE,
				 "%s:1: not sacct --json output (no \"jobs\" "
				 "array)",
				 path);
	}
	nj = json_object_array_length(jobs);
	*a = calloc(nj ? nj : 1, sizeof(**a));
	if (!*a) {
		json_object_put(o);
		return cli_error(CMD, CLI_FAIL, "out of memory");
	}
	for (size_t i = 0; i < nj; i++) {
		struct json_object *j = json_object_array_get_idx(jobs, i);
		struct json_object *t, *p;
		double id, el, st, en;
		struct acct *x = &(*a)[*n];

		if (jnum(j, "job_id", &id) || id < 0 || id > UINT32_MAX)
			continue;
		if (!json_object_object_get_ex(j, "time", &t))
			continue;
		if (jnum(t, "elapsed", &el)) {
			if (jnum(t, "start", &st) || jnum(t, "end", &en) ||
			    en < st)
				continue;
			el = en - st;
		}
		x->job = (uint32_t)id;
		x->elapsed = el;
		if (json_object_object_get_ex(j, "partition", &p) &&
		    json_object_is_type(p, json_type_string))
			snprintf(x->part, sizeof(x->part), "%s",
				 json_object_get_string(p));
		(*n)++;
	}
	json_object_put(o);
	return CLI_OK;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = strncmp(x->stamp, y->stamp, 10);

	if (c)
		return c;
	c = strcmp(x->partition, y->partition);
	if (c)
		return c;
	c = strcmp(x->stamp, y->stamp);
	return c ? c : (x->job > y->job) - (x->job < y->job);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_job(const void *a, const void *b)
{
	const struct history_job *x = a, *y = b;

	if (x->shared != y->shared)
		return x->shared > y->shared ? -1 : 1;
	if (x->node_shared != y->node_shared)
		return x->node_shared > y->node_shared ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* Whether R lies in [since, until). */
static bool within(const struct history_args *a, const struct rec *r)
{
	return (!a->since ||
		strncmp(r->stamp, a->since, strlen(a->since)) >= 0) &&
	       (!a->until || strncmp(r->stamp, a->until, strlen(a->until)) < 0);
}

/* The records of TEXT (NAME in messages) within A's times into *R
 * ([*n]).  Returns an exit status. */
static int read_log(const struct history_args *a, const char *name, char *text,
		    struct rec **r, uint32_t *n)
{
	uint32_t cap = 64, line = 0;
	char *p = text;

	*n = 0;
	*r = malloc(cap * sizeof(**r));
	if (!*r)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	while (p && *p) {
		char *nl = strchr(p, '\n');
		const char *why = NULL;
		struct rec x;

		line++;
		if (nl)
			*nl = '\0';
		if (!*p) { /* an empty line */
			p = nl ? nl + 1 : NULL;
			continue;
		}
		if (parse_rec(p, &x, &why))
			return cli_error(CMD, CLI_USAGE, "%s:%u: %s", name,
					 line, why);
		p = nl ? nl + 1 : NULL;
		if (!within(a, &x))
			continue;
		if (*n == cap) {
			struct rec *m = realloc(*r, 2 * cap * sizeof(**r));

			if (!m)
				return cli_error(CMD, CLI_FAIL,
						 "out of memory");
			*r = m;
			cap *= 2;
		}
		(*r)[(*n)++] = x;
	}
	return CLI_OK;
}

/* Sum the sorted records R[0..n) into H's rows.  Returns an exit
 * status. */
static int sum_rows(const struct history_args *a, struct rec *r, uint32_t n,
		    bool acct, struct history *h)
{
	h->rows = calloc(n ? n : 1, sizeof(*h->rows));
	if (!h->rows)
		return cli_error(CMD, CLI_FAIL, "out of memory");
	h->records = n;
	for (uint32_t i = 0, j; i < n; i = j) {
		struct history_row *w = &h->rows[h->nrows++];

		memcpy(w->day, r[i].stamp, 10);
		w->partition = r[i].partition;
		w->nodeh_known = acct;
		for (j = i; j < n && !strncmp(r[j].stamp, r[i].stamp, 10) &&
			    !strcmp(r[j].partition, r[i].partition);
		     j++)
			;
		w->top = calloc(j - i, sizeof(*w->top));
		if (!w->top)
			return cli_error(CMD, CLI_FAIL, "out of memory");
		for (uint32_t k = i; k < j; k++) {
			const struct rec *x = &r[k];

			w->started++;
			if (!x->failed && !x->shared && !x->node_shared) {
				w->isolated++;
				continue;
			}
			if (x->shared) {
				w->shared_links++;
				if (x->elapsed < 0)
					w->nodeh_known = false;
				else
					w->shared_nodeh +=
						x->nodes * x->elapsed / 3600;
			}
			if (x->shared || x->node_shared)
				w->top[w->ntop++] = (struct history_job){
					.job = x->job,
					.nodes = x->nodes,
					.links = x->links,
					.shared = x->shared,
					.node_shared = x->node_shared,
					.with = x->with,
					.links_with = x->links_with,
				};
		}
		qsort(w->top, w->ntop, sizeof(*w->top), cmp_job);
		if (a->top && w->ntop > a->top)
			w->ntop = a->top;
	}
	if (n) {
		memcpy(h->first, r[0].stamp, 10);
		memcpy(h->last, r[n - 1].stamp, 10);
	}
	return CLI_OK;
}

static void print_text(const char *name, const struct history *h)
{
	printf("%s: %u job starts", name, h->records);
	if (h->records)
		printf(", %s to %s", h->first, h->last);
	printf("\n\n%-10s  %-12s %7s %8s %9s %7s %13s\n", "DAY", "PARTITION",
	       "STARTED", "ISOLATED", "ISOLATED%", "SHARED", "SHARED_NODE_H");
	for (uint32_t i = 0; i < h->nrows; i++) {
		const struct history_row *w = &h->rows[i];

		printf("%-10s  %-12s %7u %8u %9.2f %7u ", w->day, w->partition,
		       w->started, w->isolated,
		       100.0 * w->isolated / w->started, w->shared_links);
		if (w->nodeh_known)
			printf("%13.2f\n", w->shared_nodeh);
		else
			printf("%13s\n", "-");
	}
	printf("\nmost shared jobs (links shared of the job's, with whom; "
	       "nodes held with other jobs):\n");
	for (uint32_t i = 0; i < h->nrows; i++)
		for (uint32_t k = 0; k < h->rows[i].ntop; k++) {
			const struct history_job *j = &h->rows[i].top[k];

			printf("%-10s  %-12s job %u (%u nodes): %u of %u links",
			       h->rows[i].day, h->rows[i].partition, j->job,
			       j->nodes, j->shared, j->links);
			if (*j->links_with)
				printf(" with job(s) %s", j->links_with);
			if (j->node_shared)
				printf(", %u nodes with job(s) %s",
				       j->node_shared, j->with);
			putchar('\n');
		}
}

static void print_json(const char *name, const struct history *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rows = json_object_new_array();

	json_object_object_add(o, "log", json_object_new_string(name));
	json_object_object_add(o, "records", json_object_new_int64(h->records));
	for (uint32_t i = 0; i < h->nrows; i++) {
		const struct history_row *w = &h->rows[i];
		struct json_object *ro = json_object_new_object();
		struct json_object *top = json_object_new_array();

		json_object_object_add(ro, "day",
				       json_object_new_string(w->day));
		json_object_object_add(ro, "partition",
				       json_object_new_string(w->partition));
		json_object_object_add(ro, "started",
				       json_object_new_int64(w->started));
		json_object_object_add(ro, "isolated",
				       json_object_new_int64(w->isolated));
		json_object_object_add(
			ro, "isolated_share",
			json_object_new_double((double)w->isolated /
					       w->started));
		json_object_object_add(ro, "shared_links_jobs",
				       json_object_new_int64(w->shared_links));
		json_object_object_add(
			ro, "shared_node_hours",
			w->nodeh_known ?
				json_object_new_double(w->shared_nodeh) :
				NULL);
		for (uint32_t k = 0; k < w->ntop; k++) {
			const struct history_job *j = &w->top[k];
			struct json_object *jo = json_object_new_object();

			json_object_object_add(jo, "job",
					       json_object_new_int64(j->job));
			json_object_object_add(jo, "nodes",
					       json_object_new_int64(j->nodes));
			json_object_object_add(jo, "links",
					       json_object_new_int64(j->links));
			json_object_object_add(
				jo, "shared", json_object_new_int64(j->shared));
			json_object_object_add(
				jo, "node_shared",
				json_object_new_int64(j->node_shared));
			json_object_object_add(jo, "node_shares_with",
					       json_object_new_string(j->with));
			json_object_object_add(
				jo, "shares_with",
				json_object_new_string(j->links_with));
			json_object_array_add(top, jo);
		}
		json_object_object_add(ro, "most_shared", top);
		json_object_array_add(rows, ro);
	}
	json_object_object_add(o, "days", rows);
	cli_print_json(o);
}

/* The counters of H, per partition (rows of a partition summed over the
 * days), in Prometheus's text format. */
static void print_metrics(const struct history *h)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{ "stopo_job_starts_total",
		  "Job starts select/topo recorded." },
		{ "stopo_job_starts_isolated_total",
		  "Job starts sharing no link and no node with a running job." },
		{ "stopo_job_starts_shared_links_total",
		  "Job starts sharing links with a running job." },
	};
	const char **parts = calloc(h->nrows ? h->nrows : 1, sizeof(*parts));
	uint32_t np = 0;

	if (!parts)
		return;
	for (uint32_t i = 0; i < h->nrows; i++) {
		uint32_t k;

		for (k = 0; k < np && strcmp(parts[k], h->rows[i].partition);
		     k++)
			;
		if (k == np)
			parts[np++] = h->rows[i].partition;
	}
	qsort(parts, np, sizeof(*parts), cmp_str);
	for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		printf("# HELP %s %s\n# TYPE %s counter\n", fam[f].name,
		       fam[f].help, fam[f].name);
		for (uint32_t k = 0; k < np; k++) {
			uint64_t n = 0;

			for (uint32_t i = 0; i < h->nrows; i++) {
				const struct history_row *w = &h->rows[i];

				if (strcmp(w->partition, parts[k]))
					continue;
				n += f == 0 ? w->started :
				     f == 1 ? w->isolated :
					      w->shared_links;
			}
			printf("%s{partition=\"", fam[f].name);
			for (const char *c = parts[k]; *c; c++) {
				if (*c == '\\' || *c == '"')
					putchar('\\');
				if (*c == '\n')
					fputs("\\n", stdout);
				else
					putchar(*c);
			}
			printf("\"} %llu\n", (unsigned long long)n);
		}
	}
	free(parts);
}

static int write_svg(const char *path, const char *name,
		     const struct history *h)
{
	FILE *f = fopen(path, "w");
	struct err err = { 0 };
	char title[512];
	int rc;

	if (!f)
		return cli_error(CMD, CLI_FAIL, "%s: %s", path,
				 strerror(errno));
	snprintf(title, sizeof(title), "Link sharing per day: %.400s", name);
	rc = svg_history(f, title, h, &err);
	if ((fclose(f) || rc) && !err.msg[0])
		err_set(&err, "write error");
	if (err.msg[0])
		return cli_error(CMD, CLI_FAIL, "%s: %s", path, err.msg);
	return CLI_OK;
}

/* Each record's run time and (without partition=) partition from A. */
static void join_acct(struct rec *r, uint32_t n, struct acct *a, uint32_t na)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < na; k++)
			if (a[k].job == r[i].job) {
				r[i].elapsed = a[k].elapsed;
				if (!strcmp(r[i].partition, "-") &&
				    a[k].part[0])
					r[i].partition = a[k].part;
				break;
			}
}

/* StateSaveLocation/topo_jobs.log of the cluster scontrol talks to,
 * into BUF.  Returns an exit status. */
static int default_log(char *buf, size_t len)
{
	FILE *p = popen("scontrol show config 2>/dev/null", "r");
	char line[4096];
	bool found = false;

	if (!p)
		return cli_error(CMD, CLI_USAGE,
				 "--history: give the log (cannot run "
				 "scontrol)");
	while (fgets(line, sizeof(line), p)) {
		char *v;

		if (strncmp(line, "StateSaveLocation", 17) ||
		    !(v = strchr(line, '=')))
			continue;
		for (v++; *v == ' '; v++)
			;
		v[strcspn(v, "\n")] = '\0';
		found = *v &&
			(size_t)snprintf(buf, len, "%s/topo_jobs.log", v) < len;
	}
	pclose(p);
	if (!found)
		return cli_error(CMD, CLI_USAGE,
				 "--history: give the log "
				 "(StateSaveLocation/topo_jobs.log: "
				 "'scontrol show config' did not say it)");
	return CLI_OK;
}

int report_history(const struct history_args *in)
{
	struct history_args copy = *in, *a = &copy;
	char path[4096];
	struct err err = { 0 };
	struct history h = { 0 };
	struct acct *acct = NULL;
	struct rec *r = NULL;
	uint32_t n = 0, na = 0;
	const char *name;
	size_t len;
	char *text;
	int rc;

	if (!a->log) {
		rc = default_log(path, sizeof(path));
		if (rc != CLI_OK)
			return rc;
		a->log = path;
	}
	name = strcmp(a->log, "-") ? a->log : "<stdin>";

	if ((a->since && !stamp_ok(a->since, false)) ||
	    (a->until && !stamp_ok(a->until, false)))
		return cli_error(CMD, CLI_USAGE,
				 "--since/--until: want YYYY-MM-DD or "
				 "YYYY-MM-DDTHH:MM:SS");
	text = workload_slurp(a->log, &len, &err);
	if (!text)
		return cli_error(CMD, CLI_USAGE, "%s", err.msg);
	rc = read_log(a, name, text, &r, &n);
	if (rc == CLI_OK && a->sacct)
		rc = read_sacct(a->sacct, &acct, &na);
	if (rc == CLI_OK) {
		join_acct(r, n, acct, na);
		qsort(r, n, sizeof(*r), cmp_rec);
		rc = sum_rows(a, r, n, a->sacct != NULL, &h);
	}
	if (rc == CLI_OK && a->svg)
		rc = write_svg(a->svg, name, &h);
	if (rc == CLI_OK) {
		if (a->metrics)
			print_metrics(&h);
		else if (a->json)
			print_json(name, &h);
		else
			print_text(name, &h);
	}
	for (uint32_t i = 0; i < h.nrows; i++)
		free(h.rows[i].top);
	free(h.rows);
	free(r);
	free(acct);
	free(text);
	return rc;
}
