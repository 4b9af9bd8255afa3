#!/usr/bin/env bash
# Gradescope's setup.sh for the kit's autograder bundle (make gradescope): runs once, as root,
# when Gradescope builds the autograder's image. Pick Gradescope's Ubuntu 24.04 base image: its
# libcriterion-dev is 2.4, the version the kit is tested with. Installs what grading needs
# without a GPU (a compiler, Criterion, NVIDIA's nvcc and cuobjdump, CUDA 13.0 as in the kit's
# tests; nothing that is already there), unpacks the student kit and builds the lab once, so
# that each submission only compiles its own file.
set -euo pipefail
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lab=$(cat "$source_dir/lab")
cuda=13-0
export DEBIAN_FRONTEND=noninteractive
packages=()
command -v make >/dev/null && command -v gcc >/dev/null || packages+=(build-essential)
command -v python3 >/dev/null || packages+=(python3)
# (a Criterion staged elsewhere, named by CRITERION_PREFIX, counts)
[ -f "${CRITERION_PREFIX:-/nonexistent}/include/criterion/criterion.h" ] ||
    dpkg -s libcriterion-dev >/dev/null 2>&1 || packages+=(libcriterion-dev)
have_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
have_nvcc || command -v wget >/dev/null || packages+=(wget ca-certificates)
if [ ${#packages[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi
if ! have_nvcc; then
    . /etc/os-release
    repo="https://developer.download.nvidia.com/compute/cuda/repos/ubuntu${VERSION_ID/./}/x86_64"
    wget -q -O /tmp/cuda-keyring.deb "$repo/cuda-keyring_1.1-1_all.deb"
    dpkg -i /tmp/cuda-keyring.deb
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "cuda-nvcc-$cuda" "cuda-cudart-dev-$cuda" "cuda-cuobjdump-$cuda"
fi
export PATH="/usr/local/cuda/bin:$PATH"
rm -rf "$source_dir/kit"
mkdir -p "$source_dir/kit"
tar -xzf "$source_dir/kit.tar.gz" -C "$source_dir/kit" --strip-components=1
make -C "$source_dir/kit" -s --no-print-directory -j"$(nproc)" "${lab%%-*}" build/results/results "build/listing/$lab/tests.records"
echo "setup: the kit is ready to grade $lab"
