"""Models of the cards app (filled in by later issues)."""
