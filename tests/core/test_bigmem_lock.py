"""Tests past 2^31 elements take a lock that runs them one at a time across pytest-xdist workers
(tests/bigmem.py): side by side they ran the GPU out of memory."""
import subprocess
import sys

import pytest

import bigmem

TRY_LOCK = "import fcntl, sys; fcntl.flock(open(sys.argv[1], 'rb'), fcntl.LOCK_EX | fcntl.LOCK_NB)"


def test_named_2_31_elements_gets_bigmem(request):
    assert request.node.get_closest_marker("bigmem") is not None


def test_other_tests_do_not(request):
    assert request.node.get_closest_marker("bigmem") is None


def test_the_lock_keeps_other_processes_out():
    pytest.importorskip("fcntl")

    def other_process_gets_it():
        return subprocess.run([sys.executable, "-c", TRY_LOCK, bigmem.__file__], capture_output=True).returncode == 0

    with bigmem.exclusive():
        held = other_process_gets_it()
    assert not held and other_process_gets_it()
