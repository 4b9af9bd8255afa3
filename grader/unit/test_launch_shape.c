/* The launch shapes a contract asks for (grading.h launch_shape_rule), one launch at a time:
 * host code, no GPU. */
#include "grading.h"

#include <criterion/criterion.h>

static bool keeps(unsigned int grid_x, unsigned int block_x, struct launch_shape_rule rule)
{
    const unsigned int grid[3] = {grid_x, 1, 1}, block[3] = {block_x, 1, 1};
    return launch_keeps_shape(grid, block, rule);
}

/* Lab 6 part A: just enough blocks for its threads' stretches of chars_per_thread bytes (or one
 * more), in blocks of any size; a kernel of one byte a thread (lab 6's no-coarsening exploit),
 * a grid one block short or two over, is another launch. */
Test(launch_shape, a_grid_just_covering_the_text)
{
    struct launch_shape_rule seven = {.elements = 1000, .elements_per_thread = 7};
    cr_expect(keeps(1, 256, seven));     /* 1000 bytes at 7 a thread: 143 threads, one block */
    cr_expect(keeps(2, 96, seven));      /* 143 threads in blocks of 96: two */
    cr_expect_not(keeps(4, 256, seven)); /* a thread a byte: 1000 threads */
    cr_expect_not(keeps(1, 96, seven));  /* one block short: the tail is never counted */
    cr_expect(keeps(3, 96, seven));      /* one block more: `n / size + 1` rounds up so */
    cr_expect_not(keeps(4, 96, seven));  /* two more */
    struct launch_shape_rule one = {.elements = 4097, .elements_per_thread = 1};
    cr_expect(keeps(17, 256, one));
    cr_expect_not(keeps(16, 256, one));
    /* Past 4 GiB: 2^32 + 257 bytes at 16 a thread, in blocks of 256. */
    struct launch_shape_rule past_4gib = {.elements = (1ull << 32) + 257, .elements_per_thread = 16};
    cr_expect(keeps(1048577, 256, past_4gib));
    cr_expect_not(keeps(1048576, 256, past_4gib));
}

/* Lab 6 parts B and C: exactly `blocks` blocks, of any size; lab 9 part A and the count labs:
 * blocks of the caller's size. Every rule asks for a 1-D grid of 1-D blocks. */
Test(launch_shape, a_fixed_grid_and_a_fixed_block)
{
    struct launch_shape_rule three_blocks = {.blocks = 3};
    cr_expect(keeps(3, 256, three_blocks));
    cr_expect(keeps(3, 1024, three_blocks));
    cr_expect_not(keeps(4, 256, three_blocks));
    struct launch_shape_rule block_of_128 = {.threads_per_block = 128};
    cr_expect(keeps(99, 128, block_of_128));
    cr_expect_not(keeps(99, 256, block_of_128));
    const unsigned int grid_2d[3] = {3, 2, 1}, block[3] = {256, 1, 1};
    cr_expect_not(launch_keeps_shape(grid_2d, block, three_blocks));
    const unsigned int grid[3] = {3, 1, 1}, block_2d[3] = {16, 16, 1};
    cr_expect_not(launch_keeps_shape(grid, block_2d, three_blocks));
}
