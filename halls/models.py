"""Models of the halls app (filled in by later issues)."""
