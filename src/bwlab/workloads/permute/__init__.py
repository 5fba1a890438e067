"""Any-axis permutation: bwlab.permute, its planner and its ladder."""
from .workload import WORKLOAD

__all__ = ["WORKLOAD"]
