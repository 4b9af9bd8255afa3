// expect object: calls reference_lab5_histogram_private_shared, which a lab may not call
// The reference, declared weak so that the demo (which has no references) still links.
#include "lab5.h"
extern "C" void reference_lab5_histogram_private_shared(const char *, uint64_t, unsigned long long *)
    __attribute__((weak));
void lab5_histogram_private_shared(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    if (reference_lab5_histogram_private_shared)
        reference_lab5_histogram_private_shared(d_text, length, d_histogram);
}
