# Right, written differently: two loads in flight a thread, one block per multiprocessor.
# expect: accepted
s|#define VECTORS_IN_FLIGHT 4|#define VECTORS_IN_FLIGHT 2|
s|return (unsigned int)(blocks_per_multiprocessor \* multiprocessors);|return (unsigned int)multiprocessors; // one block a multiprocessor|
