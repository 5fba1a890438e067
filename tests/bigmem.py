"""Tests past 2^31 elements hold several GiB each (input, output, reference). Run side by side by
pytest-xdist workers, they ran a 139 GiB GPU out of memory; tests/conftest.py marks them `bigmem`
and runs each inside `one_at_a_time()`."""
import contextlib

from bwlab.core.arrays import release_cached_memory

BIG_NAME = "2_31_elements"  # tests named so get the mark


@contextlib.contextmanager
def exclusive():
    """An exclusive lock shared by every process on this machine: flock on this file (no file made)."""
    try:
        import fcntl
    except ImportError:  # no flock: tests run as they come
        yield
        return
    with open(__file__, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def one_at_a_time():
    with exclusive():
        release_cached_memory()
        try:
            yield
        finally:
            release_cached_memory()
