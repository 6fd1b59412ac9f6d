"""Re-run an LLM episode exactly from its recording, without any model.

A recording holds every model call as an ``LLMCallEvent``: the request (without
credentials), the answer or the fault, the tokens and the time it took.
``TranscriptTransport`` serves those calls back, in order, per agent and module, after
checking that each request asks what the recorded one asked; ``LLMClient`` on top of it
then goes through the same retries, repairs and fallbacks, so the re-run produces the
same actions, the same state hashes and the same Events.

``rerun_session(recording)`` rebuilds the whole Session (world, seats, facilitator)
from a recording's header with transcript clients for its LLM minds.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any

from agents.llm.client import LLMClient, Reply, TransportFault
from agents.llm.config import LLMSettings
from sim.events import LLMCallEvent
from sim.recording import Recording, load_recording


class TranscriptMismatch(RuntimeError):
    """The re-run asked the model something the recording did not: the episode diverged."""


class TranscriptTransport:
    """Answers requests from recorded ``LLMCallEvent``s instead of a model."""

    def __init__(self, calls: Iterable[LLMCallEvent]) -> None:
        self._queues: dict[tuple[str, str], deque[LLMCallEvent]] = defaultdict(deque)
        self.endpoint = "transcript"
        for call in calls:
            if not self._queues and call.request.get("endpoint"):
                self.endpoint = call.request["endpoint"]
            self._queues[(call.agent, call.module)].append(call)

    @classmethod
    def from_recording(cls, recording: Recording | str) -> "TranscriptTransport":
        if not isinstance(recording, Recording):
            recording = load_recording(recording)
        return cls(e for e in recording.events if isinstance(e, LLMCallEvent))

    def remaining(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def recorded_mode(self, agent: str, module: str) -> str | None:
        """The structured-output mode of the next recorded call (so the request matches)."""
        queue = self._queues.get((agent, module))
        return queue[0].request.get("mode") if queue else None

    def send(self, body: dict[str, Any], *, agent: str, module: str) -> Reply:
        queue = self._queues.get((agent, module))
        if not queue:
            raise TranscriptMismatch(f"{agent}/{module}: the recording has no further model call; "
                                     "the re-run asked more than the original episode did")
        call = queue.popleft()
        recorded = call.request.get("body", {})
        if recorded.get("messages") != body.get("messages"):
            raise TranscriptMismatch(f"{agent}/{module} call at tick {call.tick}: the prompt differs from "
                                     f"the recorded one:\n{_first_difference(recorded.get('messages'), body.get('messages'))}")
        if call.error is not None:
            info = (call.response or {}).get("fault", {})
            kind, _, message = call.error.partition(": ")
            fault = TransportFault(info.get("kind", kind), message, status=info.get("status"),
                                   retryable=bool(info.get("retryable", False)))
            fault.seconds = call.seconds  # type: ignore[attr-defined]
            raise fault
        try:
            reply = Reply.from_dict(call.response or {})
        except ValueError as exc:
            raise TranscriptMismatch(f"{agent}/{module} call at tick {call.tick}: the recorded answer is not "
                                     f"a reply ({exc})") from None
        return Reply(content=reply.content, finish_reason=reply.finish_reason, model=reply.model,
                     prompt_tokens=call.prompt_tokens, completion_tokens=call.completion_tokens,
                     seconds=call.seconds)


def _first_difference(recorded: Any, asked: Any) -> str:
    recorded, asked = list(recorded or []), list(asked or [])
    for i, (r, a) in enumerate(zip(recorded, asked)):
        if r != a:
            r_text, a_text = str(r.get("content", r)), str(a.get("content", a))
            j = next((n for n, (x, y) in enumerate(zip(r_text, a_text)) if x != y), min(len(r_text), len(a_text)))
            return (f"message {i} ({r.get('role')}), from character {j}:\n"
                    f"  recorded: {r_text[j:j + 120]!r}\n  asked:    {a_text[j:j + 120]!r}")
    return f"the recording has {len(recorded)} messages, the re-run {len(asked)}"


def settings_from_public(data: dict[str, Any]) -> LLMSettings:
    """The settings a recording names (``LLMSettings.public_dict``), without any key."""
    fields = {k: v for k, v in data.items() if k in LLMSettings.model_fields and k != "api_key"}
    return LLMSettings.model_validate(fields)


def transcript_client(settings: dict[str, Any], transport: TranscriptTransport) -> LLMClient:
    """A client that answers from ``transport`` with the recorded settings, and never sleeps."""
    return LLMClient(settings_from_public(settings), transport=transport, sleep=lambda seconds: None)


def rerun_session(recording: Recording | str, *, max_ticks: int | None = None):
    """A Session that replays ``recording`` with its LLM minds answered from the transcript.

    Seats and the facilitator are rebuilt from the header; minds without a model (planners)
    are rebuilt as they were and draw the same random numbers from the same seed.
    """
    from agents.registry import agent_kinds
    from sim.registry import build_world
    from sim.session import Session

    if not isinstance(recording, Recording):
        recording = load_recording(recording)
    header = recording.header
    world = build_world(header["world"], header["spec"])
    transport = TranscriptTransport.from_recording(recording)
    kinds = agent_kinds()
    seats = {}
    for agent, desc in header["seats"].items():
        params = {k: v for k, v in desc.items() if k not in ("kind", "llm")}
        if "llm" in desc:
            params["client"] = transcript_client(desc["llm"], transport)
        seats[agent] = kinds[desc["kind"]].make(**params)
    mechanisms = [_rebuild_mechanism(desc, transport) for desc in header.get("mechanisms") or []]
    prefix = header.get("prefix") or []
    steps = len(prefix) + len(recording.steps)
    return Session(world, seats, seed=int(header["seed"]), scenario=header.get("scenario", ""),
                   mechanisms=mechanisms, max_ticks=max_ticks if max_ticks is not None else steps,
                   prefix=prefix, rounds=int(header.get("rounds", 1)))


def _rebuild_mechanism(desc: dict[str, Any], transport: TranscriptTransport) -> Any:
    from agents.registry import mechanism_kinds

    params = {k: v for k, v in desc.items() if k not in ("kind", "llm", "name")}
    if "llm" in desc:
        params["client"] = transcript_client(desc["llm"], transport)
    kinds = mechanism_kinds()
    if desc.get("kind") not in kinds:
        raise ValueError(f"the recording's mechanism kind {desc.get('kind')!r} is unknown here "
                         f"(known: {', '.join(sorted(kinds))})")
    mechanism = kinds[desc["kind"]].make(**params)
    mechanism.name = desc.get("name") or mechanism.kind
    return mechanism
