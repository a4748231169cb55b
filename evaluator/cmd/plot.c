/* plot.c - the small SVG writer of stopo's charts (see plot.h). */
#include <math.h>
#include <stdio.h>

#include "evaluator/cmd/plot.h"
#include "evaluator/sharing/svg.h"

/* Paul Tol's "bright" and "vibrant" qualitative schemes. */
static const char *const palette[] = {
	"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee",
	"#aa3377", "#ee7733", "#0077bb", "#009988", "#bbbbbb",
};

const char *plot_colour(uint32_t k)
{
	return palette[k % (sizeof(palette) / sizeof(palette[0]))];
}

double plot_nice(double v)
{
	double p;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	if (v <= p * 1.0000001)
		return p;
	if (v <= 2 * p)
		return 2 * p;
	if (v <= 5 * p)
		return 5 * p;
	return 10 * p;
}

uint32_t plot_height(uint32_t npanel)
{
	return PLOT_HEAD + PLOT_PH * ((npanel + 1) / 2);
}

void plot_begin(FILE *f, const char *title, const char *const *names,
		uint32_t nnames, uint32_t npanel)
{
	uint32_t h = plot_height(npanel);

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%u\" viewBox=\"0 0 %d %u\" "
		"font-family=\"DejaVu Sans, Arial, sans-serif\">\n",
		PLOT_W, h, PLOT_W, h);
	fprintf(f, "<rect width=\"%d\" height=\"%u\" fill=\"#ffffff\"/>\n",
		PLOT_W, h);
	fputs("<text x=\"20\" y=\"30\" font-size=\"20\" "
	      "font-weight=\"bold\">",
	      f);
	svg_text(f, title);
	fputs("</text>\n", f);
	for (uint32_t k = 0; k < nnames; k++) {
		uint32_t x = 20 + 230 * (k % 5), y = 55 + 18 * (k / 5);

		fprintf(f,
			"<rect x=\"%u\" y=\"%u\" width=\"30\" height=\"12\" "
			"fill=\"%s\"/>\n<text x=\"%u\" y=\"%u\" "
			"font-size=\"13\">",
			x, y - 10, plot_colour(k), x + 36, y);
		svg_text(f, names[k]);
		fputs("</text>\n", f);
	}
}

void plot_end(FILE *f)
{
	fputs("</svg>\n", f);
}

/* Where panel P's value X, Y lands (clamped to the plot area). */
struct frame {
	double ox, oy;
	const struct plot_panel *p;
};

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static double px(const struct frame *fr, double x)
{
	const struct plot_panel *p = fr->p;
	double w = PLOT_PW - PLOT_ML - PLOT_MR;
	double t = p->x1 > p->x0 ? (x - p->x0) / (p->x1 - p->x0) : 0;

	return fr->ox + PLOT_ML + clamp(t, 0, 1) * w;
}

static double py(const struct frame *fr, double y)
{
	const struct plot_panel *p = fr->p;
	double h = PLOT_PH - PLOT_MT - PLOT_MB;
	double t = p->y1 > p->y0 ? (p->y1 - y) / (p->y1 - p->y0) : 1;

	return fr->oy + PLOT_MT + clamp(t, 0, 1) * h;
}

/* Axes, ticks every fifth of each range (x: every xticks-th), grid
 * lines, labels. */
static void axes(FILE *f, const struct frame *fr)
{
	const struct plot_panel *p = fr->p;
	double l = fr->ox + PLOT_ML, r = fr->ox + PLOT_PW - PLOT_MR;
	double t = fr->oy + PLOT_MT, b = fr->oy + PLOT_PH - PLOT_MB;

	uint32_t nx = p->xticks ? p->xticks : 5;

	for (uint32_t k = 0; k <= nx; k++) {
		double xv = p->x0 + (p->x1 - p->x0) * k / nx;
		double x = px(fr, xv);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#000000\"/>\n",
			x, b, x, b + 5);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
			"text-anchor=\"middle\">%.4g</text>\n",
			x, b + 19, fabs(xv) < 1e-12 ? 0 : xv);
	}
	for (int k = 0; k <= 5; k++) {
		double yv = p->y0 + (p->y1 - p->y0) * k / 5;
		double y = py(fr, yv);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#e0e0e0\"/>\n",
			l, y, r, y);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
			"text-anchor=\"end\">%.4g</text>\n",
			l - 6, y + 4, fabs(yv) < 1e-12 ? 0 : yv);
	}
	fprintf(f,
		"<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" "
		"stroke=\"#000000\"/>\n",
		l, t, b, r);
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" "
		"font-weight=\"bold\" text-anchor=\"middle\">",
		(l + r) / 2, fr->oy + 24);
	svg_text(f, p->title);
	fprintf(f,
		"</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
		"text-anchor=\"middle\">",
		(l + r) / 2, b + 40);
	svg_text(f, p->xlabel);
	fprintf(f,
		"</text>\n<text x=\"0\" y=\"0\" font-size=\"13\" "
		"text-anchor=\"middle\" "
		"transform=\"translate(%.1f %.1f) rotate(-90)\">",
		fr->ox + 22, (t + b) / 2);
	svg_text(f, p->ylabel);
	fputs("</text>\n", f);
}

static void series(FILE *f, const struct frame *fr, const struct plot_series *s)
{
	if (!s->n)
		return;
	fputs("<path d=\"", f);
	for (uint32_t i = 0; i < s->n; i++) {
		double x = px(fr, s->x[i]), y = py(fr, s->y[i]);

		if (!i)
			fprintf(f, "M%.1f %.1f", x, y);
		else if (s->step)
			fprintf(f, "H%.1fV%.1f", x, y);
		else
			fprintf(f, "L%.1f %.1f", x, y);
	}
	fprintf(f,
		"\" fill=\"none\" stroke=\"%s\" stroke-width=\"3\" "
		"stroke-linejoin=\"round\"/>\n",
		plot_colour(s->colour));
	if (s->points)
		for (uint32_t i = 0; i < s->n; i++)
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"%s\"/>\n",
				px(fr, s->x[i]), py(fr, s->y[i]),
				plot_colour(s->colour));
}

void plot_panel(FILE *f, uint32_t k, const struct plot_panel *p)
{
	struct frame fr = { PLOT_PW * (k % 2), PLOT_HEAD + PLOT_PH * (k / 2),
			    p };

	axes(f, &fr);
	for (uint32_t i = 0; i < p->ns; i++)
		series(f, &fr, &p->s[i]);
	for (uint32_t i = 0; i < p->nmark; i++) {
		const struct plot_mark *m = &p->mark[i];
		double x = px(&fr, m->x);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"6 4\"/>\n",
			x, fr.oy + PLOT_MT, x, fr.oy + PLOT_PH - PLOT_MB,
			plot_colour(m->colour));
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
			"fill=\"%s\">",
			x + 4, fr.oy + PLOT_MT + 14 + 14 * i,
			plot_colour(m->colour));
		svg_text(f, m->label);
		fputs("</text>\n", f);
	}
}
