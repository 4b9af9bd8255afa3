// expect object: defines main for the whole program
// Criterion's main, replaced.
extern "C" int main(void) { return 0; }
