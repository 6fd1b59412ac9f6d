"""Replay: every state of a recorded episode, rebuilt by re-simulating its actions.

Loading re-simulates the whole episode once, checks each state against its recorded
hash and keeps a keyframe every ``K`` steps. Any step is then served in at most
``K`` world steps; the states of the segment around the cursor are kept, so stepping
backwards costs what stepping forwards does.

Minds (beliefs, messages, feedback, LLM transcripts) are served from the file and
never recomputed: a replay never calls a model.
"""

from __future__ import annotations

import bisect
import json
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from sim.events import BeliefEvent, Event, StepEvent
from sim.recording import LoadCancelled, Recording, RecordingError, load_recording
from sim.registry import ScenarioError, build_world
from sim.rounds import check_rounds, step_recorded
from sim.world import World

DEFAULT_KEYFRAME_EVERY = 64


#: what stepping a world with a recorded action raises when the action or the rules differ
_STEP_ERRORS = (ValueError, KeyError, TypeError, IndexError, AttributeError, ArithmeticError)


def _json_form(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), for comparing with a file."""
    return json.loads(json.dumps(value))


class Replay:
    def __init__(self, recording: Recording | str, *, keyframe_every: int = DEFAULT_KEYFRAME_EVERY,
                 world: World | None = None, cancelled: Callable[[], bool] | None = None) -> None:
        """``cancelled``: asked now and then while the file is read and its steps re-simulated;
        when it answers True, loading stops with ``sim.recording.LoadCancelled``."""
        if not isinstance(recording, Recording):
            recording = load_recording(recording, cancelled=cancelled)
        if keyframe_every < 1:
            raise ValueError("keyframe_every must be at least 1")
        self.recording = recording
        self.warnings = list(recording.warnings)
        self.notes = list(recording.notes)
        #: the loud warning of a file without a hash chain (format version 1), or None
        self.unverified = recording.unverified
        header = recording.header
        self.world = world or self._build(recording)
        self.seed = int(header["seed"])
        #: task rounds (``sim/rounds.py``): a round's end is followed by the starting layout
        self.rounds = check_rounds(header.get("rounds", 1), f"{recording.path}: header field 'rounds'")
        self.K = keyframe_every

        world = self.world
        state = self._first_state(recording, world, self.seed)
        joints: list[dict[str, Any]] = [dict(j) for j in header.get("prefix") or []]
        recorded = recording.steps
        joints += [s.joint_action for s in recorded]
        self._joints = joints
        round_index = 0
        #: (state, its round) every K steps
        self._keyframes: list[tuple[Any, int]] = [(state, round_index)]
        n_prefix = len(joints) - len(recorded)
        verified = 0
        for i, joint in enumerate(joints):
            if cancelled is not None and i % 64 == 0 and cancelled():
                raise LoadCancelled(f"{recording.path}: replay given up at step {i}")
            try:
                step = step_recorded(world, state, joint, self.seed, round_index, self.rounds)
            except _STEP_ERRORS as exc:
                where = f"prefix step {i}" if i < n_prefix else f"step {i}"
                self.warnings.append(
                    f"{recording.path}: {where}: the recorded actions {joint!r:.120} cannot be replayed "
                    f"({type(exc).__name__}: {str(exc)[:160]}): the rules differ from those it was recorded "
                    f"with (ToM Arena {header.get('app_version', '?')}) or the file was edited; "
                    f"replay stops at step {i}")
                break
            if i >= n_prefix:
                expected = recorded[i - n_prefix].state_hash
                actual = world.state_hash(step.result.state)
                if actual != expected:
                    self.warnings.append(
                        f"{recording.path}: the state after step {i} has hash {actual}, the recording "
                        f"says {expected!r:.40}: the rules differ from those it was recorded with "
                        f"(ToM Arena {header.get('app_version', '?')}); replay stops at step {i}")
                    break
            state, round_index = step.state, step.round
            verified = i + 1
            if verified % self.K == 0:
                self._keyframes.append((state, round_index))
        self.num_steps = verified
        self._joints = joints[:verified]
        self._segments: OrderedDict[int, list[Any]] = OrderedDict()
        if verified == len(joints) and recording.footer is not None:
            self._check_footer(state)

        self._by_tick: dict[int, list[Event]] = defaultdict(list)
        self._belief_ticks: dict[tuple[str, str], list[int]] = defaultdict(list)
        self._belief_events: dict[tuple[str, str], list[BeliefEvent]] = defaultdict(list)
        for event in recording.events:
            if isinstance(event, StepEvent):
                continue
            self._by_tick[event.tick].append(event)
            if isinstance(event, BeliefEvent):
                key = (event.owner, event.kind)
                self._belief_ticks[key].append(event.tick)
                self._belief_events[key].append(event)

    @staticmethod
    def _build(recording: Recording) -> World:
        """The recorded world, or a RecordingError naming the header field that does not build one."""
        header = recording.header
        try:
            return build_world(header["world"], header["spec"])
        except ScenarioError as exc:
            raise RecordingError(f"{recording.path}: header field 'world': {exc}") from None
        except _STEP_ERRORS as exc:
            raise RecordingError(f"{recording.path}: header field 'spec': not the data of a {header['world']} "
                                 f"world ({type(exc).__name__}: {str(exc)[:160]}); the file was edited or "
                                 "written by another program") from None

    @staticmethod
    def _first_state(recording: Recording, world: World, seed: int) -> Any:
        """The state after ``reset``, after asking the world everything a viewer asks of it:
        scenario data that builds a world but cannot run (edited in a file without a hash
        chain) is refused here rather than failing in the middle of playback."""
        try:
            state = world.reset(seed)
            world.done(state)
            world.outcome(state)
            world.render_text(state)
            for agent in world.active_agents(state):
                world.legal_actions(state, agent)
        except _STEP_ERRORS as exc:
            raise RecordingError(f"{recording.path}: header field 'spec': the {recording.header['world']} world it "
                                 f"builds cannot run ({type(exc).__name__}: {str(exc)[:160]}); the file was edited "
                                 "or written by another program") from None
        return state

    def _check_footer(self, final: Any) -> None:
        """The footer's outcome must be the replayed final state's: steps removed at the end (or
        an edited footer) otherwise replay 'cleanly' to a state that contradicts it."""
        footer = self.recording.footer or {}
        recorded = footer.get("outcome") or {}
        replayed = _json_form(self.world.outcome(final))
        differ = sorted(k for k, v in replayed.items() if k in recorded and recorded[k] != v)
        if differ:
            key = differ[0]
            self.warnings.append(
                f"{self.recording.path}: the footer says {key} = {recorded[key]!r:.80} but the replayed final "
                f"state (after step {self.num_steps}) gives {replayed[key]!r:.80}: steps are missing at the end "
                "or the file was edited")

    # ----------------------------------------------------------------- states

    def state_at(self, k: int) -> Any:
        """The state after ``k`` steps, 0 <= k <= num_steps."""
        if not 0 <= k <= self.num_steps:
            raise IndexError(f"step {k} is outside 0..{self.num_steps}")
        seg = k // self.K
        states = self._segments.get(seg)
        if states is None:
            states = self._build_segment(seg)
        else:
            self._segments.move_to_end(seg)
        return states[k - seg * self.K]

    def _build_segment(self, seg: int) -> list[Any]:
        state, round_index = self._keyframes[seg]
        states = [state]
        last = min(self.num_steps, (seg + 1) * self.K - 1)
        world = self.world
        for i in range(seg * self.K, last):
            joint = self._joints[i]
            step = step_recorded(world, state, joint, self.seed, round_index, self.rounds)
            state, round_index = step.state, step.round
            states.append(state)
        self._segments[seg] = states
        while len(self._segments) > 3:  # the cursor's segment and its two neighbours
            self._segments.popitem(last=False)
        return states

    def joint_action(self, k: int) -> dict[str, Any]:
        """The encoded joint action that led from state ``k`` to state ``k + 1``."""
        return self._joints[k]

    @property
    def prefix_length(self) -> int:
        return len(self.recording.header.get("prefix") or [])

    # ------------------------------------------------------------------ minds

    def events_at(self, tick: int) -> Sequence[Event]:
        """Recorded non-step events stamped with ``tick`` (messages, beliefs, feedback...)."""
        return self._by_tick.get(tick, ())

    def events_until(self, tick: int) -> list[Event]:
        return [e for t in sorted(self._by_tick) if t <= tick for e in self._by_tick[t]]

    def belief_at(self, owner: str, kind: str, tick: int) -> BeliefEvent | None:
        """The latest snapshot of ``owner``'s ``kind`` belief at or before ``tick``."""
        ticks = self._belief_ticks.get((owner, kind))
        if not ticks:
            return None
        i = bisect.bisect_right(ticks, tick) - 1
        return self._belief_events[(owner, kind)][i] if i >= 0 else None

    def belief_keys(self) -> list[tuple[str, str]]:
        return sorted(self._belief_ticks)
