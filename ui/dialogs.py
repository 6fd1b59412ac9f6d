"""The window's dialogs: open a recording, the settings, and the help window (how to play, the
keyboard shortcuts, the papers). None is modal: the window keeps running while one is open."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import QObject, QRect, Qt
from PyQt6.QtWidgets import QFileDialog, QHeaderView, QTreeView

from ui.session import catalog
from ui.settings import SettingsDialog


class Dialogs(QObject):
    """The dialogs of a MainWindow ``w``; each is kept while open (``recording_dialog``,
    ``settings_dialog``, ``help_dialog``)."""

    def __init__(self, w: Any) -> None:
        super().__init__(w)
        self.w = w
        self.recording_dialog: QFileDialog | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.help_dialog: Any = None

    def open_recording(self) -> None:
        w = self.w
        dialog = QFileDialog(w, "Open a recording", str(w.settings.recordings_dir),
                             "ToM Arena recordings (*.jsonl *.jsonl.gz *.gz);;All files (*)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        # Qt's own dialog in the detail view, wide enough for whole recording names (scenario,
        # date and seed): a narrow list cuts them to "…"
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setViewMode(QFileDialog.ViewMode.Detail)
        screen = w.screen().availableGeometry() if w.screen() is not None else QRect(0, 0, 1366, 768)
        dialog.resize(min(1000, screen.width() - 40), min(560, screen.height() - 80))
        view = dialog.findChild(QTreeView)
        if view is not None:
            view.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
            view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a name longer than the screen keeps both ends
        dialog.fileSelected.connect(w.open_recording_asking)
        self.recording_dialog = dialog
        dialog.open()  # not exec(): the window keeps running

    def show_settings(self) -> None:
        w = self.w
        dialog = SettingsDialog(w.settings, [i.name for i in catalog.scenarios()], w)
        dialog.changed.connect(w.apply_settings)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.settings_dialog = dialog

    def help(self) -> Any:
        """The help window (one, non-modal), built on first use."""
        from ui.help import HelpDialog

        if self.help_dialog is None:
            self.help_dialog = HelpDialog(self.w, self.w)
        return self.help_dialog

    def show_keys(self) -> None:
        from ui.help import KEYS_PAGE

        self.help().open_page(KEYS_PAGE)

    def show_rules(self) -> None:
        """How to play the world shown (or the first one), with its keys and what the panels mean."""
        w = self.w
        timeline = w.model.timeline
        family = timeline.world.family if timeline is not None else None
        if family is None:
            w.fill_setup()
        if family is None and w.setup.world is not None:
            family = w.setup.world.family
        self.help().open_page(self.help().rules_page(family))

    def show_papers(self) -> None:
        from ui.help import PAPERS_PAGE

        self.help().open_page(PAPERS_PAGE)
