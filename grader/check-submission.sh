#!/usr/bin/env bash
# The submission check: a lab's source and object may reach nothing but the lab's own code, CUDA,
# the terminal and memory; not the grader's record, the reference solutions, nor the machine.
# The Makefile runs it on every lab it builds (student, solution, variant, ./grade --file):
#
#   check-submission.sh includes SOURCE -- NVCC_COMMAND...
#       Before compiling: every file SOURCE includes (nvcc -M, on every pass, host and device)
#       must be SOURCE itself, a CUDA or system header, or a .h file of labs/<its lab>/ or common/.
#       Nothing is compiled, and no included file's text is ever printed.
#   CHECK_SUBMISSION_SOURCE=SOURCE nvcc ... -Xcompiler -wrapper,grader/check-submission.sh
#       While compiling: as gcc's wrapper, it reads the host assembly before the assembler does,
#       and stops inline assembly in host code (device code may have its asm), and the assembler
#       directives that read files (.include, .incbin) or could spell them (.macro, .irp, ...),
#       which can come in without asm too, through a section's name or an asm label.
#   check-submission.sh object OBJECT SOURCE
#       After compiling: OBJECT's undefined symbols must be in grader/allowed-symbols.txt, its
#       sections in grader/allowed-sections.txt, its .init_array only nvcc's registration, its
#       host code free of system calls, and what it defines must not stand in for the C library's
#       or the grader's functions.
#
# A problem prints one line, "SOURCE: ...", and exits 1; a clean file exits 0 silently; exit 4 is
# a grading machine without the tools this needs (binutils), exit 2 a wrong command line.
set -u

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
kit=$(dirname -- "$here")
# nvcc 12 and 13 name the function that registers an object's kernels (from .init_array) so.
registration=_ZL24__sti____cudaRegisterAllv

usage() {
    echo "usage: $0 includes SOURCE -- NVCC_COMMAND... | object OBJECT SOURCE" >&2
    exit 2
}
broken() { # the grading machine cannot check a submission: not the student's fault
    echo "check-submission: the grading machine is broken: $1" >&2
    exit 4
}
tool() { # NAME: the path of a tool ($NM, $READELF, $OBJDUMP override), else exit 4
    local override path
    override=$(printf '%s' "$1" | tr a-z A-Z)
    path=${!override:-$1}
    if command -v -- "$path" >/dev/null 2>&1; then command -v -- "$path"
    elif [ -x "/usr/bin/$path" ]; then echo "/usr/bin/$path"
    else broken "$path is missing (binutils), and checking a submission needs it"; fi
}
as_written() { # SYMBOL: the call as the source wrote it, where glibc's headers renamed it
    # (_FORTIFY_SOURCE, on by default in Ubuntu's gcc, turns open into __open_2 and longjmp
    # into __longjmp_chk; setjmp is a macro for _setjmp)
    case $1 in
    _setjmp | __sigsetjmp) echo setjmp ;;
    __*_chk) local plain=${1#__}; echo "${plain%_chk}" ;;
    __*_2) local plain=${1#__}; echo "${plain%_2}" ;;
    *) echo "$1" ;;
    esac
}

scratch() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-submission.XXXXXX") || broken "no temporary folder"
    trap 'rm -rf -- "$tmp"' EXIT
}

# ---- includes -------------------------------------------------------------------------------
includes() {
    local source=$1 arg skip=0 rc real cuda lab_dir source_real bad=0
    shift
    [ "${1:-}" = -- ] && [ $# -ge 2 ] || usage
    shift
    # The compile command, less what would compile or write files (the caller's -c, -o, -MMD).
    local command=()
    for arg; do
        if [ $skip = 1 ]; then skip=0; continue; fi
        case $arg in
        -c | -MD | -MMD | -MP | -M | -MM | --compile) ;;
        -o | -MF | -MT | -MQ | --output-file | --dependency-output) skip=1 ;;
        *) command+=("$arg") ;;
        esac
    done
    command -v realpath >/dev/null 2>&1 || broken "realpath is missing (coreutils)"
    local nvcc
    nvcc=$(command -v -- "${command[0]}") || broken "no compiler ${command[0]}"
    cuda=$(realpath -- "$(dirname -- "$nvcc")/..")
    source_real=$(realpath -m -- "$source")
    # Its lab: labs/lab5-*/ for lab5.cu, wherever the file is (./grade --file copies it).
    lab_dir=
    case ${source##*/} in
    lab[0-9]*.cu) for lab_dir in "$kit/labs/$(basename -- "$source" .cu)"-*/; do break; done
        [ -d "$lab_dir" ] && lab_dir=$(realpath -- "$lab_dir") || lab_dir= ;;
    esac
    scratch
    # -M lists every file the passes read, #line names included; gcc's -H names the headers
    # opened before an error, for when -M stops. Neither output is ever shown: a warning about a
    # file quotes its lines. A device file (/dev/zero) never ends: the time limit stops it.
    local limit=()
    command -v timeout >/dev/null 2>&1 && limit=(timeout 300)
    ${limit[@]+"${limit[@]}"} "${command[@]}" -M -MF "$tmp/deps" -Xcompiler -H \
        </dev/null >/dev/null 2>"$tmp/err"
    rc=$?
    {
        [ -f "$tmp/deps" ] && awk '{ sub(/\\$/, ""); text = text " " $0 }
            END { sub(/^[^:]*:/, "", text); gsub(/\\ /, "\001", text)
                  n = split(text, parts, /[ \t]+/)
                  for (i = 1; i <= n; i++) if (parts[i] != "") { gsub(/\001/, " ", parts[i]); print parts[i] } }' \
            "$tmp/deps"
        sed -n 's/^\.\.* //p' "$tmp/err"
    } | tr '\n' '\0' | xargs -0 -r realpath -m -- | awk '!seen[$0]++' >"$tmp/files"
    while IFS= read -r real; do
        case $real in
        "$source_real" | /usr/include/* | /usr/lib/gcc/* | "$cuda"/include/* | "$cuda"/targets/*/include/* | \
            /usr/local/cuda*/include/* | /usr/local/cuda*/targets/*/include/*) continue ;;
        "$kit"/common/*.h) [ "${real%/*}" = "$kit/common" ] && continue ;;
        esac
        [ -n "$lab_dir" ] && [ "${real%/*}" = "$lab_dir" ] && [ "${real%.h}" != "$real" ] && continue
        echo "$source: includes $real, which a lab may not include (only its own lab header," \
            "common/*.h, CUDA's and the system's headers)" >&2
        bad=1
    done <"$tmp/files"
    [ $bad = 0 ] || exit 1
    if [ $rc = 124 ]; then
        echo "$source: listing its includes took more than 300 s (does it include a device?)" >&2
        exit 1
    elif [ $rc != 0 ]; then
        # The preprocessor stopped (a missing header, #error): its errors, without the source
        # lines it quotes (a #line could make it quote any file), and without compiling.
        grep -E ': (fatal error|error): |^nvcc (fatal|error)' "$tmp/err" | awk '!seen[$0]++' >&2
        echo "$source: does not preprocess (the errors above)" >&2
        exit 1
    fi
    exit 0
}

# ---- the assembler, as gcc's -wrapper ---------------------------------------------------------
wrapper() {
    case ${1##*/} in
    as | *-as) ;;
    *) exec "$@" ;;
    esac
    local source=$CHECK_SUBMISSION_SOURCE input=${!#} found
    if [ ! -f "$input" ]; then # the assembly comes on standard input (gcc -pipe)
        scratch
        cat >"$tmp/input.s"
        input=$tmp/input.s
        set -- "$@" "$input"
    fi
    # Inline assembly in host code: nvcc's own is the fatbinary, the last top-level asm of the
    # file, so that the first #APP region must begin with it and be the only one; any other asm
    # (top-level: before it; in a function: a region of its own) is the lab's. (gcc ends a
    # top-level region only at the next function, so what follows the fatbinary is gcc's.)
    # And the directives that read files, or could spell them (macros), anywhere outside a quoted
    # string or a character constant ('c): a section's name or an asm label can carry lines of
    # assembly too, without any asm. gcc's own output never has them.
    found=$(awk '
        function unquoted(s,   out, i, c, quoted) { # s less its strings and character constants
            if (index(s, "\"") == 0 && index(s, "\047") == 0) return s
            out = ""; quoted = 0
            for (i = 1; i <= length(s); i++) {
                c = substr(s, i, 1)
                if (quoted) { if (c == "\\") i++; else if (c == "\"") quoted = 0 }
                else if (c == "\"") quoted = 1
                else if (c == "\047") { i++; if (substr(s, i, 1) == "\\") i++ }
                else out = out c
            }
            return out
        }
        BEGIN { n = split("include incbin macro irp irpc rept altmacro purgem", word, " ") }
        /^#APP/ { regions++; first = 1; next }
        /^#NO_APP/ { first = 0; next }
        first && $0 !~ /^[ \t]*$/ {
            line = $0; gsub(/^[ \t]+/, "", line); gsub(/[ \t]+$/, "", line)
            if (regions > 1 || line != ".section .nv_fatbin, \"a\"") asm = 1
            first = 0
        }
        {
            lower = tolower(unquoted($0))
            for (w = 1; w <= n; w++) {
                from = 0
                while ((k = index(substr(lower, from + 1), "." word[w])) > 0) {
                    at = from + k
                    before = (at > 1 ? substr(lower, at - 1, 1) : "")
                    after = substr(lower, at + length(word[w]) + 1, 1)
                    if (before !~ /[a-z0-9_.$@]/ && after !~ /[a-z0-9_.$]/ && !(word[w] in seen)) {
                        seen[word[w]] = 1; found = found " ." word[w]
                    }
                    from = at
                }
            }
        }
        END { if (asm) print "asm"; if (found != "") print "directives" found }' "$input")
    case $found in *asm*)
        echo "$source: has inline assembly in its host code, which a lab may not have (asm is for" \
            "__device__ code)" >&2 ;;
    esac
    case $found in *directives*)
        echo "$source: its host code has the assembler directive(s)${found##*directives}, which a lab" \
            "may not have" >&2 ;;
    esac
    [ -z "$found" ] || exit 1
    "$@"
    exit
}

# ---- object ---------------------------------------------------------------------------------
object() {
    local object=$1 source=$2 nm readelf objdump
    nm=$(tool nm) && readelf=$(tool readelf) && objdump=$(tool objdump) || exit 4
    [ -f "$object" ] || { echo "$source: its object $object is missing" >&2; exit 2; }
    scratch
    "$nm" -u -P "$object" >"$tmp/undefined" 2>"$tmp/tool.err" &&
        "$readelf" -S -W "$object" >"$tmp/sections" 2>>"$tmp/tool.err" &&
        "$readelf" -s -W "$object" >"$tmp/symbols" 2>>"$tmp/tool.err" &&
        "$readelf" -r -W "$object" >"$tmp/relocations" 2>>"$tmp/tool.err" &&
        "$objdump" -d -r -w --no-show-raw-insn "$object" >"$tmp/code" 2>>"$tmp/tool.err" || {
        echo "$source: its object $object cannot be read: $(head -n 1 "$tmp/tool.err")" >&2
        exit 1
    }
    local problems=() allow=() where=() deny=() section_glob=() section_type=() line i

    # The lists: one shell glob a line; a symbol's may say where it may be used (registration,
    # device-stub), and "!" refuses the symbols it matches even where another glob allows them.
    while IFS= read -r line; do
        line=${line%%#*}
        set -f; set -- $line; set +f
        [ $# -gt 0 ] || continue
        case $1 in
        !*) deny+=("${1#!}") ;;
        *) allow+=("$1"); where+=("${2:-anywhere}") ;;
        esac
    done <"$here/allowed-symbols.txt"
    while IFS= read -r line; do
        line=${line%%#*}
        set -f; set -- $line; set +f
        [ $# -gt 0 ] || continue
        section_glob+=("$1"); section_type+=("${2:-}")
    done <"$here/allowed-sections.txt"

    # The sections, one a line: name, type, flags, apart by \037 (readelf -S pads the names).
    awk '/^ *\[ *[0-9]+\] / {
            line = $0; sub(/^ *\[ *[0-9]+\] /, "", line)
            if (!match(line, / +[A-Z][A-Z0-9_+]* +[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ /)) {
                print line "\037?\037"; next }
            name = substr(line, 1, RSTART - 1); n = split(substr(line, RSTART), f, " ")
            print name "\037" f[1] "\037" (n == 9 ? f[6] : "") }' "$tmp/sections" >"$tmp/section-table"

    # What the host code refers to, function by function: "ref SYMBOL FUNCTION SHAPE", SHAPE
    # "stub" for nvcc's host copy of a __device__ function, never called: [endbr64] sub $N,%rsp;
    # movl $0x1,X(%rsp); mov X(%rsp),%edi; call exit; padding. And "syscall FUNCTION INSN".
    awk '
        function finish(   i, k, x, n, shape, names) {
            if (fn != "") {
                k = 1; shape = "code"
                if (insn[k] == "endbr64") k++
                if (insn[k] ~ /^sub \$0x[0-9a-f]+,%rsp$/ && insn[k + 1] ~ /^movl \$0x1,(0x[0-9a-f]+)?\(%rsp\)$/) {
                    x = insn[k + 1]; sub(/^movl \$0x1,/, "", x)
                    if (insn[k + 2] == "mov " x ",%edi" && insn[k + 3] ~ /^call / && target[k + 3] == "exit") {
                        shape = "stub"
                        for (i = k + 4; i <= count; i++) if (insn[i] !~ /nop|^xchg %ax,%ax$|^int3$/) shape = "code"
                        for (i = 1; i <= count; i++) if (i != k + 3 && target[i] != "") shape = "code"
                    }
                }
                for (i = 1; i <= count; i++) {
                    n = split(target[i], names, " ")
                    for (x = 1; x <= n; x++) print "ref", names[x], fn, shape
                }
            }
            for (i = 1; i <= count + 4; i++) { insn[i] = ""; target[i] = "" }
            fn = ""; count = 0
        }
        function references(line,   refs, name) {
            refs = ""
            while (match(line, /R_X86_64_[A-Z0-9_]+\t[^\t ]+/)) {
                name = substr(line, RSTART, RLENGTH); sub(/^[^\t]*\t/, "", name)
                sub(/[-+]0x[0-9a-f]+$/, "", name); refs = refs (refs == "" ? "" : " ") name
                line = substr(line, RSTART + RLENGTH)
            }
            return refs
        }
        /^[0-9a-f]+ <.*>:$/ { finish(); fn = $2; sub(/^</, "", fn); sub(/>:$/, "", fn); next }
        /^Disassembly of section / { finish(); next }
        /^\t+[0-9a-f]+: R_X86_64_/ { if (count > 0) target[count] = target[count] " " references($0); next }
        /^ *[0-9a-f]+:\t/ {
            line = $0; sub(/^ *[0-9a-f]+:\t/, "", line)
            count++; target[count] = references(line)
            sub(/\t.*/, "", line); sub(/ *#.*/, "", line); gsub(/[ \t]+/, " ", line); sub(/ $/, "", line)
            insn[count] = line
            if (line ~ /^(syscall|sysenter|int \$0x80)($| )/) print "syscall", fn, line
        }
        END { finish() }' "$tmp/code" >"$tmp/refs"

    # (a) Undefined symbols, weak ones too: each in the list, and used only where it says.
    local name kind rule written
    while read -r name kind _; do
        rule=refused
        for i in ${deny[@]+"${deny[@]}"}; do case $name in $i) rule=denied; break ;; esac; done
        if [ $rule = refused ]; then
            for i in "${!allow[@]}"; do case $name in ${allow[$i]}) rule=${where[$i]}; break ;; esac; done
        fi
        case $rule in
        anywhere) continue ;;
        registration | device-stub)
            # From code: only where nvcc puts it; from data (a pointer to it): never.
            awk -v name="$name" -v rule="$rule" -v registration="$registration" '
                $1 == "ref" && $2 == name && !(rule == "registration" ? $3 == registration : $4 == "stub") { bad = 1 }
                END { exit !bad }' "$tmp/refs" ||
                awk -v name="$name" -v table="$tmp/section-table" '
                    BEGIN { while ((getline line < table) > 0) { split(line, f, "\037"); if (f[3] ~ /X/) code[f[1]] = 1 } }
                    /^Relocation section / { s = $3; gsub(/\047/, "", s); sub(/^\.rela/, "", s); next }
                    $5 == name && !(s in code) { bad = 1 }
                    END { exit !bad }' "$tmp/relocations" || continue ;;
        esac
        written=$(as_written "$name")
        if [ "$written" = "$name" ]; then
            problems+=("$source: calls $name, which a lab may not call")
        else
            problems+=("$source: calls $written, which a lab may not call (the object names it $name)")
        fi
    done <"$tmp/undefined"

    # (b) Sections: each in the list (a relocation section where the one it relocates is), none
    # both writable and executable, the stack not executable, and .init_array holding only nvcc's
    # registration of the kernels: anything else there runs before main, in Criterion's runner.
    local type flags matched
    while IFS=$'\037' read -r name type flags; do
        [ -n "$name" ] || continue
        if [ "$type" = RELA ] && [ "${name#.rela}" != "$name" ]; then
            # A relocation section stands or falls with the section it relocates.
            cut -d $'\037' -f 1 "$tmp/section-table" | grep -q -F -x -e "${name#.rela}" && continue
        fi
        matched=no
        for i in "${!section_glob[@]}"; do
            case $name in ${section_glob[$i]})
                matched=type
                if [ -z "${section_type[$i]}" ] || [ "$type" = "${section_type[$i]}" ]; then matched=yes; break; fi ;;
            esac
        done
        case $matched in
        no) problems+=("$source: has a section $name, which a lab may not have") ;;
        type) problems+=("$source: has a section $name of type $type, which a lab may not have") ;;
        esac
        case $flags in *W*X* | *X*W*)
            problems+=("$source: has a section $name both writable and executable, which a lab may not have") ;;
        esac
        if [ "$name" = .note.GNU-stack ]; then case $flags in *X*)
            problems+=("$source: asks for an executable stack, which a lab may not have") ;;
        esac; fi
    done <"$tmp/section-table"
    grep -q "^\.note\.GNU-stack"$'\037' "$tmp/section-table" ||
        problems+=("$source: has no .note.GNU-stack section, so its stack would be executable")
    # .init_array's entries: the symbol of each relocation, by index (a section's symbol and an
    # offset in it, or a function's).
    local entries
    entries=$(awk -v symbols="$tmp/symbols" '
        function hex(s,   i, v) { v = 0; s = tolower(s)
            for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return v }
        BEGIN {
            while ((getline line < symbols) > 0) {
                n = split(line, f, " ")
                if (f[1] !~ /^[0-9]+:$/) continue
                i = f[1] + 0; type[i] = f[4]; ndx[i] = f[7]; name[i] = (n >= 8 ? f[8] : "")
                if (f[4] == "FUNC") function_at[f[7] " " hex(f[2])] = name[i]
            }
        }
        /^Relocation section / { init = ($3 == "\047.rela.init_array\047"); next }
        init && $2 ~ /^[0-9a-f]+$/ && length($2) == 16 {
            i = hex(substr($2, 1, 8)); addend = ($6 == "-" ? -hex($7) : hex($7))
            if (type[i] == "SECTION") { key = ndx[i] " " addend; print ((key in function_at) ? function_at[key] : "?") }
            else print ((addend == 0 && name[i] != "") ? name[i] : "?")
        }' "$tmp/relocations")
    local seen_registration=no
    for name in $entries; do
        if [ "$name" = "$registration" ] && [ $seen_registration = no ]; then seen_registration=yes; continue; fi
        case $name in
        "?") name="some code" ;;
        _GLOBAL__sub_I_*) name="a static object's constructor" ;;
        esac
        problems+=("$source: runs $name before main (a constructor), which a lab may not do")
    done

    # (c) No system call in host code.
    local function instruction
    while read -r kind function instruction; do
        problems+=("$source: has a system call ($instruction) in its host code, in $function, which a lab may not have")
    done < <(grep '^syscall ' "$tmp/refs")

    # (d) What it defines for the whole program: its lab's functions, its kernels and helpers (C++
    # names), nvcc's. A C name (memcmp, open, main, cudaEventElapsedTime...) or operator new would
    # replace the one that the grader and the libraries call; so would a definition of the CUB,
    # libcu++ or NVTX code that the grader's own C++ (common/cub_histogram.cu) instantiates.
    # An ifunc's resolver runs while the program loads, before main.
    local bind type
    while read -r name bind type; do
        if [ "$type" = IFUNC ]; then
            problems+=("$source: defines $name as an ifunc, whose resolver runs before main, which a lab may not do")
            continue
        fi
        case $name in
        lab[0-9]*_* | DW.ref.__gxx_personality_v0) continue ;;
        _Znw* | _Zna* | _Zdl* | _Zda* | _ZN10__cxxabiv1* | _ZT[VIS]N10__cxxabiv1*) ;;
        # (their constants, C++17 inline variables that the headers define alike, may be shared)
        _ZN3cub* | _ZNK3cub* | _ZZN3cub* | _ZGVZN3cub* | _ZT[VIS]N3cub* | _Z*__device_stub__ZN3cub* | \
            _ZN4cuda* | _ZNK4cuda* | _ZZN4cuda* | _ZGVZN4cuda* | _ZT[VIS]N4cuda* | _Z*__device_stub__ZN4cuda* | \
            _ZN6thrust* | _ZNK6thrust* | _Z*__device_stub__ZN6thrust* | _ZN5nvtx* | _ZNK5nvtx*)
            [ "$type" = OBJECT ] && [ "$bind" != GLOBAL ] && continue ;;
        _ZSt* | _ZNSt* | _ZNKSt* | _ZN9__gnu_cxx* | _ZNK9__gnu_cxx*) [ "$bind" != GLOBAL ] && continue ;;
        _Z*) continue ;;
        esac
        problems+=("$source: defines $name for the whole program, which a lab may not (make it static)")
    done < <(awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $8 != "" && ($5 != "LOCAL" || $4 == "IFUNC") { print $8, $5, $4 }' "$tmp/symbols")

    [ ${#problems[@]} = 0 ] && exit 0
    printf '%s\n' "${problems[@]}" | awk '!seen[$0]++' >&2
    exit 1
}

case ${1:-} in
includes) [ $# -ge 4 ] || usage; shift; includes "$@" ;;
object) [ $# = 3 ] || usage; object "$2" "$3" ;;
*) if [ -n "${CHECK_SUBMISSION_SOURCE:-}" ] && [ $# -gt 0 ]; then wrapper "$@"; else usage; fi ;;
esac
