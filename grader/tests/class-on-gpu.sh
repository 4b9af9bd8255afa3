#!/usr/bin/env bash
# ./grade-class on a machine with an NVIDIA GPU: make test's parts class and slurm, which grade the
# class fixture (grader/class-fixture.sh) locally with the machine's GPUs (untimed, then two
# entries timed against the reference) and through a real Slurm of one node that has them
# (grader/tests/local_slurm.py), each row against the verdict expected.tsv gives it. Fails
# unless every check passes and none is skipped. Run as root (the one-node Slurm starts its
# jobs as root), from the kit's repository, on a GPU machine:
#   grader/tests/class-on-gpu.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
nvidia-smi -L >/dev/null 2>&1 || { echo "class-on-gpu: no NVIDIA GPU here (nvidia-smi -L failed)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "class-on-gpu: run it as root: the one-node Slurm starts its jobs as root" >&2; exit 2; }
packages=()
command -v bwrap >/dev/null || packages+=(bubblewrap)
command -v slurmctld >/dev/null && command -v slurmd >/dev/null || packages+=(slurm-wlm)
command -v munged >/dev/null || packages+=(munge)
# Criterion: Debian's package, or the copy CRITERION_PREFIX names (a GPU machine with no package
# registry: .device/criterion, with .device/class-env.sh sourced for the rest).
[ -f "${CRITERION_PREFIX:-/nonexistent}/include/criterion/criterion.h" ] ||
    dpkg -s libcriterion-dev >/dev/null 2>&1 || packages+=(libcriterion-dev)
command -v xmllint >/dev/null || packages+=(libxml2-utils)
command -v prove >/dev/null || packages+=(perl)
python3 -c 'import tap, jsonschema' 2>/dev/null || python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
if [ ${#packages[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
python3 -c 'import tap, jsonschema' 2>/dev/null ||
    PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check tap.py jsonschema
mkdir -p build/test
TEST_PARTS="class slurm" python3 grader/tests/run_tests.py | tee build/test/class-on-gpu.log
# make test's last lines: "make test: N passed, N failed, N skipped".
grep -q -E '^make test: [0-9]+ passed, 0 failed, 0 skipped$' build/test/class-on-gpu.log || {
    echo "class-on-gpu: a check failed or was skipped (build/test/class-on-gpu.log)" >&2
    exit 1
}
echo "class-on-gpu: every row honest, locally and through Slurm (build/test/class-on-gpu.log)"
