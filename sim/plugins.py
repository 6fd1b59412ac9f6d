"""World plug-ins: one declaration per world family of everything that family brings.

A world family declares itself in ``sim/<family>/plugin.py`` as ``PLUGIN = WorldPlugin(...)``;
the registry finds every such module (and any installed package's entry point in the group
``tom_arena.worlds``), so adding a world edits no list anywhere. The methods of the papers
(ProToM, the LLM agent, team formation) find what they need from a world in its ``methods``. Tests and scripts may also
call ``register_plugin``, or ``registered(...)`` to add plug-ins for a block only (the registry is
put back as it was when the block ends, so a test's world does not outlive the test).

The rules (``validate``, ``build``, the file readers) are Python objects of ``sim/``; a plug-in may
name them ``lazy("module:attribute")``, so that reading its declaration (names, titles, categories,
file formats) imports none of its world's modules: they load on first use, and starting the app
with one world's recording loads that world alone. What belongs to the layers above (agents,
renderers, panels, the methods' world parts) is named by ``"module:attribute"`` strings that those
layers import when they need them, so ``sim/`` never imports ``agents/`` or ``ui/``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

from sim.world import World

ENTRY_POINT_GROUP = "tom_arena.worlds"


class Lazy:
    """A callable named by ``"module:attribute"``, imported on its first call (``lazy``)."""

    __slots__ = ("reference", "_target")

    def __init__(self, reference: str) -> None:
        if ":" not in reference:
            raise ValueError(f"expected a 'module:attribute' reference, got {reference!r}")
        self.reference = reference
        self._target: Any = None

    @property
    def target(self) -> Any:
        """The object the reference names (imported now if it was not yet)."""
        if self._target is None:
            self._target = resolve(self.reference)
        return self._target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.target(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.reference!r})"


def lazy(reference: str) -> Any:
    """``reference`` (``"module:attribute"``) as a callable that imports its module on first call:
    for a plug-in's ``validate``, ``build``, ``readers``, ``formats`` and ``recognise``."""
    return Lazy(reference)


def target(obj: Any) -> Any:
    """What ``obj`` stands for: the named object of a ``lazy`` reference, else ``obj`` itself."""
    return obj.target if isinstance(obj, Lazy) else obj


def lazy_exports(package: str, exports: Mapping[str, Iterable[str]]) -> Callable[[str], Any]:
    """A package's module-level ``__getattr__`` that offers ``exports`` (submodule -> the names it
    gives the package) on first use, so that importing the package imports none of them::

        __getattr__ = lazy_exports(__name__, {"sim.dkg.world": ("DKGWorld", ...), ...})

    A name's first use imports its submodule and binds the name in the package (later uses are
    plain attribute reads); any other name raises ``AttributeError`` naming the package. The
    package keeps its ``__all__`` and its ``if TYPE_CHECKING:`` imports, for the type checker."""
    module_of: dict[str, str] = {}
    for module, names in exports.items():
        if isinstance(names, str):
            raise TypeError(f"{package}: the names of {module!r} must be a collection of names, got {names!r}")
        for name in names:
            if name in module_of:
                raise ValueError(f"{package}: {name!r} is exported by both {module_of[name]!r} and {module!r}")
            module_of[name] = module

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


@dataclass(frozen=True)
class ReadOption:
    """An option of reading a scenario file (``run --cooks N``): the formats (names in the
    plug-in's ``formats``) whose readers take it, called ``reader(path, **{name: value})``; any
    other format refuses it in one line: ``--NAME <what>; this file is a <format> level, which
    <refusal>``."""

    name: str
    formats: tuple[str, ...]
    what: str
    refusal: str


@dataclass(frozen=True)
class WorldPlugin:
    """Everything one world family brings."""

    #: short family name used in scenario files (``"world": "dkg"``) and on the command line
    name: str
    #: the family's name for people
    title: str
    #: (scenario data, source file) -> normalized spec; raises ``ScenarioError`` naming file and field
    validate: Callable[[dict[str, Any], str], dict[str, Any]]
    #: normalized spec -> World
    build: Callable[[dict[str, Any]], World]
    #: a few sentences that explain the rules to a new user (the app's "How to play")
    rules_text: str = ""
    #: scenario files of other formats: suffix -> (path) -> scenario data (a dict for ``validate``)
    readers: Mapping[str, Callable[[Path], dict[str, Any]]] = field(default_factory=dict)
    #: the same readers by format name, for ``--format`` (e.g. ``{"gym-cooking": ...}``)
    formats: Mapping[str, Callable[[Path], dict[str, Any]]] = field(default_factory=dict)
    #: (a file's text) -> the name of the format in ``formats`` it has, or None: how a file whose
    #: name ends in no suffix of ``readers`` (``full-divider_salad.txt``) is recognised by content
    recognise: Callable[[str], str | None] | None = None
    #: options of reading a file (``run --cooks N``) and the formats that take them
    read_options: tuple[ReadOption, ...] = ()

    # --- the layers above sim/, as "module:attribute" references --------------------------
    #: agent spec for seats nobody chose in headless runs (``run`` without ``--agents``)
    default_agent: str = "planner"
    #: agent spec for seats nobody chose in the app (None: ``default_agent``), e.g. simulated humans
    app_agent: str | None = None
    #: mechanism specs the app starts with when they are available (e.g. ``("protom",)``)
    default_mechanisms: tuple[str, ...] = ()
    #: the Renderer class that draws this family's states (``ui/``)
    renderer: str | None = None
    #: the belief adapter class (``ui/``, a ``ui.beliefs.view.WorldBeliefs``): how this family's
    #: minds are drawn in the *As X believes it* views and listed in the belief timeline (which
    #: snapshot kinds, their believed worlds, their words); None: no believed views
    beliefs: str | None = None
    #: extra panel classes only this family has (``ui/``); generic panels register by snapshot kind
    panels: tuple[str, ...] = ()
    #: (world, state, agent, feedback payload) -> "completed" | "not_executable" | None: how a
    #: human seat's accepted feedback is judged done (``agents/``)
    feedback_progress: str | None = None
    #: what the world gives each method that plays it, by method name: ``"protom"`` (the
    #: ProToMAdapter class), ``"llm"`` (the LLMWorld class of the llm agent and facilitator),
    #: ``"teams"`` (the TeamPlay of its team tasks: default seats and task score); a method
    #: plays the worlds that declare it and keeps no list of its own (``agents.methods``)
    methods: Mapping[str, str] = field(default_factory=dict)
    #: scenario categories in the order the app lists them, with their titles for people
    categories: tuple[tuple[str, str], ...] = ()
    #: the category the app opens by default
    default_category: str | None = None


_PLUGINS: dict[str, WorldPlugin] = {}
_PROBLEMS: list[str] = []
_discovered = False  # discovery has started
_complete = False  # discovery has ended
_discovery_lock = threading.RLock()


def register_plugin(plugin: WorldPlugin) -> WorldPlugin:
    """Add ``plugin`` (replacing one of the same name: tests re-register freely)."""
    _PLUGINS[plugin.name] = plugin
    return plugin


@contextmanager
def registered(*added: WorldPlugin) -> Iterator[None]:
    """Register ``added`` for the block only: when it ends (however it ends) each of their names is
    bound again to the plug-in it had before (a shipped world a test replaced comes back) or removed."""
    _discover()
    before = {p.name: _PLUGINS.get(p.name) for p in added}
    for p in added:
        register_plugin(p)
    try:
        yield
    finally:
        for name, previous in before.items():
            if previous is None:
                _PLUGINS.pop(name, None)
            else:
                _PLUGINS[name] = previous


def _discover() -> None:
    global _discovered, _complete
    if _complete:
        return
    # Another thread waits here until discovery is complete; the discovering thread itself, when a
    # plug-in's import asks for plug-ins again, gets those found so far (``_discovered`` is set).
    with _discovery_lock:
        if _discovered:
            return
        _discovered = True
        _discover_all()
        _complete = True


def _discover_all() -> None:
    import sim

    # One broken plug-in must not hide the other worlds: its problem is kept for people to see.
    for info in sorted(pkgutil.iter_modules(sim.__path__), key=lambda i: i.name):
        if info.ispkg and (Path(info.module_finder.path) / info.name / "plugin.py").exists():  # type: ignore[union-attr]
            _load(f"sim.{info.name}.plugin", partial(_plugin_of, f"sim.{info.name}.plugin"))
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        _load(f"entry point {entry.name}", entry.load)


def _plugin_of(module: str) -> Any:
    return importlib.import_module(module).PLUGIN


def _load(where: str, load: Callable[[], Any]) -> None:
    try:
        found = load()
        if not isinstance(found, WorldPlugin):
            raise TypeError(f"expected a WorldPlugin, got {type(found).__name__}")
        register_plugin(found)
    except Exception as exc:  # noqa: BLE001 - reported, never fatal for the other worlds
        _PROBLEMS.append(f"world plug-in {where} cannot be loaded: {type(exc).__name__}: {exc}")


def plugin_problems() -> list[str]:
    """Why plug-ins that exist could not be loaded (empty when all loaded)."""
    _discover()
    return list(_PROBLEMS)


def plugins() -> dict[str, WorldPlugin]:
    """Every world family, by name."""
    _discover()
    return dict(_PLUGINS)


def plugin(name: str) -> WorldPlugin:
    _discover()
    try:
        return _PLUGINS[name]
    except KeyError:
        raise KeyError(f"unknown world {name!r}; known worlds: {', '.join(sorted(_PLUGINS))}") from None


def resolve(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names."""
    module, _, attribute = reference.partition(":")
    obj: Any = importlib.import_module(module)
    for part in filter(None, attribute.split(".")):
        obj = getattr(obj, part)
    return obj
