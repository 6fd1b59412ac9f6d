"""The world packages offer their names on first use (``sim.plugins.lazy_exports``).

Importing ``sim.dkg``, ``sim.kitchen``, ``sim.household`` or ``sim.tradecraft`` imports none of
the package's submodules (so reading the plug-in declarations loads no world); the first use of
a name imports its submodule and binds the name in the package; an unknown name raises
``AttributeError`` naming the package. Each package is checked in a fresh interpreter, where
nothing else has imported its submodules yet.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.plugins import lazy_exports

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import importlib, json, sys
package = sys.argv[1]
module = importlib.import_module(package)
loaded_at_import = sorted(m for m in sys.modules if m.startswith(package + "."))
try:
    module.NoSuchName
    unknown = None
except AttributeError as error:
    unknown = str(error)
bound_before = [n for n in module.__all__ if n in vars(module)]
values = {n: getattr(module, n) for n in module.__all__}
bound_after = [n for n in module.__all__ if vars(module).get(n) is values[n]]
print(json.dumps({
    "loaded_at_import": loaded_at_import,
    "unknown": unknown,
    "bound_before": bound_before,
    "bound_after": bound_after,
    "all": module.__all__,
    "loaded_after": sorted(m for m in sys.modules if m.startswith(package + ".")),
}))
"""


@pytest.mark.parametrize("package", ["sim.dkg", "sim.kitchen", "sim.household", "sim.tradecraft"])
def test_a_world_package_imports_its_submodules_on_first_use(package: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, package], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    got = json.loads(out)
    assert got["loaded_at_import"] == []
    assert got["unknown"] == f"module {package!r} has no attribute 'NoSuchName'"
    assert got["bound_before"] == []
    assert got["bound_after"] == got["all"]  # every name of __all__ resolves and is bound once used
    assert got["loaded_after"]  # ... from the package's submodules


def _fake_package(name: str, monkeypatch: pytest.MonkeyPatch) -> object:
    import types

    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def test_lazy_exports_binds_a_name_once_and_names_the_package_of_an_unknown_one(monkeypatch):
    package = _fake_package("lazy_probe_package", monkeypatch)
    getter = lazy_exports("lazy_probe_package", {"json": ("dumps",), "os.path": ("join", "sep")})
    package.__getattr__ = getter  # type: ignore[attr-defined]
    assert package.dumps is json.dumps  # type: ignore[attr-defined]
    assert vars(package)["dumps"] is json.dumps
    assert "join" not in vars(package)
    with pytest.raises(AttributeError, match="module 'lazy_probe_package' has no attribute 'loads'"):
        package.loads  # type: ignore[attr-defined]  # noqa: B018 (the lookup is the test)


def test_lazy_exports_refuses_a_name_of_two_modules_and_a_bare_string():
    with pytest.raises(ValueError, match="'dumps' is exported by both 'json' and 'pickle'"):
        lazy_exports("p", {"json": ("dumps",), "pickle": ("dumps",)})
    with pytest.raises(TypeError, match="the names of 'json' must be a collection of names, got 'dumps'"):
        lazy_exports("p", {"json": "dumps"})
