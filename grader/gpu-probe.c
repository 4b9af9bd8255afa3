/* ./grade asks this whether the GPU can run the sanitizers' demo, when no test of the grading
 * has said (a --filter that ran CPU tests only): exit 0 when device 0 can run kernels,
 * otherwise exit 3 with the reason on one line, the tests' own (common/device.c). */
#include "device.h"

#include <stdio.h>

int main(void)
{
    char reason[256];
    if (gpu_available(reason, sizeof reason))
        return 0;
    puts(reason);
    return 3;
}
