"""World renderers by family: each world's plug-in names its renderer class (``renderer``), whose
``feedback_words`` / ``explanation_words`` say a facilitator's suggestions in the world's words."""

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


def _renderer_class(world: Any) -> type[WorldRenderer] | None:
    found = plugins().get(getattr(world, "family", "")) if world is not None else None
    return resolve(found.renderer) if found is not None and found.renderer is not None else None


def feedback_words(world: Any, payload: Any, text: str) -> str:
    """A suggestion's text as ``world``'s view says it (``WorldRenderer.feedback_words``); the text as it
    is for no world or a world without a view."""
    view = _renderer_class(world)
    return view.feedback_words(world, payload, text) if view is not None else text


def explanation_words(world: Any, text: str) -> str:
    """An explanation as ``world``'s view says it (``WorldRenderer.explanation_words``)."""
    view = _renderer_class(world)
    return view.explanation_words(world, text) if view is not None else text


__all__ = ["KeyBinding", "Overlays", "WorldRenderer", "explanation_words", "feedback_words", "has_renderer",
           "renderer_for"]
