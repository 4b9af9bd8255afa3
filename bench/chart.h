/* A grouped bar chart written as SVG, which any browser shows: no plotting tool needed on the
 * GPU machine. The y axis is logarithmic, because the labs span three orders of magnitude. */
#ifndef BENCH_CHART_H
#define BENCH_CHART_H

#include <stdio.h>

struct bar_chart {
    const char *title;
    const char *y_label;
    int group_count;                  /* one group of bars per group name (a lab) */
    const char *const *group_names;
    int series_count;                 /* one bar in every group per series (an input) */
    const char *const *series_names;
    const double *values;             /* values[group * series_count + series], all > 0 */
    double reference_value;           /* a dashed line across the chart (0: none) */
    const char *reference_label;
};

/* Writes the chart; returns 0, or -1 when there is nothing to draw or a value is not positive. */
int write_bar_chart_svg(FILE *out, const struct bar_chart *chart);

/* The same for count charts, one above the other in one picture, each on its own scale. */
int write_bar_charts_svg(FILE *out, const struct bar_chart *charts, int count);

#endif
