"""The configured API key reaches the endpoint and nothing else: not the recordings (even when
the server echoes it back in an error), not the logs at DEBUG level, not `llm check`."""

import gzip
import logging

from agents.dkg.agents import PlannerAgent
from agents.llm.dkg import make_llm_agent
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
