"""Cards: card sets, series, printing, card checks."""
