"""Benchmarks: each reports ratios against a reference run in the same process."""
