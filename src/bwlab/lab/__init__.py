"""Procedures over any workload: the ladder, sweeps, the bench, tuning and profiling. They
take a core.workload.Workload and return a results document (core.results.Run)."""
