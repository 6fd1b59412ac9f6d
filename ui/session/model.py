"""The app model: what the window shows and what a person may do now, without Qt.

One ``AppModel`` holds the shown episode (a Timeline), the cursor, playback, the seats a person
plays and which keys drive which, the map's viewpoint switches and the feedback pop-up policy.
It changes only through its methods and tells its listeners what changed (plain callbacks:
``subscribe(callback)``; ``callback(change)`` with one of the ``CHANGES``). Tests drive it
without a window; the controllers (``ui/session/controllers.py``) connect it to threads and timers, and
the window (``ui/mainwindow.py``) draws it.

A live episode is reached through its *link*, the session runner (``ui/session/runner.py``): the model
asks it which seats have moved, hands it a person's actions and answers, and switches its
pacing; the link is duck-typed so the model imports no Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sim.events import FeedbackEvent, MessageEvent
from ui.beliefs import view as belief_view
from ui.beliefs.words import Namer, message_words
from ui.render.base import SECOND_SEAT_KEYS
from ui.session.timeline import PLAN, LiveTimeline, PreviewTimeline, Timeline

#: what a listener is told: the episode shown, the cursor, playback, seats and keys, the map's switches
CHANGES = ("timeline", "cursor", "extended", "playing", "seats", "overlays", "viewer", "popups")
OPEN_STATUSES = ("sent", "accepted")


class Keymap(Protocol):
    """What routing keys needs from a world's renderer (``ui.render.base.WorldRenderer``)."""

    page_key: str
    second_seat_keys: dict[str, str]

    def action_pages(self, legal: Any) -> int: ...

    def numbered_actions(self, legal: Any, page: int) -> Any: ...

    def action_for_key(self, key: str, state: Any, agent: str, legal: Any) -> Any: ...


@dataclass(frozen=True)
class KeyRoute:
    """What a key did: the seat it drove, the action it chose (None: none), and a note for a person."""

    agent: str | None = None
    action: Any = None
    page_turned: bool = False
    note: str = ""


@dataclass(frozen=True)
class Popup:
    """The pop-up policy's answer for one feedback: show it (asking the person to decide, or
    only telling), with the status to print; or not, with a quiet note for the status bar."""

    show: bool
    ask: bool = False
    status: str | None = None
    note: str = ""


class PlayClock:
    """Steps owed by elapsed time at a speed (a timer that drops ticks under load loses none)."""

    def __init__(self) -> None:
        self.last = 0.0
        self.budget = 0.0

    def start(self, now: float) -> None:
        self.last, self.budget = now, 0.0

    def due(self, now: float, speed: float) -> int:
        self.budget += (now - self.last) * speed
        self.last = now
        steps = int(self.budget)
        if steps > 0:
            self.budget -= steps
        return max(0, steps)


class AppModel:
    """The shown episode, the cursor, playback, seats and the pop-up policy (see the module doc)."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[str], None]] = []
        self.timeline: Timeline | None = None
        self.cursor = 0
        #: the last cursor move was one step forward (the view animates it)
        self.animate = False
        self.follow = True
        self.playing = False
        #: play once a recording still loading is there
        self.play_when_loaded = False
        self.clock = PlayClock()
        #: the live session and its runner (None for a replay)
        self.session: Any = None
        self.runner: Any = None
        self.humans: dict[str, Any] = {}
        self.seat_specs: dict[str, str] = {}
        self.mechanism_specs: tuple[str, ...] = ()
        self.recording_path: Path | None = None
        #: False once the person turned feedback pop-ups off for the shown episode
        self.popups = True
        #: whose eyes the map is drawn with: "auto" (the seat a person plays), "all", or an agent
        self.viewer_choice = "auto"
        #: the human seat the main keys drive when several wait at once (F6 cycles)
        self.key_seat: str | None = None
        #: the page of numbered actions shown, for the (seat, legal actions) it was chosen for
        self.action_page = 0
        self._page_for: tuple[Any, ...] | None = None
        #: belief kinds the map does not draw now (View menu switches such as the particles')
        self.hidden_beliefs: set[str] = set()
        #: agents whose decision is taking a while, as shown
        self.thinking: frozenset[str] = frozenset()
        #: the last cursor move was a seek (scrubber, Home/End, a step back), not playing on
        self.jumped = False
        #: the *As X believes it* view: (holder, about) of ``ui.beliefs.view.view_choices``, or None
        self.believed_choice: tuple[str, str | None] | None = None

    # ------------------------------------------------------------------ listeners

    def subscribe(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(change)`` after every change; returns the function that unsubscribes."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def changed(self, change: str) -> None:
        for callback in list(self._listeners):
            callback(change)

    # ------------------------------------------------------------------ the episode

    def show(self, timeline: Timeline | None, *, humans: dict[str, Any] | None = None, session: Any = None,
             runner: Any = None, recording_path: Path | None = None) -> None:
        """Show ``timeline`` (None: nothing) from its start, or from its end when it is live."""
        self.timeline = timeline
        self.humans = dict(humans or {})
        self.session, self.runner, self.recording_path = session, runner, recording_path
        self.playing = False
        self.follow = True
        self.popups = True
        self.animate = False
        self.cursor = (timeline.num_steps if timeline.live else 0) if timeline is not None else 0
        self.believed_choice = None
        self.changed("timeline")

    def describe_seats(self, seat_specs: dict[str, str], mechanism_specs: tuple[str, ...]) -> None:
        self.seat_specs, self.mechanism_specs = dict(seat_specs), tuple(mechanism_specs)

    def is_live(self) -> bool:
        """A live episode whose session is still there to play on."""
        return isinstance(self.timeline, LiveTimeline) and self.runner is not None and not (
            self.session is not None and self.session.finished and not self.runner.alive)

    def state(self) -> Any:
        return self.timeline.state_at(self.cursor) if self.timeline is not None else None

    def extend(self, events: Any, state: Any) -> list[FeedbackEvent]:
        """A live batch arrived: the cursor follows the live edge when it was there; returns the
        feedback to present (given at the steps moved over, or any to a person's seat)."""
        timeline = self.timeline
        if not isinstance(timeline, LiveTimeline):
            return []
        at_edge = self.cursor >= timeline.num_steps
        timeline.append(events, state)
        if self.follow and at_edge and timeline.num_steps > self.cursor:
            return self.move_to(timeline.num_steps)
        self.changed("extended")  # new events or a longer scrubber; the picture stays
        return [e for e in events if isinstance(e, FeedbackEvent) and e.target in self.humans]

    # ------------------------------------------------------------------ the cursor

    def move_to(self, k: int) -> list[FeedbackEvent]:
        """Move to step ``k``; one step forward animates; returns the feedback given at the steps
        passed over (up to 8 steps forward: a longer jump announces none)."""
        timeline = self.timeline
        if timeline is None:
            return []
        k = max(0, min(timeline.num_steps, k))
        old, self.cursor = self.cursor, k
        self.animate = k == old + 1
        self.jumped = False
        self.changed("cursor")
        if not old < k <= old + 8:
            return []
        return [e for tick in range(old + 1, k + 1) for e in timeline.feedback_at(tick)]

    def seek(self, k: int) -> None:
        """Jump to step ``k`` (no animation). Leaving the live edge stops following it."""
        timeline = self.timeline
        if timeline is None:
            return
        k = max(0, min(timeline.num_steps, int(k)))
        if timeline.live and k < timeline.num_steps:
            self.follow = False
        self.cursor, self.animate = k, False
        self.jumped = True
        self.changed("cursor")

    def seek_end(self) -> None:
        if self.timeline is not None:
            self.follow = True
            self.seek(self.timeline.num_steps)

    def seek_feedback(self, forward: bool) -> list[FeedbackEvent] | None:
        """Jump to the next (or previous) step with feedback, pausing; its feedback, or None if none."""
        if self.timeline is None:
            return None
        find = self.timeline.next_feedback_tick if forward else self.timeline.previous_feedback_tick
        tick = find(self.cursor)
        if tick is None:
            return None
        self.set_playing(False)
        self.seek(tick)
        return self.timeline.feedback_at(tick)

    # ------------------------------------------------------------------ playback

    def set_playing(self, playing: bool, now: float = 0.0) -> bool:
        """Play or pause; True when the cursor should then advance by the clock (``advance``),
        False when it waits (paused, or playing at the live edge: the session paces itself)."""
        timeline = self.timeline
        if timeline is None:
            return False
        if isinstance(timeline, PreviewTimeline):  # still loading: play once it is there
            self.play_when_loaded = playing
            return False
        if playing and not self.is_live() and self.cursor >= timeline.num_steps:
            self.seek(0)  # play a finished episode again from the start
        self.playing = playing
        clocked = False
        if playing:
            self.clock.start(now)
            if self.cursor >= timeline.num_steps and self.is_live():
                self.follow = True
                self.runner.set_playing(True)
            else:
                clocked = True
        elif self.runner is not None:
            self.runner.set_playing(False)
        self.changed("playing")
        return clocked

    def advance(self, now: float, speed: float) -> tuple[list[FeedbackEvent], bool]:
        """Move the cursor by the steps due at ``speed`` since the last call; returns the feedback
        to present and whether the clock should keep running (False at the end)."""
        timeline = self.timeline
        if timeline is None or not self.playing:
            return [], False
        steps = self.clock.due(now, speed)
        if steps <= 0:
            return [], True
        shown = self.move_to(min(timeline.num_steps, self.cursor + steps))
        if self.cursor < timeline.num_steps:
            return shown, True
        if self.is_live():
            self.follow = True
            self.runner.set_playing(True)
        else:
            self.playing = False
        self.changed("playing")
        return shown, False

    def step_forward(self) -> tuple[str, list[FeedbackEvent]]:
        """One step, pausing: ("moved", feedback given there), ("requested", []) when the live
        session takes it, ("waiting", []) when it waits for a person's move, or ("", [])."""
        timeline = self.timeline
        if timeline is None:
            return "", []
        self.set_playing(False)
        if self.cursor < timeline.num_steps:
            return "moved", self.move_to(self.cursor + 1)
        if self.is_live():
            if self.human_to_move() is not None:
                return "waiting", []
            self.follow = True
            self.runner.request_step()
            return "requested", []
        return "", []

    def step_back(self) -> None:
        if self.timeline is not None:
            self.set_playing(False)
            self.seek(self.cursor - 1)

    # ------------------------------------------------------------------ seats and keys

    def active_humans(self) -> tuple[str, ...]:
        """Human seats that act in the step being decided at the live edge, in seat order."""
        timeline = self.timeline
        if not self.humans or not isinstance(timeline, LiveTimeline) or self.runner is None:
            return ()
        if self.cursor != timeline.num_steps or timeline.outcome is not None:
            return ()
        return tuple(a for a in timeline.world.active_agents(timeline.state_at(self.cursor)) if a in self.humans)

    def humans_to_move(self) -> tuple[str, ...]:
        """Human seats whose input the episode still waits for at the live edge (several at
        once in simultaneous worlds), in seat order."""
        if self.runner is None:
            return ()
        submitted = self.runner.submitted_since_step()
        return tuple(a for a in self.active_humans() if a not in submitted)

    def main_key_seat(self) -> str | None:
        active = self.active_humans()
        if not active:
            return None
        return self.key_seat if self.key_seat in active else active[0]

    def human_to_move(self) -> str | None:
        """The human seat that still has to move and that the main keys drive (or, when that
        one has moved, the other one still to move)."""
        waiting = self.humans_to_move()
        main = self.main_key_seat()
        if main in waiting:
            return main
        return waiting[0] if waiting else None

    def second_key_seat(self) -> str | None:
        """The seat W/A/S/D/Q/E drive when two people play at once (else None)."""
        main = self.main_key_seat()
        others = [a for a in self.active_humans() if a != main]
        return others[0] if others else None

    def next_key_seat(self) -> str | None:
        """Give the main keys to the next human seat of the step; the seat, or None if there is one."""
        active = self.active_humans()
        if len(active) < 2:
            return None
        self.key_seat = active[(active.index(self.main_key_seat()) + 1) % len(active)]
        self.changed("seats")
        return self.key_seat

    def page_of(self, agent: str | None, legal: Any, keymap: Keymap | None) -> int:
        """The page of numbered actions shown for ``agent``; the first again when its legal actions change."""
        key = (agent, tuple(legal))
        if key != self._page_for:
            self._page_for, self.action_page = key, 0
        pages = keymap.action_pages(legal) if keymap is not None else 1
        return self.action_page % max(1, pages)

    def route_key(self, name: str, keymap: Keymap) -> KeyRoute:
        """What key ``name`` does for the human seats: the main keys drive one seat of the step;
        when two people play at once, W/A/S/D/Q/E drive the other. The action goes to the
        session; the page key turns the page of numbered actions."""
        if self.runner is None or self.timeline is None:
            return KeyRoute()
        agent, key = self.main_key_seat(), name
        second = self.second_key_seat()
        second_keys = getattr(keymap, "second_seat_keys", SECOND_SEAT_KEYS)
        if second is not None and name.lower() in second_keys:
            agent, key = second, second_keys[name.lower()]
        if agent is None:
            return KeyRoute()
        if agent not in self.humans_to_move():
            return KeyRoute(agent, note=f"{agent} has moved already; waiting for the others")
        state = self.state()
        legal = self.timeline.world.legal_actions(state, agent)
        page = self.page_of(agent, legal, keymap)
        if key == keymap.page_key and keymap.action_pages(legal) > 1:
            self.action_page = page + 1  # the next page, on the map and in the action bar; no action yet
            self.changed("seats")
            return KeyRoute(agent, page_turned=True)
        action = dict(keymap.numbered_actions(legal, page)).get(key)
        if action is None:
            action = keymap.action_for_key(key, state, agent, legal)
        if action is None:
            return KeyRoute(agent, note=f"{name}: not possible for {agent} now")
        self.runner.submit_human(agent, action)
        others = [a for a in self.humans_to_move() if a != agent]
        self.changed("seats")
        # with another person still to move, say that this one's key counted
        return KeyRoute(agent, action, note=f"{agent}: {action} taken; waiting for {', '.join(others)}" if others else "")

    def message_sender(self) -> str | None:
        """The human seat that may send a message now, in a world where agents talk."""
        human = self.human_to_move()
        if human is None or self.timeline is None:
            return None
        return human if self.timeline.world.message_action(self.state(), human, "?") is not None else None

    def send_message(self, text: str) -> str | None:
        """Send ``text`` as the human seat whose turn it is; that seat, or None if nobody may."""
        agent = self.message_sender()
        if not text or agent is None or self.runner is None:
            return None
        self.runner.submit_human(agent, self.timeline.world.message_action(self.state(), agent, text))
        self.changed("seats")
        return agent

    # ------------------------------------------------------------------ feedback pop-ups

    def popup_for(self, event: FeedbackEvent, awaiting_decision: bool = False) -> Popup:
        """Whether and how to show a feedback: a person's seat is asked (live, not yet answered,
        offered to it); others' feedback only tells; an open question stays on screen; a repeat
        the person ignored is said once, quietly; with pop-ups off nothing shows live."""
        timeline = self.timeline
        if timeline is None:
            return Popup(False)
        live = self.is_live()
        if self.runner is not None and event.feedback_id in self.runner.auto_declined and live:
            return Popup(False, note=(f"{event.facilitator} repeated a suggestion {event.target} ignored; it is "
                                      "not shown again until something changes in the world") if self.popups else "")
        if not self.popups and live:
            return Popup(False)
        record = timeline.feedback.get(event.feedback_id)
        status = record.status_at(10**9) if record else "sent"
        ask = (event.target in self.humans and live and status == "sent"
               and event.feedback_id in {f.feedback_id for f in self.humans[event.target].offered})
        if awaiting_decision and not ask:
            return Popup(False)  # an open question stays on screen
        return Popup(True, ask=ask, status=None if ask or status == "sent" else status.replace("_", " "))

    def popup_stale(self, event: FeedbackEvent | None, awaiting_decision: bool = False) -> bool:
        """True when a pop-up for ``event`` should go: the shown step is before it was given, or
        the person sought to another step. A pop-up waiting for a person's answer stays."""
        if event is None or awaiting_decision or self.timeline is None:
            return False
        return self.cursor < event.tick or (self.jumped and self.cursor != event.tick)

    def set_popups(self, shown: bool) -> None:
        """Pop-ups on or off for the shown episode (off: suggestions to a person's seats are
        declined for them; agents' feedback only goes to the history and the log)."""
        self.popups = bool(shown)
        if self.runner is not None:
            self.runner.set_popups(shown)
        self.changed("popups")

    def decide_feedback(self, feedback_id: int, accept: bool) -> str | None:
        """A person's answer to a feedback to their seat; the seat, or None if it was not theirs."""
        timeline = self.timeline
        if self.runner is None or timeline is None or feedback_id not in timeline.feedback:
            return None
        target = timeline.feedback[feedback_id].event.target
        if target not in self.humans:
            return None
        self.runner.decide_feedback(target, feedback_id, accept)
        return target

    # ------------------------------------------------------------------ the map

    def viewer(self) -> str | None:
        """The agent whose eyes the map is drawn with, or None for everything."""
        if self.viewer_choice == "all" or self.timeline is None:
            return None
        if self.viewer_choice != "auto":
            return self.viewer_choice if self.viewer_choice in self.timeline.world.agents else None
        # Automatic: the eyes of the one seat a person plays. Several people at one screen see
        # the same map, the whole world, whoever still has to move (following the seat that has
        # yet to move would switch the fog on and off every half-step).
        return next(iter(self.humans)) if len(self.humans) == 1 else None

    def set_viewer(self, choice: str) -> None:
        self.viewer_choice = choice
        self.changed("viewer")

    def set_believed(self, choice: tuple[str, str | None] | None) -> None:
        """Draw the world as ``choice`` = (holder, about) believes it (``ui.beliefs.view``), or as it is (None)."""
        self.believed_choice = tuple(choice) if choice is not None else None  # type: ignore[assignment]
        self.changed("viewer")

    def cycle_believed(self) -> str:
        """The next *As X believes it* view of the episode (after the last: the world as it is); its label."""
        choices = belief_view.view_choices(self.timeline)
        keys = [(c.holder, c.about) for c in choices]
        k = keys.index(self.believed_choice) + 1 if self.believed_choice in keys else 0
        self.set_believed(keys[k] if k < len(keys) else None)
        return choices[k].label if k < len(keys) else "the world as it is"

    def believed(self) -> Any:
        """The believed world the map draws at the cursor (``ui.beliefs.view.BelievedWorld``), or None."""
        if self.believed_choice is None or self.timeline is None:
            return None
        holder, about = self.believed_choice
        found = belief_view.believed_world(self.timeline, self.cursor, holder, about)
        if found is None:  # nothing reported yet at this step: say so, keep the mind's eyes
            agents = self.timeline.world.agents
            eyes = about if about in agents else holder if holder in agents else None
            return belief_view.BelievedWorld(holder, about, eyes, reported=False)
        return found

    def _namer(self) -> Namer:
        """Entity names in words for the shown world (bubbles, belief rows)."""
        world = self.timeline.world if self.timeline is not None else None
        if getattr(self, "_namer_for", None) is not world:
            self._namer_for, self._namer_cache = world, belief_view.namer_for(world)
        return self._namer_cache

    def show_beliefs(self, kind: str, on: bool) -> None:
        """Draw the belief snapshots of ``kind`` on the map (where the renderer draws them), or not."""
        (self.hidden_beliefs.discard if on else self.hidden_beliefs.add)(kind)
        self.changed("overlays")

    def set_thinking(self, agents: frozenset[str]) -> None:
        self.thinking = frozenset(agents)
        self.changed("overlays")

    def overlay_fields(self, keymap: Keymap | None, belief_kinds: Any = ()) -> dict[str, Any]:
        """What the map draws over the world at the cursor (``ui.render.base.Overlays``' fields but
        the view's own: plan switch, animation phase, badges). Reads indexes: the cost does not
        grow with the log."""
        timeline, tick = self.timeline, self.cursor
        if timeline is None:
            return {}
        plans = {}
        for agent in timeline.world.agents:
            belief = timeline.belief_at(agent, PLAN, tick)
            if belief is not None and belief.tick >= tick - 1:
                plans[agent] = belief.data
        open_feedback = next((r for r in reversed(timeline.feedback_until(tick))
                              if r.status_at(tick) in OPEN_STATUSES), None)
        human = self.human_to_move()
        legal = tuple(timeline.world.legal_actions(self.state(), human)) if human else ()
        count = timeline.count_of(MessageEvent, tick)
        recent = timeline.of_type(MessageEvent)[max(0, count - 30):count]
        believed = self.believed()
        viewer = believed.eyes if believed is not None else self.viewer()
        return dict(plans=plans, human=human, legal=legal, humans=self.humans_to_move(), viewer=viewer,
                    believed=believed,
                    messages=tuple((e.sender, message_words(e.text, self._namer())) for e in recent if e.tick >= tick - 3),
                    beliefs={kind: timeline.latest_by_subject(kind, tick) for kind in belief_kinds
                             if kind not in self.hidden_beliefs},
                    page=self.page_of(human, legal, keymap) if human else 0,
                    feedback=dict(open_feedback.event.feedback) if open_feedback else None,
                    thinking=self.thinking if tick == timeline.num_steps else frozenset())


def is_loading(timeline: Timeline | None, path: Path) -> bool:
    """``timeline`` is the preview of the recording at ``path`` still loading."""
    return isinstance(timeline, PreviewTimeline) and Path(timeline.path) == path

