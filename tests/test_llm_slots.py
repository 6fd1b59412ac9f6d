"""Parallel slots of the embedded model (``embedded.slots``): the settings and their errors, the
slot each request borrows, and (slow, against the real model) two slots that give the same
answer to the same prompt and a concurrent sweep that writes what a sequential one writes."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from agents.llm import server as server_module
from agents.llm.config import EmbeddedSettings, LLMConfigError, LLMSettings, load_settings
from agents.llm.server import EmbeddedPool, EmbeddedServer, embedded_missing, shared_pool, slot_threads


def test_one_slot_by_default_and_the_slots_variable(tmp_path):
    env = {"TOM_ARENA_CONFIG_DIR": str(tmp_path)}
    assert load_settings(env=env).embedded.slots == 1
    sources: dict[str, str] = {}
    settings = load_settings(env={**env, "TOM_ARENA_LLM_SLOTS": "3"}, sources=sources)
    assert settings.embedded.slots == 3 and sources["embedded.slots"] == "env TOM_ARENA_LLM_SLOTS"
    (tmp_path / "llm.toml").write_text("[embedded]\nslots = 2\nport = 9000\n")
    assert load_settings(env=env).embedded.slots == 2


@pytest.mark.parametrize(("embedded", "words"), [
    ({"slots": 0}, "field 'embedded.slots': Input should be greater than or equal to 1, got 0"),
    ({"slots": 17}, "field 'embedded.slots': Input should be less than or equal to 16, got 17"),
    ({"slots": "two"}, "field 'embedded.slots': Input should be a valid integer"),
    ({"slots": 3, "port": 65534}, "embedded.port 65534 with embedded.slots 3 needs ports up to 65536; "
                                  "expected a port of at most 65533, or 0 for free ones"),
])
def test_bad_slot_settings_are_refused_in_one_line_naming_the_field(tmp_path, embedded, words):
    path = tmp_path / "llm.json"
    path.write_text(json.dumps({"embedded": embedded}))
    with pytest.raises(LLMConfigError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert message.startswith(f"{path}: ") and words in message and "\n" not in message


def test_threads_are_split_across_the_slots_unless_given(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 9)  # all cores but one: 8
    assert slot_threads(EmbeddedSettings()) == 8
    assert [slot_threads(EmbeddedSettings(slots=s)) for s in (2, 3, 8, 16)] == [4, 2, 1, 1]
    assert slot_threads(EmbeddedSettings(slots=4, threads=3)) == 3  # given: per slot
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert slot_threads(EmbeddedSettings(slots=2)) == 1


def test_every_slot_runs_the_same_command_on_its_own_port_and_log(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 5)
    pool = EmbeddedPool(EmbeddedSettings(slots=3, port=9000), log_dir=tmp_path)
    assert len(pool) == 3 and not pool.running
    commands = [s.command(Path("m.gguf"), s.settings.port) for s in pool.servers]
    assert [c[c.index("--port") + 1] for c in commands] == ["9000", "9001", "9002"]
    assert {c[c.index("--n_threads") + 1] for c in commands} == {"1"}  # 4 threads / 3 slots
    without_port = [[a for i, a in enumerate(c) if i == 0 or c[i - 1] != "--port"] for c in commands]
    assert without_port[0] == without_port[1] == without_port[2]  # same model, context, threads, format
    assert len({s.log_path for s in pool.servers}) == 3 and all(s.log_path.parent == tmp_path for s in pool.servers)
    free = EmbeddedPool(EmbeddedSettings(slots=2))
    assert [s.settings.port for s in free.servers] == [0, 0]  # free ports, picked at start
    assert pool.crash_report() is None


def test_the_shared_pool_starts_from_the_shared_server():
    settings = EmbeddedSettings(slots=2, n_ctx=1024)
    pool = shared_pool(settings)
    assert shared_pool(settings) is pool and pool.servers[0] is server_module.shared_server(settings)
    assert len(shared_pool(EmbeddedSettings(n_ctx=1024))) == 1


def test_a_request_borrows_a_free_slot_and_waits_while_all_answer():
    pool = EmbeddedPool(EmbeddedSettings(slots=2))
    with pool.slot() as (first, _):
        with pool.slot() as (second, server):
            assert (first, second) == (0, 1) and server is pool.servers[1]
            got: list[int] = []
            waiting = threading.Thread(target=lambda: got.append(pool.slot(1).__enter__()[0]))
            waiting.start()
            waiting.join(0.2)
            assert waiting.is_alive() and not got  # both slots busy: it waits
        waiting.join(10)
        assert got == [1]  # the slot given back
    with pool.slot(prefer=0) as (index, _):  # slot 1 is still held by the thread above
        assert index == 0


# ---------------------------------------------------------------- the real model (slow)


@pytest.fixture(scope="module")
def two_slots():
    if embedded_missing():
        pytest.skip(embedded_missing())
    pool = shared_pool(EmbeddedSettings(slots=2))  # what TOM_ARENA_LLM_SLOTS=2 selects
    pool.start()
    yield pool
    pool.stop()


SCHEMA = {"type": "object", "properties": {"action": {"enum": ["north", "south", "east", "west", "wait"]}},
          "required": ["action"], "additionalProperties": False}
RULES = ("You move on a grid with walls, doors, keys and gems. Doors open with a key of their colour. "
         "Answer with one JSON object naming your next move. ") * 8


@pytest.mark.slow
def test_two_slots_give_the_same_answer_to_the_same_prompt(two_slots):
    """Each slot keeps the previous prompt and evaluates only what follows the common prefix: the
    second slot, asked something else first, must still answer exactly what the first did."""
    from agents.llm.client import LLMClient, OpenAITransport

    client = LLMClient(LLMSettings(embedded={"slots": 2}, timeout=600, max_tokens=24))

    def body(question: str) -> dict:
        return client.request_body([{"role": "system", "content": RULES}, {"role": "user", "content": question}],
                                   SCHEMA, schema_name="move", mode="json_object", seed=11)

    asked = body("You are alice at (2, 3); the gem is at (5, 3), east of you. Your move?")
    other = body("You are bob at (1, 1); the red key is at (1, 4), south of you. Your move?")
    first, second = (OpenAITransport(u, None, 600) for u in two_slots.base_urls)
    replies = [first.send(asked, agent="t", module="m")]
    second.send(other, agent="t", module="m")
    replies.append(second.send(asked, agent="t", module="m"))
    replies.append(first.send(asked, agent="t", module="m"))  # the whole prompt kept from before
    assert json.loads(replies[0].content)["action"] in SCHEMA["properties"]["action"]["enum"]
    assert replies[1].to_dict() == replies[0].to_dict() == replies[2].to_dict()


@pytest.mark.slow
def test_a_slot_that_dies_is_named_and_started_again(two_slots):
    first_pid = two_slots.servers[0].process.pid
    victim = two_slots.servers[1].process
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=30)
    assert not two_slots.running
    report = two_slots.crash_report()
    assert report.startswith("slot 2 of 2: the embedded model's server stopped while answering (signal SIGKILL)")
    two_slots.start()
    assert two_slots.running and two_slots.servers[0].process.pid == first_pid  # only the dead one restarted
    assert all(s.healthy() for s in two_slots.servers)


@pytest.mark.slow
def test_a_concurrent_sweep_on_two_slots_writes_what_a_sequential_one_writes(two_slots, tmp_path, monkeypatch):
    from experiments.design import load_design
    from experiments.runner import RESULTS, run_sweep

    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL",
                "TOM_ARENA_LLM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TOM_ARENA_LLM_SLOTS", "2")
    monkeypatch.setenv("TOM_ARENA_LLM_TIMEOUT", "600")  # a loaded machine: answers, not time-outs
    assert shared_pool(load_settings().embedded) is two_slots
    path = tmp_path / "slots.json"
    path.write_text(json.dumps({
        "experiment": "slots", "scenarios": ["protom-17-bobs-door"], "seeds": {"count": 2, "first": 0},
        "max_ticks": 4, "llm_cache": False, "agents": ["llm", "planner"], "conditions": [{"name": "llm"}],
        "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                    {"name": "llm_calls", "source": "metrics.llm_calls", "test": False}]}))
    design = load_design(path)

    def answered() -> list[int]:  # requests each slot's server has answered so far (its access log)
        return [s.log_path.read_text(errors="replace").count("POST /v1/chat/completions") for s in two_slots.servers]

    files, served = {}, {}
    for concurrent in (1, 2):
        before = answered()
        result = run_sweep(design, tmp_path / f"out{concurrent}", jobs=1, quiet=True, concurrent=concurrent)
        files[concurrent] = (tmp_path / f"out{concurrent}" / RESULTS).read_bytes()
        served[concurrent] = [a - b for a, b in zip(answered(), before)]
        assert all(r["metrics"]["llm_calls"] > 0 for r in result.records)
    assert files[2] == files[1]
    assert served[1][1] == 0 and served[1][0] > 0  # one at a time: the first slot only
    assert served[2][1] > 0 and sum(served[2]) == sum(served[1])  # at once: both slots, as many requests


def test_the_server_command_of_one_slot_is_unchanged():
    command = EmbeddedServer(EmbeddedSettings(threads=2)).command(Path("m.gguf"), 8080)
    assert command[command.index("--n_threads") + 1] == "2" and command.count("--port") == 1
