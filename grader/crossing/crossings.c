/* One list of crossings (grader/<lab>/crossings.h, or baselines.h) made into one side of the
 * crossing: the Makefile compiles this file once for each list and side, with
 *   CROSSING_LIST     the list's header
 *   CROSSING_PROXIES  defined: proxies, for a grader; undefined: the worker's thunks
 *   CROSSING_TARGET   CROSSING_STUDENT or CROSSING_REFERENCE: whose worker runs the calls
 *   CROSSING_PREFIX   empty, or reference_ for the references' renamed functions
 *   CROSSING_DECLARATIONS  (optional) a header declaring the prefixed functions, so that the
 *                     compiler checks each proxy and thunk against the contract's types */
#include "crossing.h"

/* A contract may declare a parameter as an array (unsigned long long histogram[BINS]); its proxy
 * and thunk take the pointer it is, the same type to the compiler. */
#pragma GCC diagnostic ignored "-Warray-parameter"

#include CROSSING_LIST
#ifdef CROSSING_DECLARATIONS
#include CROSSING_DECLARATIONS
#endif

#ifdef CROSSING_PROXIES
#define CROSSING_SIDE(arity, result, name, ...)                                               \
    CROSSING_PROXY(arity, CROSSING_TARGET, CROSSING_PREFIX, result, name, ##__VA_ARGS__)
#else
#define CROSSING_SIDE(arity, result, name, ...)                                               \
    CROSSING_THUNK(arity, CROSSING_TARGET, CROSSING_PREFIX, result, name, ##__VA_ARGS__)
#endif

LAB_CROSSINGS(CROSSING_SIDE)
