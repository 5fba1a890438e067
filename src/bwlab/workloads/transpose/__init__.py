"""The transpose workload: the teaching ladder from the naive kernel to tileVec, and the
production bwlab.transpose() with its dispatch and tuned plans."""
from .workload import TransposeWorkload

WORKLOAD = TransposeWorkload()
