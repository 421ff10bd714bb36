"""Measurements of methods on the development sets in tests/data/eval (run as modules)."""
