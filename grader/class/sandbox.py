"""The sandbox a submission's build and tests run in (bubblewrap), the machine's tools it needs,
and which GPU device nodes a grading may reach.

A grading takes three sandboxes, one after the other (grading.py): the build of the student's
object, the check of that object and the link of its worker, then the tests. Each is a new one:
its own process tree (everything started in it ends with it), its own /tmp, no network, the
system read-only, and the task's kit read-only, so that nothing a submission does at build or
run time can change a program or a build output of the kit, another grading's files, or a
later step's inputs. Only the tests' sandbox gets a GPU, and then only its own."""
import os
import re
import resource
import shutil
import subprocess
import sys

from shared import EXIT_MACHINE, Fail, ROOT, say

sys.path.insert(1, os.path.join(ROOT, "grader"))
from check_submission import host_memory  # noqa: E402 (the check's own reading of the host's memory)


# The user ids of the sandboxes when grade-class runs as root: one a grading running at once, so
# that concurrent gradings neither count against each other's process limit nor reach each
# other's files. A range no distribution hands out to accounts.
SANDBOX_UID_BASE = 0x7ff00000
# Limits of a sandbox (clamped to this process's hard limits, which only root could raise).
LIMIT_NPROC = 1024            # processes and threads, per sandbox (inside it, see below)
LIMIT_FSIZE = 256 << 20       # the largest file a grading may write (objects, the grader)
LIMIT_NOFILE = 4096
# Heap and private writable mappings, each process of a grading: the host's memory shared by the
# gradings running at once (check_submission's host_memory: physical, or a cgroup's limit), at
# most 32 GiB, and never below what the tests need (their texts past 4 GiB are on the GPU; the
# host holds CUDA's own mappings and texts of up to 16 MiB). A per-process limit: a grading's few
# processes together may take a few times it.
LIMIT_DATA_MOST = 32 << 30
LIMIT_DATA_LEAST = 8 << 30
# The NVIDIA device nodes every GPU's use needs besides its own /dev/nvidiaN.
NVIDIA_CONTROL_NODES = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "nvidia-caps")


def gradings_memory_holds(host_bytes, wanted):
    """How many of the wanted gradings at once the host's memory holds: at least one."""
    return max(1, min(wanted, host_bytes // LIMIT_DATA_LEAST))


def data_limit(host_bytes, at_once):
    """RLIMIT_DATA of a grading's processes when at_once gradings run side by side."""
    return max(LIMIT_DATA_LEAST, min(LIMIT_DATA_MOST, host_bytes // max(1, at_once)))


class Sandbox:
    """The bubblewrap command line, and the machine's tools it needs.

    As root, bwrap itself runs as root (it needs no user namespace then, which some GPU
    machines forbid to unprivileged users) and drops every capability but setuid and setgid;
    setpriv then becomes the grading's own user before anything of the kit or the student's
    runs, with no_new_privs. As another user, bwrap runs unprivileged in a user namespace, and
    no further user namespace can be made inside (--disable-userns): one would give back the
    capabilities that let its owner read a file whatever its mode (the references' worker)."""

    def __init__(self, gradings_at_once=1):
        self.as_root = os.geteuid() == 0
        self.limit_data = data_limit(host_memory(), gradings_at_once)
        tools = {"bwrap": "bubblewrap", "timeout": "coreutils", "prlimit": "util-linux"}
        self.tool = {}
        for tool, package in tools.items():
            path = shutil.which(tool)
            if not path:
                raise Fail(EXIT_MACHINE, f"'{tool}' is not installed: install Debian's {package} package (apt-get install {package}); grade-class grades no submission outside its sandbox")
            self.tool[tool] = path
        # Run inside the sandbox, where /usr is the system's.
        self.inner = {}
        for tool in ("prlimit", "setpriv"):
            found = [p for p in (f"/usr/bin/{tool}", f"/bin/{tool}") if os.path.exists(p)]
            if not found:
                raise Fail(EXIT_MACHINE, f"'{tool}' is not installed in /usr/bin: install Debian's util-linux package; grade-class grades no submission outside its sandbox")
            self.inner[tool] = found[0]
        self.system = self.system_binds(self.as_root)

    @staticmethod
    def system_binds(as_root):
        if as_root:
            # Every namespace but the user's: root makes them without one.
            args = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                    "--unshare-cgroup-try"]
        else:
            args = ["--unshare-all", "--unshare-user", "--disable-userns"]
        args += ["--die-with-parent", "--new-session",
                 "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
        # /bin, /sbin, /lib, /lib64 ...: as links where the host has links (merged /usr).
        tops = sorted(n for n in os.listdir("/") if n in ("bin", "sbin") or n.startswith("lib"))
        for name in tops:
            path = "/" + name
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        # /usr/local (CUDA) and /usr/local/nvidia (the driver, in containers) come with /usr;
        # a CUDA_HOME or CRITERION_PREFIX elsewhere is bound on its own.
        for path in ("/opt", os.environ.get("CUDA_HOME"), os.environ.get("CRITERION_PREFIX")):
            if path and os.path.isdir(path):
                real = os.path.realpath(path)
                if not any(real == p or real.startswith(p + "/") for p in ("/usr", "/etc")):
                    for target in dict.fromkeys((real, os.path.abspath(path))):
                        args += reachable_parents(target) + ["--ro-bind", real, target]
        # /sys read-only: the CUDA driver and nvidia-smi read the PCI and NUMA topology there.
        args += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev"]
        # Criterion's runner shares memory with its tests through /dev/shm.
        args += ["--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/dev/shm"]
        return args

    def command(self, binds, seconds, argv, uid, devices=(), cwd="/kit"):
        """The command that runs argv in a new sandbox as uid, for at most seconds. binds:
        (how, host path, path inside) in order, how "ro" or "rw"; devices: the device nodes it
        may use (a GPU's)."""
        limits = []
        for option, which, value in (("--nofile", resource.RLIMIT_NOFILE, LIMIT_NOFILE),
                                     ("--fsize", resource.RLIMIT_FSIZE, LIMIT_FSIZE),
                                     ("--data", resource.RLIMIT_DATA, self.limit_data),
                                     ("--core", resource.RLIMIT_CORE, 0)):
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            limits.append(f"{option}={value}")
        command = [self.tool["timeout"], "--kill-after=10", str(seconds),
                   self.tool["prlimit"], *limits, "--", self.tool["bwrap"], *self.system]
        for device in devices:
            command += ["--dev-bind-try", device, device]
        bound, made = [], set()
        for how, source, target in binds:
            # The folders above a target that no earlier bind holds, made reachable (bwrap as
            # root makes them 0700 unless told); one inside a bind (a read-only kit) exists.
            parent = os.path.dirname(target)
            ancestors = []
            while parent not in ("/", "") and not any(parent == b or parent.startswith(b + "/") for b in bound):
                ancestors.append(parent)
                parent = os.path.dirname(parent)
            for folder in reversed(ancestors):
                if folder not in made:
                    made.add(folder)
                    command += ["--perms", "0755", "--dir", folder]
            command += ["--ro-bind" if how == "ro" else "--bind", source, target]
            bound.append(target)
        command += ["--chdir", cwd]
        if self.as_root:
            command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                        self.inner["setpriv"], f"--reuid={uid}", f"--regid={uid}",
                        "--clear-groups", "--inh-caps=-all", "--no-new-privs", "--"]
        else:
            command += ["--"]
        # The process limit counts the processes of the grading's user (in its own user
        # namespace when not root): set where that user is the one counted.
        command += [self.inner["prlimit"], f"--nproc={LIMIT_NPROC}", "--", *argv]
        return command

    def hand_over(self, path, uid, recursive=False):
        """Makes a folder the sandbox's to write: its user's when run as root."""
        if not self.as_root:
            return
        if recursive:
            subprocess.run(["chown", "-R", "-h", f"{uid}:{uid}", "--", path], check=True)
        else:
            os.chown(path, uid, uid)

    def probe(self, kit, reference_worker, scratch, uid):
        """Starts one sandbox laid out as a grading's tests are, and checks in it, as the
        grading's user, what a submission must not be able to do: be root, write the kit (its
        results model, its grader), read the references' worker or find a reference, reach the
        repository. Raises Fail(4), naming the first thing that does not hold."""
        probe = os.path.join(scratch, "probe")
        records = os.path.join(probe, "records")
        os.makedirs(records)
        self.hand_over(records, uid)
        checks = [
            ('test "$(id -u)" != 0', "the grading's user is root"),
            ("( : >/records/probe )", "the grading cannot write its own records folder"),
            ("/grading/reference-worker >/dev/null 2>&1; s=$?; [ $s -ne 126 ] && [ $s -ne 127 ]",
             "the references' worker cannot be run where it cannot be read"),
            ("! head -c 1 /grading/reference-worker >/dev/null 2>&1", "the references' worker can be read"),
            ("! chmod u+r /grading/reference-worker 2>/dev/null", "the references' worker can be made readable"),
            ("test ! -e /kit/prebuilt/reference && test ! -e /kit/build/reference", "the kit holds a compiled reference"),
            ("! ( : >>/kit/build/results/results ) 2>/dev/null", "the kit's results model can be written"),
            ("! ( : >/kit/probe ) 2>/dev/null", "the kit can be written"),
            ("test ! -e " + sh_quote(ROOT + "/solutions") + " && test ! -e " + sh_quote(ROOT + "/grade-class"),
             "the kit's repository can be reached"),
            ("test ! -e /root/. && test ! -e /home/.", "the instructors' home folders can be reached"),
        ]
        script = " && ".join(f"{{ {test} || {{ echo {sh_quote(why)}; exit 1; }}; }}" for test, why in checks)
        binds = [("ro", kit, "/kit"), ("rw", records, "/records"),
                 ("ro", reference_worker, "/grading/reference-worker")]
        command = self.command(binds, 60, ["/bin/sh", "-c", script], uid)
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=sandbox_environment(None))
        output = result.stdout.decode("utf-8", "replace").strip().replace("\n", "; ")
        shutil.rmtree(probe, ignore_errors=True)
        if result.returncode != 0:
            if "bwrap" in output or "setpriv" in output or "prlimit" in output or not output:
                need = ("" if self.as_root else " and allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0), or run as root")
                raise Fail(EXIT_MACHINE, f"the sandbox does not start here ({output[:300] or 'exit %d' % result.returncode}): install Debian's bubblewrap package, 0.8 or newer (apt-get install bubblewrap){need}; grade-class grades no submission outside its sandbox")
            raise Fail(EXIT_MACHINE, f"the sandbox is not what a grading needs here: {output[:300]} (under {scratch}: TMPDIR must be a local folder that the grading's user can reach); grade-class grades no submission outside its sandbox")


def reachable_parents(path):
    """bwrap options that make the folders above a bind's target reachable by the sandbox's
    user (bwrap as root makes them 0700)."""
    args, parent = [], os.path.dirname(path)
    ancestors = []
    while parent not in ("/", ""):
        ancestors.append(parent)
        parent = os.path.dirname(parent)
    for folder in reversed(ancestors):
        args += ["--perms", "0755", "--dir", folder]
    return args


def sh_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def sandbox_environment(visible_gpu, cuda_arch=None):
    """The whole environment of a sandbox: nothing of the instructor's but where CUDA and
    Criterion are. visible_gpu: the CUDA_VISIBLE_DEVICES of a grading's tests ("" for none)."""
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    path = [f"{cuda_home}/bin", "/usr/local/nvidia/bin", "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(path), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "TERM": "dumb"}
    for name in ("CUDA_HOME", "CRITERION_PREFIX", "LD_LIBRARY_PATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    if cuda_arch:
        env["CUDA_ARCH"] = cuda_arch
    if visible_gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible_gpu
        env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the order nvidia-smi numbers them in
    return env


def gpu_devices(gpus):
    """{gpu: (its device nodes, its CUDA_VISIBLE_DEVICES)} for the GPUs a task grades on: the
    control nodes and the GPU's own /dev/nvidiaN (found from nvidia-smi's PCI bus id and the
    driver's /proc/driver/nvidia/gpus/<bus>/information), named by its UUID. Where the node of
    a GPU cannot be told (no nvidia-smi, a MIG instance), its gradings get every GPU's node,
    still told to use that GPU alone, and the task says so once."""
    try:
        present = sorted(n for n in os.listdir("/dev") if re.fullmatch(r"nvidia[0-9]+", n))
    except OSError:
        present = []
    control = [f"/dev/{n}" for n in NVIDIA_CONTROL_NODES if os.path.exists(f"/dev/{n}")]
    rows = []
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        if result.returncode == 0:
            rows = [[part.strip() for part in line.split(",")] for line in result.stdout.decode().splitlines()]
    except (OSError, subprocess.TimeoutExpired):
        pass
    devices, unknown = {}, []
    for gpu in gpus:
        row = next((r for r in rows if len(r) == 3 and gpu in (r[0], r[1])), None)
        minor = device_minor(row[2]) if row else None
        if minor is not None and os.path.exists(f"/dev/nvidia{minor}"):
            devices[gpu] = (control + [f"/dev/nvidia{minor}"], row[1])
        else:
            devices[gpu] = (control + [f"/dev/{n}" for n in present], gpu)
            if len(present) > 1:
                unknown.append(gpu)
    if unknown:
        say(f"cannot tell which /dev/nvidiaN is GPU {', '.join(unknown)} (nvidia-smi and /proc/driver/nvidia/gpus): its gradings' tests can reach every GPU's device node, told to use theirs alone")
    return devices


def device_minor(bus_id):
    """The minor number of a GPU's /dev/nvidiaN, from the driver's information on its PCI bus id
    (nvidia-smi writes 00000000:17:00.0, the driver's folder is 0000:17:00.0)."""
    match = re.fullmatch(r"([0-9A-Fa-f]+):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-9A-Fa-f])", bus_id or "")
    if not match:
        return None
    folder = "%04x:%s:%s.%s" % (int(match.group(1), 16) & 0xffff, match.group(2).lower(),
                                match.group(3).lower(), match.group(4).lower())
    try:
        with open(f"/proc/driver/nvidia/gpus/{folder}/information", encoding="utf-8", errors="replace") as file:
            found = re.search(r"^Device Minor:\s*([0-9]+)", file.read(), re.M)
    except OSError:
        return None
    return int(found.group(1)) if found else None
