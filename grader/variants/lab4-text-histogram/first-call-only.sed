# State left behind: the function does its work on its first call only, and returns zeros after.
# expect: (unstable)
/lab4_histogram_atomic(const char/,/^}/{/return; \/\/ a grid of 0 blocks/a\
    static int calls = 0;\
    if (calls++ > 0)\
        return;
}
