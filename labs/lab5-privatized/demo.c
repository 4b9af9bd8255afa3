/* Runs your lab 5 code once. Run: build/student/lab5-privatized/demo [FILE] */
#include "lab5.h"

#include "histogram_demo.h"

int main(int argc, char **argv)
{
    const struct demo_entry entries[] = {
        {"lab5_histogram_private_global", lab5_histogram_private_global},
        {"lab5_histogram_private_shared", lab5_histogram_private_shared},
        {"lab5_histogram_reduced", lab5_histogram_reduced},
    };
    return run_histogram_demo(argc, argv, entries, 3);
}
