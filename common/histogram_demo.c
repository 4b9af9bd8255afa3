#include "histogram_demo.h"

#include "compare.h"
#include "cuda_check.h"
#include "inputs.h"
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>

#define DEMO_BYTES (64ull << 20)

int run_histogram_demo(int argc, char **argv, const struct demo_entry *entries, int count)
{
    char *text = NULL;
    uint64_t length = 0;
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: %s [FILE]\n  counts FILE, or 64 MiB of generated text\n", argv[0]);
        return 2;
    }
    if (argc == 2) {
        char error[512];
        if (load_file(argv[1], &text, &length, error, sizeof error) != 0) {
            fprintf(stderr, "%s: %s\n", argv[0], error);
            return 2;
        }
        printf("text: %s, %llu bytes\n", argv[1], (unsigned long long)length);
    } else {
        length = DEMO_BYTES;
        text = malloc(length);
        if (!text) {
            fprintf(stderr, "%s: out of host memory\n", argv[0]);
            return 1;
        }
        generate_text(TEXT_ENGLISH_LIKE, 1, text, length);
        printf("text: %llu bytes of generated English-like text (give a FILE to count your own)\n",
               (unsigned long long)length);
    }

    unsigned long long expected[HISTOGRAM_BINS], got[HISTOGRAM_BINS];
    cpu_histogram(text, length, expected);
    char *d_text = NULL;
    unsigned long long *d_histogram = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_text, length));
    CUDA_CHECK(cudaMalloc((void **)&d_histogram, sizeof got));
    CUDA_CHECK(cudaMemcpy(d_text, text, length, cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    int wrong = 0;
    for (int e = 0; e < count; e++) {
        CUDA_CHECK(cudaEventRecord(start, 0));
        entries[e].function(d_text, length, d_histogram);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaGetLastError());
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        CUDA_CHECK(cudaMemcpy(got, d_histogram, sizeof got, cudaMemcpyDeviceToHost));
        bool right = histograms_equal(got, expected);
        wrong += !right;
        char table[1024];
        format_bin_table(table, sizeof table, expected, got);
        printf("\n%s: %s, %.3f ms (one run, start-up costs included: ./grade times properly)\n%s",
               entries[e].name, right ? "right" : "WRONG", ms, table);
    }

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_text));
    CUDA_CHECK(cudaFree(d_histogram));
    free(text);
    return wrong ? 1 : 0;
}
