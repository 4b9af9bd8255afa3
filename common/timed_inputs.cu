#include "timed_inputs.h"

#include "cuda_check.h"
#include "generators.h"
#include "histogram.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define MAKER_THREADS 128
#define MAX_BINS 256

/* Everything a segment's thread needs to know, passed by value. */
struct segment_job {
    enum timed_format format;
    enum timed_content content;
    int kind;
    const uint8_t *material;
    uint64_t material_bytes;
    const char *english_table;
    uint64_t run_seed, elements, stride_bytes;
    unsigned int bins;
    uint8_t *inputs;
    unsigned long long *expected;
    uint64_t key[2]; /* this process's (timed_inputs_key): never in reach of the code timed */
};

__device__ static uint64_t mixed(uint64_t value)
{
    return generator_next(&value);
}

#define ROTATED(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND(v0, v1, v2, v3)                                                             \
    do {                                                                                      \
        v0 += v1, v1 = ROTATED(v1, 13), v1 ^= v0, v0 = ROTATED(v0, 32);                       \
        v2 += v3, v3 = ROTATED(v3, 16), v3 ^= v2;                                             \
        v0 += v3, v3 = ROTATED(v3, 21), v3 ^= v0;                                             \
        v2 += v1, v1 = ROTATED(v1, 17), v1 ^= v2, v2 = ROTATED(v2, 32);                       \
    } while (0)

/* SipHash-2-4 of the 16 bytes (a, b) under key: a seed that no output of the generators gives
 * back without the key. splitmix64's finalizer alone (mixed) is a bijection: from the 8 bytes a
 * random-bytes segment starts with, a kernel could work back to its call's seed and foresee
 * every other segment, replaced bytes included, and count them without reading them. */
__device__ static uint64_t keyed(const uint64_t key[2], uint64_t a, uint64_t b)
{
    uint64_t v0 = 0x736f6d6570736575ull ^ key[0], v1 = 0x646f72616e646f6dull ^ key[1];
    uint64_t v2 = 0x6c7967656e657261ull ^ key[0], v3 = 0x7465646279746573ull ^ key[1];
    const uint64_t words[3] = {a, b, 16ull << 56};
    for (int w = 0; w < 3; w++) {
        v3 ^= words[w];
        SIP_ROUND(v0, v1, v2, v3);
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= words[w];
    }
    v2 ^= 0xff;
    for (int r = 0; r < 4; r++)
        SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* What keyed() derives: each a domain of its own. */
#define KEYED_SEGMENT 0x5345ull
#define KEYED_REPLACED 0x5245ull
#define KEYED_GRADIENT 0x4752ull

/* The bin of an element (the byte a segment's stream gave, as stored), or -1 for none. */
__device__ static int bin_of(enum timed_format format, unsigned int element)
{
    if (format == TIMED_LETTERS)
        return element >= 'a' && element <= 'z' ? (int)(element - 'a') / LETTERS_PER_BIN : -1;
    return (int)element;
}

/* One source of a segment's elements: a generated text or image, or material from a place. */
struct segment_stream {
    struct text_stream text;
    struct image_stream image;
    const uint8_t *material;
    uint64_t material_bytes, at;
};

__device__ static unsigned int next_element(const struct segment_job *job,
                                            struct segment_stream *stream)
{
    unsigned int byte;
    if (job->content != TIMED_GENERATED) {
        byte = stream->material[stream->at];
        if (++stream->at == stream->material_bytes)
            stream->at = 0;
    } else if (job->format == TIMED_LETTERS) {
        byte = (unsigned char)text_stream_next(&stream->text);
    } else {
        byte = image_stream_next(&stream->image);
    }
    return job->format == TIMED_SMALL_PIXELS ? byte >> 4 : byte;
}

/* Adds count elements of one bin to the block's counts (runs of one bin are common: one atomic
 * a run, not one an element). */
__device__ static void add_to_bin(unsigned int *counts, int bin, unsigned int count)
{
    if (bin >= 0 && count)
        atomicAdd(&counts[bin], count);
}

/* A thread's counts: in registers for up to 16 bins (letters, part A's pixels), else in the
 * block's shared counters a run of one bin at a time. */
#define REGISTER_BINS 16
struct bin_counter {
    unsigned int in_registers[REGISTER_BINS];
    bool registers;
    int run_bin;
    unsigned int run_count;
    unsigned int *shared;
};

__device__ static void counter_start(struct bin_counter *counter, unsigned int bins,
                                     unsigned int *shared)
{
#pragma unroll
    for (int b = 0; b < REGISTER_BINS; b++)
        counter->in_registers[b] = 0;
    counter->registers = bins <= REGISTER_BINS;
    counter->run_bin = -1;
    counter->run_count = 0;
    counter->shared = shared;
}

__device__ static void count_element(struct bin_counter *counter, int bin)
{
    if (counter->registers) {
#pragma unroll
        for (int b = 0; b < REGISTER_BINS; b++)
            counter->in_registers[b] += bin == b;
        return;
    }
    if (bin != counter->run_bin) {
        add_to_bin(counter->shared, counter->run_bin, counter->run_count);
        counter->run_bin = bin;
        counter->run_count = 0;
    }
    counter->run_count++;
}

__device__ static void counter_finish(struct bin_counter *counter, unsigned int bins)
{
    add_to_bin(counter->shared, counter->run_bin, counter->run_count);
    if (counter->registers) {
#pragma unroll
        for (int b = 0; b < REGISTER_BINS; b++)
            if (b < (int)bins)
                add_to_bin(counter->shared, b, counter->in_registers[b]);
    }
}

__device__ static void store_element(const struct segment_job *job, uint8_t *input, uint64_t index,
                                     unsigned int element)
{
    if (job->format == TIMED_SMALL_PIXELS)
        ((uint32_t *)input)[index] = element;
    else
        input[index] = (uint8_t)element;
}

__device__ static unsigned int load_element(const struct segment_job *job, const uint8_t *input,
                                            uint64_t index)
{
    return job->format == TIMED_SMALL_PIXELS ? ((const uint32_t *)input)[index] : input[index];
}

/* A thread a segment of one call (blockIdx.y): writes it 16 bytes at a time, counting each bin,
 * then replaces TIMED_REPLACED_PER_SEGMENT of its elements, and adds the counts to the call's
 * histogram. */
__global__ void make_segments(struct segment_job job)
{
    __shared__ unsigned int counts[MAX_BINS];
    __shared__ char english_table[ENGLISH_TABLE_BYTES];
    for (unsigned int b = threadIdx.x; b < job.bins; b += blockDim.x)
        counts[b] = 0;
    if (job.english_table) {
        for (unsigned int b = threadIdx.x; b < ENGLISH_TABLE_BYTES / 4; b += blockDim.x)
            ((uint32_t *)english_table)[b] = ((const uint32_t *)job.english_table)[b];
        job.english_table = english_table;
    }
    __syncthreads();

    const uint64_t call = blockIdx.y;
    const uint64_t segment = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t first = segment * TIMED_SEGMENT_ELEMENTS;
    if (first < job.elements) {
        const uint64_t count = job.elements - first < TIMED_SEGMENT_ELEMENTS
                                   ? job.elements - first
                                   : TIMED_SEGMENT_ELEMENTS;
        const uint64_t call_seed = mixed(job.run_seed ^ ((call + 1) * 0xA24BAED4963EE407ull));
        const bool one_value = job.content == TIMED_GENERATED &&
                               (job.format == TIMED_LETTERS ? job.kind == TEXT_ONE_LETTER
                                                            : job.kind == IMAGE_SINGLE_VALUE);
        const uint64_t seed = keyed(job.key, call_seed,
                                    (KEYED_SEGMENT << 48) + (one_value ? 0 : segment + 1));
        struct segment_stream stream;
        if (job.content == TIMED_GENERATED && job.format == TIMED_LETTERS) {
            text_stream_start(&stream.text, (enum text_kind)job.kind, seed, job.english_table);
        } else if (job.content == TIMED_GENERATED) {
            /* The gradient's place in its image: a random start, new every run. */
            const uint64_t place = keyed(job.key, call_seed, KEYED_GRADIENT << 48) % (1ull << 32);
            image_stream_start(&stream.image, (enum image_kind)job.kind, seed, NULL, 0,
                               place + first);
        } else {
            stream.material = job.material;
            stream.material_bytes = job.material_bytes;
            stream.at = (job.content == TIMED_SLICES ? mixed(seed) : first) % job.material_bytes;
        }

        uint8_t *input = job.inputs + call * job.stride_bytes;
        const size_t element_bytes = job.format == TIMED_SMALL_PIXELS ? 4 : 1;
        struct bin_counter counter;
        counter_start(&counter, job.bins, counts);
        uint64_t i = 0;
        /* 16 bytes a store, built in registers (the loops unrolled: no array in local memory). */
        if (element_bytes == 1) {
            for (; i + 16 <= count; i += 16) {
                uint32_t words[4];
#pragma unroll
                for (int w = 0; w < 4; w++) {
                    uint32_t word = 0;
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        unsigned int element = next_element(&job, &stream);
                        word |= (uint32_t)element << (8 * k);
                        count_element(&counter, bin_of(job.format, element));
                    }
                    words[w] = word;
                }
                *(uint4 *)(input + first + i) = make_uint4(words[0], words[1], words[2], words[3]);
            }
        } else {
            for (; i + 4 <= count; i += 4) {
                uint32_t words[4];
#pragma unroll
                for (int w = 0; w < 4; w++) {
                    words[w] = next_element(&job, &stream);
                    count_element(&counter, bin_of(job.format, words[w]));
                }
                *(uint4 *)(input + (first + i) * 4) = make_uint4(words[0], words[1], words[2], words[3]);
            }
        }
        for (; i < count; i++) {
            unsigned int element = next_element(&job, &stream);
            store_element(&job, input, first + i, element);
            count_element(&counter, bin_of(job.format, element));
        }
        counter_finish(&counter, job.bins);

        /* Every segment its own replacements, one-valued inputs' too. */
        uint64_t state = keyed(job.key, call_seed, (KEYED_REPLACED << 48) + segment + 1);
        for (unsigned int r = 0; r < TIMED_REPLACED_PER_SEGMENT; r++) {
            uint64_t draw = generator_next(&state);
            uint64_t at = first + (draw >> 8) % count;
            unsigned int replacement = (unsigned int)(draw & 0xFF);
            if (job.format == TIMED_SMALL_PIXELS)
                replacement &= 15;
            int old_bin = bin_of(job.format, load_element(&job, input, at));
            if (old_bin >= 0)
                atomicSub(&counts[old_bin], 1u);
            add_to_bin(counts, bin_of(job.format, replacement), 1);
            store_element(&job, input, at, replacement);
        }
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < job.bins; b += blockDim.x)
        if (counts[b])
            atomicAdd(&job.expected[call * job.bins + b], (unsigned long long)counts[b]);
}

unsigned int timed_format_bins(enum timed_format format)
{
    return format == TIMED_LETTERS ? HISTOGRAM_BINS : format == TIMED_BYTE_PIXELS ? 256 : 16;
}

size_t timed_format_element_bytes(enum timed_format format)
{
    return format == TIMED_SMALL_PIXELS ? sizeof(uint32_t) : 1;
}

struct timed_source timed_source_generated(enum timed_format format, int kind)
{
    struct timed_source source = {format, TIMED_GENERATED, kind, NULL, 0, NULL};
    if (format == TIMED_LETTERS) {
        char table[ENGLISH_TABLE_BYTES];
        build_english_table(table);
        CUDA_CHECK(cudaMalloc((void **)&source.d_english_table, sizeof table));
        CUDA_CHECK(cudaMemcpy(source.d_english_table, table, sizeof table, cudaMemcpyHostToDevice));
    }
    return source;
}

struct timed_source timed_source_of_material(enum timed_format format, enum timed_content content,
                                             const void *material, uint64_t material_bytes)
{
    struct timed_source source = {format, content, 0, NULL, material_bytes, NULL};
    CUDA_CHECK(cudaMalloc((void **)&source.d_material, material_bytes));
    CUDA_CHECK(cudaMemcpy(source.d_material, material, material_bytes, cudaMemcpyHostToDevice));
    return source;
}

void timed_source_destroy(struct timed_source *source)
{
    if (source->d_material)
        CUDA_CHECK(cudaFree(source->d_material));
    if (source->d_english_table)
        CUDA_CHECK(cudaFree(source->d_english_table));
    source->d_material = NULL;
    source->d_english_table = NULL;
}

/* The key of every timed input this process makes, drawn from the system once: the code timed
 * runs in another process and never sees it, so no input it is handed tells it another. */
static const uint64_t *timed_inputs_key(void)
{
    static uint64_t key[2];
    static bool drawn;
    if (!drawn) {
        if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
            fprintf(stderr, "timed inputs: getrandom() could not draw their key: %s\n",
                    strerror(errno));
            exit(EXIT_FAILURE);
        }
        drawn = true;
    }
    return key;
}

void make_timed_inputs(const struct timed_source *source, uint64_t run_seed, void *d_inputs,
                       uint64_t stride_bytes, int calls, uint64_t elements,
                       unsigned long long *d_expected)
{
    const uint64_t *key = timed_inputs_key();
    struct segment_job job = {source->format, source->content, source->kind, source->d_material,
                              source->material_bytes, source->d_english_table, run_seed, elements,
                              stride_bytes, timed_format_bins(source->format),
                              (uint8_t *)d_inputs, d_expected, {key[0], key[1]}};
    CUDA_CHECK(cudaMemset(d_expected, 0, (size_t)calls * job.bins * sizeof *d_expected));
    uint64_t segments = (elements + TIMED_SEGMENT_ELEMENTS - 1) / TIMED_SEGMENT_ELEMENTS;
    if (segments > 0 && calls > 0) {
        dim3 grid((unsigned int)((segments + MAKER_THREADS - 1) / MAKER_THREADS), (unsigned int)calls);
        make_segments<<<grid, MAKER_THREADS>>>(job);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}
