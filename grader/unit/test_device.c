/* KIT_SHARED_MEMORY_PER_BLOCK, the smaller GPU the kit stands in for (common/device.h): what it
 * takes, and the one line for what it refuses. */
#include "device.h"

#include <criterion/criterion.h>
#include <string.h>

static size_t limit_of(const char *text)
{
    size_t bytes = 12345;
    char reason[200] = "";
    cr_assert(shared_memory_limit_from(text, &bytes, reason, sizeof reason),
              "'%s' refused: %s", text ? text : "(unset)", reason);
    return bytes;
}

static void expect_refused(const char *text, const char *because)
{
    size_t bytes = 12345;
    char reason[200] = "";
    cr_expect_not(shared_memory_limit_from(text, &bytes, reason, sizeof reason),
                  "'%s' was taken as %zu bytes", text, bytes);
    cr_expect(strstr(reason, because) != NULL, "'%s': the reason '%s' does not say '%s'", text,
              reason, because);
    cr_expect(strchr(reason, '\n') == NULL, "'%s': the reason is more than one line", text);
}

Test(shared_memory_limit, unset_or_empty_is_no_limit)
{
    cr_expect_eq(limit_of(NULL), 0);
    cr_expect_eq(limit_of(""), 0);
}

Test(shared_memory_limit, the_three_smaller_gpus)
{
    cr_expect_eq(limit_of("48K"), 48 * 1024);
    cr_expect_eq(limit_of("64K"), 64 * 1024);
    cr_expect_eq(limit_of("99K"), 99 * 1024);
    cr_expect_eq(limit_of("99k"), 99 * 1024);
    cr_expect_eq(limit_of("101376"), 99 * 1024, "a count of bytes");
}

Test(shared_memory_limit, refuses_what_is_not_a_size)
{
    expect_refused("48KB", "is not a size");
    expect_refused("48 K", "is not a size");
    expect_refused("K", "is not a size");
    expect_refused("-64K", "is not a size");
    expect_refused("64M", "is not a size");
    expect_refused("99999999999999999999999K", "is not a size");
}

Test(shared_memory_limit, refuses_less_than_what_every_gpu_gives)
{
    expect_refused("32K", "less than 48K");
    expect_refused("49151", "less than 48K");
    cr_expect_eq(limit_of("49152"), 48 * 1024);
}
