# The "GPU" histogram copies the text to the host and counts it there: right answer, no GPU
# technique.
# expect: technique missing
s|            atomicAdd(&histogram\[position / LETTERS_PER_BIN\], 1ULL);|            (void)histogram;|
/histogram_atomic_kernel<<</,/d_histogram);/c\
    (void)blocks;\
    char *text = (char *)malloc(length);\
    unsigned long long bins[HISTOGRAM_BINS];\
    CUDA_CHECK(cudaMemcpy(text, d_text, length, cudaMemcpyDeviceToHost));\
    lab4_histogram_sequential(text, length, bins);\
    CUDA_CHECK(cudaMemcpy(d_histogram, bins, sizeof bins, cudaMemcpyHostToDevice));\
    free(text);
