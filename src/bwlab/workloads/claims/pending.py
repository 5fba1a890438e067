"""Claims from the notes that the ledger lists but does not measure, each with the reason."""
from __future__ import annotations

from .claim import Claim

SPACES = "notes on the memory spaces"

CLAIMS = (
    Claim("shared-speed-everywhere", "memory", SPACES,
          "Shared memory runs at about the same speed on every GPU, while global memory on low-end cards is a tenth "
          "as fast as on high-end ones.",
          why_not="it compares GPUs of several classes, low-end and high-end, and a ledger measures only the GPU it "
                  "runs on; run the ledger on each GPU and set the saved ledgers side by side with `bwlab claims "
                  "--compare A/claims.json --compare B/claims.json` (the memory-levels claim has the shared and "
                  "global bandwidths)."),
)
