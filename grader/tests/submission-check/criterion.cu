// expect object: calls criterion_skip_test, which a lab may not call
// expect object: calls cr_log_info, which a lab may not call
// Criterion's own functions, from inside a test.
extern "C" void criterion_skip_test(const char *, ...);
extern "C" void cr_log_info(const char *, ...);
void skip(void) { cr_log_info("hello"); criterion_skip_test("no"); }
