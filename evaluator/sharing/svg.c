/* svg.c - the link-sharing picture of stopo report (see svg.h).
 *
 * Layout: one panel per group (fat-tree pod, dragonfly group) plus one for
 * the switches outside groups (fat-tree upper levels, meshes); in a panel,
 * one box per switch holding a square per attached node.  Sizes are fixed
 * so the picture of a 10,000-node machine stays readable when zoomed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sharing/svg.h"

#define CELL 8 /* node square (CELL_BIG machines: CELL_SMALL) */
#define CELL_SMALL 4
#define CELL_BIG 4096
#define GAP 1
#define PAD 3	/* inside a switch box */
#define SWGAP 4 /* between switch boxes */
#define PANELPAD 8
#define MAXW 1600 /* wrap panels beyond this width */
#define LEGEND_JOBS 24

struct geo {
	uint32_t cols; /* node squares per row in a switch box */
	uint32_t box;  /* switch box side */
	uint32_t cell; /* node square side */
};

static void job_colour(uint32_t k, char *buf, size_t len)
{
	/* distinct colours first, no reds (those mark sharing) */
	static const char *const pal[] = {
		"#4e79a7", "#59a14f", "#b07aa1", "#76b7b2",
		"#9c755f", "#bcbd22", "#1f3b73", "#edc948",
		"#9d7edb", "#2f6b3a", "#86bcb6", "#d4a6c8",
	};
	double h;

	if (k < sizeof(pal) / sizeof(pal[0])) {
		snprintf(buf, len, "%s", pal[k]);
		return;
	}
	/* then golden-angle hues in 40..320 degrees */
	h = fmod(k * 137.508, 280.0) + 40;
	snprintf(buf, len, "hsl(%.0f,%d%%,%d%%)", h, k % 2 ? 55 : 70,
		 k % 2 ? 40 : 55);
}

static const char *share_fill(uint32_t jobs)
{
	if (jobs >= 3)
		return "#ef6f6f"; /* 3+ jobs on a link */
	if (jobs == 2)
		return "#f7b267"; /* 2 jobs */
	if (jobs == 1)
		return "#dcecf7"; /* used by one job */
	return "#f2f2f2";	  /* unused */
}

void svg_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n')
				fputc(*s, f);
		}
	}
}

/* Most jobs on any switch-to-switch link into or out of each switch. */
static int switch_share(const struct topo *t, const struct ls_result *res,
			uint32_t *sw)
{
	uint32_t S = topo_num_switches(t), first = topo_first_switch_link(t);

	memset(sw, 0, S * sizeof(*sw));
	for (uint32_t l = first; l < res->nlinks; l++) {
		const struct topo_link *k = topo_link(t, l);
		uint32_t c = res->link_jobs[l];

		if (c > sw[k->from])
			sw[k->from] = c;
		if (c > sw[k->to])
			sw[k->to] = c;
	}
	return 0;
}

struct panel {
	uint32_t group; /* TOPO_NONE: switches outside groups */
	uint32_t *sw, n;
	uint32_t cols, w, h;
	uint32_t x, y;
};

static void draw_switch(FILE *f, const struct topo *t, uint32_t s, uint32_t x,
			uint32_t y, const struct geo *g,
			const uint32_t *swshare, const uint32_t *owner_job,
			const struct ls_result *res, char (*colour)[32])
{
	uint32_t cnt;
	const uint32_t *nodes = topo_switch_nodes(t, s, &cnt);

	fprintf(f,
		"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"2\" "
		"fill=\"%s\" stroke=\"#888\" stroke-width=\"0.5\"><title>switch "
		"%u: at most %u job%s on one of its links</title></rect>\n",
		x, y, g->box, g->box, share_fill(swshare[s]), s, swshare[s],
		swshare[s] == 1 ? "" : "s");
	for (uint32_t q = 0; q < cnt; q++) {
		uint32_t v = nodes[q], k = owner_job[v];
		uint32_t nx = x + PAD + (q % g->cols) * (g->cell + GAP);
		uint32_t ny = y + PAD + (q / g->cols) * (g->cell + GAP);

		if (k == UINT32_MAX) {
			fprintf(f,
				"<rect x=\"%u\" y=\"%u\" width=\"%u\" "
				"height=\"%u\" fill=\"#ffffff\" stroke=\"#ccc\" "
				"stroke-width=\"0.5\"><title>node %u: free"
				"</title></rect>\n",
				nx, ny, g->cell, g->cell, v);
			continue;
		}
		fprintf(f,
			"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
			"fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>node "
			"%u: job %u%s</title></rect>\n",
			nx, ny, g->cell, g->cell, colour[k],
			res->jobs[k].isolated ? "#444" : "#d00000",
			res->jobs[k].isolated ? "0.5" :
			g->cell > 5	      ? "1.6" :
						"0.9",
			v, res->jobs[k].id,
			res->jobs[k].isolated ? " (isolated)" :
						" (shares links)");
	}
}

static int layout(const struct topo *t, struct panel **out, uint32_t *np,
		  const struct geo *g)
{
	uint32_t S = topo_num_switches(t), G = topo_num_groups(t);
	uint32_t n = G + 1, *cnt = calloc(n, sizeof(*cnt));
	struct panel *p = calloc(n, sizeof(*p));
	uint32_t used = 0, x = 0, y = 0, rowh = 0;

	if (!cnt || !p) {
		free(cnt);
		free(p);
		return -1;
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t gr = topo_switch_group(t, s);

		cnt[gr == TOPO_NONE || gr >= G ? G : gr]++;
	}
	for (uint32_t k = 0; k < n; k++) {
		p[k].group = k < G ? k : TOPO_NONE;
		p[k].sw = malloc((cnt[k] ? cnt[k] : 1) * sizeof(uint32_t));
		if (!p[k].sw) {
			for (uint32_t q = 0; q <= k; q++)
				free(p[q].sw);
			free(p);
			free(cnt);
			return -1;
		}
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t gr = topo_switch_group(t, s);
		struct panel *q = &p[gr == TOPO_NONE || gr >= G ? G : gr];

		q->sw[q->n++] = s;
	}
	free(cnt);
	for (uint32_t k = 0; k < n; k++) {
		struct panel *q = &p[k];
		uint32_t cols, rows, step = g->box + SWGAP;

		if (!q->n) {
			free(q->sw);
			q->sw = NULL;
			continue;
		}
		/* fat-tree pods: leaves in one row, level-1 switches above */
		if (topo_traits(t)->levels && q->group != TOPO_NONE &&
		    q->n % 2 == 0)
			cols = q->n / 2;
		else if (topo_traits(t)->levels)
			cols = q->n; /* upper levels: one row per level */
		else
			cols = (uint32_t)ceil(sqrt((double)q->n * 2));
		if (cols * step + 2 * PANELPAD > MAXW)
			cols = (MAXW - 2 * PANELPAD) / step;
		if (!cols)
			cols = 1;
		if (cols > q->n)
			cols = q->n;
		rows = (q->n + cols - 1) / cols;
		q->cols = cols;
		q->w = cols * step - SWGAP + 2 * PANELPAD;
		q->h = rows * step - SWGAP + 2 * PANELPAD + 14;
		if (x && x + q->w > MAXW) {
			x = 0;
			y += rowh + 10;
			rowh = 0;
		}
		q->x = x;
		q->y = y;
		x += q->w + 10;
		if (q->h > rowh)
			rowh = q->h;
		p[used++] = *q;
	}
	*out = p;
	*np = used;
	return 0;
}

int svg_write(FILE *f, const struct topo *t, const char *title,
	      const struct ls_job *jobs, const struct ls_result *res,
	      struct err *err)
{
	uint32_t N = topo_num_nodes(t), S = topo_num_switches(t);
	uint32_t *owner = malloc((N ? N : 1) * sizeof(*owner));
	uint32_t *swshare = malloc((S ? S : 1) * sizeof(*swshare));
	char(*colour)[32] = malloc((res->njobs ? res->njobs : 1) * 32);
	struct panel *p = NULL;
	uint32_t np = 0, maxp = 1, width = 0, height = 0, top = 60, ly;
	uint32_t shown = 0, nshare = 0;
	struct geo g;
	int rc = -1;

	if (!owner || !swshare || !colour)
		goto oom;
	for (uint32_t v = 0; v < N; v++)
		owner[v] = UINT32_MAX;
	for (uint32_t k = 0; k < res->njobs; k++) {
		job_colour(k, colour[k], sizeof(colour[k]));
		for (uint32_t q = 0; q < jobs[k].n; q++)
			if (jobs[k].nodes[q] < N)
				owner[jobs[k].nodes[q]] = k;
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t c;

		topo_switch_nodes(t, s, &c);
		if (c > maxp)
			maxp = c;
	}
	g.cols = (uint32_t)ceil(sqrt((double)maxp));
	if (g.cols < 2)
		g.cols = 2;
	g.cell = N > CELL_BIG ? CELL_SMALL : CELL;
	g.box = 2 * PAD + g.cols * (g.cell + GAP) - GAP;
	switch_share(t, res, swshare);
	if (layout(t, &p, &np, &g))
		goto oom;
	for (uint32_t k = 0; k < np; k++) {
		if (p[k].x + p[k].w > width)
			width = p[k].x + p[k].w;
		if (p[k].y + p[k].h > height)
			height = p[k].y + p[k].h;
	}
	if (width < 640)
		width = 640;
	ly = top + height + 20;
	shown = res->njobs < LEGEND_JOBS ? res->njobs : LEGEND_JOBS;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" "
		"font-size=\"11\">\n",
		width + 20, ly + 110 + 16 * (shown + 1), width + 20,
		ly + 110 + 16 * (shown + 1));
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">",
	      f);
	svg_text(f, title);
	for (uint32_t k = 0; k < res->njobs; k++)
		nshare += !res->jobs[k].isolated;
	fprintf(f,
		"</text>\n<text x=\"10\" y=\"40\" font-size=\"13\">"
		"<tspan font-weight=\"bold\" fill=\"%s\">MLS %.2f %%, TLS "
		"%.2f %%: ",
		res->shared_links ? "#c00000" : "#007a00", res->mls, res->tls);
	if (res->shared_links)
		fprintf(f, "%u of %u job%s share links</tspan>", nshare,
			res->njobs, res->njobs == 1 ? "" : "s");
	else
		fprintf(f, "no link shared: all %u job%s isolated</tspan>",
			res->njobs, res->njobs == 1 ? "" : "s");
	fprintf(f,
		" (%u link%s used, %u shared, at most %u jobs on one "
		"link)</text>\n",
		res->used_links, res->used_links == 1 ? "" : "s",
		res->shared_links, res->max_link_jobs);
	fprintf(f, "<g transform=\"translate(10,%u)\">\n", top);
	for (uint32_t k = 0; k < np; k++) {
		const struct panel *q = &p[k];
		uint32_t step = g.box + SWGAP;
		char label[64];

		if (q->group == TOPO_NONE)
			snprintf(label, sizeof(label), "%s",
				 topo_traits(t)->levels ? "upper levels" :
				 topo_num_groups(t)	? "other switches" :
							  "switches");
		else
			snprintf(label, sizeof(label), "%s %u",
				 topo_traits(t)->unit ? topo_traits(t)->unit :
							"group",
				 q->group);
		fprintf(f,
			"<g><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
			"fill=\"none\" stroke=\"#bbb\"/>\n<text x=\"%u\" y=\"%u\" "
			"fill=\"#555\">%s</text>\n",
			q->x, q->y, q->w, q->h, q->x + PANELPAD, q->y + 11,
			label);
		for (uint32_t i = 0; i < q->n; i++) {
			/* fat-tree pods: higher levels drawn above leaves */
			uint32_t row = i / q->cols,
				 rows = (q->n + q->cols - 1) / q->cols;

			if (topo_traits(t)->levels)
				row = rows - 1 - row;
			draw_switch(f, t, q->sw[i],
				    q->x + PANELPAD + (i % q->cols) * step,
				    q->y + PANELPAD + 14 + row * step, &g,
				    swshare, owner, res, colour);
		}
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
	/* legend: switch shading, node marks, jobs */
	fprintf(f, "<g transform=\"translate(10,%u)\">\n", ly);
	fputs("<text x=\"0\" y=\"0\" font-weight=\"bold\">Switches (most jobs on "
	      "one of their links)</text>\n",
	      f);
	for (uint32_t c = 0; c < 4; c++) {
		static const char *const lab[] = { "unused", "1 job", "2 jobs",
						   "3 or more jobs" };

		fprintf(f,
			"<rect x=\"%u\" y=\"8\" width=\"14\" height=\"14\" "
			"fill=\"%s\" stroke=\"#888\"/><text x=\"%u\" y=\"19\">%s"
			"</text>\n",
			c * 130, share_fill(c), c * 130 + 20, lab[c]);
	}
	fputs("<text x=\"0\" y=\"44\" font-weight=\"bold\">Nodes</text>\n"
	      "<rect x=\"0\" y=\"52\" width=\"12\" height=\"12\" fill=\"#fff\" "
	      "stroke=\"#ccc\"/><text x=\"18\" y=\"62\">free</text>\n"
	      "<rect x=\"130\" y=\"52\" width=\"12\" height=\"12\" "
	      "fill=\"#4e79a7\" stroke=\"#444\" stroke-width=\"0.5\"/>"
	      "<text x=\"148\" y=\"62\">job running isolated</text>\n"
	      "<rect x=\"300\" y=\"52\" width=\"12\" height=\"12\" "
	      "fill=\"#4e79a7\" stroke=\"#d00000\" stroke-width=\"1.6\"/>"
	      "<text x=\"318\" y=\"62\">job sharing links (red outline)</text>\n",
	      f);
	fprintf(f,
		"<text x=\"0\" y=\"88\" font-weight=\"bold\">Jobs%s</text>\n",
		res->njobs > shown ? " (first ones)" : "");
	for (uint32_t k = 0; k < shown; k++) {
		const struct ls_job_stat *js = &res->jobs[k];
		uint32_t yy = 96 + 16 * k;

		fprintf(f,
			"<rect x=\"0\" y=\"%u\" width=\"12\" height=\"12\" "
			"fill=\"%s\" stroke=\"%s\"/><text x=\"18\" y=\"%u\">job "
			"%u: %u node%s, %u link%s, ",
			yy, colour[k], js->isolated ? "#444" : "#d00000",
			yy + 10, js->id, jobs[k].n, jobs[k].n == 1 ? "" : "s",
			js->links, js->links == 1 ? "" : "s");
		if (js->isolated) {
			fputs("isolated", f);
		} else {
			fprintf(f, "%u shared (%.1f %%) with job%s ",
				js->shared, js->pct,
				js->nshares == 1 ? "" : "s");
			for (uint32_t q = 0; q < js->nshares && q < 8; q++)
				fprintf(f, "%s%u", q ? ", " : "",
					js->shares_with[q]);
			if (js->nshares > 8)
				fprintf(f, " and %u more", js->nshares - 8);
		}
		fputs("</text>\n", f);
	}
	if (res->njobs > shown)
		fprintf(f,
			"<text x=\"0\" y=\"%u\">... and %u more jobs</text>\n",
			96 + 16 * shown + 10, res->njobs - shown);
	fputs("</g>\n</svg>\n", f);
	rc = ferror(f) ? err_set(err, "write error") : 0;
	goto out;
oom:
	err_nomem(err, "out of memory");
out:
	for (uint32_t k = 0; p && k < np; k++)
		free(p[k].sw);
	free(p);
	free(owner);
	free(swshare);
	free(colour);
	return rc;
}
