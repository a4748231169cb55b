/* svg_whatif.c - stopo whatif --svg / --html (see svg_whatif.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/plot.h"
#include "evaluator/sharing/svg.h"
#include "evaluator/cmd/svg_whatif.h"
#include "evaluator/sharing/linkshare.h"

/* A start (+N nodes) or an end (-N) of job I at T. */
struct event {
	int64_t t;
	int64_t dn;
	uint32_t i;
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if ((x->dn < 0) != (y->dn < 0)) /* ends first */
		return x->dn < 0 ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A unit of time for values up to MAX seconds: hours from 2 h, minutes
 * from 2 min, else seconds.  Its length in s and its symbol. */
static double time_unit(double max, const char **sym)
{
	if (max >= 7200) {
		*sym = "h";
		return 3600;
	}
	if (max >= 120) {
		*sym = "min";
		return 60;
	}
	*sym = "s";
	return 1;
}

/* One policy's series over time: after every moment something starts or
 * ends, the busy share of the nodes, MLS and TLS (percent). */
struct timeline {
	double *t, *util, *mls, *tls; /* [n], t in seconds from t0 */
	uint32_t n;
};

static void timeline_free(struct timeline *tl)
{
	free(tl->t);
	free(tl->util);
	free(tl->mls);
	free(tl->tls);
}

static int timeline(const struct whatif_chart *c, const struct whatif_result *r,
		    int64_t t0, struct timeline *tl, struct err *err)
{
	struct event *ev = malloc(2 * (r->njob_out + 1) * sizeof(*ev));
	struct ls_state *st = ls_state_create(c->r, err);
	uint32_t ne = 0, cap;
	int64_t busy = 0;
	int rc = -1;

	memset(tl, 0, sizeof(*tl));
	if (!ev || !st)
		goto out;
	for (uint32_t i = 0; i < r->njob_out; i++) {
		const struct whatif_job *j = &r->jobs[i];

		if (j->dropped || j->start < 0)
			continue;
		ev[ne++] = (struct event){ j->start, j->n, i };
		ev[ne++] = (struct event){ j->end, -(int64_t)j->n, i };
	}
	qsort(ev, ne, sizeof(*ev), cmp_event);
	cap = ne + 1;
	tl->t = malloc(cap * sizeof(double));
	tl->util = malloc(cap * sizeof(double));
	tl->mls = malloc(cap * sizeof(double));
	tl->tls = malloc(cap * sizeof(double));
	if (!tl->t || !tl->util || !tl->mls || !tl->tls) {
		err_nomem(err, "out of memory");
		goto out;
	}
	tl->t[0] = 0;
	tl->util[0] = tl->mls[0] = tl->tls[0] = 0;
	tl->n = 1;
	for (uint32_t e = 0; e < ne;) {
		int64_t now = ev[e].t;

		for (; e < ne && ev[e].t == now; e++) {
			const struct whatif_job *j = &r->jobs[ev[e].i];
			const struct wl_job *wj =
				ev[e].i < c->w->n ? &c->w->jobs[ev[e].i] : NULL;
			struct ls_job lj = {
				.id = ev[e].i + 1,
				.nodes = j->nodes,
				.n = j->n,
				.pattern = wj ? wj->pattern : NULL,
				.seed = c->seed + (wj ? wj->id : 0),
			};

			busy += ev[e].dn;
			if (ev[e].dn < 0)
				(void)ls_state_remove(st, lj.id);
			else if (ls_state_add_job(st, &lj, err))
				goto out;
		}
		if (now - t0 <= 0)
			tl->n = 0; /* the value at t0 is the one after it */
		tl->t[tl->n] = (double)(now - t0);
		tl->util[tl->n] =
			c->nnodes ? 100.0 * (double)busy / (double)c->nnodes :
				    0;
		if (tl->util[tl->n] > 100)
			tl->util[tl->n] = 100; /* nodes shared by a snapshot */
		tl->mls[tl->n] = ls_state_mls(st);
		tl->tls[tl->n] = ls_state_tls(st);
		tl->n++;
	}
	rc = 0;
out:
	if (rc)
		timeline_free(tl);
	free(ev);
	ls_state_destroy(st);
	return rc;
}

/* The waits (WAIT) or turnarounds of R's simulated jobs that started,
 * ascending, in *V ([*n]).  Returns 0 or -1 (memory). */
static int durations(const struct whatif_result *r, bool wait, double **v,
		     uint32_t *n)
{
	*n = 0;
	*v = malloc((r->njob_out + 1) * sizeof(double));
	if (!*v)
		return -1;
	for (uint32_t i = 0; i < r->njob_out; i++) {
		const struct whatif_job *j = &r->jobs[i];

		if (j->dropped || j->start < 0 || j->was_running)
			continue;
		(*v)[(*n)++] = (double)((wait ? j->start : j->end) - j->submit);
	}
	qsort(*v, *n, sizeof(double), cmp_double);
	return 0;
}

/* Everything the panels draw, owned here. */
struct chart_data {
	struct timeline *tl;		/* [npol] */
	double **cx[2], **cy[2];	/* [2][npol] CDF points */
	uint32_t *cn[2];		/* [2][npol] */
	struct plot_series *s;		/* [npol] scratch */
	double *sx, *sy;		/* [nval * npol] sweep panels */
	struct plot_mark *mark;		/* [npol] */
	double tmax, cmax[2], symax[2]; /* seconds, seconds, units */
};

static void data_free(struct chart_data *d, uint32_t npol)
{
	for (uint32_t p = 0; p < npol; p++) {
		if (d->tl)
			timeline_free(&d->tl[p]);
		for (int k = 0; k < 2; k++) {
			if (d->cx[k])
				free(d->cx[k][p]);
			if (d->cy[k])
				free(d->cy[k][p]);
		}
	}
	for (int k = 0; k < 2; k++) {
		free(d->cx[k]);
		free(d->cy[k]);
		free(d->cn[k]);
	}
	free(d->tl);
	free(d->s);
	free(d->sx);
	free(d->sy);
	free(d->mark);
}

/* A step CDF of the N ascending values V (s) in unit U: (0, 0), then at
 * each value the share of them up to it. */
static int cdf(const double *v, uint32_t n, double u, double **x, double **y)
{
	*x = malloc((n + 1) * sizeof(double));
	*y = malloc((n + 1) * sizeof(double));
	if (!*x || !*y)
		return -1;
	(*x)[0] = (*y)[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		(*x)[i + 1] = v[i] / u;
		(*y)[i + 1] = 100.0 * (i + 1) / n;
	}
	return 0;
}

static int collect(const struct whatif_chart *c, struct chart_data *d,
		   struct err *err)
{
	uint32_t np = c->npol;
	int64_t t0 = INT64_MAX;

	memset(d, 0, sizeof(*d));
	d->tl = calloc(np, sizeof(*d->tl));
	d->s = calloc(np, sizeof(*d->s));
	d->sx = calloc(c->nval * np + 1, sizeof(double));
	d->sy = calloc(c->nval * np + 1, sizeof(double));
	d->mark = calloc(np, sizeof(*d->mark));
	for (int k = 0; k < 2; k++) {
		d->cx[k] = calloc(np, sizeof(double *));
		d->cy[k] = calloc(np, sizeof(double *));
		d->cn[k] = calloc(np, sizeof(uint32_t));
		if (!d->cx[k] || !d->cy[k] || !d->cn[k])
			goto oom;
	}
	if (!d->tl || !d->s || !d->sx || !d->sy || !d->mark)
		goto oom;
	for (uint32_t i = 0; i < c->res[0].njob_out; i++)
		if (c->res[0].jobs[i].submit < t0)
			t0 = c->res[0].jobs[i].submit;
	for (uint32_t p = 0; p < np; p++) {
		const struct whatif_result *r = &c->res[p];

		if (timeline(c, r, t0, &d->tl[p], err))
			return -1;
		if (d->tl[p].n && d->tl[p].t[d->tl[p].n - 1] > d->tmax)
			d->tmax = d->tl[p].t[d->tl[p].n - 1];
		for (int k = 0; k < 2; k++) {
			double *v;
			uint32_t n;

			if (durations(r, k == 0, &v, &n))
				goto oom;
			if (n && v[n - 1] > d->cmax[k])
				d->cmax[k] = v[n - 1];
			d->cn[k][p] = n;
			d->cx[k][p] = v; /* seconds for now, see below */
		}
	}
	for (int k = 0; k < 2; k++)
		for (uint32_t p = 0; p < np; p++) {
			const char *sym;
			double u = time_unit(d->cmax[k], &sym),
			       *v = d->cx[k][p];
			int rc = cdf(v, d->cn[k][p], u, &d->cx[k][p],
				     &d->cy[k][p]);

			free(v);
			if (rc)
				goto oom;
		}
	return 0;
oom:
	err_nomem(err, "out of memory");
	return -1;
}

static void time_panels(FILE *f, const struct whatif_chart *c,
			struct chart_data *d)
{
	static const char *const title[] = { "Utilisation over time",
					     "MLS over time", "TLS over time" };
	static const char *const ylab[] = {
		"nodes busy (%)",
		"MLS: worst job's links shared (%)",
		"TLS: used links shared (%)",
	};
	const char *sym;
	double u = time_unit(d->tmax, &sym);
	char xlab[64];

	snprintf(xlab, sizeof(xlab), "time since the first submit (%s)", sym);
	for (uint32_t k = 0; k < 3; k++) {
		struct plot_panel pn = { .title = title[k],
					 .xlabel = xlab,
					 .ylabel = ylab[k],
					 .x1 = plot_nice(d->tmax / u),
					 .y1 = 100,
					 .s = d->s,
					 .ns = c->npol };

		for (uint32_t p = 0; p < c->npol; p++) {
			struct timeline *tl = &d->tl[p];

			d->s[p] = (struct plot_series){
				tl->t,
				k == 0 ? tl->util : k == 1 ? tl->mls : tl->tls,
				tl->n,
				p,
				true,
				false
			};
		}
		/* the times in unit U, once, before the first panel */
		if (k == 0)
			for (uint32_t p = 0; p < c->npol; p++)
				for (uint32_t i = 0; i < d->tl[p].n; i++)
					d->tl[p].t[i] /= u;
		plot_panel(f, k, &pn);
	}
}

static void cdf_panels(FILE *f, const struct whatif_chart *c,
		       struct chart_data *d)
{
	static const char *const title[] = { "Waits (CDF)",
					     "Turnarounds (CDF)" };
	static const char *const what[] = { "wait", "turnaround" };

	for (int k = 0; k < 2; k++) {
		const char *sym;
		double u = time_unit(d->cmax[k], &sym);
		char xlab[64];
		struct plot_panel pn = { .title = title[k],
					 .xlabel = xlab,
					 .ylabel = "jobs that started (%)",
					 .x1 = plot_nice(d->cmax[k] / u),
					 .y1 = 100,
					 .s = d->s,
					 .ns = c->npol };

		snprintf(xlab, sizeof(xlab), "%s (%s)", what[k], sym);
		for (uint32_t p = 0; p < c->npol; p++)
			d->s[p] = (struct plot_series){
				d->cx[k][p], d->cy[k][p], d->cn[k][p] + 1,
				p,	     true,	  false
			};
		plot_panel(f, 3 + (uint32_t)k, &pn);
	}
}

/* Mean turnaround and throughput against the sweep's values. */
static void sweep_panels(FILE *f, const struct whatif_chart *c,
			 struct chart_data *d)
{
	uint32_t np = c->npol, nv = c->nval, nm = 0;
	double tamax = 0, u;
	const char *sym;
	char ylab[64];

	for (uint32_t i = 0; i < nv * np; i++)
		if (isfinite(c->res[i].mean_turnaround) &&
		    c->res[i].mean_turnaround > tamax)
			tamax = c->res[i].mean_turnaround;
	u = time_unit(tamax, &sym);
	for (uint32_t p = 0; p < np; p++)
		if (c->break_even && isfinite(c->break_even[p])) {
			d->mark[nm].x = c->break_even[p];
			d->mark[nm].colour = p;
			snprintf(d->mark[nm].label, sizeof(d->mark[nm].label),
				 "break-even (turnaround) %.3g",
				 c->break_even[p]);
			nm++;
		}
	for (int k = 0; k < 2; k++) {
		double ymax = 0;
		struct plot_panel pn = {
			.title = k ? "Throughput" : "Mean turnaround",
			.xlabel = c->sweep_label,
			.ylabel = ylab,
			.x0 = c->val[0],
			.x1 = c->val[nv - 1],
			.s = d->s,
			.ns = np,
			.mark = d->mark,
			.nmark = nm,
		};

		if (k)
			snprintf(ylab, sizeof(ylab), "jobs completed per day");
		else
			snprintf(ylab, sizeof(ylab), "mean turnaround (%s)",
				 sym);
		for (uint32_t p = 0; p < np; p++) {
			for (uint32_t v = 0; v < nv; v++) {
				const struct whatif_result *r =
					&c->res[v * np + p];
				double y = k ? r->jobs_per_day :
					       r->mean_turnaround / u;

				d->sx[p * nv + v] = c->val[v];
				d->sy[p * nv + v] = isfinite(y) ? y : 0;
				if (d->sy[p * nv + v] > ymax)
					ymax = d->sy[p * nv + v];
			}
			d->s[p] = (struct plot_series){ d->sx + p * nv,
							d->sy + p * nv,
							nv,
							p,
							false,
							true };
		}
		pn.y1 = plot_nice(ymax);
		plot_panel(f, 5 + (uint32_t)k, &pn);
	}
}

int svg_whatif(FILE *f, const struct whatif_chart *c, struct err *err)
{
	struct chart_data d;
	bool sweep = c->sweep_label && c->nval > 1;
	int rc = collect(c, &d, err);

	if (!rc) {
		plot_begin(f, c->title, c->labels, c->npol, sweep ? 7 : 5);
		time_panels(f, c, &d);
		cdf_panels(f, c, &d);
		if (sweep)
			sweep_panels(f, c, &d);
		plot_end(f);
	}
	data_free(&d, c->npol);
	if (!rc && (fflush(f) || ferror(f))) {
		err_set(err, "write error");
		rc = -1;
	}
	return rc;
}

static void cell(FILE *f, double v, int prec)
{
	if (isfinite(v))
		fprintf(f, "<td>%.*f</td>", prec, v);
	else
		fputs("<td>-</td>", f);
}

int html_whatif(FILE *f, const struct whatif_chart *c, struct err *err)
{
	bool sweep = c->sweep_label && c->nval > 1;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>",
	      f);
	svg_text(f, c->title);
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:1em}\n"
	      "table{border-collapse:collapse;margin:1em 0}\n"
	      "th,td{border:1px solid #ccc;padding:2px 8px;"
	      "text-align:right}\nth{background:#f4f4f4}\n"
	      "td.p{text-align:left}\n</style>\n</head>\n<body>\n<h1>",
	      f);
	svg_text(f, c->title);
	fputs("</h1>\n", f);
	if (svg_whatif(f, c, err))
		return -1;
	fputs("<table>\n<tr><th>policy</th>", f);
	if (sweep) {
		fputs("<th>", f);
		svg_text(f, c->sweep_label);
		fputs("</th>", f);
	}
	fputs("<th>started</th><th>dropped</th><th>utilisation %</th>"
	      "<th>mean wait s</th><th>mean turnaround s</th>"
	      "<th>p95 turnaround s</th><th>jobs per day</th>"
	      "<th>ran isolated</th><th>MLS max %</th><th>MLS mean %</th>"
	      "<th>TLS max %</th><th>TLS mean %</th></tr>\n",
	      f);
	for (uint32_t v = 0; v < c->nval; v++)
		for (uint32_t p = 0; p < c->npol; p++) {
			const struct whatif_result *r =
				&c->res[v * c->npol + p];

			fprintf(f,
				"<tr><td class=\"p\"><span style=\"color:%s\">"
				"&#9632;</span> ",
				plot_colour(p));
			svg_text(f, c->labels[p]);
			fputs("</td>", f);
			if (sweep)
				fprintf(f, "<td>%g</td>", c->val[v]);
			fprintf(f, "<td>%u</td><td>%u</td>", r->started,
				r->dropped);
			cell(f, r->utilization * 100, 2);
			cell(f, r->mean_wait, 1);
			cell(f, r->mean_turnaround, 1);
			cell(f, r->p95_turnaround, 1);
			cell(f, r->jobs_per_day, 2);
			fprintf(f, "<td>%u</td>", r->isolated_jobs);
			cell(f, r->mls_max, 2);
			cell(f, r->mls_mean, 2);
			cell(f, r->tls_max, 2);
			cell(f, r->tls_mean, 2);
			fputs("</tr>\n", f);
		}
	fputs("</table>\n</body>\n</html>\n", f);
	if (fflush(f) || ferror(f)) {
		err_set(err, "write error");
		return -1;
	}
	return 0;
}
