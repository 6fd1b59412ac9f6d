"""World renderers by family: each world's plug-in names its renderer class (``renderer``)."""

from __future__ import annotations

from typing import Any

from sim.plugins import plugins, resolve
from ui.render.base import KeyBinding, Overlays, WorldRenderer


def has_renderer(family: str) -> bool:
    found = plugins().get(family)
    return found is not None and found.renderer is not None


def renderer_for(world: Any) -> WorldRenderer:
    found = plugins().get(world.family)
    if found is None or found.renderer is None:
        with_views = sorted(name for name, p in plugins().items() if p.renderer)
        raise LookupError(f"no view for world {world.family!r}; views exist for {with_views}")
    return resolve(found.renderer)(world)


__all__ = ["KeyBinding", "Overlays", "WorldRenderer", "has_renderer", "renderer_for"]
