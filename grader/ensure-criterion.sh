#!/usr/bin/env bash
# Makes sure Criterion, the test framework the graders are built on, can be compiled against.
# Installs Debian's libcriterion-dev when it is missing and we run as root; otherwise stops
# with the exact command to run.
set -u
probe() {
    local flags=()
    if [ -n "${CRITERION_PREFIX:-}" ]; then
        # The prefix named is the one used: a system-wide Criterion must not hide its absence.
        [ -f "$CRITERION_PREFIX/include/criterion/criterion.h" ] || return 1
        flags=(-I"$CRITERION_PREFIX/include")
    fi
    echo '#include <criterion/criterion.h>' | "${CC:-gcc}" "${flags[@]}" -E -x c - >/dev/null 2>&1
}
probe && exit 0
if [ -n "${CRITERION_PREFIX:-}" ]; then
    echo "Criterion was not found under CRITERION_PREFIX=$CRITERION_PREFIX (no include/criterion/criterion.h)." >&2
    exit 1
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Criterion (the graders' test framework) is missing: installing Debian's libcriterion-dev..."
    if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcriterion-dev >/dev/null && probe; then
        echo "Criterion installed."
        exit 0
    fi
    echo "Installing libcriterion-dev failed; try by hand: apt-get update && apt-get install -y libcriterion-dev" >&2
    exit 1
fi
echo "Criterion (the graders' test framework) is missing. Install it with:" >&2
echo "    sudo apt-get install libcriterion-dev" >&2
exit 1
