#!/usr/bin/env python3
"""make kit: the student kit, laid out in a new folder. The one description of what a student
(make dist's tarball) and a class's grading (./grade-class) get:

- every file of the committed tree (HEAD, never the working tree: a file left in a lab folder,
  committed or not, is not read from disk) that git archive gives, which leaves out what
  .gitattributes marks export-ignore: the solutions, the variants' and exploits' sources, the
  kit's own tests and the instructors' scripts;
- prebuilt/reference/<lab>.o: the references, compiled from the committed solutions;
- prebuilt/variant/<lab>/<name>.o: the variants whose .sed has a line "# in the student
  tarball: <why>" (that line is the only list), compiled the same way; their reports on a GPU,
  docs/results/variants/<lab>-<name>.log (make results), ship as committed files, for ./grade to
  show where there is no GPU, and make kit warns of each one not committed.

It refuses (and writes nothing) when a file it would ship holds a committed solution whole,
whitespace aside.

  grader/kit.py [--labs "LAB ..."] [--cuda-arch "75 80 ..."] DEST

--labs: the kit of these labs only: the references their graders link and their shipped variants
(./grade-class makes the kit of the lab it grades); the files are every lab's all the same.
Exit status: 0 made; 1 a shipped file holds a solution, or the references do not build; 2 a bad
command line, DEST not new or empty, or no git repository here.
"""
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

import labs as lab_manifest  # the lab manifest, grader/labs.mk (beside this file)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARBALL_MARKER = re.compile(rb"^[ \t]*#[ \t]*in the student tarball:(.*)$", re.M)


class Refused(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def git(*arguments):
    result = subprocess.run(["git", "-C", ROOT, *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Refused(2, f"git {arguments[0]} failed: {why[-1] if why else 'exit %d' % result.returncode}")
    return result.stdout


def tree_files(tree):
    """{path: (mode, bytes)} of the files git archive gives for a tree (export-ignore applied
    to the commit's, not to a subtree's). A symbolic link is refused: a kit ships files."""
    files = {}
    with tarfile.open(fileobj=io.BytesIO(git("archive", "--format=tar", tree)), mode="r:") as archive:
        for member in archive:
            if member.isdir() or member.type == tarfile.XGLTYPE:
                continue
            if not member.isfile():
                raise Refused(2, f"{member.name} is a symbolic link or special file in the committed tree: a kit ships files")
            files[member.name] = (member.mode, archive.extractfile(member).read())
    return files


def whole(data):
    return re.sub(rb"\s+", b"", data)


def refuse_solutions(shipped, solutions):
    copies = []
    for path, (_, data) in sorted(shipped.items()):
        flat = whole(data)
        for solution, (_, text) in solutions.items():
            if whole(text) and whole(text) in flat:
                copies.append(f"{path} holds solutions/{solution}")
    if copies:
        raise Refused(1, "a file the kit would ship holds a solution (remove it from the commit): " + "; ".join(copies))


def write_tree(folder, files):
    for path, (mode, data) in files.items():
        target = os.path.join(folder, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)
        os.chmod(target, 0o755 if mode & 0o111 else 0o644)


def shipped_variants(variants, labs):
    """[(lab, name)] of the variants marked for the tarball, of the given labs."""
    chosen = []
    for path, (_, text) in sorted(variants.items()):
        lab, _, script = path.partition("/")
        if lab not in labs or not script.endswith(".sed"):
            continue
        marker = TARBALL_MARKER.search(text)
        if not marker:
            continue
        if not marker.group(1).strip():
            raise Refused(1, f"grader/variants/{path}: its line '# in the student tarball:' must say why it ships")
        chosen.append((lab, script[:-4]))
    return chosen


# Sources the kit ships compiled only: make lessons' kernels are the labs' answers, written out
# (lab 2's count, lab 5's privatized kernels), so the kit has their object in prebuilt/ instead.
COMPILED_ONLY = {"bench/lessons.cu": "build/bench/lessons.o"}


def build(shipped, solutions, variants, compiled_only, labs, cuda_arch, chosen, folder):
    """Compiles the references of the labs, the chosen variants and the compiled-only sources in
    a scratch copy of the committed tree (with its solutions and variants), into folder/prebuilt/."""
    scratch = tempfile.mkdtemp(prefix="make-kit-")
    try:
        write_tree(scratch, shipped)
        write_tree(scratch, compiled_only)
        write_tree(os.path.join(scratch, "solutions"), solutions)
        write_tree(os.path.join(scratch, "grader", "variants"), variants)
        objects = [f"build/variant/{name}/{lab}/{lab.split('-')[0]}.o" for lab, name in chosen]
        command = ["make", "-s", "--no-print-directory", "-C", scratch, f"-j{os.cpu_count() or 2}",
                   *([f"CUDA_ARCH={cuda_arch}"] if cuda_arch else []), f"KIT_LABS={' '.join(labs)}",
                   "VARIANTS_FOR_EVERY_ARCH=1", "kit-references", *objects,
                   *(COMPILED_ONLY[path] for path in compiled_only)]
        if subprocess.run(command, stdin=subprocess.DEVNULL).returncode != 0:
            raise Refused(1, "the references or the shipped variants do not build (the errors above)")
        references = sorted(name for name in os.listdir(os.path.join(scratch, "build", "reference"))
                            if name.endswith(".o"))
        os.makedirs(os.path.join(folder, "prebuilt", "reference"))
        for name in references:
            shutil.copyfile(os.path.join(scratch, "build", "reference", name),
                            os.path.join(folder, "prebuilt", "reference", name))
        for (lab, name), built in zip(chosen, objects):
            os.makedirs(os.path.join(folder, "prebuilt", "variant", lab), exist_ok=True)
            shutil.copyfile(os.path.join(scratch, built), os.path.join(folder, "prebuilt", "variant", lab, name + ".o"))
        for path in compiled_only:  # bench/lessons.cu -> prebuilt/bench/lessons.o
            target = os.path.join(folder, "prebuilt", os.path.splitext(path)[0] + ".o")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(scratch, COMPILED_ONLY[path]), target)
        with open(os.path.join(scratch, "build", "cuda-arch"), encoding="utf-8") as file:
            built_for = file.read().strip()
        return len(references), built_for
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def make_kit(dest, labs_asked, cuda_arch):
    if subprocess.run(["git", "-C", ROOT, "rev-parse", "--is-inside-work-tree"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        raise Refused(2, "the kit is made from the kit's git repository, and this copy is not one")
    commit = git("rev-parse", "--verify", "HEAD^{commit}").decode().strip()
    dest = os.path.abspath(dest)
    if os.path.lexists(dest) and not (os.path.isdir(dest) and not os.path.islink(dest) and not os.listdir(dest)):
        raise Refused(2, f"'{dest}' exists and is not an empty folder: give a new one (make kit never deletes a folder)")
    shipped = tree_files(commit)
    solutions = tree_files(commit + ":solutions")
    variants = tree_files(commit + ":grader/variants")
    compiled_only = {path: (0o644, git("show", f"{commit}:{path}")) for path in COMPILED_ONLY}
    # The labs: the committed lab manifest's (grader/labs.mk), in its order.
    try:
        labs = lab_manifest.parse(shipped[lab_manifest.MANIFEST][1].decode("utf-8"))[0]
    except (KeyError, UnicodeDecodeError, lab_manifest.ManifestError) as error:
        raise Refused(2, f"the committed lab manifest cannot be read: {error}")
    if labs_asked:
        unknown = [lab for lab in labs_asked if lab not in labs]
        if unknown:
            raise Refused(2, f"no lab {' '.join(unknown)} in the committed tree (its labs: {' '.join(labs)})")
        labs = [lab for lab in labs if lab in labs_asked]
    refuse_solutions(shipped, solutions)
    chosen = shipped_variants(variants, labs)
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    partial = tempfile.mkdtemp(prefix=".make-kit-", dir=parent)
    try:
        write_tree(partial, shipped)
        references, built_for = build(shipped, solutions, variants, compiled_only, labs, cuda_arch, chosen,
                                      partial)
        os.chmod(partial, 0o755)
        if os.path.isdir(dest):
            os.rmdir(dest)
        os.rename(partial, dest)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    changed = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    print(f"make kit: {dest}: {len(shipped)} files of commit {commit[:12]}, no solution source; "
          f"{references} references and {len(chosen)} variants compiled for CUDA_ARCH {built_for}")
    if changed.strip():
        print("make kit: the working tree has uncommitted changes, which are not in it (commit them to ship them)",
              file=sys.stderr)
    for lab, name in chosen:
        report = f"docs/results/variants/{lab}-{name}.log"
        if report not in shipped:
            print(f"make kit: grader/variants/{lab}/{name}.sed: no recorded GPU report ({report} is not in the "
                  "commit): ./grade will show none without a GPU; record it on a GPU with "
                  "bench/record_results.py --only variant-reports", file=sys.stderr)


def stop(number, _frame):
    raise KeyboardInterrupt(number)


def main(argv):
    signal.signal(signal.SIGTERM, stop)
    labs, cuda_arch, dest = [], None, None
    i = 0
    while i < len(argv):
        if argv[i] in ("--labs", "--cuda-arch") and i + 1 < len(argv):
            if argv[i] == "--labs":
                labs = argv[i + 1].split()
            else:
                cuda_arch = " ".join(argv[i + 1].split()) or None
            i += 2
        elif argv[i].startswith("-") or dest is not None:
            print(f"make kit: unknown option or second folder '{argv[i]}' (usage: grader/kit.py [--labs \"LAB ...\"] [--cuda-arch \"75 80\"] DEST)", file=sys.stderr)
            return 2
        else:
            dest = argv[i]
            i += 1
    if not dest:
        print("make kit: which folder? make kit DEST=dir", file=sys.stderr)
        return 2
    try:
        make_kit(dest, labs, cuda_arch)
    except Refused as refusal:
        print(f"make kit: {refusal}", file=sys.stderr)
        return refusal.status
    except KeyboardInterrupt:
        print("make kit: interrupted: nothing was made", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"make kit: {error.filename or ''}: {error.strerror}: nothing was made", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
