"""`bwlab claims`: run each claim's experiment on the GPU and record its verdict.

For every claim selected: build its kernels, run its experiment through a Context (which checks
every result before anything is timed, times with the same harness as the ladder, and keeps one
Record per timed configuration), and apply the claim's rule to the numbers. A claim whose kernel
gives a wrong result, or whose experiment fails, is recorded as not measured, with the reason;
a claim without an experiment is listed as not measured yet.

The results document is a core.results.Run with config["procedure"] == "claims"; its ledger is
config["claims"], one entry per claim:
  id, group, topic, claim, experiment, status (holds | does not hold | depends | not measured |
  not measured yet), verdict (the finding in words, or why it is not measured), depends_on,
  numbers {name: value}, charts [{title, unit, log, bars: [[label, value]...]}], wrong (bool).
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from ..core import build, launch, timing
from ..core.results import Record, Run
from ..workloads.claims import NOT_MEASURED, NOT_YET, STATUSES, Claim
from .common import Log, after_run, fill_timing, flusher, new_run, quiet

PROCEDURE = "claims"


class WrongResult(Exception):
    """A kernel of the experiment computed something else than its reference."""


class Context:
    """What an experiment uses: the device, sizes (small for a quick check), seeded random
    numbers, kernels (built by core.build, launched through core.launch), checks, and timing
    that records what it timed."""

    def __init__(self, run: Run, dev, *, reps: int, warmup: int, seed: Optional[int], small: bool, log: Log):
        self.run, self.dev, self.arch = run, dev, dev.arch
        self.reps, self.warmup, self.small, self.log = reps, warmup, small, log
        self.seed = seed if seed is not None else int(np.random.default_rng().integers(1 << 31))
        self._rng = np.random.default_rng(self.seed)
        self._memo: dict = {}
        self._modules: dict = {}
        self._flusher = None
        self.claim = ""

    # --- sizes, random numbers, reuse --------------------------------------------------------
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(int(self._rng.integers(1 << 62)))

    def memo(self, key, fn: Callable):
        """fn() once per run: claims that share a measurement share its numbers (and its failure)."""
        if key not in self._memo:
            try:
                self._memo[key] = fn()
            except WrongResult as exc:
                self._memo[key] = exc
        value = self._memo[key]
        if isinstance(value, WrongResult):
            raise value
        return value

    # --- kernels -------------------------------------------------------------------------------
    def function(self, source, expression: str):
        return launch.function(source, expression, self.arch, self.dev.index)

    def build(self, source, expression: str) -> build.Build:
        return build.compile_source(source, [expression], self.arch)

    def resources(self, source, expression: str) -> build.Resources:
        return self.build(source, expression).resources.get(expression, build.Resources())

    def module(self, source, expression: str):
        """(module, function) of one instantiation, for kernels whose module globals (constant
        memory) the experiment fills before launching."""
        import cupy

        b = self.build(source, expression)
        if b.cubin_path not in self._modules:
            with cupy.cuda.Device(self.dev.index):
                self._modules[b.cubin_path] = cupy.RawModule(path=b.cubin_path)
        module = self._modules[b.cubin_path]
        return module, module.get_function(b.symbols[expression])

    # --- checks and timing -----------------------------------------------------------------------
    def require(self, what: str, ok, detail: str = "") -> None:
        """Stop the experiment (WrongResult) unless ok: a bool, a core.verify.Check, or (bool, detail)."""
        if isinstance(ok, tuple):
            ok, detail = ok
        elif hasattr(ok, "ok"):
            detail, ok = detail or str(ok), ok.ok
        if not ok:
            raise WrongResult(f"{what}: {detail}" if detail else what)

    def timelines(self, cases: list, kernel_us: float) -> list:
        """Stream cases (bwlab.workloads.streams) measured as `bwlab streams` measures them: each
        case's kernels stamp their own start and end on the GPU's clock; a case that needs its own
        environment runs in a child process. Returns the measured cases (ops, or an error each)."""
        from .streams import run_cases

        return run_cases(cases, self.dev, kernel_us)

    def flush_l2(self) -> None:
        if self._flusher is None:
            self._flusher = timing.L2Flusher(self.dev.l2_bytes)
        self._flusher()

    def record(self, label: str, *, family: str, shape=(), dtype: str = "", bytes: int = 0, notes=(),
               check: str = "checked before timing", block=None, grid=None) -> Record:
        rec = Record(label, "kernel", family, "claim", [int(v) for v in shape], dtype, int(bytes),
                     params={"claim": self.claim}, block=list(block) if block else None,
                     grid=list(grid) if grid else None, correct=True, check=check, notes=list(notes))
        self.run.records.append(rec)
        return rec

    def time(self, label: str, fn: Callable[[], None], *, family: str, bytes: int = 0, shape=(), dtype: str = "",
             block=None, grid=None, reps: Optional[int] = None, warmup: Optional[int] = None,
             flush: Optional[bool] = None) -> Record:
        """Median time of fn() (CUDA events, warm-up first) into a new record; GB/s when bytes is
        given (bytes read + written). flush None: flush L2 between repetitions when bytes are given
        and below 4x L2; False: never (an experiment that measures the L2 itself)."""
        flush_fn = None
        if flush is not False and bytes:
            flush_fn = flusher(bytes, self.dev.l2_bytes)
        t = timing.time_gpu(fn, warmup=self.warmup if warmup is None else warmup,
                            reps=self.reps if reps is None else reps, flush=flush_fn)
        rec = self.record(label, family=family, shape=shape, dtype=dtype, bytes=bytes, block=block, grid=grid)
        fill_timing(rec, t)
        if not bytes:
            rec.gbs = None
        else:
            rec.pct_peak = 100 * rec.gbs / self.dev.peak_bandwidth_gbs
        if flush_fn is not None:
            rec.notes.append("L2 flushed between repetitions")
        return rec


# --- the ledger ---------------------------------------------------------------------------------

def entry(claim: Claim) -> dict:
    """A claim's ledger entry before (or without) its experiment."""
    return {"id": claim.id, "group": claim.group, "topic": claim.topic, "claim": claim.text,
            "experiment": claim.experiment, "status": NOT_YET if not claim.measured else NOT_MEASURED,
            "verdict": claim.why_not if not claim.measured else "not run", "depends_on": "", "numbers": {},
            "charts": [], "wrong": False}


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    return v if math.isfinite(v) else None


def decided(claim: Claim, numbers: dict) -> dict:
    """The entry of a measured claim: its numbers, its verdict and its charts."""
    e = entry(claim)
    numbers = {k: _number(v) for k, v in numbers.items()}
    v = claim.decide(numbers)
    e.update(numbers=numbers, status=v.status, verdict=v.text, depends_on=v.on)
    e["charts"] = [{"title": c.title, "unit": c.unit, "log": c.log,
                    "bars": [[label, numbers[key]] for label, key in c.bars if numbers.get(key) is not None]}
                   for c in claim.charts]
    return e


def prebuild(claims, arch: str) -> None:
    """Compile every instantiation the claims launch, one per process, before any timing."""
    by: dict = {}
    for c in claims:
        for k in c.kernels:
            by.setdefault(k.source, set()).update(k.expressions)
    for source, exprs in by.items():
        build.compile_each(source, sorted(exprs), arch)


def measure(claims, *, reps: int = 30, warmup: int = 3, seed: Optional[int] = None, small: bool = False,
            log: Log = quiet, on_claim: Callable[[Run], None] = lambda run: None, command: str = "") -> Run:
    """Run the experiments of the claims given (in order) and return the results document; a
    Ctrl-C returns what was measured, marked incomplete."""
    run, dev = new_run(PROCEDURE, None, {"reps": reps, "warmup": warmup, "seed": seed, "small": small,
                                         "claims": []}, command)
    run.ceilings = {"peak_gbs": dev.peak_bandwidth_gbs}
    ctx = Context(run, dev, reps=reps, warmup=warmup, seed=seed, small=small, log=log)
    run.config["seed"] = ctx.seed
    log(f"building kernels for {dev.arch}")
    prebuild([c for c in claims if c.measured], dev.arch)
    try:
        for c in claims:
            if not c.measured:
                run.config["claims"].append(entry(c))
                continue
            log(c.id)
            ctx.claim = c.id
            run.config["claims"].append(_measure_one(ctx, c))
            on_claim(run)
    except KeyboardInterrupt:
        return run
    run.complete = True
    after_run(run, dev.index)
    return run


def _measure_one(ctx: Context, c: Claim) -> dict:
    try:
        return decided(c, c.measure(ctx))
    except WrongResult as exc:
        e = entry(c)
        e.update(verdict=f"a kernel gave a wrong result, so nothing of this claim was kept: {exc}", wrong=True)
        return e
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # one experiment failing must not sink the ledger
        e = entry(c)
        e["verdict"] = f"the experiment failed: {exc.__class__.__name__}: {str(exc)[:300]}"
        return e
    finally:
        _free()


def _free() -> None:
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    except Exception:
        pass


# --- reading a document back ------------------------------------------------------------------

_TEXT = ("id", "topic", "claim", "experiment", "status", "verdict")


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _bad_entry(e: dict) -> str:
    """What is malformed in one ledger entry, so that renderers never meet it ('' when nothing)."""
    if e["status"] not in STATUSES:
        return f"status {e['status']!r} is not one of {', '.join(STATUSES)}"
    if not isinstance(e.get("depends_on", ""), str):
        return "depends_on should be text"
    numbers = e.get("numbers", {})
    if not isinstance(numbers, dict) or not all(v is None or _finite(v) for v in numbers.values()):
        return "numbers should map names to finite numbers (or null)"
    charts = e.get("charts", [])
    if not isinstance(charts, list) or not all(
            isinstance(c, dict) and isinstance(c.get("title"), str) and isinstance(c.get("unit"), str)
            and isinstance(c.get("bars"), list)
            and all(isinstance(b, list) and len(b) == 2 and isinstance(b[0], str) and _finite(b[1])
                    for b in c["bars"]) for c in charts):
        return "charts should be a list of {title, unit, bars: [[label, number]...]}"
    return ""


def ledger(run: Run) -> list[dict]:
    """The ledger entries of a claims document (ValueError in one line if it is another
    procedure's, or malformed)."""
    if run.procedure != PROCEDURE:
        raise ValueError(f"a {run.procedure} document, not a claims ledger")
    entries = run.config.get("claims")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and all(isinstance(e.get(k), str) for k in _TEXT)
                                                for e in entries):
        raise ValueError(f"claims document: config.claims should be a list of entries with {', '.join(_TEXT)} "
                         "as text")
    for e in entries:
        problem = _bad_entry(e)
        if problem:
            raise ValueError(f"claims document: config.claims, entry {e['id']!r}: {problem}")
    return entries


def wrong(run: Run) -> list[str]:
    return [e["id"] for e in ledger(run) if e.get("wrong")]


def unmeasured(run: Run) -> list[str]:
    """One line per claim with an experiment that gave no verdict."""
    return [f"{e['id']}: {e['verdict']}" for e in ledger(run) if e["status"] == NOT_MEASURED]
