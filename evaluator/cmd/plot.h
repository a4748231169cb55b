/* plot.h - the small SVG writer of stopo's charts (whatif --svg, report
 * --history --svg): line and step charts in panels laid on a grid, one
 * colour per series the same in every panel, axes with ticks and labels,
 * a legend.  No plotting dependency; one file per chart kind uses it
 * (svg_whatif.c, svg_history.c).
 *
 * Geometry, fixed so that tests can compute pixels by hand: a chart is
 * PLOT_W pixels wide; under a heading of PLOT_HEAD pixels (title and
 * legend) the panels lie two per row, each PLOT_W / 2 wide and PLOT_PH
 * high; panel k is in row k / 2, column k % 2, its top-left corner at
 * (600 (k % 2), PLOT_HEAD + PLOT_PH (k / 2)).  Inside a panel the plot
 * area spans x from +PLOT_ML to +PLOT_PW - PLOT_MR and y from +PLOT_MT
 * (the top of the y range) to +PLOT_PH - PLOT_MB (its bottom); values map
 * linearly.  Series are drawn 3 px wide, in order (the last on top). */
#ifndef STOPO_PLOT_H
#define STOPO_PLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PLOT_W 1200
#define PLOT_PW 600
#define PLOT_PH 360
#define PLOT_HEAD 90
#define PLOT_ML 80
#define PLOT_MR 30
#define PLOT_MT 40
#define PLOT_MB 60

/* The colour of series K ("#rrggbb"): a palette of ten told apart by
 * people with the common colour blindnesses, then around again. */
const char *plot_colour(uint32_t k);

struct plot_series {
	const double *x, *y; /* [n] points, x ascending */
	uint32_t n;
	uint32_t colour; /* plot_colour index */
	bool step;	 /* hold y until the next x (a step function) */
	bool points;	 /* also a dot at every point */
};

/* A vertical marker (a break-even point): a dashed line at X in the
 * series colour, its label at the top. */
struct plot_mark {
	double x;
	uint32_t colour;
	char label[64];
};

struct plot_panel {
	const char *title, *xlabel, *ylabel; /* labels carry the units */
	double x0, x1, y0, y1;		     /* ranges (see plot_range) */
	const struct plot_series *s;
	uint32_t ns;
	const struct plot_mark *mark;
	uint32_t nmark;
	uint32_t xticks; /* intervals between x ticks (0: 5) */
};

/* A "nice" upper end of a range holding V (>= V, 1, 2 or 5 times a power
 * of ten, 1 when V <= 0 or not finite). */
double plot_nice(double v);

/* Begin a chart of NPANEL panels titled TITLE with the legend NAMES
 * [NNAMES] (name k in plot_colour(k)); the height is
 * PLOT_HEAD + PLOT_PH * ceil(npanel / 2). */
void plot_begin(FILE *f, const char *title, const char *const *names,
		uint32_t nnames, uint32_t npanel);
/* Draw panel K of the grid. */
void plot_panel(FILE *f, uint32_t k, const struct plot_panel *p);
void plot_end(FILE *f);
/* The height plot_begin gives NPANEL panels. */
uint32_t plot_height(uint32_t npanel);

/* Text goes through svg_text (evaluator/sharing/svg.h). */

#endif
