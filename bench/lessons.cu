/* make lessons: the controlled experiments behind the handouts' explanations of why a kernel is
 * as fast as it is. Each table changes one thing and keeps the rest: the form of an atomic (labs
 * 2-4), whether a block's private bins are in shared or in global memory (labs 3, 5 and 9), how
 * the bytes are handed to the threads and how many each thread has in flight (lab 6),
 * aggregation with each partitioning (lab 7), where 256 bins live in shared memory (lab 9).
 * `lessons --properties` prints the GPU's properties that the handouts' arithmetic uses.
 * Every run's result is checked; each figure is the median of alternating timed runs
 * (common/timing.h). make results records the output, with the
 * machine code of these kernels, in docs/results/.
 *
 * usage: lessons [--bytes N] [--runs N] [--seed N] [--out FILE] | lessons --properties
 * Exit status: 0 done, 1 a wrong result or an unwritable file, 2 bad usage, 3 no GPU. */
#include "bandwidth.h"
#include "options.h"
#include "cuda_check.h"
#include "device.h"
#include "histogram.h"
#include "image_reference.h"
#include "images.h"
#include "inputs.h"
#include "compare.h"
#include "repeated_text.h"
#include "report.h"
#include "timing.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS_PER_BLOCK 256
#define BLOCKS_PER_MULTIPROCESSOR 8 /* 8 x 256 threads: as many as a multiprocessor holds */
#define BLOCK_BYTES (16ull << 20)  /* generated on the host, repeated on the GPU */
#define COUNT_BLOCKS 32768u        /* the slides' count: 32K blocks of 1024 threads */
#define COUNT_THREADS_PER_BLOCK 1024u

/* ---------------------------------------------------------------------------------------- */
/* Labs 2-4: one counter, with and without the compiler's merging of a warp's atomics.       */
/* ---------------------------------------------------------------------------------------- */

// As lab 2 writes it. nvcc sees that every thread of a warp adds the same 1 to the same
// address and sends one add of the warp's active-thread count instead (look for POPC).
__global__ void count_as_written_kernel(unsigned long long *count)
{
    atomicAdd(count, 1ULL);
}

// The same increment, but each thread's 1 is read from memory: the compiler cannot know the
// values are equal, so every thread sends its own atomic.
__global__ void count_value_from_memory_kernel(unsigned long long *count,
                                               const unsigned long long *ones)
{
    atomicAdd(count, ones[threadIdx.x % 32]);
}

// The same increment as an instruction the compiler must emit as it stands.
__global__ void count_inline_ptx_kernel(unsigned long long *count)
{
    asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(count) : "memory");
}

// The same increment whose old value each thread uses.
__global__ void count_old_value_used_kernel(unsigned long long *count, unsigned int *never)
{
    unsigned long long old = atomicAdd(count, 1ULL);
    if (old == ~0ull)
        *never = 1;
}

// Lab 2's float sum by a compare-and-swap loop, each thread counting the times it goes round:
// the total into *tries, the most of one thread into *most_tries (lab 2, question 5).
__global__ void cas_sum_counting_kernel(const float *values, unsigned int count, float *sum,
                                        unsigned long long *tries, unsigned int *most_tries)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    unsigned int *word = (unsigned int *)sum;
    unsigned int old = *word, assumed, mine = 0;
    do {
        assumed = old;
        mine++;
        old = atomicCAS(word, assumed, __float_as_uint(__uint_as_float(assumed) + values[i]));
    } while (old != assumed);
    atomicAdd(tries, (unsigned long long)mine);
    atomicMax(most_tries, mine);
}

// Lab 4's kernel: one global atomic per letter, on the letter's bin.
__global__ void letters_global_atomic_kernel(const char *text, uint64_t length,
                                             unsigned long long *histogram)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&histogram[position / LETTERS_PER_BIN], 1ULL);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Labs 3, 5 and 9: a block's private bins in shared memory or in global memory, nothing else */
/* changed.                                                                                   */
/* ---------------------------------------------------------------------------------------- */

// Lab 5's privatized kernel on a fixed grid (the threads loop over the text): each block counts
// into bins of its own, which live in shared memory or in the block's own part of a buffer in
// global memory; the block zeroes them, counts, and commits them the same way in both. `spread`
// is the distance between two bins of a block, in words: 1 puts them side by side, 32 puts each
// on a 128-byte line of its own.
template <bool in_shared_memory, int spread>
__global__ void bins_place_kernel(const char *text, uint64_t length, unsigned long long *histogram,
                                  unsigned int *global_bins)
{
    __shared__ unsigned int shared_bins[HISTOGRAM_BINS * spread];
    unsigned int *bins = in_shared_memory
                             ? shared_bins
                             : global_bins + (size_t)blockIdx.x * HISTOGRAM_BINS * spread;
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        bins[bin * spread] = 0;
    __syncthreads();
    uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < length; i += threads) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&bins[position / LETTERS_PER_BIN * spread], 1u);
    }
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        if (bins[bin * spread] > 0)
            atomicAdd(&histogram[bin], (unsigned long long)bins[bin * spread]);
}

/* ---------------------------------------------------------------------------------------- */
/* Labs 6-7: one histogram kernel whose partitioning, bytes in flight, aggregation and bins   */
/* are template parameters, so that two rows of a table differ in exactly one of them.        */
/* ---------------------------------------------------------------------------------------- */

enum partitioning { CONTIGUOUS, INTERLEAVED };

__device__ int bin_of(char byte)
{
    int position = byte - 'a';
    return position >= 0 && position < 26 ? position / LETTERS_PER_BIN : -1;
}

// Counts into shared bins (privatized, labs 5-7) or straight into the global histogram.
template <bool shared_bins>
__device__ void add_to_bin(unsigned int *block_bins, unsigned long long *histogram, int bin,
                           unsigned int amount)
{
    if (shared_bins)
        atomicAdd(&block_bins[bin], amount);
    else
        atomicAdd(&histogram[bin], (unsigned long long)amount);
}

// A run of letters of one bin not yet added (lab 7); non-letters neither end nor extend it.
struct pending_run {
    int bin;
    unsigned int length;
};

template <bool aggregate, bool shared_bins>
__device__ void count_letter(unsigned int *block_bins, unsigned long long *histogram,
                             struct pending_run *run, char byte)
{
    int bin = bin_of(byte);
    if (bin < 0)
        return;
    if (!aggregate) {
        add_to_bin<shared_bins>(block_bins, histogram, bin, 1);
    } else if (bin == run->bin) {
        run->length++;
    } else {
        if (run->length > 0)
            add_to_bin<shared_bins>(block_bins, histogram, run->bin, run->length);
        *run = (struct pending_run){bin, 1};
    }
}

// Every thread loads `in_flight` bytes before it counts any of them, so that that many loads
// of each thread are on their way to memory at once. The grid is fixed (a full GPU), so that
// partitioning and bytes in flight are the only differences between two variants.
template <enum partitioning partitioning, int in_flight, bool aggregate, bool shared_bins>
__global__ void lesson_histogram_kernel(const char *text, uint64_t length,
                                        unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    if (shared_bins) {
        for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
            block_bins[bin] = 0;
        __syncthreads();
    }

    uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    // Contiguous: this thread's stretch, a whole number of in_flight-byte steps long.
    // Interleaved: byte k of a step is in_flight * threads bytes after the step's first.
    uint64_t steps = (length + threads * in_flight - 1) / (threads * in_flight);
    uint64_t first = partitioning == CONTIGUOUS ? thread * steps * in_flight : thread;
    uint64_t step_stride = partitioning == CONTIGUOUS ? in_flight : threads * in_flight;
    uint64_t byte_stride = partitioning == CONTIGUOUS ? 1 : threads;

    struct pending_run run = {-1, 0};
    for (uint64_t step = 0; step < steps; step++) {
        uint64_t start = first + step * step_stride;
        char bytes[in_flight];
#pragma unroll
        for (int k = 0; k < in_flight; k++) {
            uint64_t i = start + k * byte_stride;
            bytes[k] = i < length ? text[i] : 0; // 0 is no letter
        }
#pragma unroll
        for (int k = 0; k < in_flight; k++)
            count_letter<aggregate, shared_bins>(block_bins, histogram, &run, bytes[k]);
    }
    if (aggregate && run.length > 0)
        add_to_bin<shared_bins>(block_bins, histogram, run.bin, run.length);

    if (shared_bins) {
        __syncthreads();
        for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
            if (block_bins[bin] > 0)
                atomicAdd(&histogram[bin], (unsigned long long)block_bins[bin]);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Lab 6: what sets the speed of a read. Little's law: bytes in flight = bandwidth x latency. */
/* ---------------------------------------------------------------------------------------- */

// Reads the text interleaved, `loads` loads of `Word` a thread in flight, and keeps only a sum
// (written where nobody looks unless it is an impossible value, so the loads stay).
template <typename Word, int loads>
__global__ void read_kernel(const char *text, uint64_t length, unsigned long long *sink)
{
    const Word *words = (const Word *)text;
    uint64_t count = length / sizeof(Word);
    uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int sum = 0;
    for (uint64_t start = thread; start < count; start += threads * loads) {
        Word got[loads];
#pragma unroll
        for (int k = 0; k < loads; k++) {
            uint64_t i = start + (uint64_t)k * threads;
            got[k] = i < count ? words[i] : Word{};
        }
#pragma unroll
        for (int k = 0; k < loads; k++) {
            const unsigned char *b = (const unsigned char *)&got[k];
            for (int j = 0; j < (int)sizeof(Word); j += 4)
                sum += b[j];
        }
    }
    if (sum == 0xFFFFFFFFu)
        *sink = sum;
}

// One thread follows a chain of indices: each load must wait for the one before, so the time
// per step is the latency of one read. It starts where the last run stopped, so that no run
// revisits what an earlier one brought into the caches (unless the chain is short).
__global__ void pointer_chase_kernel(const unsigned int *next, unsigned int steps,
                                     unsigned int *position)
{
    unsigned int at = *position;
    for (unsigned int s = 0; s < steps; s++)
        at = next[at];
    *position = at;
}

/* ---------------------------------------------------------------------------------------- */
/* Host side: launching, checking and timing the variants.                                   */

/* ---------------------------------------------------------------------------------------- */
/* Lab 9: 256 bins of 8-bit pixels, where a warp's 32 increments meet in shared-memory banks.  */
/* ---------------------------------------------------------------------------------------- */

enum image_bins {
    A_COPY_A_BLOCK,  // bins[256]: lab 5's private bins
    A_COPY_A_WARP,   // bins[warp][256 + pad]
    A_COLUMN_A_LANE, // bins[copy][bin][lane], a warp's lanes in 32 different banks
};
#define IMAGE_THREADS 1024 // one block a multiprocessor: the lane columns need its shared memory
#define IMAGE_WARPS (IMAGE_THREADS / 32)

template <enum image_bins layout, int pad, int copies, bool packed>
__host__ __device__ constexpr unsigned int image_counter_words()
{
    return layout == A_COPY_A_BLOCK  ? 256
           : layout == A_COPY_A_WARP ? IMAGE_WARPS * (256 + pad)
                                     : copies * (packed ? 128 : 256) * 32;
}

// The kernels of the lab 9 table: one thing changes from row to row. `packed` keeps two 16-bit
// counters in a word (half the shared memory, more instructions a pixel). The image is a whole
// number of 16-byte words.
template <enum image_bins layout, int pad, int copies, int loads, bool packed>
__global__ void __launch_bounds__(IMAGE_THREADS, 1)
    lesson_image_kernel(const char *image, uint64_t pixels, unsigned long long *histogram)
{
    extern __shared__ unsigned int counters[];
    const unsigned int words = image_counter_words<layout, pad, copies, packed>();
    for (unsigned int c = threadIdx.x; c < words; c += blockDim.x)
        counters[c] = 0;
    __syncthreads();
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int *copy_of_warp = counters + (warp % copies) * (words / copies);
    unsigned int *mine = layout == A_COPY_A_BLOCK  ? counters
                         : layout == A_COPY_A_WARP ? counters + warp * (256 + pad)
                                                   : copy_of_warp + lane;
    const unsigned int bin_stride = layout == A_COLUMN_A_LANE ? 32 : 1;

    const uint4 *image_words = (const uint4 *)image;
    uint64_t word_count = pixels / 16, stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < word_count;
         i += loads * stride) {
        uint4 loaded[loads];
#pragma unroll
        for (int l = 0; l < loads; l++)
            loaded[l] = i + l * stride < word_count ? image_words[i + l * stride]
                                                    : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int l = 0; l < loads; l++) {
            if (i + l * stride >= word_count)
                break;
            unsigned int four[4] = {loaded[l].x, loaded[l].y, loaded[l].z, loaded[l].w};
#pragma unroll
            for (int w = 0; w < 4; w++)
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    unsigned int pixel = (four[w] >> (8 * k)) & 0xFF;
                    if (packed)
                        atomicAdd(&mine[(pixel / 2) * bin_stride], 1u << (pixel % 2 * 16));
                    else
                        atomicAdd(&mine[pixel * bin_stride], 1u);
                }
        }
    }
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < 256; bin += blockDim.x) {
        unsigned int count = 0;
        if (layout == A_COPY_A_BLOCK)
            count = counters[bin];
        else if (layout == A_COPY_A_WARP)
            for (unsigned int w = 0; w < IMAGE_WARPS; w++)
                count += counters[w * (256 + pad) + bin];
        else
            for (unsigned int c = 0; c < copies; c++)
                for (unsigned int l = 0; l < 32; l++) {
                    unsigned int row = packed ? bin / 2 : bin;
                    unsigned int word = counters[c * (words / copies) + row * 32 + (bin + l) % 32];
                    count += packed ? (word >> (bin % 2 * 16)) & 0xFFFF : word;
                }
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
}

/* ---------------------------------------------------------------------------------------- */


// What one variant needs to run and to be checked.
struct variant_run {
    void (*launch)(const struct variant_run *run);
    const void *kernel; // a kernel of (text, length, result), launched by launch_text_kernel
    const char *d_text;
    uint64_t length;
    unsigned long long *d_result;
    const unsigned long long *expected; // HISTOGRAM_BINS counts, or 1 (a count)
    int result_words;
    const unsigned long long *d_ones;
    unsigned int *d_never;
    unsigned int shared_bytes; // dynamic shared memory of an image kernel
    unsigned int *d_global_bins; // the private bins of a bins_place_kernel in global memory
};

static void run_variant(void *context)
{
    const struct variant_run *run = (const struct variant_run *)context;
    CUDA_CHECK(cudaMemset(run->d_result, 0, run->result_words * sizeof *run->d_result));
    run->launch(run);
}

static bool variant_result_is_right(void *context)
{
    const struct variant_run *run = (const struct variant_run *)context;
    if (!run->expected)
        return true;
    unsigned long long got[PIXEL_VALUES];
    CUDA_CHECK(cudaMemcpy(got, run->d_result, run->result_words * sizeof *got,
                          cudaMemcpyDeviceToHost));
    return memcmp(got, run->expected, run->result_words * sizeof *got) == 0;
}

static unsigned int full_gpu_blocks(void)
{
    return BLOCKS_PER_MULTIPROCESSOR * (unsigned int)gpu_multiprocessors();
}

// Launches run->kernel, a kernel of (text, length, result), in `blocks` blocks.
static void launch_text_kernel(const struct variant_run *run, unsigned int blocks)
{
    void *arguments[] = {(void *)&run->d_text, (void *)&run->length, (void *)&run->d_result};
    CUDA_CHECK(cudaLaunchKernel(run->kernel, blocks, THREADS_PER_BLOCK, arguments, 0, 0));
}

static void launch_on_full_gpu(const struct variant_run *run)
{
    launch_text_kernel(run, full_gpu_blocks());
}

// A bins_place_kernel: (text, length, result, global bins) on the full GPU.
static void launch_bins_place_kernel(const struct variant_run *run)
{
    void *arguments[] = {(void *)&run->d_text, (void *)&run->length, (void *)&run->d_result,
                         (void *)&run->d_global_bins};
    CUDA_CHECK(cudaLaunchKernel(run->kernel, full_gpu_blocks(), THREADS_PER_BLOCK, arguments, 0, 0));
}

// The grid of lab 6's contiguous reference: sized to the text, so that each thread does one
// step of 16 bytes and is done.
#define ONE_STEP_BYTES 16
static void launch_one_step_a_thread(const struct variant_run *run)
{
    uint64_t bytes_a_block = (uint64_t)THREADS_PER_BLOCK * ONE_STEP_BYTES;
    launch_text_kernel(run, (unsigned int)((run->length + bytes_a_block - 1) / bytes_a_block));
}

// An image kernel: one block of IMAGE_THREADS a multiprocessor, with its shared memory.
static void launch_image_kernel(const struct variant_run *run)
{
    CUDA_CHECK(cudaFuncSetAttribute(run->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)run->shared_bytes));
    void *arguments[] = {(void *)&run->d_text, (void *)&run->length, (void *)&run->d_result};
    CUDA_CHECK(cudaLaunchKernel(run->kernel, gpu_multiprocessors(), IMAGE_THREADS, arguments,
                                run->shared_bytes, 0));
}

static void launch_letters_global_atomic(const struct variant_run *run)
{
    unsigned int blocks = (unsigned int)((run->length + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK);
    letters_global_atomic_kernel<<<blocks, THREADS_PER_BLOCK>>>(run->d_text, run->length,
                                                                run->d_result);
    CUDA_CHECK_LAUNCH();
}

static void launch_count_as_written(const struct variant_run *run)
{
    count_as_written_kernel<<<COUNT_BLOCKS, COUNT_THREADS_PER_BLOCK>>>(run->d_result);
    CUDA_CHECK_LAUNCH();
}

static void launch_count_value_from_memory(const struct variant_run *run)
{
    count_value_from_memory_kernel<<<COUNT_BLOCKS, COUNT_THREADS_PER_BLOCK>>>(run->d_result,
                                                                              run->d_ones);
    CUDA_CHECK_LAUNCH();
}

static void launch_count_inline_ptx(const struct variant_run *run)
{
    count_inline_ptx_kernel<<<COUNT_BLOCKS, COUNT_THREADS_PER_BLOCK>>>(run->d_result);
    CUDA_CHECK_LAUNCH();
}

static void launch_count_old_value_used(const struct variant_run *run)
{
    count_old_value_used_kernel<<<COUNT_BLOCKS, COUNT_THREADS_PER_BLOCK>>>(run->d_result,
                                                                           run->d_never);
    CUDA_CHECK_LAUNCH();
}

// Times the variants (alternating) and returns false if any gave a wrong result.
static bool time_variants(const char *table_name, struct variant_run *runs, const char **names,
                          int count, int timed_runs, double *ms)
{
    struct timed_variant variants[16];
    memset(variants, 0, sizeof variants);
    for (int v = 0; v < count; v++) {
        variants[v].name = names[v];
        variants[v].run = run_variant;
        variants[v].result_is_right = variant_result_is_right;
        variants[v].context = &runs[v];
    }
    time_alternating(variants, count, 1, timed_runs);
    bool right = true;
    for (int v = 0; v < count; v++) {
        ms[v] = variants[v].time_ms;
        if (variants[v].wrong_results > 0) {
            fprintf(stderr, "lessons: %s: %s gave a wrong result in %d runs\n", table_name,
                    names[v], variants[v].wrong_results);
            right = false;
        }
    }
    return right;
}

/* Fills d_text with `kind`, repeated from a 16 MiB block, and its histogram. */
static void make_text(enum text_kind kind, const struct bench_options *options, char *d_text,
                      unsigned long long expected[HISTOGRAM_BINS])
{
    uint64_t block_length = options->bytes < BLOCK_BYTES ? options->bytes : BLOCK_BYTES;
    char *block = (char *)malloc(block_length);
    if (!block) {
        fprintf(stderr, "lessons: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    generate_text(kind, options->seed, block, block_length);
    repeat_on_device(d_text, options->bytes, block, block_length);
    histogram_of_repeated(block, block_length, options->bytes, expected);
    free(block);
}

static uint64_t letters_in(const unsigned long long histogram[HISTOGRAM_BINS])
{
    uint64_t letters = 0;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        letters += histogram[bin];
    return letters;
}

static void cell(char *out, const char *format, double value)
{
    snprintf(out, TABLE_CELL_SIZE, format, value);
}

/* ---------------------------------------------------------------------------------------- */

struct buffers {
    char *d_text;
    char *d_copy;
    unsigned long long *d_results[16];
    unsigned long long *d_ones;
    unsigned int *d_never;
    unsigned int *d_global_bins; // bins_place_kernel's private bins in global memory
};

static bool one_counter(FILE *out, const struct bench_options *options, const struct buffers *b)
{
    static const struct counter_form {
        const char *name, *form;
        void (*launch)(const struct variant_run *);
    } forms[] = {
        /* In words, not lab 2's statement: the table ships with the labs (issue 29). */
        {"count_as_written_kernel", "an atomic add of the constant 1 (lab 2)", launch_count_as_written},
        {"count_value_from_memory_kernel", "an atomic add of a 1 read from memory",
         launch_count_value_from_memory},
        {"count_inline_ptx_kernel", "`red.relaxed.gpu.global.add.u64` (inline PTX)",
         launch_count_inline_ptx},
        {"count_old_value_used_kernel", "an atomic add of 1 whose old value is used",
         launch_count_old_value_used},
    };
    enum { FORMS = sizeof forms / sizeof forms[0] };
    const unsigned long long threads = (unsigned long long)COUNT_BLOCKS * COUNT_THREADS_PER_BLOCK;
    struct variant_run runs[FORMS];
    const char *names[FORMS];
    double ms[FORMS];
    for (int f = 0; f < FORMS; f++) {
        runs[f] = (struct variant_run){forms[f].launch, NULL, NULL, 0, b->d_results[f], &threads,
                                       1, b->d_ones, b->d_never, 0, NULL};
        names[f] = forms[f].name;
    }
    bool right = time_variants("one counter", runs, names, FORMS, options->runs, ms);

    fprintf(out, "\n## Labs 2-4: one counter, %llu threads (%u blocks of %u), each adding 1\n\n"
                 "The form of the add is the only difference. Whether the compiler merged a "
                 "warp's adds is in the machine code below (a POPC before a single RED).\n\n",
            threads, COUNT_BLOCKS, COUNT_THREADS_PER_BLOCK);
    const char *headers[] = {"kernel", "the add", "median time", "adds per ns"};
    struct table table;
    table_init(&table, 4, headers);
    for (int f = 0; f < FORMS; f++) {
        char time_text[TABLE_CELL_SIZE], rate[TABLE_CELL_SIZE];
        format_ms(time_text, sizeof time_text, ms[f]);
        cell(rate, "%.2f", threads / (ms[f] * 1e6));
        const char *cells[] = {forms[f].name, forms[f].form, time_text, rate};
        table_add_row(&table, cells);
    }
    table_print(out, &table);

    // Lab 4's kernel: the same kind of add, on the bin of each letter.
    static const enum text_kind kinds[] = {TEXT_ONE_LETTER, TEXT_UNIFORM_LETTERS,
                                           TEXT_ENGLISH_LIKE, TEXT_RANDOM_BYTES};
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    fprintf(out, "\n### Lab 4's kernel (`letters_global_atomic_kernel`), %" PRIu64
                 " MiB of each text\n\n",
            options->bytes >> 20);
    const char *letter_headers[] = {"text", "letters", "median time", "letters per ns"};
    table_init(&table, 4, letter_headers);
    for (int k = 0; k < KINDS; k++) {
        unsigned long long expected[HISTOGRAM_BINS];
        make_text(kinds[k], options, b->d_text, expected);
        struct variant_run run = {launch_letters_global_atomic, NULL, b->d_text, options->bytes,
                                  b->d_results[0], expected, HISTOGRAM_BINS, NULL, NULL, 0, NULL};
        const char *name = text_kind_name(kinds[k]);
        double time_ms;
        right &= time_variants("lab 4's kernel", &run, &name, 1, options->runs, &time_ms);
        char letters[TABLE_CELL_SIZE], time_text[TABLE_CELL_SIZE], rate[TABLE_CELL_SIZE];
        snprintf(letters, sizeof letters, "%" PRIu64, letters_in(expected));
        format_ms(time_text, sizeof time_text, time_ms);
        cell(rate, "%.2f", letters_in(expected) / (time_ms * 1e6));
        const char *cells[] = {name, letters, time_text, rate};
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    return right;
}

/* Lab 2, question 5: how many times a thread goes round the CAS loop, in the grader's largest
 * sum (65,537 values, lab 2's whole quarters, so that any order of adds gives the exact sum). */
#define CAS_VALUES 65537u
#define CAS_LAUNCHES 5
static bool cas_tries_table(FILE *out)
{
    static float values[CAS_VALUES];
    double exact = 0.0;
    for (unsigned int i = 0; i < CAS_VALUES; i++) {
        values[i] = 0.25f * (float)(i % 8);
        exact += values[i];
    }
    float *d_values = NULL, *d_sum = NULL;
    unsigned long long *d_tries = NULL;
    unsigned int *d_most = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_values, sizeof values));
    CUDA_CHECK(cudaMalloc((void **)&d_sum, sizeof *d_sum));
    CUDA_CHECK(cudaMalloc((void **)&d_tries, sizeof *d_tries));
    CUDA_CHECK(cudaMalloc((void **)&d_most, sizeof *d_most));
    CUDA_CHECK(cudaMemcpy(d_values, values, sizeof values, cudaMemcpyHostToDevice));
    const unsigned int blocks = (CAS_VALUES + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
    fprintf(out, "\n## Lab 2, question 5: a CAS loop's tries, %u threads (%u blocks of %u) adding "
                 "a float each to one word\n\n"
                 "Each thread counts the times it goes round the loop of atomicCAS; a launch's "
                 "tries a thread are their total over the threads.\n\n",
            CAS_VALUES, blocks, THREADS_PER_BLOCK);
    const char *headers[] = {"launch", "sum right", "tries a thread", "most tries of one thread"};
    struct table table;
    table_init(&table, 4, headers);
    bool right = true;
    for (int launch = 1; launch <= CAS_LAUNCHES; launch++) {
        CUDA_CHECK(cudaMemset(d_sum, 0, sizeof *d_sum));
        CUDA_CHECK(cudaMemset(d_tries, 0, sizeof *d_tries));
        CUDA_CHECK(cudaMemset(d_most, 0, sizeof *d_most));
        cas_sum_counting_kernel<<<blocks, THREADS_PER_BLOCK>>>(d_values, CAS_VALUES, d_sum,
                                                               d_tries, d_most);
        CUDA_CHECK(cudaGetLastError());
        float sum = 0.0f;
        unsigned long long tries = 0;
        unsigned int most = 0;
        CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&tries, d_tries, sizeof tries, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&most, d_most, sizeof most, cudaMemcpyDeviceToHost));
        bool sum_right = (double)sum == exact;
        right &= sum_right;
        char number[TABLE_CELL_SIZE], average[TABLE_CELL_SIZE], most_text[TABLE_CELL_SIZE];
        snprintf(number, sizeof number, "%d", launch);
        cell(average, "%.2f", (double)tries / CAS_VALUES);
        snprintf(most_text, sizeof most_text, "%u", most);
        const char *cells[] = {number, sum_right ? "yes" : "NO", average, most_text};
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    CUDA_CHECK(cudaFree(d_values));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(d_tries));
    CUDA_CHECK(cudaFree(d_most));
    return right;
}

/* Labs 3, 5 and 9: the same privatized kernel with its bins in shared or in global memory. */
static bool bins_place_table(FILE *out, const struct bench_options *options, const struct buffers *b)
{
    static const struct bins_place_row {
        const char *bins;
        const void *kernel;
    } rows[] = {
        {"shared memory", (const void *)bins_place_kernel<true, 1>},
        {"global memory, side by side", (const void *)bins_place_kernel<false, 1>},
        {"global memory, 128 bytes apart", (const void *)bins_place_kernel<false, 32>},
    };
    enum { ROWS = sizeof rows / sizeof rows[0] };
    static const enum text_kind kinds[] = {TEXT_ONE_LETTER, TEXT_UNIFORM_LETTERS,
                                           TEXT_ENGLISH_LIKE, TEXT_RANDOM_BYTES};
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    double ms[KINDS][ROWS];
    bool right = true;
    for (int k = 0; k < KINDS; k++) {
        unsigned long long expected[HISTOGRAM_BINS];
        make_text(kinds[k], options, b->d_text, expected);
        struct variant_run runs[ROWS];
        const char *names[ROWS];
        for (int r = 0; r < ROWS; r++) {
            runs[r] = (struct variant_run){launch_bins_place_kernel, rows[r].kernel, b->d_text,
                                           options->bytes, b->d_results[r], expected,
                                           HISTOGRAM_BINS, NULL, NULL, 0, b->d_global_bins};
            names[r] = rows[r].bins;
        }
        right &= time_variants(text_kind_name(kinds[k]), runs, names, ROWS, options->runs, ms[k]);
    }
    fprintf(out, "\n## Labs 3, 5 and 9: a block's private bins in shared or in global memory\n\n"
                 "`bins_place_kernel`: lab 5's privatized kernel on %u blocks of %u threads (8 a "
                 "multiprocessor; the threads loop over the text, one byte a load), %" PRIu64
                 " MiB of each text. Each block zeroes, counts into and commits bins of its own, "
                 "in its shared memory or in its own part of a buffer in global memory; only "
                 "where the bins live differs, and in the last row how far apart a block's seven "
                 "bins are. Median times:\n\n",
            full_gpu_blocks(), THREADS_PER_BLOCK, options->bytes >> 20);
    const char *headers[1 + KINDS];
    headers[0] = "a block's bins in";
    for (int k = 0; k < KINDS; k++)
        headers[1 + k] = text_kind_name(kinds[k]);
    struct table table;
    table_init(&table, 1 + KINDS, headers);
    for (int r = 0; r < ROWS; r++) {
        char times[KINDS][TABLE_CELL_SIZE];
        const char *cells[1 + KINDS] = {rows[r].bins};
        for (int k = 0; k < KINDS; k++) {
            format_ms(times[k], sizeof times[k], ms[k][r]);
            cells[1 + k] = times[k];
        }
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    fprintf(out, "\nTime with the bins in global memory / time with them in shared memory:\n\n");
    table_init(&table, 1 + KINDS, headers);
    for (int r = 1; r < ROWS; r++) {
        char ratios[KINDS][TABLE_CELL_SIZE];
        const char *cells[1 + KINDS] = {rows[r].bins};
        for (int k = 0; k < KINDS; k++) {
            cell(ratios[k], "%.3g", ms[k][r] / ms[k][0]);
            cells[1 + k] = ratios[k];
        }
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    return right;
}

/* Lab 6: contiguous against interleaved with the same bytes in flight a thread. */
#define HISTOGRAM_VARIANT(partitioning, in_flight, aggregate, shared)                            \
    (const void *)lesson_histogram_kernel<partitioning, in_flight, aggregate, shared>

static bool partitioning_table(FILE *out, const struct bench_options *options, const struct buffers *b,
                               const unsigned long long *expected, double copy_ms)
{
    static const struct partitioning_row {
        const char *partitioning, *grid;
        int in_flight;
        const void *kernel;
        void (*launch)(const struct variant_run *);
    } rows[] = {
        {"contiguous", "8 blocks a multiprocessor", 1,
         HISTOGRAM_VARIANT(CONTIGUOUS, 1, false, true), launch_on_full_gpu},
        {"interleaved", "8 blocks a multiprocessor", 1,
         HISTOGRAM_VARIANT(INTERLEAVED, 1, false, true), launch_on_full_gpu},
        {"contiguous", "8 blocks a multiprocessor", 4,
         HISTOGRAM_VARIANT(CONTIGUOUS, 4, false, true), launch_on_full_gpu},
        {"interleaved", "8 blocks a multiprocessor", 4,
         HISTOGRAM_VARIANT(INTERLEAVED, 4, false, true), launch_on_full_gpu},
        {"contiguous", "8 blocks a multiprocessor", 16,
         HISTOGRAM_VARIANT(CONTIGUOUS, 16, false, true), launch_on_full_gpu},
        {"interleaved", "8 blocks a multiprocessor", 16,
         HISTOGRAM_VARIANT(INTERLEAVED, 16, false, true), launch_on_full_gpu},
        {"contiguous", "one 16-byte step a thread", 16,
         HISTOGRAM_VARIANT(CONTIGUOUS, ONE_STEP_BYTES, false, true),
         launch_one_step_a_thread},
        {"interleaved", "one 16-byte step a thread", 16,
         HISTOGRAM_VARIANT(INTERLEAVED, ONE_STEP_BYTES, false, true),
         launch_one_step_a_thread},
    };
    enum { ROWS = sizeof rows / sizeof rows[0] };
    struct variant_run runs[ROWS];
    const char *names[ROWS];
    double ms[ROWS];
    for (int r = 0; r < ROWS; r++) {
        runs[r] = (struct variant_run){rows[r].launch, rows[r].kernel, b->d_text, options->bytes,
                                       b->d_results[r], expected, HISTOGRAM_BINS, NULL, NULL, 0, NULL};
        names[r] = rows[r].partitioning;
    }
    bool right = time_variants("partitioning", runs, names, ROWS, options->runs, ms);
    fprintf(out, "\n## Lab 6: contiguous against interleaved, the same bytes in flight a thread\n\n"
                 "`lesson_histogram_kernel`: shared bins (lab 5), blocks of %u threads, %" PRIu64
                 " MiB of english-like text; each thread loads `in flight` bytes, one byte a "
                 "load, before counting them. Grid: %u blocks (8 a multiprocessor, the threads "
                 "loop), or sized to the text so that each thread does one 16-byte step (lab "
                 "6's contiguous reference). Each pair of rows differs only in partitioning.\n\n",
            THREADS_PER_BLOCK, options->bytes >> 20, full_gpu_blocks());
    const char *headers[] = {"partitioning", "grid", "bytes in flight a thread", "median time",
                             "GB/s", "% of copy"};
    struct table table;
    table_init(&table, 6, headers);
    for (int r = 0; r < ROWS; r++) {
        char in_flight[TABLE_CELL_SIZE], time_text[TABLE_CELL_SIZE], rate[TABLE_CELL_SIZE],
            percent[TABLE_CELL_SIZE];
        snprintf(in_flight, sizeof in_flight, "%d", rows[r].in_flight);
        format_ms(time_text, sizeof time_text, ms[r]);
        cell(rate, "%.0f", gigabytes_per_second(options->bytes, ms[r]));
        cell(percent, "%.1f%%",
             percent_of_copy_bandwidth(options->bytes, ms[r], options->bytes, copy_ms));
        const char *cells[] = {rows[r].partitioning, rows[r].grid, in_flight, time_text, rate,
                               percent};
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    fprintf(out, "\nInterleaved time / contiguous time, pair by pair: ");
    for (int r = 0; r < ROWS; r += 2)
        fprintf(out, "%s%.2f (%s, %d in flight)", r ? ", " : "", ms[r + 1] / ms[r], rows[r].grid,
                rows[r].in_flight);
    fprintf(out, ".\n");
    return right;
}

/* Lab 6: reads only, interleaved, with more and more bytes in flight; and the latency. */
// The latency of one read, in ns: a random cycle through the 64-byte lines of a buffer of
// `bytes`, followed one step at a time by one thread.
static double read_latency_ns(uint64_t bytes, uint64_t seed)
{
    uint64_t lines = bytes / 64;
    unsigned int *order = (unsigned int *)malloc(lines * sizeof *order);
    unsigned int *next = (unsigned int *)calloc(lines * 16, sizeof *next);
    if (!order || !next) {
        fprintf(stderr, "lessons: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    uint64_t state = seed;
    for (uint64_t i = 0; i < lines; i++)
        order[i] = (unsigned int)i;
    for (uint64_t i = lines - 1; i > 0; i--) {
        uint64_t j = splitmix64(&state) % (i + 1);
        unsigned int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    for (uint64_t i = 0; i < lines; i++)
        next[order[i] * 16] = order[(i + 1) % lines] * 16;
    unsigned int *d_next = NULL, *d_position = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_next, lines * 16 * sizeof *next));
    CUDA_CHECK(cudaMalloc((void **)&d_position, sizeof *d_position));
    CUDA_CHECK(cudaMemcpy(d_next, next, lines * 16 * sizeof *next, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_position, 0, sizeof *d_position));
    const unsigned int steps = 50000;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double samples[TIMING_MIN_RUNS];
    pointer_chase_kernel<<<1, 1>>>(d_next, steps, d_position); // warm-up
    CUDA_CHECK_LAUNCH();
    for (int r = 0; r < TIMING_MIN_RUNS; r++) {
        CUDA_CHECK(cudaEventRecord(start));
        pointer_chase_kernel<<<1, 1>>>(d_next, steps, d_position);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples[r] = ms * 1e6 / steps;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_position));
    free(order);
    free(next);
    return median_of(samples, TIMING_MIN_RUNS);
}

static bool littles_law_table(FILE *out, const struct bench_options *options, const struct buffers *b,
                              double copy_ms)
{
    static const struct read_row {
        const char *load;
        int bytes_in_flight;
        const void *kernel;
    } rows[] = {
        {"1 byte", 1, (const void *)read_kernel<unsigned char, 1>},
        {"1 byte", 4, (const void *)read_kernel<unsigned char, 4>},
        {"1 byte", 16, (const void *)read_kernel<unsigned char, 16>},
        {"4 bytes", 4, (const void *)read_kernel<unsigned int, 1>},
        {"16 bytes", 16, (const void *)read_kernel<uint4, 1>},
        {"16 bytes", 32, (const void *)read_kernel<uint4, 2>},
        {"16 bytes", 64, (const void *)read_kernel<uint4, 4>},
    };
    enum { ROWS = sizeof rows / sizeof rows[0] };
    struct variant_run runs[ROWS];
    const char *names[ROWS];
    double ms[ROWS];
    for (int r = 0; r < ROWS; r++) {
        runs[r] = (struct variant_run){launch_on_full_gpu, rows[r].kernel, b->d_text, options->bytes,
                                       b->d_results[r], NULL, 1, NULL, NULL, 0, NULL};
        names[r] = rows[r].load;
    }
    bool right = time_variants("reads", runs, names, ROWS, options->runs, ms);
    // Memory: 11 runs of 50,000 steps visit 550,000 of the chain's lines, none twice: every
    // step misses the caches. L2: a 4 MiB chain, far larger than L1, inside the L2 cache.
    double memory_ns = read_latency_ns(options->bytes, options->seed);
    double l2_ns = read_latency_ns(4ull << 20, options->seed);
    double best_gb_s = 0;
    for (int r = 0; r < ROWS; r++)
        if (gigabytes_per_second(options->bytes, ms[r]) > best_gb_s)
            best_gb_s = gigabytes_per_second(options->bytes, ms[r]);
    unsigned int resident_threads = full_gpu_blocks() * THREADS_PER_BLOCK;
    double bytes_in_flight = best_gb_s * memory_ns; // GB/s x ns = bytes

    fprintf(out, "\n## Lab 6: what sets the speed of a read (Little's law)\n\n"
                 "`read_kernel`: interleaved, %u blocks of %u threads, each thread with `bytes in "
                 "flight` bytes requested before it uses any of them; nothing counted, %" PRIu64
                 " MiB of english-like text.\n\n",
            full_gpu_blocks(), THREADS_PER_BLOCK, options->bytes >> 20);
    const char *headers[] = {"load", "bytes in flight a thread", "median time", "GB/s",
                             "% of copy"};
    struct table table;
    table_init(&table, 5, headers);
    for (int r = 0; r < ROWS; r++) {
        char in_flight[TABLE_CELL_SIZE], time_text[TABLE_CELL_SIZE], rate[TABLE_CELL_SIZE],
            percent[TABLE_CELL_SIZE];
        snprintf(in_flight, sizeof in_flight, "%d", rows[r].bytes_in_flight);
        format_ms(time_text, sizeof time_text, ms[r]);
        cell(rate, "%.0f", gigabytes_per_second(options->bytes, ms[r]));
        cell(percent, "%.1f%%",
             percent_of_copy_bandwidth(options->bytes, ms[r], options->bytes, copy_ms));
        const char *cells[] = {rows[r].load, in_flight, time_text, rate, percent};
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    fprintf(out, "\nLatency of one read (one thread following a random chain of 64-byte lines): "
                 "%.0f ns from memory (a %" PRIu64 " MiB chain), %.0f ns from the L2 cache (a 4 "
                 "MiB chain). Little's law: reading at %.0f GB/s (the fastest row) with reads "
                 "that take %.0f ns needs %.0f bytes on their way at every moment: with %u "
                 "threads resident (%d blocks of %d on each of %d multiprocessors), %.1f bytes "
                 "a thread.\n",
            memory_ns, options->bytes >> 20, l2_ns, best_gb_s, memory_ns, bytes_in_flight,
            resident_threads, BLOCKS_PER_MULTIPROCESSOR, THREADS_PER_BLOCK,
            gpu_multiprocessors(), bytes_in_flight / resident_threads);
    return right;
}

/* Lab 7: aggregation, on shared and on global bins, with each partitioning. */
static bool aggregation_table(FILE *out, const struct bench_options *options, const struct buffers *b)
{
    static const struct aggregation_variant {
        const char *bins, *partitioning, *aggregated;
        const void *kernel;
    } variants[] = {
        {"shared", "interleaved", "no", HISTOGRAM_VARIANT(INTERLEAVED, 16, false, true)},
        {"shared", "interleaved", "yes", HISTOGRAM_VARIANT(INTERLEAVED, 16, true, true)},
        {"shared", "contiguous", "no", HISTOGRAM_VARIANT(CONTIGUOUS, 16, false, true)},
        {"shared", "contiguous", "yes", HISTOGRAM_VARIANT(CONTIGUOUS, 16, true, true)},
        {"global", "contiguous", "no", HISTOGRAM_VARIANT(CONTIGUOUS, 16, false, false)},
        {"global", "contiguous", "yes", HISTOGRAM_VARIANT(CONTIGUOUS, 16, true, false)},
    };
    enum { VARIANTS = sizeof variants / sizeof variants[0] };
    static const enum text_kind kinds[] = {TEXT_LONG_RUNS, TEXT_SHORT_RUNS, TEXT_ENGLISH_LIKE,
                                           TEXT_UNIFORM_LETTERS};
    enum { KINDS = sizeof kinds / sizeof kinds[0] };
    double ms[KINDS][VARIANTS];
    bool right = true;
    for (int k = 0; k < KINDS; k++) {
        unsigned long long expected[HISTOGRAM_BINS];
        make_text(kinds[k], options, b->d_text, expected);
        struct variant_run runs[VARIANTS];
        const char *names[VARIANTS];
        for (int v = 0; v < VARIANTS; v++) {
            runs[v] = (struct variant_run){launch_on_full_gpu, variants[v].kernel, b->d_text,
                                           options->bytes, b->d_results[v], expected,
                                           HISTOGRAM_BINS, NULL, NULL, 0, NULL};
            names[v] = variants[v].partitioning;
        }
        right &= time_variants(text_kind_name(kinds[k]), runs, names, VARIANTS, options->runs,
                               ms[k]);
    }
    fprintf(out, "\n## Lab 7: aggregation, with each partitioning, on shared and global bins\n\n"
                 "`lesson_histogram_kernel`: %u blocks of %u threads, 16 bytes in flight a "
                 "thread, %" PRIu64 " MiB of each text. Median times; each pair of rows differs "
                 "only in aggregation.\n\n",
            full_gpu_blocks(), THREADS_PER_BLOCK, options->bytes >> 20);
    const char *headers[3 + KINDS];
    headers[0] = "bins";
    headers[1] = "partitioning";
    headers[2] = "aggregated";
    for (int k = 0; k < KINDS; k++)
        headers[3 + k] = text_kind_name(kinds[k]);
    struct table table;
    table_init(&table, 3 + KINDS, headers);
    for (int v = 0; v < VARIANTS; v++) {
        char times[KINDS][TABLE_CELL_SIZE];
        const char *cells[3 + KINDS] = {variants[v].bins, variants[v].partitioning,
                                        variants[v].aggregated};
        for (int k = 0; k < KINDS; k++) {
            format_ms(times[k], sizeof times[k], ms[k][v]);
            cells[3 + k] = times[k];
        }
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    fprintf(out, "\nTime with aggregation / time without (below 1: aggregation pays):\n\n");
    const char *ratio_headers[2 + KINDS];
    ratio_headers[0] = "bins";
    ratio_headers[1] = "partitioning";
    for (int k = 0; k < KINDS; k++)
        ratio_headers[2 + k] = text_kind_name(kinds[k]);
    table_init(&table, 2 + KINDS, ratio_headers);
    for (int v = 0; v < VARIANTS; v += 2) {
        char ratios[KINDS][TABLE_CELL_SIZE];
        const char *cells[2 + KINDS] = {variants[v].bins, variants[v].partitioning};
        for (int k = 0; k < KINDS; k++) {
            cell(ratios[k], "%.3g", ms[k][v + 1] / ms[k][v]);
            cells[2 + k] = ratios[k];
        }
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    return right;
}

/* Lab 9: 256 bins, one change a row, on every image kind, beside the copy. */
#define IMAGE_VARIANT(layout, pad, copies, loads, packed)                                        \
    (const void *)lesson_image_kernel<layout, pad, copies, loads, packed>,                     \
        image_counter_words<layout, pad, copies, packed>() * 4u
static bool image_table(FILE *out, const struct bench_options *options, const struct buffers *b)
{
    static const struct image_row {
        const char *bins;
        const void *kernel;
        unsigned int shared_bytes;
    } rows[] = {
        {"a copy a block", IMAGE_VARIANT(A_COPY_A_BLOCK, 0, 1, 2, false)},
        {"a copy a warp", IMAGE_VARIANT(A_COPY_A_WARP, 0, 1, 2, false)},
        {"a copy a warp, rows padded by a word", IMAGE_VARIANT(A_COPY_A_WARP, 1, 1, 2, false)},
        {"a column a lane, 4 copies (the reference)",
         IMAGE_VARIANT(A_COLUMN_A_LANE, 0, 4, 2, false)},
        {"the same, 1 load in flight", IMAGE_VARIANT(A_COLUMN_A_LANE, 0, 4, 1, false)},
        {"the same, counters packed two a word", IMAGE_VARIANT(A_COLUMN_A_LANE, 0, 4, 2, true)},
        {"the same, 1 copy for the 32 warps", IMAGE_VARIANT(A_COLUMN_A_LANE, 0, 1, 2, false)},
    };
    enum { ROWS = sizeof rows / sizeof rows[0], KINDS = IMAGE_KIND_COUNT };
    char path[4096], error[512];
    kit_data_path(PHOTO_FILE_NAME, path, sizeof path);
    uint8_t *photo;
    uint32_t width, height;
    if (load_pgm(path, &photo, &width, &height, error, sizeof error) != 0) {
        fprintf(stderr, "lessons: %s\n", error);
        exit(EXIT_FAILURE);
    }
    double percent[KINDS][ROWS];
    bool right = true;
    // A row whose counters a block may not have here (common/device.h) is not run, and says so.
    const size_t shared_limit = gpu_shared_memory_per_block();
    int timed_rows[ROWS], timed_count = 0;
    for (int r = 0; r < ROWS; r++)
        if (rows[r].shared_bytes <= shared_limit)
            timed_rows[timed_count++] = r;
    for (int k = 0; k < KINDS; k++) {
        unsigned long long expected[PIXEL_VALUES];
        if (repeat_image_on_device((enum image_kind)k, options->seed, photo,
                                   (uint64_t)width * height, BLOCK_BYTES, (uint8_t *)b->d_text,
                                   options->bytes, expected) != 0) {
            fprintf(stderr, "lessons: out of host memory\n");
            exit(EXIT_FAILURE);
        }

        struct variant_run runs[ROWS];
        struct timed_variant variants[ROWS + 1];
        memset(variants, 0, sizeof variants);
        for (int t = 0; t < timed_count; t++) {
            int r = timed_rows[t];
            runs[t] = (struct variant_run){launch_image_kernel, rows[r].kernel, b->d_text,
                                           options->bytes, b->d_results[r], expected,
                                           PIXEL_VALUES, NULL, NULL, rows[r].shared_bytes, NULL};
            variants[t].name = rows[r].bins;
            variants[t].run = run_variant;
            variants[t].result_is_right = variant_result_is_right;
            variants[t].context = &runs[t];
        }
        struct device_copy copy = {b->d_text, b->d_copy, options->bytes};
        variants[timed_count].name = "copy";
        variants[timed_count].run = run_device_copy;
        variants[timed_count].context = &copy;
        time_alternating(variants, timed_count + 1, 1, options->runs);
        for (int t = 0; t < timed_count; t++) {
            int r = timed_rows[t];
            percent[k][r] = percent_of_copy_bandwidth(options->bytes, variants[t].time_ms,
                                                      options->bytes,
                                                      variants[timed_count].time_ms);
            if (variants[t].wrong_results > 0) {
                fprintf(stderr, "lessons: images: %s gave a wrong result in %d runs on %s\n",
                        rows[r].bins, variants[t].wrong_results,
                        image_kind_name((enum image_kind)k));
                right = false;
            }
        }
    }
    free(photo);
    fprintf(out, "\n## Lab 9: 256 bins, where a warp's increments meet in the banks\n\n"
                 "`lesson_image_kernel`: %d blocks of %d threads (one a multiprocessor), each "
                 "thread with two 16-byte loads in flight unless the row says otherwise, %" PRIu64
                 " MiB of each image; the copy timed in the same alternation. Each row changes "
                 "one thing from the row above. %% of the copy's bandwidth:\n\n",
            gpu_multiprocessors(), IMAGE_THREADS, options->bytes >> 20);
    const char *headers[2 + KINDS];
    headers[0] = "bins";
    headers[1] = "shared memory";
    for (int k = 0; k < KINDS; k++)
        headers[2 + k] = image_kind_name((enum image_kind)k);
    struct table table;
    table_init(&table, 2 + KINDS, headers);
    for (int r = 0; r < ROWS; r++) {
        char shared[TABLE_CELL_SIZE], cells_text[KINDS][TABLE_CELL_SIZE];
        const char *cells[2 + KINDS] = {rows[r].bins, shared};
        snprintf(shared, sizeof shared, "%u KB", rows[r].shared_bytes / 1024);
        for (int k = 0; k < KINDS; k++) {
            if (rows[r].shared_bytes <= shared_limit)
                cell(cells_text[k], "%.1f%%", percent[k][r]);
            else
                snprintf(cells_text[k], TABLE_CELL_SIZE, "not run (a block has %zu KB here)",
                         shared_limit >> 10);
            cells[2 + k] = cells_text[k];
        }
        table_add_row(&table, cells);
    }
    table_print(out, &table);
    return right;
}

static double time_copy(const struct bench_options *options, const struct buffers *b)
{
    struct device_copy copy = {b->d_text, b->d_copy, options->bytes};
    struct timed_variant variant;
    memset(&variant, 0, sizeof variant);
    variant.name = "copy";
    variant.run = run_device_copy;
    variant.context = &copy;
    time_alternating(&variant, 1, 1, options->runs);
    return variant.time_ms;
}

/* ---------------------------------------------------------------------------------------- */

/* The properties of device 0 that the handouts' arithmetic uses, as a Markdown table: what the
 * runtime says of it, nothing from memory. */
static int print_properties(void)
{
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        fprintf(stderr, "lessons: %s\n", reason);
        return 3;
    }
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    struct gpu_facts gpu = gpu_facts();
    const struct property {
        const char *name;
        enum cudaDeviceAttr attribute;
        const char *format; // of the value, after scale
        double scale;
    } properties[] = {
        {"multiprocessors", cudaDevAttrMultiProcessorCount, "%.0f multiprocessors", 1},
        {"top clock of a multiprocessor", cudaDevAttrClockRate, "%.2f GHz", 1e-6},
        {"threads a multiprocessor holds at most", cudaDevAttrMaxThreadsPerMultiProcessor,
         "%.0f threads", 1},
        {"blocks a multiprocessor holds at most", cudaDevAttrMaxBlocksPerMultiprocessor,
         "%.0f blocks", 1},
        {"threads a block at most", cudaDevAttrMaxThreadsPerBlock, "%.0f threads", 1},
        {"32-bit registers of a multiprocessor", cudaDevAttrMaxRegistersPerMultiprocessor,
         "%.0f registers", 1},
        {"32-bit registers of a block at most", cudaDevAttrMaxRegistersPerBlock, "%.0f registers",
         1},
        {"shared memory of a multiprocessor", cudaDevAttrMaxSharedMemoryPerMultiprocessor,
         "%.0f KB", 1.0 / 1024},
        {"shared memory a block may ask for (opt-in)", cudaDevAttrMaxSharedMemoryPerBlockOptin,
         "%.0f KB", 1.0 / 1024},
        {"shared memory a block gets unless it asks", cudaDevAttrMaxSharedMemoryPerBlock, "%.0f KB",
         1.0 / 1024},
        {"L2 cache", cudaDevAttrL2CacheSize, "%.0f MB", 1.0 / (1 << 20)},
        {"memory bus", cudaDevAttrGlobalMemoryBusWidth, "%.0f bits", 1},
        {"top memory clock", cudaDevAttrMemoryClockRate, "%.2f GHz", 1e-6},
        {"warp", cudaDevAttrWarpSize, "%.0f threads", 1},
    };
    printf("# lessons --properties: %s, compute capability %d.%d (cudaDeviceGetAttribute)\n\n",
           gpu.name, gpu.major, gpu.minor);
    printf("| property | value |\n| --- | ---: |\n");
    for (size_t p = 0; p < sizeof properties / sizeof properties[0]; p++) {
        int value = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&value, properties[p].attribute, device));
        char text[64];
        snprintf(text, sizeof text, properties[p].format, value * properties[p].scale);
        printf("| %s | %s |\n", properties[p].name, text);
    }
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: lessons [--bytes N] [--runs N] [--seed N] [--out FILE]\n"
                 "       lessons --properties   the GPU's properties the handouts use\n"
                 "  --bytes N  size of every text (default 256 MiB; at least 64 MiB, so that it "
                 "is larger than the L2 cache)\n"
                 "  --runs N   timed runs a variant, the median is reported (default 10, at "
                 "least 10)\n"
                 "  --seed N   seed of the generated texts (default 20261122)\n"
                 "  --out FILE also write the report to FILE\n");
}

static bool parse_options(int argc, char **argv, struct bench_options *options)
{
    *options = (struct bench_options){256ull << 20, TIMING_MIN_RUNS, 20261122, NULL};
    const struct bench_option_rules rules = {"lessons", 64ull << 20, 4ull << 30, usage};
    return parse_bench_options(argc, argv, &rules, options);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--properties") == 0)
        return print_properties();
    struct bench_options options;
    if (!parse_options(argc, argv, &options))
        return 2;
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        fprintf(stderr, "lessons: %s\n", reason);
        return 3;
    }
    FILE *file = NULL;
    if (options.out && !(file = fopen(options.out, "w"))) {
        fprintf(stderr, "lessons: cannot write %s: %s\n", options.out, strerror(errno));
        return 1;
    }
    // Written to memory first, then to stdout and the file, so both hold the same report.
    char *report = NULL;
    size_t report_size = 0;
    FILE *out = open_memstream(&report, &report_size);
    if (!out) {
        fprintf(stderr, "lessons: open_memstream: %s\n", strerror(errno));
        return 1;
    }

    struct gpu_facts gpu = gpu_facts();
    int runtime_version = 0;
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime_version));
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", localtime(&now));
    char limited[128] = "";
    if (gpu.shared_memory_limited)
        snprintf(limited, sizeof limited, ", its kernels held to %zu KB of shared memory a block "
                 "(KIT_SHARED_MEMORY_PER_BLOCK)", gpu.shared_memory_per_block >> 10);
    fprintf(out, "# make lessons: %s (%d SMs, %d MB L2%s), CUDA %d.%d, %s\n\n"
                 "Texts of %" PRIu64 " MiB on the GPU (seed %" PRIu64 "); every figure the "
                 "median of %d timed runs after a warm-up, the variants of a table alternating "
                 "run by run; every run's result checked.\n",
            gpu.name, gpu.multiprocessors, gpu.l2_cache_bytes >> 20, limited, runtime_version / 1000,
            runtime_version % 1000 / 10, date, options.bytes >> 20, options.seed, options.runs);

    struct buffers b;
    memset(&b, 0, sizeof b);
    CUDA_CHECK(cudaMalloc((void **)&b.d_text, options.bytes));
    CUDA_CHECK(cudaMalloc((void **)&b.d_copy, options.bytes));
    for (int i = 0; i < 16; i++)
        CUDA_CHECK(cudaMalloc((void **)&b.d_results[i], PIXEL_VALUES * sizeof(unsigned long long)));
    unsigned long long ones[32];
    for (int i = 0; i < 32; i++)
        ones[i] = 1;
    CUDA_CHECK(cudaMalloc((void **)&b.d_ones, sizeof ones));
    CUDA_CHECK(cudaMemcpy(b.d_ones, ones, sizeof ones, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&b.d_never, sizeof *b.d_never));
    // A block's bins of bins_place_kernel, at most 32 words apart (each block zeroes its own).
    CUDA_CHECK(cudaMalloc((void **)&b.d_global_bins,
                          (size_t)full_gpu_blocks() * HISTOGRAM_BINS * 32 * sizeof(unsigned int)));

    bool right = one_counter(out, &options, &b);
    right &= cas_tries_table(out);
    right &= bins_place_table(out, &options, &b);
    unsigned long long english[HISTOGRAM_BINS];
    make_text(TEXT_ENGLISH_LIKE, &options, b.d_text, english);
    double copy_ms = time_copy(&options, &b);
    right &= partitioning_table(out, &options, &b, english, copy_ms);
    right &= littles_law_table(out, &options, &b, copy_ms);
    right &= aggregation_table(out, &options, &b);
    right &= image_table(out, &options, &b);

    CUDA_CHECK(cudaFree(b.d_text));
    CUDA_CHECK(cudaFree(b.d_copy));
    for (int i = 0; i < 16; i++)
        CUDA_CHECK(cudaFree(b.d_results[i]));
    CUDA_CHECK(cudaFree(b.d_ones));
    CUDA_CHECK(cudaFree(b.d_never));
    CUDA_CHECK(cudaFree(b.d_global_bins));
    if (!right)
        fprintf(out, "\nSOME RESULTS WERE WRONG (see the errors): these times mean nothing.\n");
    fclose(out);
    fputs(report, stdout);
    bool written = true;
    if (file) {
        written = fputs(report, file) >= 0;
        written &= fclose(file) == 0;
        if (!written)
            fprintf(stderr, "lessons: could not finish writing %s\n", options.out);
    }
    free(report);
    return right && written ? 0 : 1;
}
