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

/* Everything a segment's thread needs to know, passed by value. */
struct segment_job {
    const uint8_t *material;
    uint64_t material_bytes;
    const char *english_table;
    uint64_t run_seed, elements, stride_bytes;
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

/* The generator is a template over the kind of input: with the format, content and kind known
 * when it is compiled, an element costs no switch, and letters' seven bins no counter for
 * sixteen. A grading makes a few hundred runs of 2 GiB of inputs, so this time is most of a
 * grading's. */
__host__ __device__ constexpr unsigned int format_bins(enum timed_format format)
{
    return format == TIMED_LETTERS ? HISTOGRAM_BINS : format == TIMED_BYTE_PIXELS ? 256 : 16;
}

/* The bin of an element (the byte a segment's stream gave, as stored), or -1 for none. */
template <enum timed_format FORMAT>
__device__ static int bin_of(unsigned int element)
{
    if (FORMAT == TIMED_LETTERS)
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

template <enum timed_format FORMAT, enum timed_content CONTENT>
__device__ static unsigned int next_element(struct segment_stream *stream)
{
    unsigned int byte;
    if (CONTENT != TIMED_GENERATED) {
        byte = stream->material[stream->at];
        if (++stream->at == stream->material_bytes)
            stream->at = 0;
    } else if (FORMAT == TIMED_LETTERS) {
        byte = (unsigned char)text_stream_next(&stream->text);
    } else {
        byte = image_stream_next(&stream->image);
    }
    return FORMAT == TIMED_SMALL_PIXELS ? byte >> 4 : byte;
}

/* The elements a draw of the generator gives (generators.h), or 0 for a kind made otherwise. */
template <enum timed_format FORMAT, enum timed_content CONTENT, int KIND>
__device__ constexpr unsigned int elements_a_draw()
{
    if (CONTENT != TIMED_GENERATED)
        return 0;
    return FORMAT == TIMED_LETTERS ? TEXT_BYTES_A_DRAW(KIND) : IMAGE_PIXELS_A_DRAW(KIND);
}

/* Sixteen elements, the same as sixteen next_element calls. Where each draw gives a fixed number
 * of elements, the draws line up with the sixteen (a segment's stream starts on a new draw and
 * 16 is a multiple of that number), so they are taken whole, without a check an element. */
template <enum timed_format FORMAT, enum timed_content CONTENT, int KIND>
__device__ static void next_sixteen(struct segment_stream *stream, unsigned int elements[16])
{
    constexpr unsigned int per_draw = elements_a_draw<FORMAT, CONTENT, KIND>();
    if constexpr (per_draw == 0) {
#pragma unroll
        for (int k = 0; k < 16; k++)
            elements[k] = next_element<FORMAT, CONTENT>(stream);
    } else {
        uint64_t *state = FORMAT == TIMED_LETTERS ? &stream->text.state : &stream->image.state;
#pragma unroll
        for (unsigned int d = 0; d < 16 / per_draw; d++) {
            const uint64_t draw = generator_next(state);
#pragma unroll
            for (unsigned int s = 0; s < per_draw; s++) {
                const unsigned int byte =
                    FORMAT == TIMED_LETTERS
                        ? (unsigned char)text_byte_of_draw((enum text_kind)KIND,
                                                           stream->text.english_table, draw, s)
                        : image_pixel_of_draw((enum image_kind)KIND, draw, s);
                elements[d * per_draw + s] = FORMAT == TIMED_SMALL_PIXELS ? byte >> 4 : byte;
            }
        }
        /* As after the last element of a draw: the next element draws anew. */
        if (FORMAT == TIMED_LETTERS)
            stream->text.used = per_draw;
        else
            stream->image.used = per_draw, stream->image.index += 16;
    }
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
template <unsigned int BINS>
struct bin_counter {
    static constexpr bool in_registers = BINS <= 16;
    unsigned int registers[in_registers ? BINS : 1];
    int run_bin;
    unsigned int run_count;
    unsigned int *shared;

    __device__ explicit bin_counter(unsigned int *shared_counts)
        : run_bin(-1), run_count(0), shared(shared_counts)
    {
#pragma unroll
        for (unsigned int b = 0; b < (in_registers ? BINS : 1); b++)
            registers[b] = 0;
    }

    __device__ void count(int bin)
    {
        if (in_registers) {
#pragma unroll
            for (unsigned int b = 0; b < (in_registers ? BINS : 1); b++)
                registers[b] += bin == (int)b;
            return;
        }
        if (bin != run_bin) {
            add_to_bin(shared, run_bin, run_count);
            run_bin = bin;
            run_count = 0;
        }
        run_count++;
    }

    __device__ void finish()
    {
        add_to_bin(shared, run_bin, run_count);
        if (in_registers) {
#pragma unroll
            for (unsigned int b = 0; b < (in_registers ? BINS : 1); b++)
                add_to_bin(shared, (int)b, registers[b]);
        }
    }
};

template <enum timed_format FORMAT>
__device__ static void store_element(uint8_t *input, uint64_t index, unsigned int element)
{
    if (FORMAT == TIMED_SMALL_PIXELS)
        ((uint32_t *)input)[index] = element;
    else
        input[index] = (uint8_t)element;
}

template <enum timed_format FORMAT>
__device__ static unsigned int load_element(const uint8_t *input, uint64_t index)
{
    return FORMAT == TIMED_SMALL_PIXELS ? ((const uint32_t *)input)[index] : input[index];
}

/* The bytes a thread writes to its segment at a time, through its warp. A warp's 32 threads
 * make 32 segments 16 KB apart; each storing its own 16 bytes, a store touched 32 lines and the
 * stores, not the making, set the generator's pace (7 ms for 2 GiB on an H100, measured with
 * ncu: warps waiting on their stores). Each thread now stages a line of its segment in shared
 * memory, and the warp stores the 32 lines whole, 4 a store. */
#define LINE_BYTES 128u
#define CHUNKS_A_LINE (LINE_BYTES / 16u)
#define WARP_LANES 32u

/* A lane's chunk k of its line, at a place that spreads the lanes of one store over the banks. */
__device__ static uint4 *staged_chunk(uint4 (*staged)[CHUNKS_A_LINE], unsigned int lane,
                                      unsigned int k)
{
    return &staged[lane][(k + lane) % CHUNKS_A_LINE];
}

/* A thread a segment of one call (blockIdx.y): makes it a line at a time, counting each bin, then
 * replaces TIMED_REPLACED_PER_SEGMENT of its elements, and adds the counts to the call's
 * histogram. KIND: the enum text_kind or enum image_kind of a generated input, else 0. */
template <enum timed_format FORMAT, enum timed_content CONTENT, int KIND>
__global__ void make_segments(struct segment_job job)
{
    constexpr unsigned int bins = format_bins(FORMAT);
    constexpr unsigned int element_bytes = FORMAT == TIMED_SMALL_PIXELS ? 4 : 1;
    constexpr unsigned int elements_a_line = LINE_BYTES / element_bytes;
    constexpr bool english = CONTENT == TIMED_GENERATED && FORMAT == TIMED_LETTERS &&
                             KIND == TEXT_ENGLISH_LIKE;
    __shared__ unsigned int counts[bins];
    __shared__ char english_table[english ? ENGLISH_TABLE_BYTES : 4];
    __shared__ uint4 staged_lines[MAKER_THREADS / WARP_LANES][WARP_LANES][CHUNKS_A_LINE];
    for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x)
        counts[b] = 0;
    if (english) {
        for (unsigned int b = threadIdx.x; b < ENGLISH_TABLE_BYTES / 4; b += blockDim.x)
            ((uint32_t *)english_table)[b] = ((const uint32_t *)job.english_table)[b];
    }
    __syncthreads();

    const uint64_t call = blockIdx.y;
    const uint64_t segment = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t first = segment * TIMED_SEGMENT_ELEMENTS;
    const bool active = first < job.elements;
    const uint64_t count = !active ? 0
                           : job.elements - first < TIMED_SEGMENT_ELEMENTS ? job.elements - first
                                                                           : TIMED_SEGMENT_ELEMENTS;
    const uint64_t call_seed = mixed(job.run_seed ^ ((call + 1) * 0xA24BAED4963EE407ull));
    struct segment_stream stream;
    if (active) {
        constexpr bool one_value = CONTENT == TIMED_GENERATED &&
                                   (FORMAT == TIMED_LETTERS ? KIND == TEXT_ONE_LETTER
                                                            : KIND == IMAGE_SINGLE_VALUE);
        const uint64_t seed = keyed(job.key, call_seed,
                                    (KEYED_SEGMENT << 48) + (one_value ? 0 : segment + 1));
        if (CONTENT == TIMED_GENERATED && FORMAT == TIMED_LETTERS) {
            text_stream_start(&stream.text, (enum text_kind)KIND, seed, english_table);
        } else if (CONTENT == TIMED_GENERATED) {
            /* The gradient's place in its image: a random start, new every run. */
            const uint64_t place = keyed(job.key, call_seed, KEYED_GRADIENT << 48) % (1ull << 32);
            image_stream_start(&stream.image, (enum image_kind)KIND, seed, NULL, 0, place + first);
        } else {
            stream.material = job.material;
            stream.material_bytes = job.material_bytes;
            stream.at = (CONTENT == TIMED_SLICES ? mixed(seed) : first) % job.material_bytes;
        }
    }

    uint8_t *input = job.inputs + call * job.stride_bytes;
    bin_counter<bins> counter(counts);
    /* Whole lines through the warp. Lane 0 has the warp's first segment, so the most lines;
     * the warp's lanes are consecutive segments of one call (blockDim.x a multiple of 32). */
    const unsigned int lane = threadIdx.x % WARP_LANES;
    uint4 (*staged)[CHUNKS_A_LINE] = staged_lines[threadIdx.x / WARP_LANES];
    const uint64_t lines = count / elements_a_line;
    const uint64_t warp_lines = __shfl_sync(0xFFFFFFFFu, lines, 0);
    /* The lines this lane stores: chunk lane % 8 of the lines of lanes lane / 8, + 4, ... */
    const unsigned int chunk = lane % CHUNKS_A_LINE;
    for (uint64_t line = 0; line < warp_lines; line++) {
        if (line < lines) {
#pragma unroll 1
            for (unsigned int step = 0; step < elements_a_line / 16; step++) {
                unsigned int elements[16];
                next_sixteen<FORMAT, CONTENT, KIND>(&stream, elements);
#pragma unroll
                for (int k = 0; k < 16; k++)
                    counter.count(bin_of<FORMAT>(elements[k]));
                if (element_bytes == 1) {
                    uint32_t words[4];
#pragma unroll
                    for (int w = 0; w < 4; w++)
                        words[w] = elements[4 * w] | elements[4 * w + 1] << 8 |
                                   elements[4 * w + 2] << 16 | elements[4 * w + 3] << 24;
                    *staged_chunk(staged, lane, step) =
                        make_uint4(words[0], words[1], words[2], words[3]);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        *staged_chunk(staged, lane, 4 * step + q) =
                            make_uint4(elements[4 * q], elements[4 * q + 1], elements[4 * q + 2],
                                       elements[4 * q + 3]);
                }
            }
        }
        __syncwarp();
#pragma unroll
        for (unsigned int round = 0; round < WARP_LANES / (WARP_LANES / CHUNKS_A_LINE); round++) {
            const unsigned int owner = round * (WARP_LANES / CHUNKS_A_LINE) + lane / CHUNKS_A_LINE;
            const uint64_t owner_lines = __shfl_sync(0xFFFFFFFFu, lines, owner);
            if (line < owner_lines) {
                const uint64_t owner_first = first + ((uint64_t)owner - lane) * TIMED_SEGMENT_ELEMENTS;
                *(uint4 *)(input + owner_first * element_bytes + line * LINE_BYTES + chunk * 16) =
                    *staged_chunk(staged, owner, chunk);
            }
        }
        __syncwarp(); /* the lines stored (and seen by their owners) before they are made anew */
    }
    if (active) {
        for (uint64_t i = lines * elements_a_line; i < count; i++) {
            unsigned int element = next_element<FORMAT, CONTENT>(&stream);
            store_element<FORMAT>(input, first + i, element);
            counter.count(bin_of<FORMAT>(element));
        }
        counter.finish();

        /* Every segment its own replacements, one-valued inputs' too. */
        uint64_t state = keyed(job.key, call_seed, (KEYED_REPLACED << 48) + segment + 1);
        for (unsigned int r = 0; r < TIMED_REPLACED_PER_SEGMENT; r++) {
            uint64_t draw = generator_next(&state);
            uint64_t at = first + (draw >> 8) % count;
            unsigned int replacement = (unsigned int)(draw & 0xFF);
            if (FORMAT == TIMED_SMALL_PIXELS)
                replacement &= 15;
            int old_bin = bin_of<FORMAT>(load_element<FORMAT>(input, at));
            if (old_bin >= 0)
                atomicSub(&counts[old_bin], 1u);
            add_to_bin(counts, bin_of<FORMAT>(replacement), 1);
            store_element<FORMAT>(input, at, replacement);
        }
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x)
        if (counts[b])
            atomicAdd(&job.expected[call * bins + b], (unsigned long long)counts[b]);
}

typedef void (*segment_maker)(struct segment_job);

/* The generator of one source: its format, content and kind chosen once, here. */
template <enum timed_format FORMAT>
static segment_maker maker_of(enum timed_content content, int kind)
{
    if (content == TIMED_SLICES)
        return make_segments<FORMAT, TIMED_SLICES, 0>;
    if (content == TIMED_WHOLE)
        return make_segments<FORMAT, TIMED_WHOLE, 0>;
    if constexpr (FORMAT == TIMED_LETTERS) {
        switch (kind) {
        case TEXT_ENGLISH_LIKE: return make_segments<FORMAT, TIMED_GENERATED, TEXT_ENGLISH_LIKE>;
        case TEXT_UNIFORM_LETTERS: return make_segments<FORMAT, TIMED_GENERATED, TEXT_UNIFORM_LETTERS>;
        case TEXT_RANDOM_BYTES: return make_segments<FORMAT, TIMED_GENERATED, TEXT_RANDOM_BYTES>;
        case TEXT_ONE_LETTER: return make_segments<FORMAT, TIMED_GENERATED, TEXT_ONE_LETTER>;
        case TEXT_LONG_RUNS: return make_segments<FORMAT, TIMED_GENERATED, TEXT_LONG_RUNS>;
        case TEXT_SHORT_RUNS: return make_segments<FORMAT, TIMED_GENERATED, TEXT_SHORT_RUNS>;
        case TEXT_NO_LETTERS: return make_segments<FORMAT, TIMED_GENERATED, TEXT_NO_LETTERS>;
        }
    } else {
        switch (kind) {
        case IMAGE_NOISE: return make_segments<FORMAT, TIMED_GENERATED, IMAGE_NOISE>;
        case IMAGE_DARK: return make_segments<FORMAT, TIMED_GENERATED, IMAGE_DARK>;
        case IMAGE_SINGLE_VALUE: return make_segments<FORMAT, TIMED_GENERATED, IMAGE_SINGLE_VALUE>;
        case IMAGE_GRADIENT: return make_segments<FORMAT, TIMED_GENERATED, IMAGE_GRADIENT>;
        }
    }
    return NULL;
}

unsigned int timed_format_bins(enum timed_format format)
{
    return format_bins(format);
}

size_t timed_format_element_bytes(enum timed_format format)
{
    return format == TIMED_SMALL_PIXELS ? sizeof(uint32_t) : 1;
}

/* A malloc'ed copy of bytes (of uninitialised bytes where from is NULL); exits if there is no
 * memory for it. */
static void *checked_copy(const void *from, uint64_t bytes)
{
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) {
        fprintf(stderr, "timed inputs: no host memory for %llu bytes\n", (unsigned long long)bytes);
        exit(EXIT_FAILURE);
    }
    if (from)
        memcpy(copy, from, bytes);
    return copy;
}

struct timed_source timed_source_generated(enum timed_format format, int kind)
{
    struct timed_source source = {format, TIMED_GENERATED, kind, NULL, 0, NULL, NULL, 0};
    if (format == TIMED_LETTERS) {
        source.pristine_bytes = ENGLISH_TABLE_BYTES;
        source.pristine = checked_copy(NULL, ENGLISH_TABLE_BYTES);
        build_english_table((char *)source.pristine);
        CUDA_CHECK(cudaMalloc((void **)&source.d_english_table, ENGLISH_TABLE_BYTES));
    }
    return source;
}

struct timed_source timed_source_of_material(enum timed_format format, enum timed_content content,
                                             const void *material, uint64_t material_bytes)
{
    struct timed_source source = {format, content, 0, NULL, material_bytes, NULL,
                                  checked_copy(material, material_bytes), material_bytes};
    CUDA_CHECK(cudaMalloc((void **)&source.d_material, material_bytes));
    return source;
}

void timed_source_destroy(struct timed_source *source)
{
    if (source->d_material)
        CUDA_CHECK(cudaFree(source->d_material));
    if (source->d_english_table)
        CUDA_CHECK(cudaFree(source->d_english_table));
    free(source->pristine);
    source->d_material = NULL;
    source->d_english_table = NULL;
    source->pristine = NULL;
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
    struct segment_job job = {source->d_material, source->material_bytes, source->d_english_table,
                              run_seed, elements, stride_bytes, (uint8_t *)d_inputs, d_expected,
                              {key[0], key[1]}};
    const unsigned int bins = timed_format_bins(source->format);
    segment_maker maker = source->format == TIMED_LETTERS
                              ? maker_of<TIMED_LETTERS>(source->content, source->kind)
                          : source->format == TIMED_BYTE_PIXELS
                              ? maker_of<TIMED_BYTE_PIXELS>(source->content, source->kind)
                              : maker_of<TIMED_SMALL_PIXELS>(source->content, source->kind);
    if (!maker) {
        fprintf(stderr, "timed inputs: no generator for kind %d of format %d (a grader defect)\n",
                source->kind, (int)source->format);
        exit(EXIT_FAILURE);
    }
    void *d_pristine = source->d_material ? (void *)source->d_material : source->d_english_table;
    if (d_pristine)
        CUDA_CHECK(cudaMemcpy(d_pristine, source->pristine, source->pristine_bytes,
                              cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_expected, 0, (size_t)calls * bins * sizeof *d_expected));
    uint64_t segments = (elements + TIMED_SEGMENT_ELEMENTS - 1) / TIMED_SEGMENT_ELEMENTS;
    if (segments > 0 && calls > 0) {
        dim3 grid((unsigned int)((segments + MAKER_THREADS - 1) / MAKER_THREADS), (unsigned int)calls);
        void *arguments[] = {&job};
        CUDA_CHECK(cudaLaunchKernel((const void *)maker, grid, dim3(MAKER_THREADS), arguments, 0, 0));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}
