"""A hall's ball sets (R20-R26): registered, checked each session, counted, replaced, retired."""
