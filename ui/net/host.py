"""The study host: a QWebSocketServer, one Session at a time, and a study's pages in order.

Each participant joins with their join code (``hello``) and plays one seat of every episode
(participant k plays the level's k-th cook). The host walks the pair through the study's stages:
consent, instruction pages, the tutorial (a page, then an episode), then for every drawn trial its
episode, the end-of-episode reveal and, after facilitated trials, the questionnaire; a page stage
ends when both answered it. During an episode the host sends each seat only its own frame
(``seat_view.seat_frame``), the feedback addressed to it and the messages it receives, and takes
its keys and its answers to feedback; everything else stays here (the whole state goes only to the
host's own window, through the ``watched`` signal).

While an episode waits, both seats are told for whom (``waiting``): the players whose move is
still missing, or, once both moved and the step takes longer than ``ASSISTANT_CUE_SECONDS``, the
assistant that is thinking (its suggestions are worked out before the step is shown), with the
seconds waited so far. Suggestions go in the world's words (``WorldRenderer.feedback_words``, as
the app's pop-up says them) with their data, so that the seat's map rings the places they name.

A dropped connection pauses the episode (keys are refused until both are back; the Session simply
waits for the missing seat's action); the participant rejoins with the same code and gets the
current page or frame and any suggestion still open. Episodes are recorded by the session runner
(crash-safe, flushed every line); answers and the episode index are appended row by row and
flushed (``ui.net.study.AppendCSV``), so a crash or a drop loses nothing written.
"""

from __future__ import annotations

import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QObject, QTimer, pyqtSignal
from PyQt6.QtNetwork import QHostAddress
from PyQt6.QtWebSockets import QWebSocket, QWebSocketProtocol, QWebSocketServer

from agents.human import HumanAgent
from sim.events import FeedbackEvent, FeedbackStatusEvent, MessageEvent
from sim.inputs import read_json
from sim.registry import load_scenario
from sim.session import Session
from ui import catalog
from ui.belief_words import kitchen_recipe_words
from ui.net.protocol import MAX_MESSAGE_BYTES, SEAT_MESSAGES, ProtocolError, decode, encode
from ui.net.seat_view import experimenter_frame, seat_frame
from ui.net.study import (
    ANSWER_COLUMNS,
    EPISODE_COLUMNS,
    AppendCSV,
    Study,
    StudyError,
    Trial,
    draw_trials,
    next_pair,
    participant_id,
    reveal,
)
from ui.render import explanation_words, feedback_words
from ui.runner import Batch, SessionRunner

#: participants per pair (the kitchen's two cooks)
SEATS = 2
#: seconds a connection may stay open without saying hello with a join code
HELLO_SECONDS = 10.0
#: connections open at once that have not said hello; more are closed at once
MAX_STRANGERS = 8
#: how often the host looks at whom an episode waits for (seconds)
WAIT_POLL_SECONDS = 0.25
#: a step that takes longer than this after both moved is announced as the assistant thinking
ASSISTANT_CUE_SECONDS = 0.5


@dataclass
class Slot:
    """One participant: their join code, anonymous id, connection and the page they still owe."""

    index: int
    code: str
    participant: str
    socket: QWebSocket | None = None
    joined: bool = False
    answered: set[str] = field(default_factory=set)
    #: feedback shown to them and not yet answered: id -> the feedback message
    open_feedback: dict[int, str] = field(default_factory=dict)


@dataclass
class Stage:
    """One step of the study: a page (``consent``, ``instructions``, ``reveal``, ``questionnaire``,
    ``done``) or an ``episode``; ``trial`` is 0 for the tutorial."""

    kind: str
    page: dict[str, Any] | None = None
    trial: Trial | None = None
    tutorial: bool = False


def join_code() -> str:
    """A six-digit join code."""
    return f"{secrets.randbelow(900000) + 100000}"


class StudyHost(QObject):
    """Hosts one pair's run of a study (see the module doc)."""

    changed = pyqtSignal()      # connections or the stage changed (the host window redraws)
    logged = pyqtSignal(str)    # a line for the host's log
    ended = pyqtSignal()        # the pair finished the study
    watched = pyqtSignal(object)  # the whole state of the running game (``experimenter_frame``), for the host window

    def __init__(self, study: Study, study_path: Path, out: Path, *, port: int = 0,
                 address: QHostAddress | None = None, codes: tuple[str, ...] | None = None,
                 speed: float = 20.0, parent: QObject | None = None) -> None:
        super().__init__(parent)
        codes = codes or tuple(join_code() for _ in range(SEATS))
        if len(codes) != SEATS or len(set(codes)) != SEATS:
            raise StudyError(f"expected {SEATS} distinct join codes, got {list(codes)}")
        self.server = QWebSocketServer("tom-arena-study", QWebSocketServer.SslMode.NonSecureMode, self)
        self.server.setMaxPendingConnections(8)
        if not self.server.listen(address or QHostAddress(QHostAddress.SpecialAddress.Any), port):
            raise StudyError(f"cannot listen on port {port}: {self.server.errorString()}")
        self.port = self.server.serverPort()
        self.study, self.out = study, Path(out)
        self._keep_study_file(Path(study_path))
        self.pair = next_pair(self.out)
        self.pair_name = f"pair-{self.pair:02d}"
        (self.out / "recordings" / self.pair_name).mkdir(parents=True, exist_ok=True)
        self.trials = draw_trials(study, self.pair)
        self.slots = [Slot(k, codes[k], participant_id()) for k in range(SEATS)]
        self.speed = speed
        self.answers = AppendCSV(self.out / "answers.csv", ANSWER_COLUMNS)
        self.episodes = AppendCSV(self.out / "episodes.csv", EPISODE_COLUMNS)
        self.stages = self._plan()
        self.stage_index = -1
        self.session: Session | None = None
        self.runner: SessionRunner | None = None
        self.episode_events: list[Any] = []
        self.recording: Path | None = None
        self._last_state: Any = None
        self._max_ticks: int | None = None
        self._assistant = ""
        self.paused = False
        self.finished = False
        self._sockets: list[QWebSocket] = []
        self._opened: dict[int, float] = {}  # id(socket) -> when it connected
        self._sweeper = QTimer(self)
        self._sweeper.setInterval(2000)
        self._sweeper.timeout.connect(self._sweep)
        self._sweeper.start()
        #: whom the running episode waits for: (the step, players whose move is missing, the assistant
        #: thinking), since when, and what the seats were last told
        self._wait: tuple[int, tuple[str, ...], str] = (0, (), "")
        self._wait_since = time.monotonic()
        self._wait_told: tuple[int, tuple[str, ...], str] = (0, (), "")
        self._waiter = QTimer(self)
        self._waiter.setInterval(int(WAIT_POLL_SECONDS * 1000))
        self._waiter.timeout.connect(self._look_at_wait)
        self.server.newConnection.connect(self._on_connection)
        self._advance()

    # ------------------------------------------------------------------ setup

    def _keep_study_file(self, path: Path) -> None:
        """The study folder keeps a copy of its study file; a folder of another study, or of another
        version of this one, is refused (its pairs would not be comparable)."""
        self.out.mkdir(parents=True, exist_ok=True)
        kept = self.out / "study.json"
        if kept.exists():
            if read_json(kept, StudyError) != read_json(path, StudyError):
                self.server.close()
                raise StudyError(f"{self.out}: holds pairs of another study or another version of this one "
                                 f"({kept} differs from {path}); expected a new folder (--out)")
        else:
            shutil.copyfile(path, kept)

    def _plan(self) -> list[Stage]:
        study = self.study
        stages = [Stage("consent", {"title": study.consent.title, "text": study.consent.text,
                                    "button": "I agree, continue"})]
        stages += [Stage("instructions", {"title": p.title, "text": p.text}) for p in study.instructions]
        if study.tutorial is not None:
            stages.append(Stage("instructions", {"title": study.tutorial.page.title, "text": study.tutorial.page.text,
                                                 "button": "Start the tutorial"}))
            stages.append(Stage("episode", trial=Trial(0, "tutorial", study.tutorial.scenario), tutorial=True))
        for trial in self.trials:
            stages.append(Stage("instructions", {"title": f"Game {trial.number} of {len(self.trials)}",
                                                 "text": "Press Start when you are ready.", "button": "Start"}))
            stages.append(Stage("episode", trial=trial))
            if study.reveal.other_goal or study.reveal.completion or study.reveal.feedback_history:
                stages.append(Stage("reveal", trial=trial))
            if study.asks_after(trial.condition):
                q = study.questionnaire
                stages.append(Stage("questionnaire", {
                    "title": q.title, "text": "How much do you agree with each statement?",
                    "items": [{"id": i.id, "text": i.text} for i in q.items],
                    "scale": {"points": q.scale.points, "low": q.scale.low, "high": q.scale.high}}, trial=trial))
        stages.append(Stage("done", {"title": "Thank you", "text": "The study is over. Thank you for taking part!"}))
        return stages

    @property
    def stage(self) -> Stage | None:
        return self.stages[self.stage_index] if 0 <= self.stage_index < len(self.stages) else None

    def _page_id(self) -> str:
        return f"{self.stage_index}"

    def status(self) -> list[str]:
        """Lines for the host window: codes, who is connected, the stage."""
        lines = [f"{self.study.title}", f"pair {self.pair_name}, listening on port {self.port}"]
        for s in self.slots:
            state = "connected" if s.socket is not None else "dropped" if s.joined else "not joined yet"
            lines.append(f"participant {s.index + 1} ({s.participant}): join code {s.code} - {state}")
        stage = self.stage
        if stage is not None:
            what = stage.kind if stage.trial is None else f"{stage.kind}, " + (
                "tutorial" if stage.tutorial else f"trial {stage.trial.number} ({stage.trial.condition}, "
                                                  f"{stage.trial.scenario})")
            lines.append(f"stage {self.stage_index + 1}/{len(self.stages)}: {what}" + (" - PAUSED" if self.paused else ""))
        return lines

    # ------------------------------------------------------------------ connections

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            if sock is None:
                return
            sock.setParent(self)
            sock.setMaxAllowedIncomingMessageSize(MAX_MESSAGE_BYTES)
            sock.setMaxAllowedIncomingFrameSize(MAX_MESSAGE_BYTES)
            strangers = [s for s in self._sockets if self._slot_of(s) is None]
            if len(strangers) >= MAX_STRANGERS:
                sock.abort()
                sock.deleteLater()
                continue
            self._sockets.append(sock)
            self._opened[id(sock)] = time.monotonic()
            sock.textMessageReceived.connect(self._on_socket_text)
            sock.disconnected.connect(self._on_socket_disconnected)

    def _sweep(self) -> None:
        """Close connections that did not say hello with a join code in time."""
        now = time.monotonic()
        for sock in list(self._sockets):
            if self._slot_of(sock) is None and now - self._opened.get(id(sock), now) > HELLO_SECONDS:
                sock.abort()

    def _on_socket_text(self, text: str) -> None:
        sock = self.sender()
        if isinstance(sock, QWebSocket):
            self._on_text(sock, text)

    def _on_socket_disconnected(self) -> None:
        sock = self.sender()
        if isinstance(sock, QWebSocket):
            self._on_disconnected(sock)

    def _slot_of(self, sock: QWebSocket) -> Slot | None:
        return next((s for s in self.slots if s.socket is sock), None)

    def _send(self, slot: Slot, kind: str, **fields: Any) -> None:
        if slot.socket is not None:
            slot.socket.sendTextMessage(encode(kind, **fields))

    def _refuse(self, sock: QWebSocket, reason: str, close: bool = False) -> None:
        sock.sendTextMessage(encode("refused", reason=reason))
        if close:
            sock.close(QWebSocketProtocol.CloseCode.CloseCodePolicyViolated, reason[:100])

    def _on_text(self, sock: QWebSocket, text: str) -> None:
        try:
            message = decode(text, "message from a participant", SEAT_MESSAGES)
        except ProtocolError as exc:
            self.logged.emit(str(exc))
            self._refuse(sock, str(exc))
            return
        slot = self._slot_of(sock)
        if message["type"] == "hello":
            self._hello(sock, message["code"].strip())
            return
        if slot is None:
            self._refuse(sock, "say hello with your join code first", close=True)
            return
        getattr(self, "_on_" + message["type"])(slot, message)

    def _hello(self, sock: QWebSocket, code: str) -> None:
        slot = next((s for s in self.slots if secrets.compare_digest(s.code, code)), None)
        if slot is None:
            self._refuse(sock, "unknown join code; ask the researcher for yours", close=True)
            return
        if slot.socket is not None and slot.socket is not sock:
            self._refuse(sock, "this join code is in use on another computer", close=True)
            return
        rejoin = slot.joined
        slot.socket, slot.joined = sock, True
        self.logged.emit(f"participant {slot.index + 1} ({slot.participant}) {'re' if rejoin else ''}joined")
        self._send(slot, "welcome", participant=slot.participant, seat=self._seat_name(slot), study=self.study.title,
                   pair=self.pair)
        self._show_current(slot)
        if self.paused and all(s.socket is not None for s in self.slots):
            self.paused = False
            for other in self.slots:
                self._send(other, "resumed")
            self.logged.emit("both participants are back: the episode goes on")
        self.changed.emit()

    def _on_disconnected(self, sock: QWebSocket) -> None:
        slot = self._slot_of(sock)
        if sock in self._sockets:
            self._sockets.remove(sock)
            self._opened.pop(id(sock), None)
        sock.deleteLater()
        if slot is None:
            return
        slot.socket = None
        self.logged.emit(f"participant {slot.index + 1} ({slot.participant}) dropped")
        stage = self.stage
        if stage is not None and stage.kind == "episode" and not self.finished:
            self.paused = True
            for other in self.slots:
                self._send(other, "paused", reason="the other participant's connection dropped; waiting for them "
                                                   "to join again")
        self.changed.emit()

    def _seat_name(self, slot: Slot) -> str:
        if self.session is not None:
            return self.session.world.agents[slot.index]
        return f"player {slot.index + 1}"

    # ------------------------------------------------------------------ stages

    def _advance(self) -> None:
        """Go to the next stage and show it to both."""
        self.stage_index += 1
        for slot in self.slots:
            slot.answered.clear()
        stage = self.stage
        if stage is None:
            return
        self.logged.emit(f"stage {self.stage_index + 1}/{len(self.stages)}: {stage.kind}")
        if stage.kind == "episode":
            assert stage.trial is not None
            self._start_episode(stage.trial, stage.tutorial)
        elif stage.kind == "done":
            self.finished = True
            self.answers.close()
            self.episodes.close()
            self.ended.emit()
        for slot in self.slots:
            self._show_current(slot)
        self.changed.emit()

    def _page_for(self, slot: Slot) -> dict[str, Any] | None:
        stage = self.stage
        if stage is None or stage.kind == "episode":
            return None
        if self._page_id() in slot.answered:
            return {"kind": "wait", "id": self._page_id(), "title": "Please wait",
                    "text": "Waiting for the other participant..."}
        if stage.kind == "reveal":
            return {"kind": "reveal", "id": self._page_id(), **self._reveal_page(slot)}
        return {"kind": stage.kind, "id": self._page_id(), **(stage.page or {})}

    def _show_current(self, slot: Slot) -> None:
        if slot.socket is None:
            return
        stage = self.stage
        if stage is not None and stage.kind == "episode" and self.session is not None:
            self._send(slot, "frame", frame=self._frame(slot.index, self._last_state))
            for text in slot.open_feedback.values():
                slot.socket.sendTextMessage(text)
            if self.paused:
                self._send(slot, "paused", reason="waiting for the other participant to join again")
            else:
                self._tell_wait(slot)
            return
        page = self._page_for(slot)
        if page is not None:
            self._send(slot, "page", page=page)

    def _on_continue(self, slot: Slot, message: dict[str, Any]) -> None:
        stage = self.stage
        if stage is None or stage.kind in ("episode", "questionnaire", "done") or message["page_id"] != self._page_id():
            return  # a late click on a page already left
        self._answered(slot)

    def _on_answer(self, slot: Slot, message: dict[str, Any]) -> None:
        stage = self.stage
        if stage is None or stage.kind != "questionnaire" or message["page_id"] != self._page_id():
            return
        if self._page_id() in slot.answered:
            return
        q, answers = self.study.questionnaire, message["answers"]
        ids = [i.id for i in q.items]
        missing = [i for i in ids if i not in answers]
        unknown = [k for k in answers if k not in ids]
        bad = [k for k in ids if k in answers and (isinstance(answers[k], bool) or not isinstance(answers[k], int)
                                                   or not 1 <= answers[k] <= q.scale.points)]
        if missing or unknown or bad:
            reason = (f"please answer every statement ({', '.join(missing)})" if missing else
                      f"unknown item {unknown[0]!r:.40}" if unknown else
                      f"answers are 1 to {q.scale.points}; {bad[0]} is not")
            self._send(slot, "refused", reason=reason)
            return
        trial = stage.trial
        assert trial is not None
        for item in ids:
            self.answers.add({"study": self.study.study, "pair": self.pair_name, "participant": slot.participant,
                              "seat": self.session.world.agents[slot.index] if self.session else "",
                              "condition": trial.condition, "trial": trial.number, "scenario": trial.scenario,
                              "item": item, "answer": answers[item], "scale_points": q.scale.points})
        self._answered(slot)

    def _answered(self, slot: Slot) -> None:
        slot.answered.add(self._page_id())
        if all(self._page_id() in s.answered for s in self.slots):
            self._advance()
        else:
            self._show_current(slot)
            self.changed.emit()

    def _reveal_page(self, slot: Slot) -> dict[str, Any]:
        assert self.session is not None
        agents = self.session.world.agents
        seat = agents[slot.index]
        world = self.session.world
        shown = reveal(self.episode_events, self.session.outcome(), seat, agents, goals=dict(world.goals))
        rv = self.study.reveal
        if world.family == "dkg":
            goal, who = "goal gem", "player"
            finished = "The episode was completed: both of you held your gems."
        else:
            goal, who = "dish", "cook"
            finished = "The episode was completed: both dishes were delivered."
        lines = [f"You were {seat}; your {goal}: {self._goal_words(shown['own_goal']) or 'none'}."]
        if rv.other_goal:
            lines += [f"The other {who}, {o['name']}, had to " + ("make" if who == "cook" else "get") +
                      f": {self._goal_words(o['goal']) or 'nothing (a helper)'}." for o in shown["others"]]
        outcomes = [self._outcome_words(o, world.family) for o in shown["outcomes"]] if rv.completion else []
        if rv.completion:
            # both outcomes, every player in the level's order, in the same words on both screens
            if shown["completed"]:
                lines.append(finished)
            else:
                limit = self._max_ticks if self._max_ticks is not None else world.t_max
                why = (" (the game was stopped)" if shown["stopped"] else
                       f" (the step limit, {min(limit, world.t_max)} steps, was reached)" if shown["ticks"] >= min(limit, world.t_max)
                       else "")
                lines.append(f"The episode was not completed{why}:")
            lines += [f"  {line}" for line in outcomes]
        if rv.feedback_history:
            lines.append("Suggestions in this episode:" if shown["feedback"] else "There were no suggestions.")
            shown_fb = [{**f, "text": feedback_words(world, f["payload"], f["text"]),
                         "explanation": explanation_words(world, f["explanation"])} for f in shown["feedback"]]
            lines += [f"  step {f['tick']}, to {f['to']}: {f['text']} - {f['status']}" for f in shown_fb]
        else:
            shown_fb = []
        return {"title": "The episode is over", "text": "\n".join(lines), "feedback": shown_fb,
                "other_goals": {o["name"]: o["goal"] for o in shown["others"]} if rv.other_goal else {},
                "completed": shown["completed"] if rv.completion else None, "outcomes": outcomes}

    def _goal_words(self, goal: str) -> str:
        """A goal in words: "the onion dish", "the pink gem (gem2)"."""
        assert self.session is not None
        world = self.session.world
        if world.family == "dkg":
            i = world.item_index.get(goal)
            return f"the {world.items[i].color} gem ({goal})" if i is not None else goal
        return kitchen_recipe_words(goal)

    @staticmethod
    def _outcome_words(outcome: dict[str, Any], family: str) -> str:
        """One player's outcome, worded the same whoever reads it."""
        name = outcome["name"]
        if family == "dkg":
            if not outcome["wanted"]:
                return f"{name} had no gem to get (a helper)."
            return f"{name} held their gem at the end." if outcome["delivered"] else f"{name} did not get their gem."
        if outcome["delivered"]:
            return f"{name} delivered their dish" + (f" at step {outcome['tick']}." if outcome["tick"] is not None else ".")
        return f"{name} did not deliver their dish."

    # ------------------------------------------------------------------ episodes

    def _start_episode(self, trial: Trial, tutorial: bool) -> None:
        study = self.study
        world, scenario = load_scenario(trial.scenario)
        if tutorial:
            assert study.tutorial is not None
            specs, max_ticks, assistant = study.tutorial.mechanisms, study.tutorial.max_ticks, ""
        else:
            condition = study.condition(trial.condition)
            specs, max_ticks, assistant = condition.mechanisms, study.max_ticks, condition.codename
        seats = {a: HumanAgent(name=self.slots[k].participant) for k, a in enumerate(world.agents)}
        seed = study.order.seed + 1000 * self.pair + trial.number
        session = Session(world, seats, seed=seed, scenario=scenario,
                          mechanisms=catalog.make_mechanisms(list(specs), world), max_ticks=max_ticks)
        name = "tutorial" if tutorial else f"trial-{trial.number:02d}-{trial.condition}"
        self.recording = self.out / "recordings" / self.pair_name / f"{name}-{scenario}.jsonl"
        self.session, self.episode_events = session, []
        self._last_state = session.state
        self._max_ticks, self._assistant = max_ticks, assistant
        for slot in self.slots:
            slot.open_feedback.clear()
        self.paused = any(s.socket is None for s in self.slots)
        self._wait, self._wait_told, self._wait_since = (0, (), ""), (0, (), ""), time.monotonic()
        runner = SessionRunner(session, speed=self.speed, playing=True, recording_path=str(self.recording),
                               parent=self)
        runner.published.connect(self._on_batch)
        self.runner = runner
        runner.start()
        self._waiter.start()

    def _frame(self, index: int, state: Any) -> dict[str, Any]:
        assert self.session is not None
        world = self.session.world
        return seat_frame(world, state, world.agents[index], max_ticks=self._max_ticks, assistant=self._assistant)

    def _on_key(self, slot: Slot, message: dict[str, Any]) -> None:
        stage, runner, session = self.stage, self.runner, self.session
        if stage is None or stage.kind != "episode" or runner is None or session is None or session.finished:
            return
        seat = session.world.agents[slot.index]
        action = message["action"]
        if self.paused:
            self._send(slot, "refused", reason="the game is paused until the other participant is back")
        elif seat not in session.world.active_agents(self._last_state) and not session.world.done(self._last_state):
            self._send(slot, "refused", reason="it is the other player's turn")
        elif action not in session.world.legal_actions(self._last_state, seat):
            self._send(slot, "refused", reason=f"{action!r:.40} is not a move here")
        elif seat in runner.submitted_since_step():
            self._send(slot, "note", text="waiting for the other player's move")
        else:
            runner.submit_human(seat, action)
            self._look_at_wait()

    def _on_decide(self, slot: Slot, message: dict[str, Any]) -> None:
        runner, session = self.runner, self.session
        fid = message["feedback_id"]
        if runner is None or session is None or fid not in slot.open_feedback:
            return
        del slot.open_feedback[fid]
        runner.decide_feedback(session.world.agents[slot.index], fid, bool(message["accept"]))

    def _on_batch(self, batch: Batch) -> None:
        runner, session = self.runner, self.session
        if self.sender() is not runner or session is None or runner is None:
            return
        agents = session.world.agents
        self.episode_events.extend(batch.events)
        for event in batch.events:
            if isinstance(event, FeedbackEvent) and event.target in agents:
                if event.feedback_id in runner.auto_declined:
                    continue
                slot = self.slots[agents.index(event.target)]
                text = encode("feedback", feedback_id=event.feedback_id,
                              text=feedback_words(session.world, event.feedback, event.text),
                              explanation=explanation_words(session.world, event.explanation),
                              facilitator=self._assistant or "the assistant", payload=dict(event.feedback))
                slot.open_feedback[event.feedback_id] = text
                if slot.socket is not None:
                    slot.socket.sendTextMessage(text)
            elif isinstance(event, FeedbackStatusEvent) and event.agent in agents:
                slot = self.slots[agents.index(event.agent)]
                slot.open_feedback.pop(event.feedback_id, None)
                self._send(slot, "feedback_status", feedback_id=event.feedback_id, status=event.status)
            elif isinstance(event, MessageEvent):
                for a in event.recipients:
                    if a in agents:
                        self._send(self.slots[agents.index(a)], "message", sender=event.sender, text=event.text)
        if batch.state is not None:
            self._last_state = batch.state
            for slot in self.slots:
                self._send(slot, "frame", frame=self._frame(slot.index, batch.state))
            self.watched.emit(experimenter_frame(session.world, batch.state, max_ticks=self._max_ticks))
            self._look_at_wait()
        if batch.finished:
            self._episode_over()

    # ------------------------------------------------------------------ whom the game waits for

    def _wait_now(self) -> tuple[int, tuple[str, ...], str]:
        """(the step, the players whose move is missing, ""), or (the step, (), the assistant) once
        both moved and the step is being worked out (a facilitator deciding on its suggestions), or
        (-1, (), "") when nothing is waited for."""
        runner, session, state = self.runner, self.session, self._last_state
        if runner is None or session is None or state is None or self.paused or session.finished:
            return -1, (), ""
        world = session.world
        if world.done(state) or (self._max_ticks is not None and state.t >= self._max_ticks):
            return -1, (), ""
        moved = runner.submitted_since_step()
        players = tuple(a for a in world.active_agents(state) if a not in moved)
        return (state.t, players, "") if players else (state.t, (), self._assistant)

    def _look_at_wait(self) -> None:
        """Tell both seats when whom the game waits for changed (an assistant only once it has
        thought for ``ASSISTANT_CUE_SECONDS``)."""
        now = time.monotonic()
        wait = self._wait_now()
        if wait != self._wait:
            self._wait, self._wait_since = wait, now
        told = wait if not wait[2] or now - self._wait_since >= ASSISTANT_CUE_SECONDS else (wait[0], (), "")
        if told != self._wait_told:
            self._wait_told = told
            for slot in self.slots:
                self._tell_wait(slot)

    def _tell_wait(self, slot: Slot) -> None:
        _step, players, assistant = self._wait_told
        seconds = int(time.monotonic() - self._wait_since) if players or assistant else 0
        self._send(slot, "waiting", players=list(players), assistant=assistant, seconds=seconds)

    def _episode_over(self) -> None:
        self._waiter.stop()
        session, stage = self.session, self.stage
        assert session is not None and stage is not None and stage.trial is not None
        outcome = session.outcome()
        last = next((e for e in reversed(self.episode_events) if type(e).__name__ == "OutcomeEvent"), None)
        if last is not None:
            outcome = dict(last.outcome)
        self.runner = None
        trial = stage.trial
        self.episodes.add({"study": self.study.study, "pair": self.pair_name, "trial": trial.number,
                           "condition": "tutorial" if stage.tutorial else trial.condition,
                           "scenario": trial.scenario,
                           "recording": str(self.recording.relative_to(self.out)) if self.recording else "",
                           "participants": ";".join(s.participant for s in self.slots),
                           "success": bool(outcome.get("success")), "length": outcome.get("length") or "",
                           "ticks": outcome.get("ticks", ""), "stopped": bool(outcome.get("stopped"))})
        self.paused = False
        self.logged.emit(f"episode over: {'completed' if outcome.get('success') else 'not completed'} "
                         f"after {outcome.get('ticks')} steps")
        self._advance()  # the tutorial has no reveal stage: the next game's page follows

    # ------------------------------------------------------------------ the end

    def shutdown(self) -> None:
        """Stop a running episode (its recording gets its footer) and close every connection."""
        self._sweeper.stop()
        self._waiter.stop()
        if self.runner is not None:
            self.runner.stop(10.0)
            self.runner = None
        for sock in self._sockets:  # quietly: nothing is told of these drops any more
            sock.disconnected.disconnect(self._on_socket_disconnected)
            sock.textMessageReceived.disconnect(self._on_socket_text)
            sock.abort()
        self._sockets.clear()
        for slot in self.slots:
            slot.socket = None
        self.server.close()
        if not self.finished:
            self.answers.close()
            self.episodes.close()
