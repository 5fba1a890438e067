"""The one exception type for problems a user can fix (a missing GPU, a file in the way, a
malformed results file): the command line prints its message as one line and exits non-zero.
Wrong arguments to the Python API raise TypeError or ValueError instead."""
from __future__ import annotations


class UserError(Exception):
    """A problem with the request or the machine, said in one line, with what to do."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code
