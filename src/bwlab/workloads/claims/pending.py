"""Claims from the notes that the ledger lists but does not measure yet, each with the reason."""
from __future__ import annotations

from .claim import Claim

STREAMS = "notes on streams"
BOTTLENECK = "notes on finding the bottleneck from peak fractions"
INSTRUCTIONS = "notes on arithmetic-instruction advice"
MEMORY_INSTRUCTIONS = "notes on memory-instruction advice"
SPACES = "notes on the memory spaces"
LATENCY = "notes on hiding memory latency and on DRAM banks"

CLAIMS = (
    Claim("null-stream", "streams", STREAMS,
          "The legacy default stream waits for, and blocks, every blocking stream, so kernels around it run one "
          "after another.",
          why_not="`bwlab streams` measures this (scenario null-stream, with the other stream scenarios); the "
                  "ledger does not repeat it yet."),
    Claim("bottleneck-cases", "peaks", BOTTLENECK,
          "A kernel's fractions of peak bandwidth and peak FLOP/s tell whether bandwidth, wasted arithmetic or "
          "poor caching and coalescing limits it.",
          why_not="needs kernels built to sit in each of the three cases; `bwlab roofline` applies this diagnosis "
                  "to measured kernels."),
    Claim("char-short-promotion", "instructions", INSTRUCTIONS,
          "Arithmetic on char or short values is converted to int, which costs extra instructions.",
          why_not="needs instruction counts from the compiled code (a SASS disassembler), not yet part of bwlab."),
    Claim("restrict-pointers", "memory instructions", MEMORY_INSTRUCTIONS,
          "Marking pointer parameters __restrict__ reduces the instructions a kernel executes and speeds it up.",
          why_not="no experiment yet."),
    Claim("shared-speed-everywhere", "memory", SPACES,
          "Shared memory runs at about the same speed on every GPU, while global memory on low-end cards is a tenth "
          "as fast as on high-end ones.",
          why_not="needs GPUs of several classes; the ledger measures one GPU at a time."),
    Claim("dram-banks", "memory", LATENCY,
          "Access patterns that concentrate on few DRAM channels or banks (partition camping) lose bandwidth.",
          why_not="the strided-pattern experiment is not written yet."),
)
