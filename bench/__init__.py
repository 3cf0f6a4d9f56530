"""Benchmarks against the budgets of DESIGN.md section 11: `make bench` (bench/budgets.py)."""
