"""Playback controls under the world view: start, step back, play/pause, step, end, next
feedback, speed, take over, and a scrubber over the whole episode. Every control is a
QAction of the window (so each has a keyboard shortcut); the widgets here never take
keyboard focus, which stays with the world view for a human seat."""

from __future__ import annotations

from PyQt6.QtCore import Qt, pyqtSignal
from PyQt6.QtGui import QAction, QMouseEvent
from PyQt6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


class Scrubber(QSlider):
    """A slider that jumps to the step under a click (a plain QSlider pages by ten towards it);
    the handle still drags."""

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            option = QStyleOptionSlider()
            self.initStyleOption(option)
            style = self.style()
            handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                          QStyle.SubControl.SC_SliderHandle, self)
            if not handle.contains(event.position().toPoint()):
                groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                              QStyle.SubControl.SC_SliderGroove, self)
                span = max(1, groove.width() - handle.width())
                x = int(event.position().x()) - groove.x() - handle.width() // 2
                self.setValue(QStyle.sliderValueFromPosition(self.minimum(), self.maximum(), x, span,
                                                             option.upsideDown))
        super().mousePressEvent(event)


class PlaybackBar(QWidget):
    seek_requested = pyqtSignal(int)
    speed_changed = pyqtSignal(float)

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(6, 2, 6, 2)
        rows.setSpacing(0)
        # The scrubber spans the whole width: one position per step of the episode.
        self.slider = Scrubber(Qt.Orientation.Horizontal)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slider_moved)
        rows.addWidget(self.slider)
        layout = QHBoxLayout()
        rows.addLayout(layout)
        for name in ("start", "back", "play", "step", "end", "prev_feedback", "next_feedback", "take_over"):
            button = QToolButton()
            button.setDefaultAction(actions[name])
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon
                                      if name in ("next_feedback", "prev_feedback", "take_over")
                                      else Qt.ToolButtonStyle.ToolButtonIconOnly)
            layout.addWidget(button)
        layout.addStretch(1)
        self.label = QLabel("0 / 0")
        self.label.setMinimumWidth(90)
        self.label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.label)
        self.speed = QComboBox()
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for s in SPEEDS:
            self.speed.addItem(f"{s:g} step/s" if s == 1 else f"{s:g} steps/s", s)
        self.speed.setToolTip("playback speed ([ slower, ] faster)")
        self.speed.currentIndexChanged.connect(lambda i: self.speed_changed.emit(float(self.speed.itemData(i))))
        layout.addWidget(self.speed)
        self._updating = False

    def _slider_moved(self, value: int) -> None:
        if not self._updating:
            self.seek_requested.emit(value)

    def show_position(self, cursor: int, total: int, live: bool = False) -> None:
        self._updating = True
        try:
            if self.slider.maximum() != total:
                self.slider.setRange(0, total)
            if self.slider.value() != cursor:
                self.slider.setValue(cursor)
        finally:
            self._updating = False
        self.label.setText(f"{cursor} / {total}" + (" live" if live and cursor == total else ""))

    def set_speed(self, speed: float) -> None:
        """Show ``speed`` (the nearest offered); no ``speed_changed``: the caller applies it (a
        ``--speed`` or the settings' speed is not a person's new choice to remember)."""
        best = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
        self.speed.blockSignals(True)
        self.speed.setCurrentIndex(best)
        self.speed.blockSignals(False)

    def change_speed(self, direction: int) -> float:
        i = max(0, min(len(SPEEDS) - 1, self.speed.currentIndex() + direction))
        self.speed.setCurrentIndex(i)
        return SPEEDS[i]

    @property
    def current_speed(self) -> float:
        return float(self.speed.currentData())
