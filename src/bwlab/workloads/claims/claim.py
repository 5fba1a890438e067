"""What a claim is: the advice in one English sentence, where in the notes it comes from (as a
topic), the experiment that tests it, the kernels it builds, and the rule that turns the
measured numbers into a verdict. The rules are plain functions of recorded numbers, so they can
be checked without a GPU; the experiments (measure) run on one through the lab's context.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

HOLDS, FAILS, DEPENDS = "holds", "does not hold", "depends"
VERDICTS = (HOLDS, FAILS, DEPENDS)
NOT_YET = "not measured yet"   # no experiment exists for the claim (yet)
NOT_MEASURED = "not measured"  # the experiment ran but gave no verdict (an error or a wrong result)
STATUSES = VERDICTS + (NOT_YET, NOT_MEASURED)

# A ratio within 5% of 1 is "no difference" at the repeatability of these measurements.
SAME = 1.05

KERNELS_DIR = Path(__file__).parent / "kernels"


def cu(name: str) -> Path:
    return KERNELS_DIR / f"{name}.cu"


@dataclass(frozen=True)
class Verdict:
    status: str          # one of VERDICTS
    text: str            # what was found, with the numbers
    on: str = ""         # for DEPENDS: on what

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"a verdict is one of {', '.join(VERDICTS)}, got {self.status!r}")
        if self.status == DEPENDS and not self.on:
            raise ValueError("a 'depends' verdict must say on what")


@dataclass(frozen=True)
class Kernels:
    """Instantiations of one .cu file a claim builds. local_memory: those that use local memory on
    purpose (a deliberate spill, a thread array indexed by data), declared so the build check
    knows them; every other instantiation must compile with no stack frame and no spills."""
    source: Path
    expressions: tuple[str, ...]
    local_memory: tuple[str, ...] = ()


@dataclass(frozen=True)
class Bars:
    """A chart: one bar per (label, numbers key), in unit; log for values spanning decades."""
    title: str
    unit: str
    bars: tuple[tuple[str, str], ...]
    log: bool = False


@dataclass(frozen=True)
class Claim:
    id: str                       # command-line name
    group: str                    # transpose, peaks, memory, instructions, control, ...
    topic: str                    # the section of the notes, as a topic: "notes on ..."
    text: str                     # the claim, one sentence
    experiment: str = ""          # what is run, in words
    measure: Optional[Callable] = None   # (context) -> numbers dict; None: not measured yet
    decide: Optional[Callable[[dict], Verdict]] = None
    kernels: tuple[Kernels, ...] = ()
    charts: tuple[Bars, ...] = ()
    why_not: str = ""             # why it is not measured yet

    @property
    def measured(self) -> bool:
        return self.measure is not None


# --- the arithmetic every rule uses ---------------------------------------------------------

def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a is not None and b else None


def trend(r: float, same: float = SAME) -> int:
    """+1 clearly more, -1 clearly less, 0 within the noise band around 1."""
    if r >= same:
        return 1
    if r <= 1 / same:
        return -1
    return 0


def x(r: float) -> str:
    """A ratio in words: 2.70x."""
    return f"{r:.2f}x"


def gbs(v: float) -> str:
    return f"{v:.0f} GB/s"


def pct(v: float) -> str:
    return f"{100 * v:.0f}%"


def speedup_verdict(gains: dict[str, float], what: str, on: str) -> Verdict:
    """A change tried in several settings (label -> new/old speed ratio): holds when it helps in
    all, does not hold when it helps in none, depends (on `on`) when it helps in some."""
    words = "; ".join(f"{k}: {x(r)}" for k, r in gains.items())
    up = [k for k, r in gains.items() if trend(r) > 0]
    if len(up) == len(gains):
        return Verdict(HOLDS, f"{what} helps in every case ({words}).")
    if not up:
        down = [k for k, r in gains.items() if trend(r) < 0]
        tail = f"; slower in {', '.join(down)}" if down else ""
        return Verdict(FAILS, f"{what} helps in no case ({words}{tail}).")
    return Verdict(DEPENDS, f"{what} helps in {', '.join(up)} only ({words}).", on)
