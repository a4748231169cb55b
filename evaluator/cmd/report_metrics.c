/* report_metrics.c - stopo report --metrics (see report_metrics.h). */
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/report_metrics.h"

/* One partition: its jobs and the links they use. */
struct part {
	const char *name;
	uint32_t isolated, shared;
	double mls; /* percent */
	uint32_t used, shared_links;
	uint8_t *mark; /* [nlinks] links counted */
};

static int cmp_part(const void *a, const void *b)
{
	return strcmp(((const struct part *)a)->name,
		      ((const struct part *)b)->name);
}

static const char *part_name(const struct metrics_in *in, uint32_t k)
{
	return in->part && in->part[k] && in->part[k][0] ? in->part[k] : "none";
}

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* The partitions of IN into *P ([*np], sorted by name), their figures
 * counted.  Returns 0 or -1 with err set. */
static int partitions(const struct metrics_in *in, struct part **p,
		      uint32_t *np, struct err *err)
{
	const struct ls_result *ls = in->ls;
	uint32_t n = 0;

	*p = calloc(in->njobs ? in->njobs : 1, sizeof(**p));
	if (!*p)
		goto oom;
	for (uint32_t k = 0; k < in->njobs; k++) {
		const struct ls_job_stat *st = &ls->jobs[k];
		const char *name = part_name(in, k);
		struct part *q;
		uint32_t *links = NULL, nl = 0, i;

		for (i = 0; i < n && strcmp((*p)[i].name, name); i++)
			;
		q = &(*p)[i];
		if (i == n) {
			q->name = name;
			q->mark = calloc(ls->nlinks ? ls->nlinks : 1, 1);
			n++;
			if (!q->mark)
				goto oom_n;
		}
		if (st->isolated)
			q->isolated++;
		else
			q->shared++;
		if (st->pct > q->mls)
			q->mls = st->pct;
		if (linkshare_linkset(in->r, &in->jobs[k], NULL, &links, &nl,
				      err))
			goto fail;
		for (uint32_t l = 0; l < nl; l++)
			if (links[l] < ls->nlinks && !q->mark[links[l]]) {
				q->mark[links[l]] = 1;
				q->used++;
				q->shared_links += ls->link_jobs[links[l]] >= 2;
			}
		free(links);
	}
	qsort(*p, n, sizeof(**p), cmp_part);
	*np = n;
	return 0;
oom_n:
	err_nomem(err, "out of memory");
fail:
	for (uint32_t i = 0; i < n; i++)
		free((*p)[i].mark);
	free(*p);
	*p = NULL;
	return -1;
oom:
	err_nomem(err, "out of memory");
	return -1;
}

int report_metrics(FILE *f, const struct metrics_in *in, struct err *err)
{
	const struct ls_result *ls = in->ls;
	struct part *p;
	uint32_t np = 0;

	if (partitions(in, &p, &np, err))
		return -1;
	head(f, "stopo_mls_ratio",
	     "Maximum link sharing: the largest share of a running job's "
	     "links that other jobs use.");
	fprintf(f, "stopo_mls_ratio %.6g\n", ls->mls / 100);
	head(f, "stopo_tls_ratio",
	     "Total link sharing: the share of the links running jobs use "
	     "that two jobs or more use.");
	fprintf(f, "stopo_tls_ratio %.6g\n", ls->tls / 100);
	head(f, "stopo_partition_mls_ratio",
	     "The largest share of a running job's links that other jobs "
	     "use, over the partition's jobs.");
	for (uint32_t i = 0; i < np; i++) {
		fputs("stopo_partition_mls_ratio{partition=\"", f);
		label(f, p[i].name);
		fprintf(f, "\"} %.6g\n", p[i].mls / 100);
	}
	head(f, "stopo_partition_tls_ratio",
	     "Of the links the partition's running jobs use, the share two "
	     "jobs or more use.");
	for (uint32_t i = 0; i < np; i++) {
		fputs("stopo_partition_tls_ratio{partition=\"", f);
		label(f, p[i].name);
		fprintf(f, "\"} %.6g\n",
			p[i].used ? (double)p[i].shared_links / p[i].used : 0);
	}
	head(f, "stopo_jobs_running",
	     "Running jobs, isolated (no link or node used by another job) "
	     "or shared.");
	for (uint32_t i = 0; i < np; i++)
		for (int s = 0; s < 2; s++) {
			fputs("stopo_jobs_running{partition=\"", f);
			label(f, p[i].name);
			fprintf(f, "\",sharing=\"%s\"} %u\n",
				s ? "shared" : "isolated",
				s ? p[i].shared : p[i].isolated);
		}
	head(f, "stopo_links_used", "Switch links the running jobs use.");
	fprintf(f, "stopo_links_used %u\n", ls->used_links);
	head(f, "stopo_links_shared",
	     "Switch links two running jobs or more use.");
	fprintf(f, "stopo_links_shared %u\n", ls->shared_links);
	head(f, "stopo_nodes_shared",
	     "Nodes held by two running jobs or more.");
	fprintf(f, "stopo_nodes_shared %u\n", in->nodes_shared);
	head(f, "stopo_isolation_broken_jobs",
	     "Running jobs placed isolated that share links.");
	fprintf(f, "stopo_isolation_broken_jobs %u\n", in->broken);
	for (uint32_t i = 0; i < np; i++)
		free(p[i].mark);
	free(p);
	if (fflush(f) || ferror(f)) {
		err_set(err, "write error");
		return -1;
	}
	return 0;
}
