"""Errors the engine raises for requests it cannot meet."""


class GenerationError(ValueError):
    """A request the generator cannot meet; the message says why in one line."""
