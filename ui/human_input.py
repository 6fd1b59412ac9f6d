"""A person's input and the feedback pop-ups on the window: the keys of a human seat go to the
model (``AppModel.route_key``), the bar under the view lists the seat's legal moves, the message
box sends a seat's words, the pop-up shows feedback as the model's policy says and returns the
person's answer, and the status bar says who is thinking. The decisions are the model's
(``ui/session/model.py``); this presenter only words them on the window's widgets."""

from __future__ import annotations

import html
from typing import Any

from PyQt6.QtCore import QObject, QPoint, QRect, Qt, QTimer


class HumanInput(QObject):
    """Human seats and feedback of a MainWindow ``w``: keys, moves, messages, pop-ups, thinking."""

    def __init__(self, w: Any) -> None:
        super().__init__(w)
        self.w, self.model = w, w.model
        self.thinking_pending: frozenset = frozenset()
        self.thinking_timer = QTimer(self)  # the indicator shows only when a decision takes a while
        self.thinking_timer.setSingleShot(True)
        self.thinking_timer.setInterval(300)
        self.thinking_timer.timeout.connect(self._show_thinking)

    def connect(self) -> None:
        w = self.w
        w.view.key_pressed.connect(self.on_key)
        w.toast.keep_clear = self.toast_keep_clear
        w.toast.decided.connect(self.on_feedback_decided)
        w.toast.popups_off.connect(lambda: self.set_popups(False))
        w.say_box.returnPressed.connect(self.send_message)
        w.sessions.feedback.connect(self.present_feedback)
        w.sessions.thinking.connect(self.on_thinking)
        w.clock.feedback.connect(self.present_feedback)

    def _say(self, text: str, ms: int) -> None:
        self.w.statusBar().showMessage(text, ms)

    # ------------------------------------------------------------------ keys and moves

    def on_key(self, name: str) -> None:
        """A key for a human seat: the model routes it (``AppModel.route_key``)."""
        if self.w.renderer is not None:
            route = self.model.route_key(name, self.w.renderer)
            if route.note:
                self._say(route.note, 2000)

    def next_key_seat(self) -> None:
        """Give the main keys to the next human seat of the step (several people at one keyboard)."""
        seat = self.model.next_key_seat()
        if seat is not None:
            self._say(f"the main keys now play {seat}", 2000)

    def show_turn(self, fields: dict) -> None:
        """The bar of the seat to move (its numbered legal actions and keys) and the message box."""
        w, model, renderer = self.w, self.model, self.w.renderer
        human, legal, page = fields["human"], fields["legal"], fields["page"]
        if human and renderer is not None:
            labels = "   ".join(html.escape(f"[{k}] {renderer.action_label(x)}")
                                 for k, x in renderer.numbered_actions(legal, page))
            pages = renderer.action_pages(legal)
            if pages > 1:
                labels += f"   <small>(page {page + 1}/{pages}; {html.escape(renderer.page_key)}: next page)</small>"
            keys = html.escape(", ".join(f"{b.keys}: {b.action}" for b in renderer.key_bindings()))
            second = model.second_key_seat()
            also = (f"<br><b>{second}</b> plays at the same time with {html.escape(renderer.second_seat_help)}; "
                    "F6 swaps the seats.") if second else ""
            w.action_bar.setText(f"<b>Your turn, {human}.</b>  {labels}<br><small>{keys}</small>{also}")
        w.action_bar.setVisible(bool(human))
        talker = model.message_sender()
        if talker is not None:
            w.say_box.setPlaceholderText(f"Write a message as {talker}; Enter sends it and returns to the "
                                         "map (Ctrl+M comes here)")
        w.say_box.setVisible(talker is not None)

    def focus_message_box(self) -> None:
        if self.w.say_box.isVisible():
            self.w.say_box.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def send_message(self) -> None:
        """Send the text of the message box as the human seat whose turn it is."""
        say_box = self.w.say_box
        text = say_box.text().strip()
        agent = self.model.send_message(text)
        if agent is not None:
            say_box.clear()
            self._say(f"{agent} says: {text}", 3000)
            self.w.focus_view()

    def focus_ratings(self) -> None:
        """Bring the rating strip of the Alignment tab forward with the keys (ui/panels/team_ratings.py)."""
        panels = self.w.panels
        panel = panels.panel("Alignment")
        if panel is not None and hasattr(panel, "focus_ratings"):
            panels.tabs.setCurrentWidget(panel)
            if panel.focus_ratings():
                return
        self._say("nothing to rate: ratings are for a person playing a live team episode", 3000)

    # ------------------------------------------------------------------ feedback pop-ups

    def present_feedback(self, events: list) -> None:
        """Show feedback as the model's pop-up policy says (``AppModel.popup_for``)."""
        toast = self.w.toast
        for event in events:
            popup = self.model.popup_for(event, toast.awaiting_decision)
            if popup.note:
                self._say(popup.note, 5000)
            if popup.show:
                toast.show_feedback(event, ask=popup.ask, seconds=self.w.settings.get("toast_seconds"),
                                    status=popup.status,
                                    world=self.model.timeline.world if self.model.timeline is not None else None)
                self.w._update_controls()

    def set_popups(self, shown: bool) -> None:
        """Feedback pop-ups on or off for the shown episode (off: suggestions to your seats are
        declined for you; agents' feedback only goes to the history and the log)."""
        toast = self.w.toast
        self.model.set_popups(shown)
        if not shown:
            if toast.awaiting_decision and toast.feedback is not None:
                toast.ignore_feedback()
            toast.dismiss()
            self._say("feedback pop-ups are off for this episode (the history still lists every suggestion)", 5000)

    def on_feedback_decided(self, feedback_id: int, accept: bool) -> None:
        if self.model.decide_feedback(feedback_id, accept) is not None:
            self._say(f"feedback #{feedback_id} {'accepted' if accept else 'ignored'}", 3000)
        self.w._update_controls()
        self.w.focus_view()

    def toast_keep_clear(self) -> list[QRect]:
        """What the feedback pop-up must not cover, in the stage's coordinates: the seats a person
        plays and the feedback's recipient, and the cells highlighted for the person's move."""
        w, timeline, renderer = self.w, self.model.timeline, self.w.renderer
        view = w.view
        if timeline is None or renderer is None or view.state is None:
            return []
        agents = list(self.model.humans)
        feedback = w.toast.feedback
        if feedback is not None and feedback.target not in agents:
            agents.append(feedback.target)
        overlays = view.overlays
        try:
            rects = renderer.keep_clear(view.state, agents, overlays.human, overlays.legal)
        except (KeyError, IndexError, AttributeError, ValueError):  # a state the renderer cannot place
            return []
        ratio = view.devicePixelRatioF() or 1.0
        origin = view.mapTo(w.stage, QPoint(0, 0))
        return [QRect(origin.x() + int(r.x / ratio), origin.y() + int(r.y / ratio), int(r.w / ratio) + 1,
                      int(r.h / ratio) + 1) for r in rects]

    # ------------------------------------------------------------------ who is thinking

    def on_thinking(self, agents: frozenset) -> None:
        self.thinking_pending = frozenset(agents)
        if agents:
            if not self.thinking_timer.isActive() and not self.model.thinking:
                self.thinking_timer.start()
        else:
            self.thinking_timer.stop()
            if self.model.thinking:
                self.w.thinking_label.setText("")
                self.model.set_thinking(frozenset())

    def _show_thinking(self) -> None:
        agents = self.thinking_pending
        if agents:
            self.w.thinking_label.setText(f"{', '.join(sorted(agents))} thinking…")
            self.model.set_thinking(agents)
