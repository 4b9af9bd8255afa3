"""A real Slurm cluster of one node on this machine, for make test: Debian's munge and
slurm-wlm (slurmctld and slurmd), with their configuration, state, sockets and logs in a folder
of the test's, started and stopped by the test. It needs root (slurmd starts jobs as their
user); where it cannot start, start() says why and the test skips.

    cluster = LocalSlurm(folder)
    why = cluster.start()        # None, or why Slurm cannot run here
    cluster.run(["sbatch", ...]) # with SLURM_CONF set
    cluster.wait(job)            # its final state: COMPLETED, FAILED, CANCELLED, TIMEOUT...
    cluster.stop()
"""
import os
import re
import shutil
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd")
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalSlurm:
    def __init__(self, folder, gpus=0):
        self.folder = os.path.abspath(folder)
        self.gpus = gpus  # the node's GPUs (gres gpu, /dev/nvidia0 ...), none by default
        self.conf = os.path.join(self.folder, "slurm.conf")
        self.socket = os.path.join(self.folder, "run", "munge.socket")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.started = False

    def path(self, *parts):
        return os.path.join(self.folder, *parts)

    def start(self):
        """Starts munged, slurmctld and slurmd; returns None, or why they cannot run here."""
        if os.geteuid() != 0:
            return "Slurm's slurmd must run as root to start jobs, and this is not root"
        missing = [d for d in DAEMONS if not shutil.which(d) and not os.path.exists("/usr/sbin/" + d)]
        missing += [c for c in ("sbatch", "scontrol", "scancel") if not shutil.which(c)]
        if missing:
            return f"{', '.join(missing)} not installed (Debian's slurm-wlm and munge)"
        shutil.rmtree(self.folder, ignore_errors=True)
        for part in ("run", "state", "spool", "log"):
            os.makedirs(self.path(part))
        os.chmod(self.path("run"), 0o755)
        key = self.path("munge.key")
        with open(key, "wb") as file:
            file.write(os.urandom(1024))
        os.chmod(key, 0o600)
        host = socket.gethostname().split(".")[0]
        cpus = os.cpu_count() or 1
        with open(self.conf, "w") as file:
            file.write(f"""# A one-node cluster for make test (grader/tests/local_slurm.py)
ClusterName=gradetest
SlurmctldHost={host}
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={self.path('state')}
SlurmdSpoolDir={self.path('spool')}
SlurmctldPidFile={self.path('run', 'slurmctld.pid')}
SlurmdPidFile={self.path('run', 'slurmd.pid')}
SlurmctldLogFile={self.path('log', 'slurmctld.log')}
SlurmdLogFile={self.path('log', 'slurmd.log')}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=3600
KillWait=5
{"GresTypes=gpu" if self.gpus else ""}
NodeName={host} CPUs={cpus} {f"Gres=gpu:{self.gpus}" if self.gpus else ""} State=UNKNOWN
PartitionName=grading Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        # The job uses no cgroup (proctrack/linuxproc, task/none), but slurmd 22.05 loads a cgroup
        # plugin at start anyway; cgroup/v2 needs systemd's dbus and enabled controllers, which a
        # container lacks (the GPU machine's gVisor has neither), while cgroup/v1 without automount
        # mounts nothing and starts wherever slurmd does.
        with open(self.path("cgroup.conf"), "w") as file:
            file.write("CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n")
        if self.gpus:
            # The GPUs by their device nodes: Slurm then sets a task's CUDA_VISIBLE_DEVICES.
            with open(self.path("gres.conf"), "w") as file:
                file.write("".join(f"Name=gpu File=/dev/nvidia{gpu}\n" for gpu in range(self.gpus)))
        self.started = True
        steps = [
            [self.daemon("munged"), "--force", f"--key-file={key}", f"--socket={self.socket}",
             f"--log-file={self.path('log', 'munged.log')}", f"--pid-file={self.path('run', 'munged.pid')}",
             f"--seed-file={self.path('run', 'munged.seed')}"],
            [self.daemon("slurmctld"), "-f", self.conf],
            [self.daemon("slurmd"), "-f", self.conf],
        ]
        for command in steps:
            result = subprocess.run(command, env=self.env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, timeout=60)
            if result.returncode != 0:
                name = os.path.basename(command[0])
                said = result.stdout.decode(errors="replace").strip() or self.last_error(name)
                return f"{name} did not start: {said[-200:]}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = self.run(["sinfo", "--noheader", "--format=%T"])[1].strip()
            if state in ("idle", "mixed", "allocated"):
                return None
            time.sleep(1)
        return f"the node did not come up (sinfo says '{state}'); see {self.path('log')}"

    def last_error(self, daemon):
        """The last error or fatal line of a daemon's log ("" if none): slurmd says why it
        stopped there, not on its output."""
        log = self.path("log", daemon + ".log")
        try:
            with open(log, errors="replace") as file:
                lines = [line.strip() for line in file if "error:" in line or "fatal:" in line]
        except OSError:
            return ""
        return lines[-1] if lines else ""

    @staticmethod
    def daemon(name):
        return shutil.which(name) or "/usr/sbin/" + name

    def run(self, command, timeout=120):
        result = subprocess.run(command, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=timeout)
        return result.returncode, result.stdout.decode("utf-8", "replace")

    def state(self, job):
        """(JobState, ExitCode) of a job or array task, while slurmctld remembers it."""
        _, output = self.run(["scontrol", "show", "job", "--oneliner", str(job)])
        states = re.findall(r"\bJobState=(\S+)", output)
        codes = re.findall(r"\bExitCode=(\S+)", output)
        return (states[0] if states else None), (codes[0] if codes else None)

    def wait(self, job, seconds=600):
        """Waits for a job to end; returns its final state (or 'still running')."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            state, _ = self.state(job)
            if state in FINAL_STATES:
                return state
            time.sleep(2)
        return "still running"

    def stop(self):
        if not self.started:
            return
        self.run(["scontrol", "shutdown"], timeout=60)
        for name in ("slurmd", "slurmctld", "munged"):
            try:
                with open(self.path("run", f"{name}.pid")) as file:
                    pid = int(file.read().strip())
                os.kill(pid, 15)
            except (OSError, ValueError):
                pass
        self.started = False
