"""Reproducible benchmarks: speed and scaling, decision quality against engine-style baselines.

Run each from the repository root with ``python -m benchmarks.<name>``; see ``benchmarks/README.md``.
"""
