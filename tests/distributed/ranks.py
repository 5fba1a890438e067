"""Start a multi-process test: WORLD copies of worker.py, one per rank, joined through a file
store in a temporary folder; each must exit 0 within the time limit."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = Path(__file__).with_name("worker.py")
SRC = Path(__file__).resolve().parents[2] / "src"


def launch(mode: str, world: int, timeout: float = 120) -> list[str]:
    """The ranks' outputs; AssertionError with every rank's output when one fails or hangs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory(prefix="bwlab-dist-test-") as tmp:
        store = os.path.join(tmp, "store")
        procs = [subprocess.Popen([sys.executable, str(WORKER), mode, str(r), str(world), store], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for r in range(world)]
        outs, failed = [], False
        for r, p in enumerate(procs):
            try:
                out, _ = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                out, _ = p.communicate()
                out += f"\n(rank {r} timed out after {timeout} s)"
                failed = True
            outs.append(out)
            failed |= p.returncode != 0
    if failed:
        raise AssertionError("\n".join(f"--- rank {r} (exit {p.returncode}) ---\n{o[-4000:]}"
                                       for r, (p, o) in enumerate(zip(procs, outs))))
    return outs
