"""A hostile endpoint that echoes the caller's credentials in every field it can, played through
every LLM kind and an experiment (LLM response cache on, then ``--resume``): no file the
program writes holds a credential, in any of the forms the endpoint sends it back in.

Everything runs as real processes (``python main.py ...``) against a real HTTP server on
loopback, with the config, cache, data and temporary folders inside ``tmp_path``; the API key
is given through the environment (``OPENAI_API_KEY``) and a second secret as the password of
the base URL (``http://user:password@host/v1``) in agent specs and in the environment. The
scenarios and the experiment design are written by the test into ``input/`` (the design holds
the URL with its password, as a user's design would); every other file under ``tmp_path`` is
scanned afterwards, compressed recordings decompressed.
"""

from __future__ import annotations

import gzip
import inspect
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from sim.registry import SCENARIO_DIR
from tests.llm_loopback import LoopbackLLM, echoed_forms

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow

#: every LLM agent and mechanism kind, with the run that plays it below
COVERED = {("agent", "llm"), ("mechanism", "llm"), ("agent", "cobel-llm"), ("agent", "room-llm"),
           ("agent", "llm-trader")}


def llm_kinds() -> set[tuple[str, str]]:
    """Kinds that talk to a model: their factories take LLM settings (``config``)."""
    from agents.registry import agent_kinds, mechanism_kinds

    found = set()
    for role, kinds in (("agent", agent_kinds()), ("mechanism", mechanism_kinds())):
        for name, kind in kinds.items():
            if "config" in inspect.signature(kind.target()).parameters:
                found.add((role, name))
    return found


def forms_of(secret: str) -> set[str]:
    """Every form of ``secret`` that must not reach a file: the endpoint's echoes, and what a
    base64 text holds of the secret after 0, 1 or 2 other bytes (the characters of its whole
    3-byte groups), standard and URL-safe."""
    import base64

    raw = secret.encode()
    found = set(echoed_forms(secret)) | {quote(secret, safe=""), "".join(f"%{b:02x}" for b in raw),
                                         raw.hex().upper()}
    for skip in range(3):
        core = raw[skip:][:(len(raw) - skip) // 3 * 3]
        found |= {base64.b64encode(core).decode(), base64.urlsafe_b64encode(core).decode()}
    return {f.rstrip("=") for f in found if len(f) >= 12}


def small_copy(source: Path, target: Path, change) -> Path:
    if source.suffix == ".json":
        data = json.loads(source.read_text(encoding="utf-8"))
        change(data)
        target.write_text(json.dumps(data), encoding="utf-8")
    else:
        target.write_text(change(source.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def test_a_hostile_endpoint_leaves_no_credential_in_any_file(tmp_path):
    assert llm_kinds() == COVERED, "a new LLM kind: play it below too"

    key = "sk-" + secrets.token_urlsafe(24)
    user = "tomuser-" + secrets.token_hex(4)
    password = f"sk-pw-{secrets.token_hex(8)}/{secrets.token_hex(4)}+Z"  # '/' and '+' need encoding
    inputs, out, logs = tmp_path / "input", tmp_path / "out", tmp_path / "logs"
    for folder in (inputs, out, logs, tmp_path / "tmp"):
        folder.mkdir()

    # Tiny episodes: copies of shipped scenarios with short limits.
    dkg = small_copy(SCENARIO_DIR / "dkg" / "two-rooms.json", inputs / "dkg.json",
                     lambda d: d.setdefault("options", {}).update(t_max=5))
    kitchen = small_copy(SCENARIO_DIR / "kitchen" / "narrow-door.kitchen.txt", inputs / "kitchen.kitchen.txt",
                         lambda t: t.replace("collisions: block", "collisions: block\nt_max: 4"))
    household = small_copy(SCENARIO_DIR / "household" / "household-prepare-tea-01.json", inputs / "household.json",
                           lambda d: d["task"].update(budget=4))
    debate = small_copy(SCENARIO_DIR / "teamroom" / "death-penalty.json", inputs / "debate.json",
                        lambda d: d.update(rounds=1))
    programming = small_copy(SCENARIO_DIR / "teamroom" / "text-tools.json", inputs / "programming.json",
                             lambda d: d.update(rounds=1))  # the engineers' code runs in the sandbox
    trade = small_copy(SCENARIO_DIR / "tradecraft" / "minecraft-1v1" / "mc1v1-01.json", inputs / "trade.json",
                       lambda d: d.setdefault("options", {}).update(max_turns=2))
    judge = "judge"  # the debate room's judge seat

    with LoopbackLLM("hostile") as server:
        plain_url = server.base_url
        secret_url = plain_url.replace("http://", f"http://{user}:{quote(password, safe='')}@")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TOM_ARENA_"))}
        env.update(OPENAI_API_KEY=key, OPENAI_BASE_URL=plain_url, TOM_ARENA_LLM_MAX_RETRIES="0",
                   TOM_ARENA_LLM_TIMEOUT="30", TOM_ARENA_CONFIG_DIR=str(tmp_path / "config"),
                   XDG_CONFIG_HOME=str(tmp_path / "xdg-config"), XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
                   XDG_DATA_HOME=str(tmp_path / "xdg-data"), TMPDIR=str(tmp_path / "tmp"),
                   MPLCONFIGDIR=str(tmp_path / "xdg-config" / "matplotlib"), MPLBACKEND="Agg",
                   QT_QPA_PLATFORM="offscreen", SDL_VIDEODRIVER="dummy", PYTHONDONTWRITEBYTECODE="1")

        def cli(name: str, *args: str) -> None:
            """``python main.py ARGS``, its output kept in logs/NAME.{out,err} (as a user's log)."""
            done = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=300)
            (logs / f"{name}.out").write_text(done.stdout)
            (logs / f"{name}.err").write_text(done.stderr)
            assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}"

        def with_url(spec: str) -> str:
            return f"{spec}{',' if ':' in spec else ':'}base_url={secret_url}"

        # Every LLM kind, each with one seat (or the mechanism) behind the password URL and one
        # behind the environment's key; recordings plain and compressed.
        cli("dkg", "run", str(dkg), "--agents", with_url("llm:k=2"), "llm:k=0", "--facilitator", "llm",
            "--out", str(out / "dkg"), "--quiet")
        cli("kitchen", "run", str(kitchen), "--agents", "llm:k=1", "llm:k=2",
            "--facilitator", with_url("llm"), "--out", str(out / "kitchen"), "--gzip", "--quiet")
        cli("household", "run", str(household), "--agents", with_url("cobel-llm"), "cobel-llm",
            "--out", str(out / "household"), "--quiet")
        cli("debate", "run", str(debate), "--agents", "room-llm:k=2", f"{judge}={with_url('room-llm:k=0')}",
            "--out", str(out / "debate"), "--quiet")
        cli("programming", "run", str(programming), "--agents", "room-llm:k=1", f"pm={with_url('room-llm:k=2')}",
            "--out", str(out / "programming"), "--quiet")
        cli("trade", "run", str(trade), "--agents", with_url("llm-trader:tom=2"), "llm-trader:tom=0",
            "--out", str(out / "trade"), "--gzip", "--quiet")
        for recording in sorted((out / "dkg").glob("*.jsonl")):
            cli("replay", "replay", str(recording))

        # An experiment with LLM conditions and the response cache; then, as if it had been
        # interrupted after its first episode, --resume: the rest is answered from the cache.
        design = inputs / "design.json"
        design.write_text(json.dumps({
            "experiment": "hostile", "scenarios": ["two-rooms"], "seeds": {"count": 2, "first": 0},
            "max_ticks": 4, "llm_cache": str(tmp_path / "cache"),
            "conditions": [{"name": "planners", "agents": ["planner"]},
                           {"name": "llm", "agents": [f"llm:k=1,base_url={secret_url}", "planner"],
                            "mechanisms": ["llm"]}],
            "reference": "llm", "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                                            {"name": "llm_calls", "source": "metrics.llm_calls", "test": False}]}))
        results = out / "experiment" / "episodes.jsonl"
        cli("experiment", "experiment", str(design), "--out", str(out / "experiment"), "--jobs", "1", "--quiet")
        first_run = results.read_bytes()
        asked = len(server.requests)
        lines = first_run.splitlines(keepends=True)
        results.write_bytes(b"".join(lines[:2]))  # the header and one episode
        cli("experiment-resume", "experiment", str(design), "--out", str(out / "experiment"), "--jobs", "1",
            "--resume")
        assert "answers from the cache" in (logs / "experiment-resume.out").read_text()
        # The cached (scrubbed) answers replay the episodes as the endpoint's answers played them.
        assert results.read_bytes() == first_run
        assert len(server.requests) - asked < asked

        # The settings as the app saves them (the key stays out unless asked; the URL's password too).
        done = subprocess.run([sys.executable, "-c", "from agents.llm.config import load_settings, save_settings; "
                               "save_settings(load_settings())"], cwd=ROOT, capture_output=True, text=True,
                              env={**env, "OPENAI_BASE_URL": secret_url}, timeout=120)
        assert done.returncode == 0, done.stderr

    # The credentials did reach the endpoint, both ways, and came back.
    auth = [v for h in server.headers for k, v in h.items() if k.lower() == "authorization"]
    assert f"Bearer {key}" in auth and any(a.startswith("Basic ") for a in auth)

    forms = {secret: forms_of(secret) for secret in (key, password, quote(password, safe=""), user)}
    scanned, leaks, redacted = 0, {}, 0
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file() and inputs not in p.parents):
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        text = data.decode("utf-8", "replace")
        scanned += 1
        redacted += "[redacted]" in text
        found = sorted({f for fs in forms.values() for f in fs if f in text})
        if found:
            leaks[str(path.relative_to(tmp_path))] = found[:3]
    kinds = {p.parent.name for p in (out).rglob("*.jsonl*")}
    assert {"dkg", "kitchen", "household", "debate", "programming", "trade"} <= kinds
    assert (tmp_path / "cache").is_dir() and any((tmp_path / "cache").rglob("*.json"))
    assert (tmp_path / "config" / "llm.toml").is_file()
    assert redacted > 0  # the echoes were there, and were scrubbed
    print(f"scanned {scanned} files; {len(leaks)} held a credential")
    assert not leaks, f"{len(leaks)} of {scanned} files hold a credential: {json.dumps(leaks, indent=1)[:3000]}"


def test_a_seat_without_a_model_records_no_secret_of_the_environment(tmp_path):
    """A planner seat plays a scenario whose text holds the environment's key (as a seat's code
    could print it): the recording and the metrics table hold it in no form."""
    key = "sk-" + secrets.token_urlsafe(24)
    scenario = small_copy(SCENARIO_DIR / "dkg" / "two-rooms.json", tmp_path / "leaky.json",
                          lambda d: d.update(description=f"printed: {key} {key[::-1]}",
                                             options={"t_max": 3}))
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TOM_ARENA_"))}
    env.update(OPENAI_API_KEY=key, TOM_ARENA_CONFIG_DIR=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "run", str(scenario), "--agents", "planner",
                           "--out", str(out), "--quiet"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) == 2
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not [f for f in forms_of(key) if f in text], path
    assert "[redacted]" in next(out.glob("*.jsonl")).read_text()
