"""What every part of grade-class needs: the kit's root, the exit statuses, the failures that end
the command, and printing a line."""
import os
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
