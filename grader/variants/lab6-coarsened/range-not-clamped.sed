# A thread's range is not clamped to the text: the last thread reads past its end.
# expect: (read-past-end)
s|uint64_t end = min(begin + chars_per_thread, length);|uint64_t end = begin + chars_per_thread;|
