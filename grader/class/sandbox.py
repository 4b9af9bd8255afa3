"""The sandbox a submission is graded in (bubblewrap), and the machine's tools it needs."""
import os
import re
import resource
import shutil
import subprocess

from shared import EXIT_MACHINE, Fail, ROOT


# The user ids of the sandboxes when grade-class runs as root: one a grading running at once, so
# that concurrent gradings neither count against each other's process limit nor reach each
# other's files. A range no distribution hands out to accounts.
SANDBOX_UID_BASE = 0x7ff00000
# Limits of a sandbox (clamped to this process's hard limits, which only root could raise).
LIMIT_NPROC = 1024            # processes and threads, per sandbox (inside it, see below)
LIMIT_FSIZE = 256 << 20       # the largest file a grading may write (objects, the grader)
LIMIT_NOFILE = 4096
LIMIT_DATA = 32 << 30         # heap and private writable mappings (the 4 GiB text and copies)


NVIDIA_NODES = re.compile(r"^nvidia([0-9]+|ctl|-uvm|-uvm-tools|-modeset|-caps)$")


class Sandbox:
    """The bubblewrap command line, and the machine's tools it needs.

    As root, bwrap itself runs as root (it needs no user namespace then, which some GPU
    machines forbid to unprivileged users) and drops every capability but setuid and setgid;
    setpriv then becomes the grading's own user before anything of the kit or the student's
    runs, with no_new_privs. As another user, bwrap runs unprivileged in a user namespace."""

    def __init__(self):
        self.as_root = os.geteuid() == 0
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
            args = ["--unshare-all"]
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
        try:
            nodes = sorted(n for n in os.listdir("/dev") if NVIDIA_NODES.match(n))
        except OSError:
            nodes = []
        for node in nodes:
            args += ["--dev-bind-try", "/dev/" + node, "/dev/" + node]
        # Criterion's runner shares memory with its tests through /dev/shm.
        args += ["--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--tmpfs", "/dev/shm"]
        return args

    def command(self, kit, submission, out, points, seconds, argv, uid):
        limits = []
        for option, which, value in (("--nofile", resource.RLIMIT_NOFILE, LIMIT_NOFILE),
                                     ("--fsize", resource.RLIMIT_FSIZE, LIMIT_FSIZE),
                                     ("--data", resource.RLIMIT_DATA, LIMIT_DATA),
                                     ("--core", resource.RLIMIT_CORE, 0)):
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            limits.append(f"{option}={value}")
        command = [self.tool["timeout"], "--kill-after=10", str(seconds),
                   self.tool["prlimit"], *limits, "--", self.tool["bwrap"], *self.system,
                   "--bind", kit, "/kit",
                   "--ro-bind", submission, "/submission",
                   "--bind", out, "/out",
                   # (bwrap as root makes a file's parent folder 0700 unless told)
                   "--perms", "0755", "--dir", "/grading",
                   "--ro-bind", points, "/grading/points.conf",
                   "--chdir", "/kit"]
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

    def probe(self, scratch, uid):
        """Starts one sandbox that must write its /kit and /out and read /submission, as a
        grading's would, and must not be root. Raises Fail(4) when it cannot."""
        folders = {}
        for name in ("kit", "submission", "out"):
            folders[name] = os.path.join(scratch, "probe", name)
            os.makedirs(folders[name])
        points = os.path.join(scratch, "probe", "points.conf")
        with open(points, "w") as file:
            file.write("# probe\n")
        with open(os.path.join(folders["submission"], "probe.cu"), "w") as file:
            file.write("probe\n")
        self.hand_over(folders["kit"], uid)
        self.hand_over(folders["out"], uid)
        for path in (points, os.path.join(folders["submission"], "probe.cu")):
            os.chmod(path, 0o444)
        script = ("test \"$(id -u)\" != 0 && id -u >/out/uid && : >/kit/probe && "
                  "test -r /submission/probe.cu && test -r /grading/points.conf && "
                  "test ! -e /root/. && test ! -e /home/. && "
                  "test ! -e " + sh_quote(ROOT + "/solutions") + " && test ! -e " + sh_quote(ROOT + "/grade-class"))
        command = self.command(folders["kit"], folders["submission"], folders["out"], points, 60,
                               ["/bin/sh", "-c", script], uid)
        result = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=sandbox_environment(None, None))
        output = result.stdout.decode("utf-8", "replace").strip().replace("\n", "; ")
        if result.returncode != 0:
            if "bwrap" in output or "setpriv" in output or "prlimit" in output or not output:
                need = ("" if self.as_root else " and allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0), or run as root")
                raise Fail(EXIT_MACHINE, f"the sandbox does not start here ({output[:300] or 'exit %d' % result.returncode}): install Debian's bubblewrap package (apt-get install bubblewrap){need}; grade-class grades no submission outside its sandbox")
            raise Fail(EXIT_MACHINE, f"the sandbox started but could not use its folders under {scratch} (TMPDIR must be a folder that the grading's user can reach): {output[:300]}")
        shutil.rmtree(os.path.join(scratch, "probe"), ignore_errors=True)

    def hand_over(self, path, uid, recursive=False):
        """Makes a folder the sandbox's to write: its user's when run as root."""
        if not self.as_root:
            return
        if recursive:
            subprocess.run(["chown", "-R", "-h", f"{uid}:{uid}", "--", path], check=True)
        else:
            os.chown(path, uid, uid)


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


def sandbox_environment(gpu, cuda_arch):
    """The whole environment of a sandbox: nothing of the instructor's but where CUDA and
    Criterion are."""
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    path = [f"{cuda_home}/bin", "/usr/local/nvidia/bin", "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(path), "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "TERM": "dumb"}
    for name in ("CUDA_HOME", "CRITERION_PREFIX", "LD_LIBRARY_PATH"):
        if os.environ.get(name):
            env[name] = os.environ[name]
    if cuda_arch:
        env["CUDA_ARCH"] = cuda_arch
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    return env
