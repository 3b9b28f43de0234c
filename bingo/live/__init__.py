"""Websockets in one place: the one module that sends events (``events``), every consumer
(``consumers``) and their routes (``routing``). The same path serves the hall's displays and
price boards and the callers' consoles."""
