// Lab 8, the challenge: as fast as the memory allows. Read README.md in this folder first; the
// TODOs follow its tasks. Any correct kernel passes the correctness tests; beyond them, the
// grade is the share of the memory's bandwidth it reaches (and 16-byte loads, TODO 5).
// Build and grade with:   make lab8 && ./grade lab8
#include "lab8.h"

#include "cuda_check.h"
#include "device.h"

// Blocks of 1024 threads, as many as a multiprocessor holds at once (the launcher asks the
// occupancy calculator): two, 2048 threads, on an sm_80 or sm_90 multiprocessor, and only if the
// kernel keeps to 32 registers a thread (the handout's "Registers and occupancy").
static const unsigned int threads_per_block = 1024;

// The lookup table (task 2 of the handout): one row per byte value, holding 32 copies of that
// byte's increment, one per shared-memory bank, so that lane l can always read column l. A row
// is 64 words (256 bytes), so that a byte value times 256 is its row's address; the upper 32
// words of each row are not used, and the last row's are left out: the table and block_bins
// then fit in the 64 KB that a block may have on sm_75. Where a block may have less (the 48 KB
// any GPU gives without opting in), the launcher picks rows of 32 words (32 KB in all): a byte
// value times 256 is then twice its row's address, and the lookup shifts it right by row_shift.
#define WIDE_ROW_WORDS 64
#define NARROW_ROW_WORDS 32
template <unsigned int row_words>
__host__ __device__ constexpr unsigned int table_words()
{
    return 255 * row_words + 32;
}
template <unsigned int row_words>
constexpr size_t table_bytes()
{
    return table_words<row_words>() * sizeof(unsigned int);
}

// Bin b is counted in bits 4b to 4b+3 of a word.
#define NIBBLE_MASK 0x0F0F0F0Fu

// What a byte adds to the packed counters: 1 in its bin's nibble, or 0 for a non-letter.
__device__ unsigned int increment_of(unsigned int byte)
{
    // TODO 1: for a lowercase letter, a word with 1 in the nibble of the letter's bin (bits
    // 4b to 4b+3 for bin b) and 0 everywhere else; for any other byte value (0 to 255), 0.
    // No byte may be counted in a wrong bin or counted at all when it is not a letter: the
    // grader checks the histogram on texts of every byte value.
    (void)byte;
    return 0;
}

// The sum of the increments of the four bytes of word, read from the thread's column of the
// table. lane_bytes is the thread's lane times 4 (its column's byte offset in a wide row),
// shifted left by row_shift (1 in the narrow table, whose rows are half as wide).
template <unsigned int row_shift>
__device__ unsigned int count_word(const char *table, unsigned int lane_bytes, unsigned int word)
{
    // TODO 3: the sum of the increments of the four bytes of word, each read from the table
    // in this thread's own column of the byte's row (the table's layout is above), so that
    // the 32 lookups of a warp fall in 32 different banks whatever the bytes are. Budget:
    // about two instructions a byte (forming the address, and the load), with no test and no
    // branch; in the wide table row_shift is 0 and its shift costs nothing. The grader checks the histogram; the speed
    // tables show whether you kept to the budget.
    (void)table;
    (void)lane_bytes;
    (void)word;
    return 0;
}

// Counts 16 bytes into byte-wide counters: bins 0, 2, 4, 6 in the four bytes of even_bins and
// bins 1, 3, 5 in those of odd_bins.
template <unsigned int row_shift>
__device__ void count_vector(const char *table, unsigned int lane_bytes, uint4 vector,
                             unsigned int &even_bins, unsigned int &odd_bins)
{
    // TODO 4: add the counts of the 16 bytes of vector to the byte-wide counters: bin b's
    // count goes into byte b / 2 of even_bins (b even) or of odd_bins (b odd). A nibble holds
    // at most 15: the nibble counts of at most two words (8 bytes, so at most 8 in a nibble)
    // may be added together before they are spread into bytes. The grader checks the
    // histogram on texts of one letter, where every byte lands in the same bin.
    (void)table;
    (void)lane_bytes;
    (void)vector;
    (void)even_bins;
    (void)odd_bins;
}

// A byte of even_bins or odd_bins holds at most 255, and one vector adds at most 16 to it
// (16 bytes of one bin): a thread must add its byte-wide counters into its 32-bit counts, and
// start them again from 0, after at most 15 of its vectors. 12 (12 x 16 = 192) leaves room
// and divides evenly by 2, 3, 4 or 6 vectors loaded at a time.
#define VECTORS_PER_FLUSH 12

__device__ void flush(unsigned int counts[HISTOGRAM_BINS], unsigned int even_bins,
                      unsigned int odd_bins)
{
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        unsigned int packed = bin % 2 == 0 ? even_bins : odd_bins;
        counts[bin] += (packed >> (8 * (bin / 2))) & 0xFF;
    }
}

template <unsigned int row_words>
__global__ void histogram_kernel(const char *text, uint64_t length, unsigned long long *histogram)
{
    constexpr unsigned int row_shift = row_words == WIDE_ROW_WORDS ? 0 : 1;
    extern __shared__ unsigned int table_of_words[];
    __shared__ unsigned long long block_bins[HISTOGRAM_BINS];

    // TODO 2: before any thread of the block reads them, every word of the table, all
    // table_words<row_words>() of them, holds the increment of its row's byte value (the row of
    // word i is i / row_words), and block_bins holds zeros. All the block's threads share the
    // filling. The grader checks the histogram, and ./grade lab8 --sanitize=racecheck finds a
    // lookup that can happen before the table entry it reads was written.

    const char *table = (const char *)table_of_words;
    const unsigned int lane_bytes = (threadIdx.x % 32) * 4 << row_shift;
    const uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    unsigned int counts[HISTOGRAM_BINS] = {0};

    // Given: 16-byte loads need 16-byte aligned addresses, so the bytes before the first
    // boundary (head) and after the last (tail), fewer than 16 each, are counted one by one,
    // thread t taking byte t of each.
    uint64_t head = (16 - (uintptr_t)text % 16) % 16;
    if (head > length)
        head = length;
    const uint4 *vectors = (const uint4 *)(text + head);
    const uint64_t vector_count = (length - head) / 16;
    const uint64_t tail = head + vector_count * 16;
    if (thread < head || tail + thread < length) {
        for (int part = 0; part < 2; part++) {
            uint64_t i = part == 0 ? thread : tail + thread;
            if (part == 0 ? i < head : i < length) {
                unsigned int increment = increment_of((unsigned char)text[i]);
                for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
                    counts[bin] += (increment >> (4 * bin)) & 0xF;
            }
        }
    }

    // TODO 5: count every vector of vectors[0, vector_count) exactly once into counts, the
    // grid's threads sweeping them together (on each pass neighbouring threads take
    // neighbouring vectors: a warp reads 512 consecutive bytes), for any length and any
    // number of blocks. Each 16-byte vector is read with one 16-byte load, counted into byte-
    // wide counters, and those are added into counts after at most VECTORS_PER_FLUSH of this
    // thread's vectors (see above). To reach the memory's speed enough bytes must be on their
    // way at every moment (the handout says how to reason about it; how many is for you to
    // measure). The grader checks the histogram (texts past 4 GiB and of one letter too), that
    // the machine code has 16-byte global loads, and your share of the copy's bandwidth.
    (void)vectors;
    (void)threads;
    (void)vector_count;

    // TODO 6: add every thread's counts to histogram with as few atomics as possible: each
    // bin's counts are summed over the warp in registers first, then added to block_bins once
    // a warp, and block_bins to histogram once a block, after the whole block has added its
    // warps' sums. The grader checks the histogram; an atomic per thread and bin shows in the
    // speed tables.
    (void)histogram;
    (void)block_bins;
}

// The table for the GPU at hand, chosen once (a call then only launches): wide rows where a
// block may have them, and as many blocks as the GPU holds at once, by the occupancy calculator
// (two a multiprocessor on an H100 or H200: 2048 threads; one where a multiprocessor holds fewer
// threads or registers, as on compute capability 7.5, 8.6 and 8.9).
struct table_layout {
    int device;
    bool wide;
    unsigned int blocks;
};

template <unsigned int row_words>
static unsigned int resident_blocks(int device)
{
    const enum cudaFuncAttribute shared_limit = cudaFuncAttributeMaxDynamicSharedMemorySize;
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel<row_words>, shared_limit,
                                    (int)table_bytes<row_words>()));
    int multiprocessors = 0, blocks_per_multiprocessor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    const void *kernel = (const void *)histogram_kernel<row_words>;
    const size_t shared_bytes = table_bytes<row_words>();
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, kernel,
                                                             threads_per_block, shared_bytes));
    if (blocks_per_multiprocessor < 1)
        blocks_per_multiprocessor = 1; // the launch then says why the block does not fit
    return (unsigned int)(blocks_per_multiprocessor * multiprocessors);
}

static const table_layout &layout_here(void)
{
    static table_layout layout = {-1, false, 0};
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (layout.device == device)
        return layout;
    // The wide table with block_bins (static) must fit in what a block may have here
    // (common/device.h: the GPU's own limit, or a smaller GPU's where the kit stands in for one).
    struct cudaFuncAttributes wide_kernel;
    CUDA_CHECK(cudaFuncGetAttributes(&wide_kernel, histogram_kernel<WIDE_ROW_WORDS>));
    layout.wide = table_bytes<WIDE_ROW_WORDS>() + wide_kernel.sharedSizeBytes <=
                  gpu_shared_memory_per_block();
    layout.blocks = layout.wide ? resident_blocks<WIDE_ROW_WORDS>(device)
                                : resident_blocks<NARROW_ROW_WORDS>(device);
    layout.device = device;
    return layout;
}

void lab8_histogram(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    const table_layout &layout = layout_here();
    if (layout.wide)
        histogram_kernel<WIDE_ROW_WORDS><<<layout.blocks, threads_per_block,
                                           table_bytes<WIDE_ROW_WORDS>()>>>(d_text, length,
                                                                            d_histogram);
    else
        histogram_kernel<NARROW_ROW_WORDS><<<layout.blocks, threads_per_block,
                                             table_bytes<NARROW_ROW_WORDS>()>>>(d_text, length,
                                                                                d_histogram);
    CUDA_CHECK_LAUNCH();
}
