"""The window's actions (each with its shortcut, working wherever the focus is) and its menus."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QAction, QKeySequence
from PyQt6.QtWidgets import QMainWindow, QStyle

PLAYBACK_ACTIONS = ("play", "step", "back", "start", "end", "back10", "forward10", "next_feedback",
                    "prev_feedback", "faster", "slower")


def add_action(window: QMainWindow, actions: dict[str, QAction], name: str, text: str,
               shortcut: str | QKeySequence.StandardKey | list | None, slot: Any,
               icon: QStyle.StandardPixmap | None = None, checkable: bool = False) -> QAction:
    action = QAction(text, window)
    if icon is not None:
        action.setIcon(window.style().standardIcon(icon))
    if isinstance(shortcut, list):
        action.setShortcuts([QKeySequence(s) for s in shortcut])
    elif shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setCheckable(checkable)
    if checkable:
        action.toggled.connect(slot)
    else:
        action.triggered.connect(lambda _checked=False: slot())
    tip = text.replace("&", "")
    if action.shortcut().toString():
        tip += f"  ({action.shortcut().toString()})"
    action.setToolTip(tip)
    window.addAction(action)  # shortcuts work wherever the focus is in the window
    actions[name] = action
    return action


def make_actions(w: Any) -> dict[str, QAction]:
    """Every action of the window ``w`` (a MainWindow), by name."""
    acts: dict[str, QAction] = {}
    SP = QStyle.StandardPixmap

    def a(*args: Any, **kwargs: Any) -> None:
        add_action(w, acts, *args, **kwargs)

    model = w.model
    a("new", "&New session…", QKeySequence.StandardKey.New, w.show_setup)
    a("open", "&Open recording…", QKeySequence.StandardKey.Open, w.dialogs.open_recording, SP.SP_DialogOpenButton)
    a("close", "&Close episode", "Ctrl+W", w.close_episode)
    a("export_clip", "&Export clip…", "Ctrl+E", lambda: _export_clip(w))
    a("settings", "&Settings…", "Ctrl+,", w.dialogs.show_settings)
    a("quit", "&Quit", QKeySequence.StandardKey.Quit, w.close)
    a("host_study", "&Host a study…", None, lambda: _study_window(w, "host"))
    a("join_study", "&Join a study…", None, lambda: _study_window(w, "join"))
    a("play", "Play", ["K", "Media Play"], w.toggle_play, SP.SP_MediaPlay)
    a("step", "Step forward", "L", w.step_forward, SP.SP_MediaSeekForward)
    a("back", "Step back", "J", model.step_back, SP.SP_MediaSeekBackward)
    a("start", "Go to start", "Home", lambda: model.seek(0), SP.SP_MediaSkipBackward)
    a("end", "Go to end (follow live)", "End", model.seek_end, SP.SP_MediaSkipForward)
    a("back10", "Back 10 steps", "PgUp", lambda: model.seek(model.cursor - 10))
    a("forward10", "Forward 10 steps", "PgDown", lambda: model.seek(model.cursor + 10))
    a("next_feedback", "Next feedback", "N", lambda: w.seek_feedback(True), SP.SP_MessageBoxInformation)
    a("prev_feedback", "Previous feedback", "Shift+N", lambda: w.seek_feedback(False), SP.SP_MessageBoxInformation)
    a("faster", "Faster", "]", lambda: w.set_speed(w.playback.change_speed(+1)))
    a("slower", "Slower", "[", lambda: w.set_speed(w.playback.change_speed(-1)))
    a("take_over", "Take over from here", "T", w.take_over, SP.SP_ArrowUp)
    a("predict", "&Predict, then see", "Ctrl+Shift+P", lambda on: w.predict.set_enabled(on), checkable=True)
    a("show_plans", "Show plans on the map", "V", w.set_show_plans, checkable=True)
    a("believed_next", "Next believed world (As X believes it)", "B", w.cycle_believed)
    a("accept_feedback", "Accept feedback", ["Return", "Enter"], w.toast.accept_feedback)
    a("ignore_feedback", "Ignore feedback", "Escape", w.toast.ignore_feedback)
    for name in ("accept_feedback", "ignore_feedback"):  # a held key answers one pop-up, not the next ones too
        acts[name].setAutoRepeat(False)
    a("keys", "Keyboard shortcuts", "F1", w.dialogs.show_keys)
    a("how_to_play", "How to play this world", "Shift+F1", w.dialogs.show_rules)
    a("about_papers", "About the papers", None, w.dialogs.show_papers)
    a("next_seat", "Give the main keys to the next human seat", "F6", w.human.next_key_seat)
    a("write_message", "Write a message", "Ctrl+M", w.human.focus_message_box)
    a("rate_teammates", "Rate your teammates", "Ctrl+R", w.human.focus_ratings)
    a("reset_layout", "&Reset layout", "Ctrl+Shift+R", w.reset_layout)
    return acts


def _export_clip(w: Any) -> None:
    """File > Export clip…: the shown episode as a GIF or MP4 (``ui/export/dialog.py``)."""
    from ui.export.dialog import open_export_dialog

    open_export_dialog(w)


def _study_window(w: Any, kind: str) -> None:
    """Open a study host's or a participant's window (``ui/net/windows.py``) beside ``w``."""
    from ui.net.windows import open_host_dialog, open_join_dialog

    window = (open_host_dialog if kind == "host" else open_join_dialog)(w)
    if window is not None:
        w.study_windows = [x for x in getattr(w, "study_windows", []) if x.isVisible()] + [window]


def make_menus(w: Any) -> None:
    """File, Playback, Feedback, View and Help menus of the window ``w``."""
    acts = w.actions_by_name
    menu = w.menuBar().addMenu("&File")
    for name in ("new", "open"):
        menu.addAction(acts[name])
    w.recent_menu = menu.addMenu("Open &recent")
    w.recent_menu.aboutToShow.connect(lambda: fill_recent(w))
    menu.addAction(acts["export_clip"])
    menu.addSeparator()
    for name in ("close", "settings"):
        menu.addAction(acts[name])
    menu.addSeparator()
    for name in ("host_study", "join_study"):  # human studies on several computers (docs/study.md)
        menu.addAction(acts[name])
    menu.addSeparator()
    menu.addAction(acts["quit"])
    menu = w.menuBar().addMenu("&Playback")
    for name in PLAYBACK_ACTIONS:
        menu.addAction(acts[name])
    menu.addSeparator()
    menu.addAction(acts["take_over"])
    menu.addAction(acts["predict"])  # the teaching mode (ui/predict.py)
    menu = w.menuBar().addMenu("Fee&dback")  # Alt+D: Alt+F is File's
    menu.addAction(acts["accept_feedback"])
    menu.addAction(acts["ignore_feedback"])
    menu = w.menuBar().addMenu("&View")
    menu.addAction(acts["show_plans"])
    w.viewer_menu = menu.addMenu("View &as")
    w.viewer_menu.aboutToShow.connect(lambda: fill_viewer_menu(w))
    w.believed_menu = menu.addMenu("As X &believes it")
    w.believed_menu.aboutToShow.connect(lambda: fill_believed_menu(w))
    menu.addAction(acts["believed_next"])
    menu.addSeparator()
    for dock in (w.setup_dock, w.minds_dock, w.feedback_dock, w.log_dock):
        menu.addAction(dock.toggleViewAction())
    menu.addSeparator()
    menu.addAction(acts["reset_layout"])  # every panel back in its place, after docks were dragged or closed
    menu = w.menuBar().addMenu("&Help")
    menu.addAction(acts["how_to_play"])
    menu.addAction(acts["keys"])
    menu.addAction(acts["about_papers"])


def fill_viewer_menu(w: Any) -> None:
    """Everyone, each seat (fog of war: what it observes), or automatic."""
    w.viewer_menu.clear()
    model = w.model
    agents = list(model.timeline.world.agents) if model.timeline is not None else []
    for choice, label in [("auto", "Automatic (the seat you play)"), ("all", "Everything"),
                          *[(a, f"{a}'s eyes") for a in agents]]:
        action = w.viewer_menu.addAction(label)
        action.setCheckable(True)
        action.setChecked(choice == model.viewer_choice)
        action.triggered.connect(lambda _c=False, c=choice: model.set_viewer(c))


def fill_believed_menu(w: Any) -> None:
    """The world as it is, or as one mind believes it (``ui.beliefs.view.view_choices``)."""
    from ui.beliefs.view import view_choices

    w.believed_menu.clear()
    model = w.model
    choices = [(None, "The world as it is")] + [((c.holder, c.about), c.label) for c in view_choices(model.timeline)]
    for choice, label in choices:
        action = w.believed_menu.addAction(label)
        action.setCheckable(True)
        action.setChecked(choice == model.believed_choice)
        action.triggered.connect(lambda _c=False, c=choice: model.set_believed(c))
    if len(choices) == 1:
        w.believed_menu.addAction("(no mind of this episode reports beliefs yet)").setEnabled(False)


def fill_recent(w: Any) -> None:
    w.recent_menu.clear()
    files = w.settings.recent_files()
    for path in files:
        action = w.recent_menu.addAction(path)
        action.triggered.connect(lambda _c=False, p=path: w.open_recording_asking(p))
    if not files:
        w.recent_menu.addAction("(none)").setEnabled(False)
    else:
        w.recent_menu.addSeparator()
        w.recent_menu.addAction("Clear list").triggered.connect(w.settings.clear_recent)
