/* Runs your lab 8 code once. Run: build/student/lab8-challenge/demo [FILE] */
#include "lab8.h"

#include "histogram_demo.h"

int main(int argc, char **argv)
{
    const struct demo_entry entries[] = {{"lab8_histogram", lab8_histogram}};
    return run_histogram_demo(argc, argv, entries, 1);
}
