"""The world view: a pygame Surface shown in a Qt widget without copying pixels.

The Surface is as large as the widget (in device pixels) and the renderer lays the
grid out in whole-pixel tiles, so the picture stays crisp at any window size and is
never scaled. Qt paints a QImage that points into the Surface's own memory
(``surface.get_view("2")`` as Format_RGB32: the byte order of a 32-bit pygame surface
on this platform), so showing a frame costs no copy.

Moves are animated: a new state is drawn from the previous one over a short time, at
up to 60 frames per second, and only while something moves.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")  # Ctrl+C and SIGTERM stay Python's (ui/app.py)
import pygame
from PyQt6 import sip
from PyQt6.QtCore import QRect, QSize, Qt, QTimer, pyqtSignal
from PyQt6.QtGui import QColor, QImage, QKeyEvent, QPainter, QPaintEvent, QResizeEvent
from PyQt6.QtWidgets import QSizePolicy, QWidget

from ui.render import Overlays, WorldRenderer


def map_overlays(model: Any, renderer: WorldRenderer | None, *, show_plans: bool,
                 phase: float = 0.0) -> tuple[Overlays, dict[str, Any]]:
    """What the map draws over the world at the app model's cursor (its view: the world as it is,
    a seat's eyes, or as a mind believes it), and the model's fields it came from: for the window
    and for clips of a recording (``ui/export/clip.py``) alike."""
    from ui.panels.teams import level_badges

    fields = model.overlay_fields(renderer, getattr(renderer, "overlay_beliefs", ()))
    badges = level_badges(model.timeline, model.cursor) if model.timeline is not None else {}
    return Overlays(**fields, show_plans=show_plans, phase=phase, badges=badges), fields


def draw_frame(renderer: WorldRenderer, surface: pygame.Surface, state: Any, overlays: Overlays,
               previous: Any = None, alpha: float = 1.0) -> None:
    """Draw ``state`` and what goes over it (badges, message bubbles) on ``surface``, laid out
    already (``renderer.layout``): the world view's frame, on screen or off."""
    renderer.draw(surface, state, previous, alpha, overlays)
    if overlays.badges:
        renderer.draw_badges(surface, state, overlays.badges)
    if overlays.messages:
        renderer.draw_messages(surface, state, overlays.messages)


_KEY_NAMES = {
    Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down", Qt.Key.Key_Left: "left", Qt.Key.Key_Right: "right",
    Qt.Key.Key_Space: "space", Qt.Key.Key_Period: "period", Qt.Key.Key_Return: "return",
    Qt.Key.Key_Enter: "return", Qt.Key.Key_Escape: "escape", Qt.Key.Key_Tab: "tab",
}


def init_pygame() -> None:
    """The parts of pygame the views use (``pygame.init()`` would also open audio)."""
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


def key_name(event: QKeyEvent) -> str | None:
    """A plain name for a key press: 'up', 'space', 'w', '3'... (None for modifiers alone)."""
    name = _KEY_NAMES.get(Qt.Key(event.key()))
    if name:
        return name
    key = event.key()
    if Qt.Key.Key_A.value <= key <= Qt.Key.Key_Z.value:
        return chr(key).lower()
    if Qt.Key.Key_0.value <= key <= Qt.Key.Key_9.value:
        return chr(key)
    return None


class WorldView(QWidget):
    #: a key press meant for the world (a human seat's action), by name
    key_pressed = pyqtSignal(str)
    #: a click on the grid: (row, column)
    cell_clicked = pyqtSignal(int, int)

    FRAME_MS = 16

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        init_pygame()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # keys go to the view, not to buttons
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 160)
        self.renderer: WorldRenderer | None = None
        self.surface: pygame.Surface | None = None
        self._view: Any = None
        self.image: QImage | None = None
        self.state: Any = None
        self.previous: Any = None
        self.overlays = Overlays()
        self.animate = True
        self.animation_seconds = 0.15
        self._anim_start = 0.0
        self._dirty = True
        self.frames_drawn = 0
        #: the state the latest frame shows (None before the first): what tests wait on before
        #: reading what the renderer drew
        self.drawn_state: Any = None
        self.copy_frames = False  # the baseline path of the benchmark: copy pixels per frame
        self._timer = QTimer(self)
        self._timer.setInterval(self.FRAME_MS)
        self._timer.timeout.connect(self._on_frame)
        self.placeholder = "Start a session (File > New session) or open a recording (File > Open)."
        #: callbacks waiting for the next frame of a state to be on screen (``after_next_frame``)
        self._after_frame: list[Any] = []

    # ------------------------------------------------------------------ API

    def set_renderer(self, renderer: WorldRenderer | None) -> None:
        self.renderer = renderer
        self.state = self.previous = None
        self._resize_surface()
        self._dirty = True
        self.update()

    def show_state(self, state: Any, previous: Any = None, animate: bool | None = None) -> None:
        """Show ``state``; animate the move from ``previous`` when asked to and it moves."""
        animate = self.animate if animate is None else animate
        moving = (animate and previous is not None and self.renderer is not None
                  and self.renderer.animates(previous, state))
        self.previous = previous if moving else None
        self.state = state
        self._anim_start = time.monotonic()
        self._dirty = True
        self._sync_timer()
        self.update()

    def set_overlays(self, overlays: Overlays) -> None:
        if overlays != self.overlays:
            self.overlays = overlays
            self._dirty = True
            self._sync_timer()
            self.update()

    def set_animation_seconds(self, seconds: float) -> None:
        self.animation_seconds = max(0.0, seconds)

    @property
    def animating(self) -> bool:
        return self.previous is not None

    def _needs_frames(self) -> bool:
        return self.animating or bool(self.overlays.thinking) or (
            self.overlays.human is not None and bool(self.overlays.legal))

    def _sync_timer(self) -> None:
        if self._needs_frames():
            # full frame rate while something moves; a calm 20 Hz for pulsing highlights
            interval = self.FRAME_MS if self.animating else 50
            if self._timer.interval() != interval:
                self._timer.setInterval(interval)
            if not self._timer.isActive():
                self._timer.start()
        else:
            self._timer.stop()

    def _on_frame(self) -> None:
        if self.previous is not None and self._alpha() >= 1:
            self.previous = None
        phase = (time.monotonic() * 0.8) % 1.0
        if self.overlays.thinking or self.overlays.human is not None:
            self.overlays = dataclasses.replace(self.overlays, phase=phase)
        self._dirty = True
        self._sync_timer()
        self.update()

    def _alpha(self) -> float:
        if self.previous is None or self.animation_seconds <= 0:
            return 1.0
        return min(1.0, (time.monotonic() - self._anim_start) / self.animation_seconds)

    # ------------------------------------------------------------------ drawing

    def _resize_surface(self) -> None:
        ratio = self.devicePixelRatioF()
        w, h = max(1, int(self.width() * ratio)), max(1, int(self.height() * ratio))
        if self.surface is None or self.surface.get_size() != (w, h):
            # A plain 32-bit surface stores pixels as 0x00RRGGBB words: Qt's RGB32.
            self.surface = pygame.Surface((w, h), 0, 32)
            self._view = self.surface.get_view("2")  # unlike get_buffer(), does not lock the surface
            self.image = QImage(self._view, w, h, self.surface.get_pitch(), QImage.Format.Format_RGB32)
            self.image.setDevicePixelRatio(ratio)
        if self.renderer is not None:
            self.renderer.layout(w, h)
        self._dirty = True

    def render_frame(self) -> None:
        """Draw the current state onto the Surface (GUI thread only)."""
        if self.surface is None:
            self._resize_surface()
        if self.renderer is None or self.state is None:
            return
        alpha = self._alpha()
        draw_frame(self.renderer, self.surface, self.state, self.overlays, self.previous if alpha < 1 else None, alpha)
        self.frames_drawn += 1
        self.drawn_state = self.state
        self._dirty = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._resize_surface()
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            if self.renderer is None or self.state is None:
                painter.fillRect(self.rect(), QColor(24, 28, 36))
                painter.setPen(QColor(200, 205, 215))
                painter.drawText(self.rect().adjusted(20, 20, -20, -20),
                                 Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.placeholder)
                return
            if self._dirty or self.animating:
                self.render_frame()
            if self.copy_frames:
                painter.drawImage(QRect(0, 0, self.width(), self.height()), self._copied_image())
            else:
                painter.drawImage(0, 0, self.image)
        finally:
            painter.end()
        if self._after_frame and self.state is not None:
            waiting, self._after_frame = self._after_frame, []
            for callback in waiting:  # after this paint returns (its pixels reach the screen first)
                QTimer.singleShot(0, callback)

    def after_next_frame(self, callback: Any, at_most_ms: int = 300) -> None:
        """Call ``callback`` once, when the next frame of a state has been painted, or after
        ``at_most_ms`` when none is (a hidden or minimised window paints nothing). Work that
        would compete with the first frame for the interpreter (reading the rest of a
        recording) starts here, so what a person opens shows first."""
        done = [False]

        def once() -> None:  # never for a view (a window) closed and deleted meanwhile
            if not done[0] and not sip.isdeleted(self):
                done[0] = True
                callback()

        self._after_frame.append(once)
        QTimer.singleShot(at_most_ms, once)

    def _copied_image(self) -> QImage:
        # The slow path measured by bench/bench_gui.py: surfarray copy -> RGB888 QImage.
        import numpy as np
        import pygame.surfarray

        arr = np.ascontiguousarray(pygame.surfarray.array3d(self.surface).swapaxes(0, 1))
        h, w, _ = arr.shape
        img = QImage(arr.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
        img.setDevicePixelRatio(self.devicePixelRatioF())
        return img

    def sizeHint(self) -> QSize:
        return QSize(960, 640)

    # ------------------------------------------------------------------ input

    def keyPressEvent(self, event: QKeyEvent) -> None:
        name = key_name(event)
        if event.isAutoRepeat() and name is not None:  # a held key is one press, not a queue of moves
            event.accept()
            return
        if name is None or event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
            return
        self.key_pressed.emit(name)
        event.accept()

    def mousePressEvent(self, event: Any) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        if self.renderer is not None and self.state is not None:
            ratio = self.devicePixelRatioF()
            pos = event.position()
            cell = self.renderer.cell_at(int(pos.x() * ratio), int(pos.y() * ratio))
            if cell is not None:
                self.cell_clicked.emit(*cell)
        super().mousePressEvent(event)
