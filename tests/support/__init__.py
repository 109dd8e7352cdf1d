"""Helpers shared by tests of several parts (not fixtures: import what you use)."""
