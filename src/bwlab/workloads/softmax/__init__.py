"""The softmax workload: two teaching ladders (a strided reduced axis, the last axis) from a
classic first kernel up, and the production bwlab.softmax() with its backward."""
from .workload import SoftmaxWorkload

WORKLOAD = SoftmaxWorkload()
