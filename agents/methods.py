"""What the methods of the papers find in the worlds they play.

A world's plug-in (``sim.plugins.WorldPlugin``) declares, in ``methods``, what each method needs
from it, as ``"module:attribute"`` references: ``"protom"`` names the world's ``ProToMAdapter``
class, ``"llm"`` its ``LLMWorld`` class (prompts, action labels and fallback of the llm agent and
facilitator), ``"teams"`` its ``TeamPlay`` (the default seats of its team tasks and their task
score). A method plays exactly the worlds that declare it (a kind made with ``needs=(...)``), so no
method keeps a list of worlds and a new world needs no edit outside its own declaration.
"""

from __future__ import annotations

from typing import Any

from sim.plugins import plugin, plugins, resolve


def families_with(*methods: str) -> tuple[str, ...]:
    """The world families whose plug-in declares every one of ``methods``, in the registry's order."""
    return tuple(name for name, p in plugins().items() if all(m in p.methods for m in methods))


def declares(family: str, method: str) -> bool:
    found = plugins().get(family)
    return found is not None and method in found.methods


def world_part(family: str, method: str, what: str) -> Any:
    """The object ``family``'s plug-in declares for ``method``; a ValueError naming the world, what
    is missing and the worlds that have it (``what`` says what the method wanted, for people)."""
    try:
        declared = plugin(family).methods.get(method)
    except KeyError as exc:
        raise ValueError(exc.args[0]) from None
    if declared is None:
        have = ", ".join(families_with(method)) or "none"
        raise ValueError(f"{what} for the world {family!r}: its plug-in declares no methods[{method!r}] "
                         f"(worlds that do: {have})")
    return resolve(declared)
