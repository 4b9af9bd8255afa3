/* Runs your lab 3 code once. Run: build/student/lab3-count-shared/demo [BLOCKS THREADS] */
#include "lab3.h"

#include "counting.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    unsigned int blocks, threads_per_block;
    if (launch_shape_from_arguments(argc, argv, &blocks, &threads_per_block) != 0)
        return 2;
    printf("%u blocks of %u threads, counted in shared memory, one global atomic a block\n",
           blocks, threads_per_block);
    float elapsed_ms = 0.0f;
    unsigned long long count =
        run_count_once(lab3_launch_shared_count, blocks, threads_per_block, &elapsed_ms);
    print_count_result(stdout, blocks, threads_per_block, count, elapsed_ms);
    printf("(a single first run includes start-up costs; ./grade lab3 times it properly)\n");
    return 0;
}
