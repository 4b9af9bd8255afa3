#include "reference.h"

#include <string.h>

int histogram_bin_of(char byte)
{
    unsigned char value = (unsigned char)byte;
    if (value < 'a' || value > 'z')
        return -1;
    return (value - 'a') / LETTERS_PER_BIN;
}

void cpu_histogram(const char *text, uint64_t length, unsigned long long histogram[HISTOGRAM_BINS])
{
    memset(histogram, 0, HISTOGRAM_BINS * sizeof histogram[0]);
    for (uint64_t i = 0; i < length; i++) {
        int bin = histogram_bin_of(text[i]);
        if (bin >= 0)
            histogram[bin]++;
    }
}

const char *histogram_bin_name(int bin)
{
    static const char *const names[HISTOGRAM_BINS] = {"a-d", "e-h", "i-l", "m-p",
                                                      "q-t", "u-x", "y-z"};
    return bin >= 0 && bin < HISTOGRAM_BINS ? names[bin] : "?";
}
