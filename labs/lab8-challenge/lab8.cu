// Lab 8, the challenge: as fast as the memory allows. Read README.md in this folder first; the
// TODOs follow its steps. Any correct kernel is accepted; the grade is the share of the
// memory's bandwidth it reaches. Build and grade with:   make lab8 && ./grade lab8
#include "lab8.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 1024;
static const unsigned int blocks_per_multiprocessor = 2;

// The lookup table (step 2 of the handout): one row per byte value, holding 32 copies of that
// byte's increment, one per shared-memory bank, so that lane l can always read column l. A row
// is 64 words (256 bytes), so that a byte value times 256 is its row's address; the upper 32
// words of each row are not used.
#define TABLE_ROW_WORDS 64
#define TABLE_WORDS (256 * TABLE_ROW_WORDS)
#define TABLE_BYTES (TABLE_WORDS * sizeof(unsigned int))

// Bin b is counted in bits 4b to 4b+3 of a word.
#define NIBBLE_MASK 0x0F0F0F0Fu

// What a byte adds to the packed counters: 1 in its bin's nibble, or 0 for a non-letter.
__device__ unsigned int increment_of(unsigned int byte)
{
    // TODO 1: for a lowercase letter, 1 shifted into the nibble of its bin
    // ((byte - 'a') / LETTERS_PER_BIN); for any other byte, 0.
    (void)byte;
    return 0;
}

// The sum of the increments of the four bytes of word, read from the thread's column of the
// table. lane_bytes is the thread's lane times 4 (its column's byte offset in a row).
__device__ unsigned int count_word(const char *table, unsigned int lane_bytes, unsigned int word)
{
    // TODO 3: four table lookups, one per byte of word. __byte_perm(word, lane_bytes, selector)
    // builds the address of one in a single instruction: with selector 0x5504 its result holds
    // lane_bytes in bits 0-7 and byte 0 of word in bits 8-15 (0x5514: byte 1, and so on).
    (void)table;
    (void)lane_bytes;
    (void)word;
    return 0;
}

// Counts 16 bytes into byte-wide counters: bins 0, 2, 4, 6 in the four bytes of even_bins and
// bins 1, 3, 5 in those of odd_bins.
__device__ void count_vector(const char *table, unsigned int lane_bytes, uint4 vector,
                             unsigned int &even_bins, unsigned int &odd_bins)
{
    // TODO 4: count_word for the four words of vector. The sum of two words' counts fits in a
    // nibble (at most 8); the sum of four may not (16). Spread each pair's nibbles into the
    // byte-wide counters: the even nibbles with & NIBBLE_MASK, the odd ones shifted down by 4.
    (void)table;
    (void)lane_bytes;
    (void)vector;
    (void)even_bins;
    (void)odd_bins;
}

// A byte-wide counter gains at most 16 per vector: empty them into 32-bit counts every 12
// vectors (12 x 16 = 192 < 256).
#define VECTORS_PER_FLUSH 12

__device__ void flush(unsigned int counts[HISTOGRAM_BINS], unsigned int even_bins,
                      unsigned int odd_bins)
{
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        unsigned int packed = bin % 2 == 0 ? even_bins : odd_bins;
        counts[bin] += (packed >> (8 * (bin / 2))) & 0xFF;
    }
}

__global__ void histogram_kernel(const char *text, uint64_t length, unsigned long long *histogram)
{
    extern __shared__ unsigned int table_words[];
    __shared__ unsigned long long block_bins[HISTOGRAM_BINS];

    // TODO 2: fill the table (word i holds the increment of byte value i / TABLE_ROW_WORDS) and
    // zero block_bins, with all the block's threads; then wait until every thread is done.

    const char *table = (const char *)table_words;
    const unsigned int lane_bytes = (threadIdx.x % 32) * 4;
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

    // TODO 5: a grid-stride loop over vectors[0, vector_count), thread by thread, counting each
    // vector with count_vector into even_bins and odd_bins and flushing them into counts at
    // least every VECTORS_PER_FLUSH vectors. Then make it fast: load several vectors (with
    // __ldcs) before counting any, so that their loads are in flight together.
    (void)vectors;
    (void)threads;
    (void)vector_count;

    // TODO 6: sum each bin's count over the warp with __shfl_down_sync, then have lane 0 add
    // the warp's sums to block_bins (one shared atomicAdd a bin); after a barrier, one thread a
    // bin adds the block's count to histogram (one global atomicAdd a bin).
    (void)histogram;
    (void)block_bins;
}

void lab8_histogram(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    int device = 0, multiprocessors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    // The table is 64 KB, more than the 48 KB a block gets unless it asks.
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)TABLE_BYTES));
    unsigned int blocks = blocks_per_multiprocessor * (unsigned int)multiprocessors;
    histogram_kernel<<<blocks, threads_per_block, TABLE_BYTES>>>(d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
}
