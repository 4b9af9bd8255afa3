// expect object: has a section cr_tst
// expect object: has a section .init
// A Criterion test (or hook) registered by its section; code spliced into the program's _init.
struct fake_test { const char *name; void (*run)(void); };
static void run(void) {}
__attribute__((section("cr_tst"), used)) static const fake_test registered = {"fake", run};
__attribute__((section(".init"), used)) static void spliced(void) {}
