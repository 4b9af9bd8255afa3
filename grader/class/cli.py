"""The command line of ./grade-class."""
import os
import re
import sys

from shared import EXIT_USAGE, Fail, ROOT


USAGE = """usage: ./grade-class LAB --submissions DIR --out DIR [options]          one machine
       ./grade-class LAB --submissions DIR --out DIR --slurm TASKS [options]  a Slurm cluster
       ./grade-class --task K --out DIR [--run ID]
                                                one task of the job array (what Slurm runs)
       ./grade-class --merge --out DIR [--run ID]
                                                the class table, from the tasks' results
       ./grade-class --slurm-rerun K --out DIR  task K of the run again, then the merge
       ./grade-class --gradebook CSV --match COLUMN --assignment NAME --out DIR
                                                the run's points into a gradebook exported from
                                                Gradescope or a learning system, to import back

Grades every student's folder in --submissions (DIR/<student>/labN.cu), each by the kit's own
./grade in a sandbox, into --out: a folder per student (students/<id>/: report.txt, results.json,
tests.tap, tests.xml, summary.json, line.json) and the class table (class.csv, class.md).

  --submissions DIR   one folder a student, holding labN.cu
  --out DIR           where the results go, outside the kit: a new or empty folder, or one of
                      an earlier run (a new run replaces it, and keeps it in OUT/earlier/<id>/;
                      the same command on a run it left unfinished resumes it)
Grading options (the run's, for every task):
  --points FILE       score by this course configuration (default grader/points.conf)
  --seed N            seed of the generated inputs (default: a new one each run)
  --runs N            timed runs per kernel, 10 to 1000 (default 10)
  --no-timing         correctness only
  --student-timeout S stop a submission's grading after S seconds (default 900)
  --cuda-arch "A B"   GPU architectures to build for, as compute capabilities without the
                      dot (say "90" or "80 90"): those of the GPUs that grade; default this
                      machine's GPU, else the kit's default list
One machine:
  --jobs N            grade N submissions at once (default 1); with GPUs, one grading a GPU
                      at a time runs its tests, the others build meanwhile
  --gpus LIST         the GPUs to grade on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, else
                      every GPU nvidia-smi lists, else none)
Slurm (sbatch on PATH; the kit, --submissions and --out on a file system every node sees):
  --slurm TASKS       prepare the run here (the kit built once, in OUT/kit/), then submit a
                      job array of TASKS tasks and a merge job that runs when they have ended;
                      logs in OUT/logs/
  --gpus-per-task N   GPUs a task asks Slurm for (--gres=gpu:N; default 1; 0 for none)
  --sbatch OPTION     passed to sbatch for every job, e.g. --sbatch=--partition=gpu (repeat it)
Gradebook (after a complete run):
  --gradebook CSV     a gradebook exported from Gradescope or a learning system (Canvas:
                      Grades > Export); writes OUT/gradebook-<NAME>.csv, the same file with the
                      points of this run in column NAME (added if it has none), to import back
  --match COLUMN      the gradebook's column that holds the names of the submission folders
                      (say "SIS Login ID", or "Email")
  --assignment NAME   the column to fill; a student without points of this run keeps the
                      export's cell (never a 0, never a grade blanked)
  -h, --help          show this help

Exit status: 0 every roster entry has a line of this run (a task: every entry of its slice;
--slurm: the jobs are submitted); 1 some do not (interrupted: the same command resumes), or
more than half of the class has no file or was not graded (the last line says why); 2 a bad
command line, points file or folder, or --out in use by another grade-class; 4 this machine
cannot grade (no sandbox: install Debian's bubblewrap 0.8 or newer; the kit does not build;
Criterion is missing; a full disk).
"""


def decimal(option, text, low, high):
    """A plain decimal number (leading zeros are read as decimal, never octal)."""
    if not re.fullmatch(r"[0-9]{1,20}", text or ""):
        raise Fail(EXIT_USAGE, f"{option} takes a whole number, not '{text}'")
    value = int(text, 10)
    if not low <= value <= high:
        raise Fail(EXIT_USAGE, f"{option} must be {low} to {high}, not {text}")
    return value


class Options:
    pass


def labs_of_kit():
    """The labs, from the lab manifest (grader/labs.mk)."""
    sys.path.insert(0, os.path.join(ROOT, "grader"))
    import labs as lab_manifest
    try:
        return lab_manifest.labs(ROOT)
    except (OSError, lab_manifest.ManifestError) as error:
        raise Fail(EXIT_USAGE, f"the lab manifest cannot be read: {error}")


def parse_args(argv):
    o = Options()
    o.lab = None
    o.submissions = o.out = None
    o.points = os.path.join(ROOT, "grader", "points.conf")
    o.seed = None
    o.runs = 10
    o.no_timing = False
    o.student_timeout = 900
    o.cuda_arch = None
    o.jobs = 1
    o.gpus = None
    o.mode = "grade"          # grade (one machine), slurm, task, merge, rerun
    o.task = None
    o.tasks = None
    o.gpus_per_task = 1
    o.sbatch = []
    o.gradebook = o.match = o.assignment = None
    o.run = None              # the run a task or merge belongs to (what Slurm's jobs name)
    o.given = set()
    labs = labs_of_kit()
    valued = {"--submissions", "--out", "--points", "--seed", "--runs", "--student-timeout",
              "--cuda-arch", "--jobs", "--gpus", "--slurm", "--task", "--slurm-rerun",
              "--gpus-per-task", "--sbatch", "--gradebook", "--match", "--assignment", "--run"}
    caller = os.getcwd()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        inline = None
        if arg.startswith("--") and "=" in arg and arg.split("=", 1)[0] in valued:
            arg, inline = arg.split("=", 1)
        if arg.startswith("--"):
            if arg in o.given and arg != "--sbatch":
                raise Fail(EXIT_USAGE, f"{arg} given twice")
            o.given.add(arg)
        if arg == "--no-timing":
            o.no_timing = True
        elif arg == "--merge":
            o.mode = "merge"
        elif arg in valued:
            if inline is not None:
                value = inline
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            else:
                value = ""
            if value == "":
                raise Fail(EXIT_USAGE, f"{arg} needs a value")
            if value.startswith("--") and arg != "--sbatch":
                raise Fail(EXIT_USAGE, f"{arg} needs a value (got the option '{value}')")
            if arg == "--submissions":
                o.submissions = os.path.join(caller, value)
            elif arg == "--out":
                o.out = os.path.join(caller, value)
            elif arg == "--points":
                o.points = os.path.join(caller, value)
            elif arg == "--seed":
                o.seed = decimal("--seed", value, 0, (1 << 64) - 1)
            elif arg == "--runs":
                o.runs = decimal("--runs", value, 10, 1000)
            elif arg == "--student-timeout":
                o.student_timeout = decimal("--student-timeout", value, 10, 86400)
            elif arg == "--cuda-arch":
                if not re.fullmatch(r"[0-9]{2,3}[af]?( +[0-9]{2,3}[af]?)*", value.strip()):
                    raise Fail(EXIT_USAGE, f"--cuda-arch takes compute capabilities without the dot, separated by spaces (say \"80 90\"), not '{value}'")
                o.cuda_arch = " ".join(value.split())
            elif arg == "--jobs":
                o.jobs = decimal("--jobs", value, 1, 256)
            elif arg == "--gpus":
                gpus = value.split(",")
                if not all(re.fullmatch(r"[0-9]{1,4}|(GPU|MIG)-[A-Za-z0-9/-]{1,100}", g) for g in gpus):
                    raise Fail(EXIT_USAGE, f"--gpus takes GPU indices or UUIDs separated by commas, not '{value}'")
                if len(set(gpus)) != len(gpus):
                    raise Fail(EXIT_USAGE, f"--gpus names a GPU twice: '{value}'")
                o.gpus = gpus
            elif arg == "--slurm":
                o.mode = "slurm"
                o.tasks = decimal("--slurm", value, 1, 10000)
            elif arg == "--task":
                o.mode = "task"
                o.task = decimal("--task", value, 0, 9999)
            elif arg == "--slurm-rerun":
                o.mode = "rerun"
                o.task = decimal("--slurm-rerun", value, 0, 9999)
            elif arg == "--gradebook":
                o.mode = "gradebook"
                o.gradebook = os.path.join(caller, value)
            elif arg == "--match":
                o.match = value
            elif arg == "--assignment":
                o.assignment = value
            elif arg == "--run":
                if not re.fullmatch(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{8}", value):
                    raise Fail(EXIT_USAGE, f"--run takes a run id as run.json gives it (say 20261124-235407-1ff2562f), not '{value}'")
                o.run = value
            elif arg == "--gpus-per-task":
                o.gpus_per_task = decimal("--gpus-per-task", value, 0, 64)
            elif arg == "--sbatch":
                if not value.startswith("-") or "\n" in value:
                    raise Fail(EXIT_USAGE, f"--sbatch takes one sbatch option, e.g. --sbatch=--partition=gpu, not '{value}'")
                o.sbatch.append(value)
        elif arg.startswith("-"):
            raise Fail(EXIT_USAGE, f"unknown option '{arg}'")
        else:
            if o.lab:
                raise Fail(EXIT_USAGE, f"one lab at a time (got '{o.lab}' and '{arg}')")
            found = [lab for lab in labs if arg in (lab, lab.split("-")[0])]
            if not found:
                raise Fail(EXIT_USAGE, f"unknown lab '{arg}' (the labs are: {' '.join(labs)})")
            o.lab = found[0]
        i += 1
    modes = [m for m in ("--slurm", "--task", "--merge", "--slurm-rerun", "--gradebook") if m in o.given]
    if len(modes) > 1:
        raise Fail(EXIT_USAGE, f"{modes[0]} and {modes[1]} do not go together")
    if not o.out:
        raise Fail(EXIT_USAGE, "--out DIR is needed: where the results go")
    if o.mode in ("grade", "slurm"):
        if not o.lab:
            raise Fail(EXIT_USAGE, f"which lab? (the labs are: {' '.join(labs)})")
        if not o.submissions:
            raise Fail(EXIT_USAGE, "--submissions DIR is needed: the folder of the students' folders")
        o.short = o.lab.split("-")[0]
    else:
        # The run in --out says everything else: grading options would be ignored, so refuse them.
        extra = sorted(o.given & {"--points", "--seed", "--runs", "--no-timing", "--student-timeout",
                                  "--cuda-arch", "--submissions"})
        if extra:
            raise Fail(EXIT_USAGE, f"{modes[0]} takes the run's options from --out/run.json, not {' '.join(extra)}")
    if o.mode != "slurm" and o.mode != "rerun":
        for option in ("--gpus-per-task", "--sbatch"):
            if option in o.given:
                raise Fail(EXIT_USAGE, f"{option} goes with --slurm or --slurm-rerun")
    if (o.mode == "gradebook") != ("--match" in o.given and "--assignment" in o.given) or \
            (o.mode != "gradebook" and ("--match" in o.given or "--assignment" in o.given)):
        raise Fail(EXIT_USAGE, "--gradebook, --match and --assignment go together")
    if "--run" in o.given and o.mode not in ("task", "merge"):
        raise Fail(EXIT_USAGE, "--run goes with --task or --merge (the run their jobs were submitted for)")
    if o.mode not in ("grade", "task"):
        for option in ("--jobs", "--gpus"):
            if option in o.given:
                raise Fail(EXIT_USAGE, f"{option} is for grading on this machine (not with {modes[0]})")
    return o
