/* svg_history.c - stopo report --history --svg: per partition (one
 * colour each, partitions by name), per day: jobs started, the share of
 * them isolated, and the node-hours of the starts that shared links (the
 * third panel with sacct's run times only).  Days are numbered from the
 * first of the history, every day of it on the axis. */
#include <stdlib.h>
#include <string.h>

#include "evaluator/cmd/plot.h"
#include "evaluator/cmd/report_history.h"

/* Days from 1970-01-01 of "YYYY-MM-DD" (the proleptic Gregorian
 * calendar, Howard Hinnant's days_from_civil). */
static long civil_days(const char *d)
{
	long y = atol(d), m = atol(d + 5), dd = atol(d + 8);
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int svg_history(FILE *f, const char *title, const struct history *h,
		struct err *err)
{
	uint32_t nr = h->nrows, np = 0, npanel = 2;
	const char **parts = calloc(nr ? nr : 1, sizeof(*parts));
	double *buf = calloc(2 * (size_t)(nr ? nr : 1), sizeof(double));
	struct plot_series *s = calloc(nr ? nr : 1, sizeof(*s));
	long d0 = nr ? civil_days(h->first) : 0;
	long nd = nr ? civil_days(h->last) - d0 : 0;
	double ymax[3] = { 0, 100, 0 };
	char xlab[64];
	bool nodeh = nr > 0;
	int rc = -1;

	if (!parts || !buf || !s) {
		err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t k;

		for (k = 0; k < np && strcmp(parts[k], h->rows[i].partition);
		     k++)
			;
		if (k == np)
			parts[np++] = h->rows[i].partition;
		if (h->rows[i].started > ymax[0])
			ymax[0] = h->rows[i].started;
		if (h->rows[i].shared_nodeh > ymax[2])
			ymax[2] = h->rows[i].shared_nodeh;
		nodeh = nodeh && h->rows[i].nodeh_known;
	}
	qsort(parts, np, sizeof(*parts), cmp_str);
	npanel += nodeh;
	snprintf(xlab, sizeof(xlab), "day (0 = %s)", nr ? h->first : "-");
	plot_begin(f, title, parts, np, npanel);
	for (uint32_t k = 0; k < npanel; k++) {
		static const char *const ttl[] = {
			"Jobs started", "Jobs started isolated",
			"Node-hours of jobs sharing links"
		};
		static const char *const ylab[] = { "jobs per day",
						    "of the jobs started (%)",
						    "node-hours per day" };
		struct plot_panel pn = {
			.title = ttl[k],
			.xlabel = xlab,
			.ylabel = ylab[k],
			.x1 = nd > 0 ? (double)nd : 1,
			.y1 = k == 1 ? 100 : plot_nice(ymax[k]),
			.s = s,
			.ns = np,
			/* a tick a day, up to 10 */
			.xticks = nd >= 1 && nd <= 10 ? (uint32_t)nd : 0,
		};
		uint32_t o = 0;

		for (uint32_t p = 0; p < np; p++) {
			s[p] = (struct plot_series){
				buf + o, buf + nr + o, 0, p, false, true
			};
			for (uint32_t i = 0; i < nr; i++) {
				const struct history_row *w = &h->rows[i];

				if (strcmp(w->partition, parts[p]))
					continue;
				buf[o] = (double)(civil_days(w->day) - d0);
				buf[nr + o] = k == 0 ? w->started :
					      k == 1 ? 100.0 * w->isolated /
							       w->started :
						       w->shared_nodeh;
				o++;
				s[p].n++;
			}
		}
		plot_panel(f, k, &pn);
	}
	plot_end(f);
	if (fflush(f) || ferror(f)) {
		err_set(err, "write error");
		goto out;
	}
	rc = 0;
out:
	free(parts);
	free(buf);
	free(s);
	return rc;
}
