/* Lab 1's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab1.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(2, (VALUE, struct race_outcome), lab1_simulate_race, (VALUE, unsigned long long, 0),      \
      (HOST_IN, const int *, RACE_STEPS))                                                      \
    X(3, (VOID, void), lab1_launch_racy_count, (DEVICE, unsigned long long *, 0),              \
      (VALUE, unsigned int, 0), (VALUE, unsigned int, 0))                                      \
    X(3, (VALUE, unsigned long long), lab1_count_program, (VALUE, unsigned int, 0),            \
      (VALUE, unsigned int, 0), (HOST_OUT, float *, 1))
