#include "chart.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define WIDTH 960
#define HEIGHT 540
#define LEFT 90
#define RIGHT 190 /* room for the legend */
#define TOP 50
#define BOTTOM 70

/* Colour-blind-safe (Okabe-Ito), one per series, repeating past eight. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#F0E442", "#000000"};

/* Text placed in SVG must not break the markup. */
static void write_escaped_prefix(FILE *out, const char *text, size_t length)
{
    for (; text && *text && length > 0; text++, length--) {
        switch (*text) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

static void write_escaped(FILE *out, const char *text)
{
    write_escaped_prefix(out, text, text ? strlen(text) : 0);
}

/* The chart's scale: powers of ten around its values; false when a value is not positive. */
static bool chart_scale(const struct bar_chart *chart, double *low, double *high)
{
    int values = chart->group_count * chart->series_count;
    if (values <= 0)
        return false;
    double smallest = chart->values[0], largest = chart->values[0];
    for (int i = 0; i < values; i++) {
        if (!(chart->values[i] > 0))
            return false;
        smallest = fmin(smallest, chart->values[i]);
        largest = fmax(largest, chart->values[i]);
    }
    if (chart->reference_value > 0)
        largest = fmax(largest, chart->reference_value);
    *low = floor(log10(smallest));
    *high = ceil(log10(largest));
    if (*high <= *low)
        *high = *low + 1;
    return true;
}

/* Draws a chart whose scale chart_scale accepted, in a box of WIDTH x HEIGHT whose top is at
 * `top`. */
static void draw_chart(FILE *out, const struct bar_chart *chart, int top)
{
    double low, high;
    chart_scale(chart, &low, &high);
    const double plot_width = WIDTH - LEFT - RIGHT, plot_height = HEIGHT - TOP - BOTTOM;
#define Y_OF(value) (TOP + plot_height * (1.0 - (log10(value) - low) / (high - low)))

    fprintf(out, "<g transform=\"translate(0 %d)\">\n", top);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, HEIGHT);
    fprintf(out, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\">", LEFT);
    write_escaped(out, chart->title);
    fprintf(out, "</text>\n");

    /* Grid lines and labels at each power of ten. */
    for (double power = low; power <= high; power++) {
        double y = Y_OF(pow(10, power));
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                LEFT, y, LEFT + plot_width, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 8,
                y + 4, pow(10, power));
    }
    fprintf(out, "<text transform=\"translate(24 %.1f) rotate(-90)\" text-anchor=\"middle\">",
            TOP + plot_height / 2);
    write_escaped(out, chart->y_label);
    fprintf(out, "</text>\n");

    double group_width = plot_width / chart->group_count;
    double bar_width = group_width * 0.8 / chart->series_count;
    for (int g = 0; g < chart->group_count; g++) {
        double group_left = LEFT + g * group_width + group_width * 0.1;
        for (int s = 0; s < chart->series_count; s++) {
            double value = chart->values[g * chart->series_count + s];
            double y = Y_OF(value);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                         "fill=\"%s\"><title>",
                    group_left + s * bar_width, y, bar_width * 0.92, TOP + plot_height - y,
                    palette[s % 8]);
            write_escaped(out, chart->group_names[g]);
            fprintf(out, ", ");
            write_escaped(out, chart->series_names[s]);
            fprintf(out, ": %.4g</title></rect>\n", value);
        }
        /* "lab 4 (global atomics)" on two lines: "lab 4", then "(global atomics)". */
        const char *name = chart->group_names[g], *detail = strstr(name, " (");
        double x = LEFT + (g + 0.5) * group_width;
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
                TOP + plot_height + 22);
        write_escaped_prefix(out, name, detail ? (size_t)(detail - name) : strlen(name));
        if (detail) {
            fprintf(out, "<tspan x=\"%.1f\" dy=\"16\">", x);
            write_escaped(out, detail + 1);
            fprintf(out, "</tspan>");
        }
        fprintf(out, "</text>\n");
    }
    fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", LEFT,
            TOP + plot_height, LEFT + plot_width, TOP + plot_height);

    if (chart->reference_value > 0) {
        double y = Y_OF(chart->reference_value);
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
                     "stroke-dasharray=\"6 4\"/>\n",
                LEFT, y, LEFT + plot_width, y);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#c00\">", LEFT + 6, y - 6);
        write_escaped(out, chart->reference_label);
        fprintf(out, "</text>\n");
    }

    for (int s = 0; s < chart->series_count; s++) {
        double y = TOP + 20 + 20 * s;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                LEFT + plot_width + 10, y - 10, palette[s % 8]);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", LEFT + plot_width + 28, y);
        write_escaped(out, chart->series_names[s]);
        fprintf(out, "</text>\n");
    }
    fprintf(out, "</g>\n");
#undef Y_OF
}

int write_bar_charts_svg(FILE *out, const struct bar_chart *charts, int count)
{
    double low, high;
    if (count <= 0)
        return -1;
    for (int c = 0; c < count; c++)
        if (!chart_scale(&charts[c], &low, &high))
            return -1;
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n",
            WIDTH, HEIGHT * count, WIDTH, HEIGHT * count);
    for (int c = 0; c < count; c++)
        draw_chart(out, &charts[c], c * HEIGHT);
    fprintf(out, "</svg>\n");
    return ferror(out) ? -1 : 0;
}

int write_bar_chart_svg(FILE *out, const struct bar_chart *chart)
{
    return write_bar_charts_svg(out, chart, 1);
}
