"""The benchmarks (README «Benchmarks»): scripts run as ``python bench/NAME.py``."""
