/* Runs your lab 7 code once. Run: build/student/lab7-aggregated/demo [FILE] */
#include "lab7.h"

#include "histogram_demo.h"

int main(int argc, char **argv)
{
    const struct demo_entry entries[] = {
        {"lab7_histogram_aggregated", lab7_histogram_aggregated},
        {"lab7_histogram_global_contiguous (given)", lab7_histogram_global_contiguous},
        {"lab7_histogram_global_aggregated", lab7_histogram_global_aggregated},
    };
    return run_histogram_demo(argc, argv, entries, 3);
}
