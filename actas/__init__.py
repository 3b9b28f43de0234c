"""Actas: the session records inspectors read (R58-R61)."""
