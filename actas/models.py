"""Models of the actas app (filled in by later issues)."""
