"""Metrics adapters (application/ports/metrics.py)."""
