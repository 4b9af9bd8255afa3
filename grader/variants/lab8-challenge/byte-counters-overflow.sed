# The byte-wide counters are emptied every 24 vectors: up to 384 counts in 8 bits.
# expect: wrong histogram
s|#define VECTORS_PER_FLUSH 12|#define VECTORS_PER_FLUSH 24|
