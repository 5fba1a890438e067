import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # ledger_synth.py, near-H200 numbers for every claim
