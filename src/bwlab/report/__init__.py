"""Rendering saved results, without a GPU: tables (terminal, plain text), charts, Markdown /
HTML / CSV documents, the roofline and its diagnosis, and the profiler's CSV. Everything is
generic over workloads through the records' fields; a workload adds tables of its own."""
