"""ToM Arena simulation core: worlds, the Session loop, events, recordings and replay."""

__version__ = "0.1.0"
