"""File > Export clip…: the shown episode's steps as a GIF or an MP4 (``ui/export/clip.py``), in a
view of the episode's (the one the map shows now, by default), from the shown step on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ui.export import clip as export


def current_view(model: Any) -> str:
    """The name (``export.view_names``) of the view the map shows now."""
    from ui.beliefs.view import view_label

    if model.believed_choice is not None:
        return view_label(*model.believed_choice)
    viewer = model.viewer()
    return f"{viewer}'s eyes" if viewer else "the world as it is"


class ExportClipDialog(QDialog):
    """Which steps, which view, what size and speed, and where: then writes the clip."""

    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setWindowTitle("Export clip")
        self.window_ = window
        model = window.model
        timeline = model.timeline
        self.timeline = timeline
        steps = timeline.num_steps
        layout = QVBoxLayout(self)
        intro = QLabel("Write steps of this episode as a GIF (or an MP4), drawn as the map draws them, for slides.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.view = QComboBox()
        self.view.addItems(export.view_names(timeline))
        self.view.setCurrentText(current_view(model))
        form.addRow("View", self.view)
        self.first = QSpinBox()
        self.first.setRange(0, steps)
        self.first.setValue(min(model.cursor, steps))
        self.last = QSpinBox()
        self.last.setRange(0, steps)
        self.last.setValue(steps)
        steps_row = QHBoxLayout()
        steps_row.addWidget(self.first)
        steps_row.addWidget(QLabel("to"))
        steps_row.addWidget(self.last)
        form.addRow("Steps", steps_row)
        self.fps = QSpinBox()
        self.fps.setRange(1, 30)
        self.fps.setValue(int(export.DEFAULT_FPS))
        self.fps.setSuffix(" steps/s")
        form.addRow("Speed", self.fps)
        self.size = QComboBox()
        self.size.addItems(["960x640", "1280x720", "640x420"])
        form.addRow("Size", self.size)
        self.path = QLineEdit(str(self._default_path()))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path, 1)
        path_row.addWidget(browse)
        form.addRow("File", path_row)
        layout.addLayout(form)
        missing = export.mp4_missing()
        note = QLabel("GIF: always. MP4: " + ("needs the packages " + ", ".join(missing) + " (not installed here)."
                                               if missing else "available."))
        note.setWordWrap(True)
        note.setStyleSheet("color: #6b7280;")
        layout.addWidget(note)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.write)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.result_: export.ClipResult | None = None

    def _default_path(self) -> Path:
        recording = self.window_.model.recording_path or getattr(self.timeline, "path", None)
        stem = Path(str(recording)).name.split(".")[0] if recording else self.timeline.scenario
        return Path(self.window_.settings.recordings_dir) / f"{stem}-clip.gif"

    def _browse(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(self, "Export clip", self.path.text(), "GIF (*.gif);;MP4 (*.mp4)",
                                                options=QFileDialog.Option.DontUseNativeDialog)
        if chosen:
            self.path.setText(chosen)

    def write(self) -> export.ClipResult | None:
        """Write the clip as chosen; on a problem say it in the dialog (and keep it open)."""
        self.status.setText("writing…")
        self.export_button.setEnabled(False)

        def progress(done: int, total: int) -> None:
            self.status.setText(f"writing… frame {done} of {total}")
            QApplication.processEvents()

        try:
            result = export.export_clip(
                str(getattr(self.timeline, "path", "") or self.timeline.scenario), self.path.text().strip(),
                first=self.first.value(),
                last=self.last.value(), view=self.view.currentText(), size=export.parse_size(self.size.currentText()),
                fps=float(self.fps.value()), timeline=self.timeline, progress=progress,
                show_plans=self.window_.actions_by_name["show_plans"].isChecked())
        except (export.ExportError, OSError) as exc:
            self.status.setText(str(exc))
            self.export_button.setEnabled(True)
            return None
        self.result_ = result
        self.window_.statusBar().showMessage(
            f"wrote {result.path}: {result.frames} frames, {result.view}", 8000)
        self.accept()
        return result


def open_export_dialog(window: Any) -> ExportClipDialog | None:
    """File > Export clip… for the shown episode (a status line says why not when none is shown)."""
    from ui.session.timeline import PreviewTimeline

    timeline = window.model.timeline
    if timeline is None or isinstance(timeline, PreviewTimeline):
        window.statusBar().showMessage("open a recording (and let it load) or play an episode first, then export "
                                       "a clip of it", 4000)
        return None
    window.set_playing(False)
    dialog = ExportClipDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    window.export_dialog = dialog
    return dialog
