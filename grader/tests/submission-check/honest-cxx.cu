// expect pass:
// Correct code a student writes without thinking of the grader: an assert, a vector that grows,
// new's nothrow form (an instructor's and a red team's trials: each was "does not compile", 0
// points). Each ends the process only where the code is wrong, and the test then fails.
#include <cassert>
#include <new>
#include <vector>
unsigned long long total(const unsigned long long *histogram, int bins)
{
    assert(histogram != nullptr);
    std::vector<unsigned long long> seen;
    for (int bin = 0; bin < bins; bin++)
        seen.push_back(histogram[bin]);
    unsigned long long *copy = new (std::nothrow) unsigned long long[bins];
    unsigned long long sum = 0;
    for (int bin = 0; bin < bins; bin++)
        sum += copy ? (copy[bin] = seen[bin]) : seen[bin];
    delete[] copy;
    return sum;
}
