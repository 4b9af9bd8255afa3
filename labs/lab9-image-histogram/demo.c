/* Runs your lab 9 code once, from the kit's folder:
 *   build/student/lab9-image-histogram/demo [FILE [THREADS_PER_BLOCK]]
 * counts FILE, by default grader/data/camera.pgm. */
#include "lab9.h"

#include "image_demo.h"

int main(int argc, char **argv)
{
    const struct small_demo_entry small[] = {
        {"lab9_histogram16_global", lab9_histogram16_global},
        {"lab9_histogram16_shared", lab9_histogram16_shared},
    };
    const struct byte_demo_entry bytes[] = {
        {"lab9_histogram256_private", lab9_histogram256_private},
        {"lab9_histogram256", lab9_histogram256},
    };
    return run_image_demo(argc, argv, lab9_histogram16_host, small, 2, bytes, 2);
}
