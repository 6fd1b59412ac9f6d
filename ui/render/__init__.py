"""World renderers by family. Add a module to RENDERER_MODULES to plug in a new world's view."""

from __future__ import annotations

import importlib
from typing import Any

from ui.render.base import KeyBinding, Overlays, WorldRenderer

#: modules that call ``register_renderer``; one line per world family
RENDERER_MODULES = [
    "ui.render.dkg",
    "ui.tradecraft.renderer",
]

_RENDERERS: dict[str, type[WorldRenderer]] = {}


def register_renderer(cls: type[WorldRenderer]) -> type[WorldRenderer]:
    _RENDERERS[cls.family] = cls
    return cls


def _load() -> None:
    for module in RENDERER_MODULES:
        importlib.import_module(module)


def has_renderer(family: str) -> bool:
    _load()
    return family in _RENDERERS


def renderer_for(world: Any) -> WorldRenderer:
    _load()
    cls = _RENDERERS.get(world.family)
    if cls is None:
        raise LookupError(f"no view for world {world.family!r}; views exist for {sorted(_RENDERERS)}")
    return cls(world)


__all__ = ["KeyBinding", "Overlays", "WorldRenderer", "has_renderer", "register_renderer", "renderer_for"]
