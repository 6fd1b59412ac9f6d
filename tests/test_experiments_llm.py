"""LLM conditions in sweeps: the response cache answers a re-run or a resumed sweep from disk,
against a real HTTP endpoint on loopback (and, slow, the embedded model)."""

from __future__ import annotations

import json

import pytest

from agents.llm.client import LLMClient
from agents.llm.config import LLMSettings
from experiments.design import load_design
from experiments.llm_cache import CachingTransport, ResponseCache, install_cache, request_key
from experiments.runner import RESULTS, run_sweep
from tests.llm_loopback import LoopbackLLM


@pytest.fixture
def no_config(monkeypatch, tmp_path):
    monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
    for var in ("OPENAI_BASE_URL", "TOM_ARENA_LLM_BASE_URL", "TOM_ARENA_LLM_CONFIG", "TOM_ARENA_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)


def design_file(tmp_path, facilitator: str, seeds: int = 2, max_ticks: int = 6):
    path = tmp_path / "llm-sweep.json"
    path.write_text(json.dumps({
        "experiment": "llm-sweep", "scenarios": ["protom-17-bobs-door"], "seeds": {"count": seeds, "first": 0},
        "max_ticks": max_ticks, "agents": ["planner"],
        "conditions": [{"name": "none"}, {"name": "llm", "mechanisms": [facilitator]}], "reference": "llm",
        "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                    {"name": "llm_calls", "source": "metrics.llm_calls", "test": False}]}))
    return load_design(path)


def test_the_cache_key_covers_the_request_and_the_endpoint(tmp_path):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0, "seed": 1}
    key = request_key("http://a/v1", body)
    assert key == request_key("http://a/v1", dict(reversed(list(body.items()))))  # key order does not matter
    for changed in ({**body, "seed": 2}, {**body, "temperature": 0.5}, {**body, "model": "n"},
                    {**body, "messages": [{"role": "user", "content": "hi!"}]},
                    {**body, "response_format": {"type": "json_object", "schema": {"type": "object"}}}):
        assert request_key("http://a/v1", changed) != key
    assert request_key("http://b/v1", body) != key
    cache = ResponseCache(tmp_path)
    assert cache.get(key) is None
    cache.put(key, {"content": "{}", "usage": {"prompt_tokens": 3, "completion_tokens": 1}}, body)
    assert cache.get(key)["usage"]["prompt_tokens"] == 3 and len(cache) == 1


def test_a_client_behind_the_cache_asks_the_endpoint_once(tmp_path):
    with LoopbackLLM("ok") as server:
        settings = LLMSettings(base_url=server.base_url, timeout=5.0)
        cache = ResponseCache(tmp_path)
        schema = {"type": "object", "properties": {"choice": {"enum": ["a", "b"]}}, "required": ["choice"]}

        class Mind:
            client = LLMClient(settings)

        for _ in range(3):
            mind = Mind()
            mind.client = LLMClient(settings)
            assert install_cache([mind], cache) == 1 and isinstance(mind.client.transport, CachingTransport)
            outcome = mind.client.ask_json([{"role": "user", "content": "pick"}], schema, agent="x", module="m",
                                           tick=0, seed=7)
            assert outcome.value == {"choice": "a"}
        assert len(server.requests) == 1 and (cache.hits, cache.misses) == (2, 1)
        assert install_cache([object()], cache) == 0


def test_a_sweep_with_the_llm_facilitator_is_served_from_the_cache_when_run_again(tmp_path, no_config):
    with LoopbackLLM("ok") as server:
        design = design_file(tmp_path, f"llm:base_url={server.base_url},timeout=5")
        out = tmp_path / "out"
        first = run_sweep(design, out, jobs=1, quiet=True)
        asked = len(server.requests)
        assert asked > 0 and first.cache_misses == asked and first.cache_hits == 0
        assert all(r["metrics"]["llm_calls"] > 0 for r in first.records if r["condition"] == "llm")
        lines = (out / RESULTS).read_bytes()
        # run again from scratch (the old results are moved aside): no request reaches the endpoint
        again = run_sweep(design, out, jobs=2, quiet=True)
        assert len(server.requests) == asked
        assert again.cache_hits == asked and again.cache_misses == 0
        assert (out / RESULTS).read_bytes() == lines
        # one more seed with --resume: only the new episodes run, and only they ask the model
        bigger = design.model_copy(update={"seeds": design.seeds.model_copy(update={"count": 3})})
        resumed = run_sweep(bigger, out, jobs=1, resume=True, quiet=True)
        assert resumed.ran == 2 and resumed.resumed == 4
        assert len(server.requests) == asked + resumed.cache_misses and resumed.cache_misses > 0


@pytest.mark.slow
def test_a_small_sweep_against_the_embedded_model_runs_and_reruns_from_the_cache(tmp_path, no_config, monkeypatch):
    from agents.llm.server import embedded_missing

    if embedded_missing():
        pytest.skip(embedded_missing())
    monkeypatch.setenv("TOM_ARENA_LLM_TIMEOUT", "600")
    from agents.llm.config import load_settings

    probe = LLMClient(load_settings()).ask_json([{"role": "user", "content": "Answer with {\"ok\": true}"}],
                                                {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                                                agent="probe", module="probe", tick=0)
    assert probe.ok, f"the embedded model does not answer ({probe.failure}); see python main.py llm check"
    design = design_file(tmp_path, "llm", seeds=1, max_ticks=6)
    out = tmp_path / "out"
    first = run_sweep(design, out, jobs=1, quiet=True)
    assert first.cache_misses > 0
    lines = (out / RESULTS).read_bytes()
    again = run_sweep(design, out, jobs=1, quiet=True)
    assert again.cache_misses == 0 and again.cache_hits == first.cache_misses
    assert (out / RESULTS).read_bytes() == lines


def cache_files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*.json"))}


@pytest.mark.parametrize("jobs", [1, 2])
def test_concurrent_episodes_write_what_one_at_a_time_writes(tmp_path, no_config, jobs):
    """Episodes that overlap their model calls (--concurrent) give the same episode file, the
    same cached answers and the same number of requests as one at a time."""
    with LoopbackLLM("timeout", delay=0.05) as server:  # answers after 50 ms, several at once
        design = design_file(tmp_path, f"llm:base_url={server.base_url},timeout=10", seeds=3)
        runs = {}
        for concurrent in (1, 3):
            out = tmp_path / f"out{concurrent}"
            before = len(server.requests)
            result = run_sweep(design, out, jobs=jobs, quiet=True, concurrent=concurrent)
            runs[concurrent] = ((out / RESULTS).read_bytes(), cache_files(out / "llm-cache"),
                                len(server.requests) - before, result.cache_misses)
        assert runs[3] == runs[1]
        assert runs[1][2] > 0 and len(runs[1][1]) == runs[1][2]  # one cache entry per request
