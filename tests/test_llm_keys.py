"""The configured API key reaches the endpoint and nothing else: not the recordings (even when
the server echoes it back in an error), not the logs at DEBUG level, not `llm check`."""

import gzip
import logging

from agents.dkg.agents import PlannerAgent
from agents.llm.agent import make_llm_agent
from agents.llm.facilitator import make_llm_facilitator
from main import main
from sim.recording import RecordingWriter
from sim.registry import load_scenario
from sim.session import Session
from tests.llm_loopback import LoopbackLLM

KEY = "sk-tomarena-SECRET-7f3a9c21d4e8b650"


def test_the_api_key_is_in_no_recording_and_no_log(tmp_path, monkeypatch, capsys):
    log_file = tmp_path / "debug.log"
    handler = logging.FileHandler(log_file)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        # The first two requests fail with a 500 whose body echoes the request headers, key included.
        with LoopbackLLM("error500", fail_first=2) as server:
            monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
            monkeypatch.setenv("TOM_ARENA_LLM_MAX_RETRIES", "3")
            world, name = load_scenario("two-rooms")
            recordings = []
            for i, suffix in enumerate((".jsonl", ".jsonl.gz")):
                agent = make_llm_agent(k=2)
                agent.client._sleep = lambda seconds: None
                session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=i, scenario=name,
                                  mechanisms=[make_llm_facilitator()], max_ticks=4)
                path = tmp_path / f"episode{suffix}"
                RecordingWriter.attach(session, path)
                session.run()
                recordings.append(path)
            assert main(["llm", "check"]) == 0
            printed = capsys.readouterr()
        # the key did travel, to the endpoint only
        assert all(h.get("authorization") == f"Bearer {KEY}" for h in server.headers)
        assert len(server.requests) >= 6
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()

    texts = {str(recordings[0]): recordings[0].read_text(),
             str(recordings[1]): gzip.decompress(recordings[1].read_bytes()).decode(),
             "log": log_file.read_text(), "stdout": printed.out, "stderr": printed.err}
    assert "[redacted]" in texts[str(recordings[0])]  # the echoed header was scrubbed, not dropped silently
    assert "api key" in printed.out and "set" in printed.out
    assert len(texts["log"]) > 0
    for where, text in texts.items():
        assert KEY not in text, f"the API key leaked into {where}"
        assert KEY[-12:] not in text, f"part of the API key leaked into {where}"


def test_a_hostile_endpoint_echoing_the_key_everywhere_leaks_it_nowhere(tmp_path, monkeypatch, capsys):
    """The endpoint sends the key back in error bodies (cut mid-key), non-JSON answers (which the
    client sends back in its repair re-ask), free-text answer fields, tool-call arguments, the
    model name and a response header. No recording, log line, printed replay or metric holds it,
    whole or in part: every recorded text passes through Session.emit, which scrubs it."""
    from agents.tradecraft.llm_trader import make_llm_trader

    log_file = tmp_path / "debug.log"
    handler = logging.FileHandler(log_file)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    recordings = []
    try:
        with LoopbackLLM("echo_key") as server:
            monkeypatch.setenv("TOM_ARENA_CONFIG_DIR", str(tmp_path / "config"))
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
            monkeypatch.setenv("TOM_ARENA_LLM_MAX_RETRIES", "1")
            world, name = load_scenario("two-rooms")
            for k in (1, 2):
                agent = make_llm_agent(k=k)
                agent.client._sleep = lambda seconds: None
                facilitator = make_llm_facilitator()
                facilitator.client._sleep = lambda seconds: None
                session = Session(world, {"alice": agent, "bob": PlannerAgent()}, seed=k, scenario=name,
                                  mechanisms=[facilitator], max_ticks=4)
                path = tmp_path / f"dkg-k{k}.jsonl{'.gz' if k == 2 else ''}"
                RecordingWriter.attach(session, path)
                session.run()
                recordings.append(path)
            trade_world, trade_name = load_scenario("mc1v1-01")
            trader = make_llm_trader(tom=2)
            trader.client._sleep = lambda seconds: None
            other = make_llm_trader(tom=1)
            other.client._sleep = lambda seconds: None
            session = Session(trade_world, dict(zip(trade_world.agents, (trader, other))), seed=0,
                              scenario=trade_name, max_ticks=3)
            path = tmp_path / "trade.jsonl"
            RecordingWriter.attach(session, path)
            session.run()
            recordings.append(path)
        assert len(server.requests) >= 12
        assert all(h.get("authorization") == f"Bearer {KEY}" for h in server.headers)  # it did travel
        for path in recordings:
            assert main(["replay", str(path)]) == 0
        printed = capsys.readouterr()
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()

    texts = {str(p): (gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text())
             for p in recordings}
    texts.update({"log": log_file.read_text(), "stdout": printed.out, "stderr": printed.err})
    assert any("[redacted]" in t for t in texts.values())  # the echoes were there, and scrubbed
    for where, text in texts.items():
        for piece in (KEY, KEY[:12], KEY[-12:], KEY[8:20]):
            assert piece not in text, f"{piece!r} of the API key leaked into {where}"
