/* make bench's host side: the bandwidth arithmetic and the SVG chart. */
#define _POSIX_C_SOURCE 200809L
#include "bandwidth.h"
#include "chart.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(bandwidth, gigabytes_per_second)
{
    cr_expect_float_eq(gigabytes_per_second(1000000000ull, 1000.0), 1.0, 1e-12);
    cr_expect_float_eq(gigabytes_per_second(1ull << 30, 0.256), 4194.304, 1e-6);
    cr_expect_eq(gigabytes_per_second(100, 0.0), 0.0, "a time of 0 gives no rate");
}

Test(bandwidth, a_copy_moves_twice_its_bytes)
{
    /* Reading N bytes in the time a copy of N bytes takes is half the copy's traffic. */
    cr_expect_float_eq(percent_of_copy_bandwidth(1 << 20, 1.0, 1 << 20, 1.0), 50.0, 1e-9);
    /* ... and reading them in half that time is as fast as the copy moves bytes. */
    cr_expect_float_eq(percent_of_copy_bandwidth(1 << 20, 0.5, 1 << 20, 1.0), 100.0, 1e-9);
    cr_expect_eq(percent_of_copy_bandwidth(1 << 20, 0.5, 1 << 20, 0.0), 0.0);
}

static char *chart_to_string(const struct bar_chart *chart, int *status)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    cr_assert(out);
    *status = write_bar_chart_svg(out, chart);
    fclose(out);
    return buffer;
}

static int count_of(const char *text, const char *what)
{
    int count = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        count++;
    return count;
}

Test(chart, one_bar_per_value_a_legend_and_the_copy_line)
{
    const char *groups[] = {"lab 4 (global atomics)", "lab 8 (challenge)", "CUB"};
    const char *series[] = {"english-like", "random-bytes"};
    const double values[] = {3.9, 20.0, 3900.0, 3800.0, 3000.0, 2000.0};
    struct bar_chart chart = {"GB/s", "GB/s (log scale)", 3, groups, 2, series, values,
                              4139.0, "copy: 4139 GB/s"};
    int status;
    char *svg = chart_to_string(&chart, &status);
    cr_assert_eq(status, 0);
    cr_expect(strncmp(svg, "<svg ", 5) == 0 && strstr(svg, "</svg>\n") != NULL);
    /* One bar per value (each with a <title> tooltip), one legend swatch per series. */
    cr_expect_eq(count_of(svg, "<title>"), 6);
    cr_expect_eq(count_of(svg, "<rect "), 1 + 6 + 2);
    cr_expect(strstr(svg, "lab 8 (challenge), random-bytes: 3800</title>") != NULL);
    cr_expect(strstr(svg, "stroke-dasharray") && strstr(svg, "copy: 4139 GB/s"));
    /* The two-line group label, and powers of ten from 1 to 10000 on the axis. */
    cr_expect(strstr(svg, ">lab 4<tspan") && strstr(svg, ">(global atomics)</tspan>"));
    cr_expect(strstr(svg, ">1</text>") && strstr(svg, ">10000</text>"));
    free(svg);
}

Test(chart, escapes_markup_in_names)
{
    const char *groups[] = {"a<b & c"};
    const char *series[] = {"\"quoted\""};
    const double values[] = {1.5};
    struct bar_chart chart = {"x > y", "", 1, groups, 1, series, values, 0, NULL};
    int status;
    char *svg = chart_to_string(&chart, &status);
    cr_assert_eq(status, 0);
    cr_expect(strstr(svg, "a&lt;b &amp; c") && strstr(svg, "&quot;quoted&quot;") &&
              strstr(svg, "x &gt; y"));
    cr_expect(strstr(svg, "a<b") == NULL);
    free(svg);
}

Test(chart, refuses_what_a_log_scale_cannot_show)
{
    const char *groups[] = {"lab"};
    const char *series[] = {"input"};
    const double zero[] = {0.0};
    struct bar_chart chart = {"t", "y", 1, groups, 1, series, zero, 0, NULL};
    int status;
    char *svg = chart_to_string(&chart, &status);
    cr_expect_eq(status, -1, "a bar of 0 has no place on a log scale");
    free(svg);
    chart.group_count = 0;
    svg = chart_to_string(&chart, &status);
    cr_expect_eq(status, -1, "nothing to draw");
    free(svg);
}

Test(chart, charts_one_above_the_other)
{
    const char *groups[] = {"lab 8", "CUB"};
    const char *letter_inputs[] = {"english-like"};
    const char *image_inputs[] = {"photo", "noise", "dark"};
    const double letter_rates[] = {3900.0, 3000.0};
    const double image_rates[] = {3800.0, 3700.0, 3900.0, 2000.0, 2100.0, 3000.0};
    const struct bar_chart charts[] = {
        {"letters", "GB/s", 2, groups, 1, letter_inputs, letter_rates, 4100.0, "copy"},
        {"images", "GB/s", 2, groups, 3, image_inputs, image_rates, 4100.0, "copy"},
    };
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    cr_assert(out);
    cr_assert_eq(write_bar_charts_svg(out, charts, 2), 0);
    fclose(out);
    /* One picture twice as high, two boxes, every bar and legend swatch of both charts. */
    cr_expect(strstr(buffer, "height=\"1080\"") != NULL);
    cr_expect_eq(count_of(buffer, "<g transform="), 2);
    cr_expect(strstr(buffer, "translate(0 540)") != NULL);
    cr_expect_eq(count_of(buffer, "<title>"), 2 + 6);
    cr_expect_eq(count_of(buffer, "<rect "), (1 + 2 + 1) + (1 + 6 + 3));
    free(buffer);

    const double not_positive[] = {1.0, 0.0, 1.0, 1.0, 1.0, 1.0};
    struct bar_chart broken[] = {charts[0], charts[1]};
    broken[1].values = not_positive;
    out = open_memstream(&buffer, &size);
    cr_expect_eq(write_bar_charts_svg(out, broken, 2), -1,
                 "a bad value in any chart draws nothing");
    fclose(out);
    cr_expect_eq(size, 0);
    free(buffer);
}
