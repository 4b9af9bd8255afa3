#!/usr/bin/env bash
# The submission check's own tests (grader/check_submission.py), on the CPU. Each source of
# grader/tests/submission-check/ is compiled as a lab's labN.cu through the three stages the
# Makefile runs (the includes check; the compile, with the check as gcc's -wrapper; the object
# check), and its first lines say what must happen:
#   // lab: lab8-challenge      the lab it is compiled as (default lab5-privatized)
#   // expect STAGE: TEXT       the stage that rejects it (includes, compile, object) and a line
#                               of the output holding TEXT (one line each); "// expect pass:" for
#                               a source that every stage must accept
#   // never: TEXT              TEXT must appear nowhere (the contents of a file it tried to read)
#   // env: NAME=VALUE          set for the check (a small limit: CHECK_SUBMISSION_MEMORY_MIB, ...)
# Every skeleton and solution must pass all three stages silently, the object check must say when
# the machine lacks binutils, and the list must let through none of the grader's own functions.
# One line a case, "pass" or "fail"; exits 1 when any case fails.
#
# NVCC, NVCCFLAGS (the kit's, for the architecture of the last build or CUDA_ARCH, else 90),
# TEST_FILTER (a glob on the case names), TEST_SHARD=I/N (only every Nth case from the Ith,
# counting from 0, for make test to run N of these at once) and TEST_VERBOSE=1 (show what the
# check said under each case) come from the environment when set.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
arch=${CUDA_ARCH:-$(cat build/cuda-arch 2>/dev/null)}
arch=${arch##* }
arch=${arch:-90}
read -r -a flags <<<"${NVCCFLAGS:--O3 -g -std=c++17 -Xcompiler -Wall,-Wextra -Icommon -gencode arch=compute_$arch,code=sm_$arch}"
check=grader/check_submission.py
filter=${TEST_FILTER:-*}
shard=${TEST_SHARD:-0/1}
shard_index=${shard%/*} shard_count=${shard#*/}
[[ $shard_index =~ ^[0-9]+$ && $shard_count =~ ^[1-9][0-9]*$ && $shard_index -lt $shard_count ]] ||
    { echo "TEST_SHARD must be I/N with 0 <= I < N, not '$shard'" >&2; exit 2; }
case_number=-1
picked() { # NAME: whether this run takes the case (TEST_FILTER, then TEST_SHARD)
    # shellcheck disable=SC2053
    [[ $1 == $filter ]] || return 1
    case_number=$((case_number + 1))
    [ $((case_number % shard_count)) = "$shard_index" ]
}
# The cases are built as ./grade --file builds a copy (build/file/<hash>/source/labN.cu), at the
# same depth, so that a relative #include reaches what it would reach there.
work=build/check-submission-tests
[ "$shard_count" = 1 ] || work+=-$shard_index
rm -rf "$work"
mkdir -p "$work"
failures=0

result() { # NAME OK [DETAIL...]
    local name=$1 ok=$2
    shift 2
    if [ "$ok" = yes ]; then
        printf '%-56s pass\n' "$name"
    else
        printf '%-56s fail\n' "$name"
        failures=$((failures + 1))
        [ $# -gt 0 ] && printf '    %s\n' "$@" | head -n 20
    fi
}

# Runs the three stages on SOURCE (LAB's), as the Makefile does; sets stage (the one that
# rejected it, or "pass"), status, output (everything printed) and said (what the check printed
# at the stage that rejected it: the compiler's own warnings left out).
stages() { # SOURCE LAB OBJECT [NAME=VALUE...]
    local source=$1 lab=$2 object=$3 said_now
    shift 3
    stage=includes
    said=$(env "$@" python3 "$check" includes "$source" -- "$NVCC" "${flags[@]}" -I"labs/$lab" "$source" 2>&1)
    status=$?
    output=$said
    [ $status = 0 ] || return
    stage=compile
    said_now=$(env "$@" python3 "$check" compile "$source" -- "$NVCC" "${flags[@]}" -I"labs/$lab" \
        -c "$source" -o "$object" 2>&1)
    status=$?
    output+=${said_now:+$'\n'}$said_now
    said=$(grep -e 'which a lab may not' -e 'the most it may' <<<"$said_now")
    [ $status = 0 ] || return
    stage=object
    said=$(env "$@" python3 "$check" object "$object" "$source" 2>&1)
    status=$?
    output+=${said:+$'\n'}$said
    [ $status = 0 ] || return
    stage=pass
}

for case in grader/tests/submission-check/*.cu; do
    name=submission-check/$(basename "$case" .cu)
    picked "$name" || continue
    lab=$(sed -n 's|^// lab: *||p' "$case" | head -n 1)
    lab=${lab:-lab5-privatized}
    short=${lab%%-*}
    mkdir -p "$work/$(basename "$case" .cu)/source"
    source=$work/$(basename "$case" .cu)/source/$short.cu
    cp "$case" "$source"
    readarray -t settings < <(sed -n 's|^// env: *||p' "$case")
    stages "$source" "$lab" "${source%.cu}.o" "${settings[@]}"
    problems=()
    expected=$(sed -n 's|^// expect \([a-z]*\):.*|\1|p' "$case" | sort -u)
    if [ "$(printf '%s\n' "$expected" | wc -l)" != 1 ] || [ -z "$expected" ]; then
        problems+=("the case says no one stage (// expect STAGE: TEXT)")
    elif [ "$stage" != "$expected" ]; then
        problems+=("expected the $expected stage to reject it; $stage (status $status)")
    elif [ "$stage" != pass ] && [ "$status" != 1 ]; then
        problems+=("the $stage stage exited $status, not 1")
    fi
    while IFS= read -r text; do
        [ -z "$text" ] || grep -q -F -- "$text" <<<"$output" || problems+=("no line has: $text")
    done < <(sed -n 's|^// expect [a-z]*: *||p' "$case")
    while IFS= read -r text; do
        grep -q -F -- "$text" <<<"$output" && problems+=("the output shows: $text")
    done < <(sed -n 's|^// never: *||p' "$case")
    # Every line the check printed names the source first (but the preprocessor's errors).
    if [ "$stage" != pass ]; then
        while IFS= read -r line; do
            case $line in "$source: "* | *": error: "* | *": fatal error: "*) ;;
            *) problems+=("a line does not start with the source: $line") ;;
            esac
        done <<<"$said"
    fi
    if [ ${#problems[@]} = 0 ]; then
        result "$name" yes
        [ -z "${TEST_VERBOSE:-}" ] || [ -z "$said" ] || printf '    %s\n' "$stage: ${said//$'\n'/$'\n'    $stage: }"
    else
        readarray -t shown <<<"$output"
        result "$name" no "${problems[@]}" "output:" "${shown[@]/#/  }"
    fi
done

# Every skeleton and every solution passes all three stages, silently; and every solution
# compiled as a CUDA 12 toolkit compiles it (the Makefile's KIT_LEGACY_LAUNCH: <<<...>>> calls
# cudaLaunchKernel), the kit's floor.
solutions=(solutions/*/lab[0-9]*.cu)
for source in labs/*/lab[0-9]*.cu "${solutions[@]}" "${solutions[@]/#/cuda12:}"; do
    launch=() kind=clean
    if [[ $source == cuda12:* ]]; then
        source=${source#cuda12:} launch=(-D__NV_LEGACY_LAUNCH -Xcompiler -D__NV_LEGACY_LAUNCH)
        kind=clean-cuda12-launch
    fi
    name=$kind/${source%.cu}
    picked "$name" || continue
    lab=$(basename "$(dirname "$source")")
    mkdir -p "$work/$kind/$(dirname "$source")"
    flags_of_the_kit=("${flags[@]}")
    flags+=(${launch[@]+"${launch[@]}"})
    stages "$source" "$lab" "$work/$kind/${source%.cu}.o"
    flags=("${flags_of_the_kit[@]}")
    # The compile's own warnings are the skeleton's (unused variables): only the check's count.
    if [ "$stage" = pass ] && [ -z "$said" ]; then
        result "$name" yes
    else
        readarray -t shown <<<"$output"
        result "$name" no "rejected at the $stage stage:" "${shown[@]/#/  }"
    fi
done

# A machine without binutils: exit 4 and one line saying so, not the student's fault.
name=machine/object-check-without-nm
if picked "$name"; then
    object=$work/clean/solutions/lab1-race/lab1.o
    mkdir -p "$(dirname "$object")"
    "$NVCC" "${flags[@]}" -Ilabs/lab1-race -c solutions/lab1-race/lab1.cu -o "$object" >/dev/null 2>&1
    output=$(NM=/nonexistent/nm python3 "$check" object "$object" solutions/lab1-race/lab1.cu 2>&1)
    status=$?
    if [ $status = 4 ] && [ "$(printf '%s\n' "$output" | wc -l)" = 1 ] &&
        grep -q 'grading machine is broken: /nonexistent/nm is missing' <<<"$output"; then
        result "$name" yes
    else
        result "$name" no "status $status, output: $output"
    fi
fi

# A SIGTERM or a SIGINT to the check ends the compiler's processes too (they run in a process
# group of their own, under its limits), not the check alone: a macro explosion left running
# would take the host's memory. The check is started with SIGINT's default action (a background
# command ignores it otherwise).
for signal in TERM INT; do
    name=signals/sig${signal,,}-ends-the-compiler-too
    picked "$name" || continue
    folder=$work/signal-$signal/source
    mkdir -p "$folder"
    cp grader/tests/submission-check/macro-bomb-memory.cu "$folder/lab5.cu"
    CHECK_SUBMISSION_MEMORY_MIB=2048 python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' python3 "$check" includes "$folder/lab5.cu" -- "$NVCC" "${flags[@]}" \
        -Ilabs/lab5-privatized "$folder/lab5.cu" >/dev/null 2>&1 &
    check_pid=$!
    compilers() { # the processes but the check that name the case's source
        local file process
        for file in /proc/[0-9]*/cmdline; do
            process=${file#/proc/} process=${process%/cmdline}
            [ "$process" != "$check_pid" ] && grep -q -a -F -- "$folder/lab5.cu" "$file" 2>/dev/null && echo "$process"
        done
    }
    for _ in $(seq 100); do [ -z "$(compilers)" ] || break; sleep 0.1; done
    before=$(compilers | wc -l)
    kill -s "$signal" "$check_pid"
    wait "$check_pid"
    status=$?
    left=$(compilers)
    if [ "$before" -gt 0 ] && [ -z "$left" ] && [ $status = $((128 + $(kill -l "$signal"))) ]; then
        result "$name" yes
    else
        result "$name" no "$before compiler processes before, exit $status, left running: ${left:-none}"
        for process in $left; do kill -s KILL "$process" 2>/dev/null; done
    fi
done

# The list lets through none of the grader's own functions (but cuda_check and
# gpu_shared_memory_per_block, which a lab may call): the harness, the results, the kit's common
# code, the references.
name=allowlist/none-of-the-graders-functions
if picked "$name"; then
    objects=(build/harness/*.o build/results/records.o build/common/*.o build/reference/*.o)
    if [ ! -f "${objects[0]}" ]; then
        result "$name" no "build the kit first (make CUDA_ARCH=$arch all): no build/harness/*.o"
    else
        allow=() deny=()
        while IFS= read -r line; do
            line=${line%%#*}
            set -f; set -- $line; set +f
            [ $# -gt 0 ] || continue
            case $1 in !*) deny+=("${1#!}") ;; *) allow+=("$1") ;; esac
        done <grader/allowed-symbols.txt
        admitted=$(nm --defined-only --extern-only -P "${objects[@]}" 2>/dev/null |
            awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | sort -u | while read -r symbol; do
                for pattern in "${deny[@]}"; do case $symbol in $pattern) continue 2 ;; esac; done
                for pattern in "${allow[@]}"; do case $symbol in $pattern) echo "$symbol"; break ;; esac; done
            done | grep -v -x -e cuda_check -e gpu_shared_memory_per_block -e 'DW.ref.__gxx_personality_v0')
        if [ -z "$admitted" ]; then result "$name" yes
        else result "$name" no "the list admits: $(echo $admitted)"; fi
    fi
fi

[ $failures = 0 ] || { echo "$failures case(s) failed"; exit 1; }
