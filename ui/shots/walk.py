"""A scripted walk through the app as a newcomer meets it on a laptop: a real X server (Xvfb,
1366 x 768 x 24), a fresh profile (empty ``HOME`` and ``XDG_CONFIG_HOME``), and real key presses
and mouse clicks sent through the X server by ``xdotool``.

    .venv/bin/python -m ui.shots.walk [OUT_DIR] [--report FILE]     (screenshots default to docs/screenshots)

The app starts as ``python main.py`` does (``ui.app.run_app``: first run, paused, the welcome
card). Then, for every world (Doors, Keys and Gems, the kitchen, the household, TradeCraft, the
team room, team formation) the walk opens a scenario through the Session panel (its tree and its
Start button, clicked), plays a human seat with that world's keys, and reaches every control:
play/pause, step, step back, start, end, 10 steps back and forward, faster, slower, the
scrubber, each button of the playback bar, each menu, each dock and each tab of the Minds dock.
Each control is checked by the app's own geometry (the whole widget on the screen and not clipped
by its parents) and by the effect of the key or click on the app model. It takes the
screenshots of ``docs/screenshots`` on the way, and writes a JSON report of every check
(``{"checks": [{"world", "control", "ok", "detail"}], "screenshots": [...]}``).

Exit status: 0 when every check passed, 1 when one failed, 2 when the walk could not run (no
Xvfb or xdotool). ``tests/test_ui_walk.py`` runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (1366, 768)
#: the worlds walked, in order: (title, scenario, seats people play, mechanisms; None: the default)
WORLDS: list[tuple[str, str, tuple[str, ...], tuple[str, ...] | None]] = [
    ("kitchen", "divided-kitchen", ("alice", "bob"), ("protom",)),
    ("household", "household-prepare-meal-01", ("alice",), None),
    ("TradeCraft", "mc1v1-01", ("bob",), None),
    ("team room", "list-tools", ("pm",), None),
    ("team formation", "team-04-seven", ("ben",), ("teams:round_steps=6,max_size=eta",)),
]
MENUS = ("File", "Playback", "Feedback", "View", "Help")


def tools_missing() -> list[str]:
    return [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]


# ====================================================================== the walk (in the app)

class Walk:
    """Drives a shown MainWindow through the X server and records what it finds."""

    def __init__(self, window: Any, out: Path | None) -> None:
        from PyQt6.QtWidgets import QApplication

        self.w, self.out = window, out
        self.app = QApplication.instance()
        self.screen = window.screen().geometry()
        self.world = "app"
        self.checks: list[dict[str, Any]] = []
        self.shots: list[str] = []

    # ------------------------------------------------------------------ plumbing

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.005)

    def settle(self) -> None:
        """Deliver what is pending: posted events (layout requests, scrolling), then everything
        the X server has for the app (``QGuiApplication.sync``: a round trip, then the events)."""
        from PyQt6.QtGui import QGuiApplication

        self.app.processEvents()
        QGuiApplication.sync()
        self.app.processEvents()

    def wait(self, condition: Callable[[], bool], seconds: float = 30.0) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            if condition():
                return True
            time.sleep(0.01)
        return bool(condition())

    def xdo(self, *args: str) -> None:
        """Run xdotool while the event loop keeps running, then make sure Qt has handled every
        event it caused: xdotool ends with XCloseDisplay, which waits until the X server has done
        its requests; a round trip of ours after that (``QGuiApplication.sync``) comes back after
        the events they generated, which Qt then delivers. No fixed pause: what a key does in the
        app itself (the cursor, the speed, an action's shortcut) is done on return; what it starts
        elsewhere (a step in the session's thread, a menu's pop-up) is waited for by the caller."""
        from PyQt6.QtGui import QGuiApplication

        proc = subprocess.Popen(["xdotool", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while proc.poll() is None:
            self.app.processEvents()
            time.sleep(0.005)
        QGuiApplication.sync()
        self.app.processEvents()

    def activate(self, widget: Any = None) -> None:
        """Give the keyboard to ``widget``'s window (no window manager runs on the virtual display)."""
        from PyQt6.QtWidgets import QApplication

        target = (widget or self.w).window()
        if QApplication.activePopupWidget() is None:
            target.activateWindow()
            target.raise_()
            self.wait(lambda: target.isActiveWindow(), 30)

    def key(self, *keys: str, to: Any = None) -> None:
        """Press ``keys`` (xdotool names: ``ctrl+w``, ``Escape``, ``k``...) one after the other."""
        self.activate(to)
        self.xdo("key", "--delay", "20", *keys)

    def click(self, widget: Any, point: Any = None) -> None:
        from PyQt6.QtGui import QCursor

        where = widget.mapToGlobal(point if point is not None else widget.rect().center())
        if QCursor.pos() == where:  # already there: "mousemove --sync" would wait for a move that never comes
            self.xdo("click", "1")
        else:
            self.xdo("mousemove", "--sync", str(where.x()), str(where.y()), "click", "1")

    def expect(self, control: str, condition: Callable[[], bool], detail: Callable[[], str] = lambda: "",
               seconds: float = 60.0) -> bool:
        """Check what an input did, once it shows: wait for ``condition`` (a hang guard of
        ``seconds``, never a pace the app must keep), then record it."""
        return self.check(control, self.wait(condition, seconds), detail())

    def check(self, control: str, ok: bool, detail: str = "") -> bool:
        self.checks.append({"world": self.world, "control": control, "ok": bool(ok), "detail": detail})
        print(f"{'ok  ' if ok else 'FAIL'} {self.world}: {control}{' — ' + detail if detail else ''}", flush=True)
        return bool(ok)

    def on_screen(self, widget: Any, whole: bool = True) -> tuple[bool, str]:
        """Whether ``widget`` shows on the screen: visible, inside the screen, and (``whole``) not
        clipped by a parent (a scroll area, a dock too small) or else at least 40 x 24 px of it."""
        from PyQt6.QtCore import QPoint, QRect

        if widget is None or not widget.isVisible():
            return False, "not visible"
        rect = QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())
        if not self.screen.contains(rect):
            return False, f"{_rect(rect)} not inside the screen {_rect(self.screen)}"
        seen = widget.visibleRegion().boundingRect()
        if whole and seen.size() != widget.size():
            return False, f"only {seen.width()}x{seen.height()} of {widget.width()}x{widget.height()} px shown"
        if seen.width() < min(40, widget.width()) or seen.height() < min(24, widget.height()):
            return False, f"only {seen.width()}x{seen.height()} px shown"
        return True, _rect(rect)

    def check_shown(self, control: str, widget: Any, whole: bool = True) -> bool:
        ok, detail = self.on_screen(widget, whole)
        return self.check(f"{control} on screen", ok, detail)

    def shot(self, name: str, widget: Any = None) -> None:
        if self.out is None:
            return
        self.pump(0.5)
        if widget is None:
            frame = self.w.frameGeometry()
            pixmap = self.w.screen().grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        else:
            pixmap = widget.grab()
        path = self.out / name
        pixmap.save(str(path))
        self.shots.append(str(path))

    @property
    def model(self) -> Any:
        return self.w.model

    def steps(self) -> int:
        timeline = self.model.timeline
        return timeline.num_steps if timeline is not None else 0

    # ------------------------------------------------------------------ the whole walk

    def run(self) -> None:
        steps: list[Callable[[], None]] = [self.first_screen, self.dialogs, self.dkg_watch, self.replay,
                                           self.dkg_feedback]
        steps += [lambda entry=entry: self.other_world(*entry) for entry in WORLDS]  # type: ignore[misc]
        for step in steps:
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - one broken part must not hide the rest
                self.check("the walk itself", False, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")

    def first_screen(self) -> None:
        w = self.w
        self.world = "Doors, Keys and Gems"
        self.wait(lambda: self.model.timeline is not None and w.card.isVisible(), 120)
        frame = w.frameGeometry()
        self.check("a fresh window fits the screen", self.screen.contains(frame), f"{_rect(frame)} on {_rect(self.screen)}")
        self.check("the first run opens paused with the welcome card",
                   not self.model.playing and w.card.kind == "hint", f"card {w.card.kind!r}")
        self.check_shown("welcome card", w.card)
        self.check_shown("playback bar (the card says: press play under the map)", w.playback)
        self.shot("first-screen.png")
        self.session_panel()
        self.key("k")
        self.expect("K plays (and closes the welcome card)", lambda: self.model.playing and not w.card.isVisible())
        self.wait(lambda: self.steps() >= 9, 60)
        self.key("k")
        self.expect("K pauses", lambda: not self.model.playing)

    def dialogs(self) -> None:
        """F1, Shift+F1, Ctrl+, and Ctrl+O each open their window on the screen; Escape closes it."""
        from PyQt6.QtWidgets import QApplication, QDialog

        def opened() -> Any:
            found = [d for d in QApplication.topLevelWidgets() if isinstance(d, QDialog) and d.isVisible()]
            return found[0] if found else None

        for keys, name, shot in (("F1", "keyboard shortcuts (F1)", None),
                                 ("shift+F1", "how to play (Shift+F1)", "how-to-play.png"),
                                 ("ctrl+comma", "settings (Ctrl+,)", None),
                                 ("ctrl+o", "open a recording (Ctrl+O)", None)):
            self.key(keys)
            self.wait(lambda: opened() is not None, 30)
            dialog = opened()
            if not self.check(f"{name} opens", dialog is not None):
                continue
            self.settle()
            self.check_shown(name, dialog)
            if shot:
                self.shot(shot, dialog)
            self.key("Escape", to=dialog)
            self.check(f"{name} closes with Escape", self.wait(lambda d=dialog: not _alive(d) or not d.isVisible(), 30))

    def dkg_watch(self) -> None:
        """The default scenario with its facilitator: live.png, the playback controls, the
        menus, the panels, then to the end at full speed: summary.png."""
        self.world = "Doors, Keys and Gems"
        self.shot("live.png")
        self.playback()
        self.menus()
        self.panels()
        self.to_the_end()
        self.shot("summary.png")

    def to_the_end(self) -> None:
        w = self.w
        self.key(*["bracketright"] * 8)
        self.expect("] raises the speed to the fastest", lambda: w.playback.current_speed == 64,
                    lambda: f"{w.playback.current_speed:g}")
        if self.model.cursor < self.steps():
            self.key("End")
        self.key("k")
        done = self.wait(lambda: self.model.timeline.outcome is not None and w.card.isVisible(), 120)
        self.check("the episode ends with its summary card", done and w.card.kind == "summary", f"card {w.card.kind!r}")
        self.check_shown("summary card", w.card)

    def replay(self) -> None:
        """Open the episode just played through the Open dialog (typing its path), step to its
        first feedback, and take over from there: replay.png."""
        from PyQt6.QtWidgets import QApplication, QFileDialog

        from ui.session.timeline import LiveTimeline, ReplayTimeline

        w = self.w
        path = self.model.recording_path
        if not self.check("the episode was recorded", path is not None and Path(path).exists(), str(path)):
            return
        self.key("ctrl+o")
        self.wait(lambda: any(isinstance(d, QFileDialog) and d.isVisible() for d in QApplication.topLevelWidgets()), 30)
        dialog = next((d for d in QApplication.topLevelWidgets() if isinstance(d, QFileDialog) and d.isVisible()), None)
        if not self.check("Ctrl+O opens the file dialog", dialog is not None):
            return
        self.activate(dialog)
        self.xdo("type", "--delay", "5", str(path))
        self.key("Return", to=dialog)
        loaded = self.wait(lambda: isinstance(self.model.timeline, ReplayTimeline), 120)
        self.check("a recording opens from the dialog", loaded)
        if not loaded:
            return
        self.key("n")
        self.expect("N goes to the next feedback", lambda: self.model.cursor > 0, lambda: f"step {self.model.cursor}")
        self.key("shift+n")
        self.key("n")
        self.key("t")
        self.expect("T offers the take-over in the Session panel", lambda: w.setup.takeover_step == self.model.cursor)
        self.check_shown("Take over button", w.setup.start_button)
        self.shot("replay.png")
        self.click(w.setup.start_button)
        self.expect("the take-over starts a live session", lambda: isinstance(self.model.timeline, LiveTimeline))

    def dkg_feedback(self) -> None:
        """A person plays the agent ProToM advises first, with the arrow and number keys, until the
        blue pop-up asks: feedback.png; Enter accepts; the next turn: human.png."""
        from sim.registry import load_scenario
        from ui.shots.common import first_feedback_target

        self.world = "Doors, Keys and Gems"
        from ui.session.catalog import scenarios

        target, scenario = None, ""
        for info in scenarios():  # the first scenario where feedback is necessary and ProToM gives it
            if info.family == "dkg" and info.category == "necessary":
                scenario = load_scenario(str(info.path))[1]
                target = first_feedback_target(str(info.path), "protom")
                if target is not None:
                    break
        if not self.check("a scenario where ProToM gives feedback", target is not None, scenario) or target is None:
            return
        if not self.open_scenario(scenario, (target,), ("protom",)):
            return
        w = self.w
        end = time.monotonic() + 300
        moved = 0
        while time.monotonic() < end and not w.toast.awaiting_decision and self.model.timeline.outcome is None:
            if self.model.human_to_move() == target:
                before = self.steps()
                self.key(self.planned_key(target))
                self.wait(lambda before=before: self.steps() > before or w.toast.awaiting_decision, 60)
                moved += 1
            else:
                self.pump(0.05)
        self.check(f"{target} moves by key presses until ProToM's pop-up asks", w.toast.awaiting_decision,
                   f"{moved} moves")
        if not w.toast.awaiting_decision:
            return
        self.check_shown("feedback pop-up", w.toast)
        self.shot("feedback.png")
        fid = w.toast.feedback.feedback_id
        self.key("Return")
        self.check("Enter accepts the feedback", self.wait(lambda: self.feedback_status(fid) == "accepted", 60))
        self.wait(lambda: self.model.human_to_move() == target, 120)
        before = self.steps()
        self.key(self.planned_key(target))
        self.wait(lambda: self.steps() > before and self.model.human_to_move() == target, 120)
        self.check_shown("the bar of legal moves", w.action_bar)
        self.shot("human.png")

    def feedback_status(self, fid: int) -> str:
        from sim.events import FeedbackStatusEvent

        statuses = [e.status for e in self.model.timeline.events
                    if isinstance(e, FeedbackStatusEvent) and e.feedback_id == fid]
        return statuses[-1] if statuses else ""

    def planned_key(self, agent: str) -> str:
        """The key a sensible person presses in Doors, Keys and Gems: towards the gem (or what
        the accepted suggestion asks), an arrow for a move, Space to wait, else the action's number."""
        from agents.dkg.agents import goal_task, planner_for, task_from_feedback

        timeline = self.model.timeline
        world, state = timeline.world, timeline.state_at(self.model.cursor)
        human = self.model.humans[agent]
        task = task_from_feedback(world, human.following.payload) if human.following is not None else goal_task(world, agent)
        planner = planner_for(world)
        index = world.agent_index[agent]
        action = planner.first_action(state, index, planner.plan(state, index, task))
        legal = list(world.legal_actions(state, agent))
        if action not in legal:
            action = "wait"
        arrows = {"up": "Up", "down": "Down", "left": "Left", "right": "Right", "wait": "space"}
        if action in arrows:
            return arrows[action]
        numbered = dict((a, k) for k, a in self.w.renderer.numbered_actions(legal, 0))
        return numbered.get(action, "space")

    # ------------------------------------------------------------------ another world

    def other_world(self, title: str, scenario: str, humans: tuple[str, ...], mechanisms: tuple[str, ...] | None) -> None:
        self.world = title
        if not self.open_scenario(scenario, humans, mechanisms):
            return
        self.human_keys(humans)
        self.playback()
        self.menus()
        self.panels()
        special = getattr(self, "after_" + title.replace(" ", "_").lower(), None)
        if special is not None:
            special()

    def open_scenario(self, scenario: str, humans: tuple[str, ...], mechanisms: tuple[str, ...] | None) -> bool:
        """Ctrl+W, Ctrl+N, click the scenario in the Session panel's tree, set the seats people
        play, click Start."""
        from ui.session.timeline import LiveTimeline

        w, setup = self.w, self.w.setup
        self.key("ctrl+w")
        self.expect("Ctrl+W closes the episode", lambda: self.model.timeline is None)
        self.key("ctrl+n")
        self.expect("Ctrl+N shows the Session panel", lambda: w.setup_dock.isVisible())
        from PyQt6.QtCore import Qt

        items = [i for i in setup.tree.findItems(scenario, Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive, 0)
                 if i.data(0, Qt.ItemDataRole.UserRole) is not None]
        if not self.check(f"{scenario} is listed", bool(items)):
            return False
        setup.tree.scrollToItem(items[0])
        self.settle()
        where = setup.tree.visualItemRect(items[0])
        at = setup.tree.viewport().mapTo(setup, where.center())
        w.setup_dock.widget().ensureVisible(at.x(), at.y(), 20, 20)  # scroll the panel to it, as a person would
        self.settle()
        self.click(setup.tree.viewport(), where.center())
        if not self.expect(f"a click on {scenario} in the tree selects it", lambda: setup.scenario == scenario,
                           lambda: f"{setup.scenario} selected; item at {_rect(where)} in a "
                                   f"{_rect(setup.tree.viewport().rect())} list"):
            return False
        self.session_panel()
        for agent in humans:
            setup.set_seat(agent, "human")
        if mechanisms is not None:
            setup.set_mechanisms(mechanisms)
        holder = w.setup_dock.widget()
        holder.ensureWidgetVisible(setup.start_button)
        self.settle()
        self.check_shown("Start button", setup.start_button)
        self.click(setup.start_button)
        started = self.wait(lambda: isinstance(self.model.timeline, LiveTimeline)
                            and self.model.timeline.scenario == scenario, 120)
        return self.check(f"Start opens {scenario}", started, setup.error.text())

    def session_panel(self) -> None:
        """The Session panel fits its dock: no horizontal scroll bar, the preview beside nothing."""
        from PyQt6.QtCore import QPoint, QRect

        setup, holder = self.w.setup, self.w.setup_dock.widget()
        # the first frame came before the catalogue: the panel fills once it is read (index built)
        self.check("the Session panel fills once the scenarios are read", self.wait(lambda: self.w.setup_filled, 120))
        self.settle()
        self.check("the Session panel needs no horizontal scroll bar", not holder.horizontalScrollBar().isVisible(),
                   f"panel {setup.minimumSizeHint().width()} px wide in a {holder.viewport().width()} px dock")

        def rect(widget: Any) -> QRect:
            return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())

        preview, tree, drawn = rect(setup.preview), rect(setup.tree), setup.preview.drawn_rect()
        self.check("the scenario preview is drawn whole, 150 px wide or more, and overlaps nothing",
                   setup.preview.rect().contains(drawn) and drawn.width() >= 150 and not preview.intersects(tree),
                   f"preview {_rect(preview)} (picture {_rect(drawn)}), list {_rect(tree)}")

    def human_keys(self, humans: tuple[str, ...]) -> None:
        """Each human seat moves by a key of its world: the main keys, and W/A/S/D/Q for a second
        cook; the numbered actions and the page key where there are many."""
        w = self.w
        self.wait(lambda: self.model.humans_to_move() != (), 60)
        for round_ in range(2):
            for agent in humans:
                if not self.wait(lambda a=agent: a in self.model.humans_to_move(), 60):
                    self.check(f"{agent}'s turn comes", False)
                    continue
                if len(humans) > 1 and agent != self.model.main_key_seat():
                    key = ("q", "d")[round_] if self.legal_key(agent, ("q", "d")[round_]) else "q"
                else:
                    key = self.main_key(agent, round_)
                before = self.steps()
                self.key(key)
                took = self.wait(lambda a=agent, b=before: self.steps() > b
                                 or a in self.model.runner.submitted_since_step(), 60)
                self.check(f"{agent} acts with the key {key!r}", took, w.statusBar().currentMessage())
        self.wait(lambda: self.model.humans_to_move() != () and w.action_bar.isVisible(), 120)
        self.check_shown("the bar of legal moves", w.action_bar)

    def legal_key(self, agent: str, key: str) -> bool:
        state = self.model.state()
        legal = self.model.timeline.world.legal_actions(state, agent)
        return self.w.renderer.action_for_key(key, state, agent, legal) is not None

    def main_key(self, agent: str, round_: int) -> str:
        """A key of ``agent``'s world that is legal now: first the world's own keys, then (after
        turning the page of numbered actions where there are several) the number 1."""
        renderer = self.w.renderer
        state = self.model.state()
        legal = list(self.model.timeline.world.legal_actions(state, agent))
        own = {"dkg": ["Up", "Down", "Left", "Right", "space"], "kitchen": ["Right", "Left", "Up", "Down", "space"],
               "household": ["space"], "tradecraft": ["p", "d", "r"], "teamroom": ["i"]}
        if round_ == 0:
            for key in own.get(self.model.timeline.world.family, []):
                if renderer.action_for_key(_qt_key_name(key), state, agent, legal) is not None:
                    return key
        elif renderer.page_key is not None and renderer.action_pages(legal) > 1:
            page = self.model.action_page
            self.key(renderer.page_key)
            self.expect(f"{renderer.page_key} turns the page of {agent}'s actions", lambda: self.model.action_page != page)
        return "1"

    # ------------------------------------------------------------------ controls of every world

    def playback(self) -> None:
        """Every playback key and button, and the scrubber, by their effect on the cursor."""
        w, model = self.w, self.model
        self.wait(lambda: self.steps() >= 2 or model.timeline.outcome is not None, 120)
        if model.playing:
            self.key("k")
        self.check_shown("playback bar", w.playback)
        self.check_shown("scrubber", w.playback.slider)
        self.check_shown("speed", w.playback.speed)
        for button in w.playback.findChildren(_tool_button()):
            self.check_shown(f"button {button.defaultAction().text()!r}", button)
        total = self.steps()
        self.key("Home")
        self.expect("Home goes to the start", lambda: model.cursor == 0)
        self.key("l")
        self.expect("L steps forward", lambda: model.cursor == 1, lambda: f"step {model.cursor}")
        self.key("End")
        self.expect("End goes to the end", lambda: model.cursor == self.steps(),
                    lambda: f"step {model.cursor} of {self.steps()}")
        self.key("j")
        self.expect("J steps back", lambda: model.cursor == self.steps() - 1, lambda: f"step {model.cursor}")
        self.key("Prior")
        self.expect("PgUp goes 10 steps back", lambda: model.cursor == max(0, self.steps() - 11),
                    lambda: f"step {model.cursor}")
        self.key("Next")
        self.expect("PgDown goes 10 steps forward",
                    lambda: model.cursor == min(self.steps(), max(0, self.steps() - 11) + 10),
                    lambda: f"step {model.cursor}")
        speed = w.playback.current_speed
        self.key("bracketleft")
        slower = w.playback.current_speed
        self.key("bracketright")
        self.check("[ and ] change the speed", slower < speed and w.playback.current_speed == speed or speed == 0.5,
                   f"{speed:g} → {slower:g} → {w.playback.current_speed:g}")
        slider = w.playback.slider
        if total >= 2:
            self.key("End")
            self.click(slider, slider.rect().center())
            self.check("a click on the middle of the scrubber shows the middle step",
                       abs(model.cursor - self.steps() / 2) <= max(1.0, self.steps() / 10),
                       f"step {model.cursor} of {self.steps()}")
        start = next((b for b in w.playback.findChildren(_tool_button()) if b.defaultAction() is w.actions_by_name["start"]), None)
        if start is not None:
            self.click(start)
            self.expect("the start button goes to the start", lambda: model.cursor == 0)
        play = next((b for b in w.playback.findChildren(_tool_button()) if b.defaultAction() is w.actions_by_name["play"]), None)
        if play is not None:  # at the slowest speed, so that the episode does not end meanwhile
            speed = w.playback.current_speed
            self.key(*["bracketleft"] * 8)
            self.click(play)
            self.expect("the play button plays", lambda: model.playing)
            self.pump(0.6)  # not a double click
            self.click(play)
            self.expect("the play button pauses", lambda: not model.playing,
                        lambda: f"step {model.cursor} of {self.steps()}, {play.defaultAction().text()!r}")
            while w.playback.current_speed < speed:
                self.key("bracketright")
        self.key("End")

    def menus(self) -> None:
        """Each menu opens with Alt and its letter, on the screen with all its entries; Escape closes it."""
        from PyQt6.QtWidgets import QApplication, QMenu

        letters = {a.text().replace("&", ""): a.text()[a.text().index("&") + 1].lower()
                   for a in self.w.menuBar().actions() if "&" in a.text()}
        self.check("each menu has its own Alt letter", len(set(letters.values())) == len(letters) == len(MENUS),
                   ", ".join(f"{t}: Alt+{k.upper()}" for t, k in letters.items()))
        for title in MENUS:
            if title not in letters:
                continue
            self.key(f"alt+{letters[title]}")
            opened = self.wait(lambda: isinstance(QApplication.activePopupWidget(), QMenu), 30)
            menu = QApplication.activePopupWidget()
            if not self.check(f"Alt+{letters[title].upper()} opens the {title} menu", opened and menu.title().replace("&", "") == title,
                              menu.title() if menu is not None else "nothing opened"):
                if menu is not None:
                    self.key("Escape")
                continue
            self.check_shown(f"{title} menu", menu)
            outside = [a.text() for a in menu.actions() if a.isVisible() and not a.isSeparator()
                       and not menu.rect().contains(menu.actionGeometry(a))]
            self.check(f"every entry of the {title} menu shows", not outside, ", ".join(outside))
            if title == "View" and self.model.timeline is not None:
                self.view_as(menu)
            self.key("Escape", "Escape")
            self.wait(lambda: QApplication.activePopupWidget() is None, 30)

    def view_as(self, menu: Any) -> None:
        """View > View as lists everyone and each seat."""
        from PyQt6.QtWidgets import QApplication

        sub = self.w.viewer_menu
        self.click(menu, menu.actionGeometry(sub.menuAction()).center())
        self.wait(lambda: sub.isVisible(), 30)
        agents = self.model.timeline.world.agents
        self.check("View as lists everyone and each seat", sub.isVisible() and len(sub.actions()) == 2 + len(agents),
                   f"{len(sub.actions())} entries for {len(agents)} agents")
        if sub.isVisible():
            self.check_shown("View as menu", sub)
            self.key("Escape")
        self.wait(lambda: not sub.isVisible() or QApplication.activePopupWidget() is menu, 30)

    def panels(self) -> None:
        """Every dock on the screen with room to read it; each tab of the Minds dock by a click."""
        from PyQt6.QtCore import QPoint, QRect
        from PyQt6.QtWidgets import QAbstractScrollArea, QDockWidget, QScrollArea, QToolButton

        w = self.w
        w.panels.refresh(force=True)
        self.settle()
        for dock in w.findChildren(QDockWidget):
            if not dock.isVisible():
                continue
            inside = self.screen.contains(QRect(dock.mapToGlobal(QPoint(0, 0)), dock.size()))
            content = dock.widget()
            if isinstance(content, QAbstractScrollArea):  # its viewport shows part of its page
                view = content.viewport()
                inside = inside and self.screen.contains(QRect(view.mapToGlobal(QPoint(0, 0)), view.size()))
                page = content.widget() if isinstance(content, QScrollArea) else view
                seen = page.visibleRegion().boundingRect() if page is not None else QRect()
            else:
                seen = content.visibleRegion().boundingRect()
            big = seen.width() >= 160 and seen.height() >= 90
            self.check(f"{dock.windowTitle()} dock on screen with room", dock.isVisible() and inside and big,
                       f"{_rect(dock.geometry())}, {seen.width()}x{seen.height()} px of its page shown")
        tabs = w.panels.tabs
        bar = tabs.tabBar()
        arrows = [b for b in bar.findChildren(QToolButton) if b.isVisible()]
        for i in range(tabs.count()):
            label = tabs.tabText(i)
            for _ in range(tabs.count()):  # scroll the tab bar (its arrows) until the tab shows whole
                if bar.rect().contains(bar.tabRect(i)) and not any(a.geometry().intersects(bar.tabRect(i)) for a in arrows):
                    break
                right = [a for a in arrows if a.geometry().x() > bar.width() // 2]
                left = [a for a in arrows if a not in right]
                go = right if bar.tabRect(i).right() > bar.width() // 2 else left
                if not go:
                    break
                self.click(go[-1] if go is right else go[0])
            self.click(bar, bar.tabRect(i).center())
            self.expect(f"a click shows the {label!r} tab", lambda i=i: tabs.currentIndex() == i,
                        lambda: f"tab {tabs.currentIndex()}")
            self.check_shown(f"{label!r} tab", tabs.widget(i), whole=False)
        if "…" in "".join(tabs.tabText(i) for i in range(tabs.count())):
            self.check("tab labels whole", False)
        if tabs.count():
            self.click(bar, bar.tabRect(0).center()) if bar.rect().contains(bar.tabRect(0)) else tabs.setCurrentIndex(0)

    # ------------------------------------------------------------------ world specials

    def show_tab(self, title: str) -> None:
        tabs = self.w.panels.tabs
        for i in range(tabs.count()):
            if tabs.tabText(i) == title:
                tabs.setCurrentIndex(i)  # (each tab was clicked above; this only picks the picture's)

    def after_kitchen(self) -> None:
        self.show_tab("Particles")
        self.shot("kitchen.png")

    def after_household(self) -> None:
        self.show_tab("Beliefs")
        self.shot("household.png")
        self.shot("beliefs.png", self.w.minds_dock)

    def after_team_formation(self) -> None:
        """Ctrl+R brings ben's rating strip forward in the Alignment tab."""
        self.key("ctrl+r")
        panel = self.w.panels.panel("Alignment")
        shown = panel is not None and self.w.panels.tabs.currentWidget() is panel
        self.check("Ctrl+R shows the Alignment tab with the rating strip", shown,
                   self.w.statusBar().currentMessage())
        if shown:
            self.check_shown("Alignment tab", panel, whole=False)

    def after_tradecraft(self) -> None:
        """bob passes or is done until alice proposes: the board with her proposal to answer."""
        dock = self.w.panels.docks.get("TradeCraft board")
        self.check("the TradeCraft board dock has room", dock is not None and dock.height() >= 200 and dock.width() >= 400,
                   f"{dock.width()}x{dock.height()}" if dock is not None else "no board")
        if not self.model.playing:
            self.key("k")
        for _ in range(12):
            if not self.wait(lambda: "bob" in self.model.humans_to_move(), 120) or self.legal_key("bob", "a"):
                break
            key = next((k for k in ("p", "d") if self.legal_key("bob", k)), "1")
            before = self.steps()
            self.key(key)
            self.wait(lambda b=before: self.steps() > b, 120)
        self.check("bob has a proposal to accept (A) or reject (R)", self.legal_key("bob", "a"))
        self.show_tab("ToM values")
        self.shot("tradecraft-board.png")

def _alive(widget: Any) -> bool:
    from PyQt6 import sip

    return not sip.isdeleted(widget)


def _rect(rect: Any) -> str:
    return f"{rect.width()}x{rect.height()}+{rect.x()}+{rect.y()}"


def _tool_button() -> Any:
    from PyQt6.QtWidgets import QToolButton

    return QToolButton


def _qt_key_name(key: str) -> str:
    """The name the renderers use for an xdotool key name."""
    return {"space": "space", "Up": "up", "Down": "down", "Left": "left", "Right": "right"}.get(key, key.lower())


# ====================================================================== processes

def walk_in_app(out: Path | None, report: Path) -> int:
    """Run the app as ``python main.py`` does and walk it (this process draws on the X server)."""
    from ui.app import run_app

    result: dict[str, Any] = {}

    def then(window: Any) -> None:
        walk = Walk(window, out)
        try:
            walk.run()
        finally:
            result.update(checks=walk.checks, screenshots=walk.shots)
            report.write_text(json.dumps(result, indent=1))
            window.close()

    code = run_app(then=then)
    if not result:
        report.write_text(json.dumps({"checks": [{"world": "app", "control": "the app starts", "ok": False,
                                                  "detail": f"exit code {code}"}], "screenshots": []}))
    return 0 if result and all(c["ok"] for c in result["checks"]) else 1


def run_walk(out: Path | None, report: Path, timeout: float = 1200) -> int:
    """Start Xvfb at 1366 x 768 x 24 and walk the app in a child process with a fresh profile."""
    from ui.shots.xvfb import display_env, virtual_display

    with tempfile.TemporaryDirectory(prefix="tom-arena-walk-") as home, virtual_display(*SCREEN, 24) as display:
        env = display_env(display)
        env.update(HOME=home, XDG_CONFIG_HOME=str(Path(home) / ".config"), XDG_DATA_HOME=str(Path(home) / ".local/share"))
        args = [sys.executable, "-m", "ui.shots.walk", "--in-app", "--report", str(report)]
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            args.append(str(out.resolve()))
        return subprocess.run(args, env=env, cwd=ROOT, timeout=timeout).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.shots.walk", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "screenshots"),
                        help="folder for the screenshots (default docs/screenshots)")
    parser.add_argument("--report", default="", help="write the checks as JSON here")
    parser.add_argument("--no-screenshots", action="store_true", help="check only")
    parser.add_argument("--in-app", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    out = None if args.no_screenshots else Path(args.out)
    report = Path(args.report) if args.report else Path(tempfile.mkstemp(suffix=".json")[1])
    if args.in_app:
        return walk_in_app(out, report)
    missing = tools_missing()
    if missing:
        print(f"error: the walk needs {' and '.join(missing)} (bash scripts/setup.sh test installs them)", file=sys.stderr)
        return 2
    code = run_walk(out, report)
    checks = json.loads(report.read_text())["checks"] if report.exists() else []
    failed = [c for c in checks if not c["ok"]]
    print(f"{len(checks) - len(failed)} of {len(checks)} checks passed")
    return 0 if code == 0 and not failed else 1


if __name__ == "__main__":
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    sys.exit(main())
