"""What every part of grade-class needs: the kit's root, the exit statuses, the failures that end
the command, and printing a line."""
import os
import shutil
import sys
import threading


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


EXIT_COMPLETE, EXIT_INCOMPLETE, EXIT_USAGE, EXIT_MACHINE = 0, 1, 2, 4


class Fail(Exception):
    """Ends the command with one line on stderr and an exit status."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class TaskRecorded(Fail):
    """A Fail whose cause the task's state file already holds."""


class Interrupted(Exception):
    pass


class MachineBroken(Exception):
    """This machine cannot grade (checked with the kit's own skeleton): the task stops."""


def say(*parts):
    with PRINT_LOCK:
        print("grade-class:", *parts, flush=True)


PRINT_LOCK = threading.Lock()


def remove(path):
    """Removes a file or a folder of grade-class's own (a kit, a grading's scratch folder), also
    where a grading left a folder without write permission in it."""
    def retry(function, name, _):
        try:
            os.chmod(os.path.dirname(name), 0o700)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o700)
            function(name)
        except OSError:
            pass
    if os.path.isdir(path) and not os.path.islink(path):
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=retry)
        else:
            shutil.rmtree(path, onerror=retry)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass
