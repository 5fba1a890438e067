"""colsTeam with its teams started in more phases (variants.py), through the public API, on one
variant's copy of the package: `python3 probe.py VARIANT ROUND [SET]` with PYTHONPATH at that copy
(run.sh; SET: "all" unless given). ../team-poller/probe.py's cases, checks and timing, with the set
"all": softmax, log-softmax and softmax's gradients, bfloat16 and float32, down the strided axes the
teams take, and log-softmax's gradients on lean teams. Round 1 compiles the cases' kernels first
(registers and spills printed) and checks every output, poisoned, against float64 (bad = 0 wanted);
each call timed beside a copy of the same bytes."""
import importlib.util
import sys

_spec = importlib.util.spec_from_file_location("team_poller_probe", "../team-poller/probe.py")
poller = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(poller)

ALL = [(s, dim, d, op) for s, dim in poller.STRIDED for d in ("bfloat16", "float32") for op in ("fwd", "log", "bwd")]
ALL += [(s, dim, d, "lbwd") for s, dim in poller.LEAN for d in ("float32", "bfloat16")]
poller.SETS["all"] = ALL


def main(variant, rnd, which="all"):
    poller.main(variant, rnd, which)


if __name__ == "__main__":
    main(*sys.argv[1:])
