"""Clips of a recording, for slides: ``python main.py export RECORDING --out clip.gif|.mp4
[--from N --to M --view VIEW]`` and the app's File > Export clip….

Each frame is drawn offscreen by the renderer the app uses, with what the app draws over the map
at that step (``ui.render.worldview.map_overlays``, ``draw_frame``) in the chosen view: the world as it
is, a seat's eyes (fog of war), or as a mind believes it ("As sally believes it"). A GIF is
written with Pillow; an MP4 with imageio and its ffmpeg wheel (``imageio-ffmpeg``), when they
are installed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

#: the clip formats by file name ending
FORMATS = (".gif", ".mp4")
#: the picture size of a clip unless one is given (the world view's own default size)
DEFAULT_SIZE = (960, 640)
#: the smallest and largest side of a clip's picture, in pixels
MIN_SIDE, MAX_SIDE = 120, 3840
#: steps shown per second unless another rate is given
DEFAULT_FPS = 4.0
#: the view names that draw the world as it is, from above (everything)
AS_IT_IS = ("the world as it is", "world", "everything", "all")


class ExportError(ValueError):
    """A clip that cannot be written; the message says why and what to do."""


@dataclass(frozen=True)
class ClipResult:
    path: Path
    frames: int
    size: tuple[int, int]
    view: str
    seconds: float


def view_names(timeline: Any) -> list[str]:
    """Every view a clip of ``timeline`` can draw: the world as it is, each seat's eyes, and each
    *As X believes it* view its minds report (``ui.beliefs.view.view_choices``)."""
    from ui.beliefs.view import view_choices

    return ["the world as it is", *(f"{a}'s eyes" for a in timeline.world.agents),
            *(c.label for c in view_choices(timeline))]


def choose_view(model: Any, view: str | None) -> str:
    """Set the app model's view to ``view`` (a name of ``view_names``, any case; a seat's name
    alone means its eyes); returns the view's name, or raises ExportError listing the choices."""
    from ui.beliefs.view import view_choices

    timeline = model.timeline
    wanted = " ".join((view or "").split()).casefold()
    if not wanted or wanted in AS_IT_IS:
        model.set_viewer("all")
        model.set_believed(None)
        return "the world as it is"
    for agent in timeline.world.agents:
        if wanted in (agent.casefold(), f"{agent}'s eyes".casefold()):
            model.set_viewer(agent)
            model.set_believed(None)
            return f"{agent}'s eyes"
    for choice in view_choices(timeline):
        if wanted == choice.label.casefold():
            model.set_viewer("auto")
            model.set_believed((choice.holder, choice.about))
            return choice.label
    names = "; ".join(f'"{name}"' for name in view_names(timeline))
    raise ExportError(f"--view {view!r}: this recording has no such view; expected one of {names}")


def load_timeline(path: str | Path) -> Any:
    """The recording at ``path`` as the app shows it (raises ExportError with the reason)."""
    from ui.session.controllers import LOAD_ERRORS, RecordingLoader

    try:
        return RecordingLoader.load(Path(path))
    except LOAD_ERRORS as exc:
        raise ExportError(f"cannot open {path}: {exc}") from None


def replay_model(timeline: Any) -> Any:
    """An app model showing ``timeline`` with the seats its header names (as the window shows a replay)."""
    from ui.session.controllers import spec_from_description
    from ui.session.model import AppModel

    model = AppModel()
    family = timeline.world.family
    model.describe_seats(
        {a: spec_from_description(d, family) for a, d in (timeline.header.get("seats") or {}).items()},
        tuple(filter(None, (spec_from_description(d, family) for d in timeline.header.get("mechanisms") or []))))
    model.show(timeline)
    return model


def frames(model: Any, first: int, last: int, size: tuple[int, int], view: str,
           show_plans: bool = True) -> Iterator[Any]:
    """The steps ``first``..``last`` of the model's timeline in its view, as RGB Pillow images of
    ``size``: the map as the app draws it, and under it a caption line (the step, the view, the
    score), so that a viewer of the clip knows where it is (and no two frames are alike)."""
    import pygame
    from PIL import Image

    from ui.render import renderer_for
    from ui.render.worldview import draw_frame, init_pygame, map_overlays

    init_pygame()
    timeline = model.timeline
    renderer = renderer_for(timeline.world)
    width, height = size
    font = caption_font(height)
    caption_h = font.get_linesize() + 6
    surface = pygame.Surface((width, height), 0, 32)
    world_area = surface.subsurface((0, 0, width, height - caption_h))
    renderer.layout(width, height - caption_h)
    for tick in range(first, last + 1):
        model.seek(tick)
        state = timeline.state_at(tick)
        overlays, _fields = map_overlays(model, renderer, show_plans=show_plans)
        draw_frame(renderer, world_area, state, overlays)
        surface.fill((24, 28, 36), (0, height - caption_h, width, caption_h))
        words = f"step {tick} / {timeline.num_steps}  ·  {view}"
        status = renderer.status_text(state)
        if status:
            words += f"  ·  {status}"
        text = font.render(words, True, (225, 228, 235))
        surface.blit(text, (8, height - caption_h + (caption_h - text.get_height()) // 2))
        yield Image.frombytes("RGB", (width, height), pygame.image.tobytes(surface, "RGB"))


def caption_font(height: int) -> Any:
    """The font of the caption under a clip's map (pygame initialized)."""
    import pygame

    return pygame.font.Font(None, max(14, min(24, height // 24)))


def map_height(height: int) -> int:
    """The height of the map in a frame ``height`` pixels tall (the caption takes the rest)."""
    from ui.render.worldview import init_pygame

    init_pygame()
    return height - caption_font(height).get_linesize() - 6


def check_request(out: str | Path, size: tuple[int, int], fps: float) -> str:
    """The clip's format (".gif" or ".mp4") when ``out``, ``size`` and ``fps`` can be written, else ExportError."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(f"--out {out}: expected a file name ending in .gif or .mp4")
    width, height = size
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ExportError(f"--size {width}x{height}: expected each side from {MIN_SIDE} to {MAX_SIDE} pixels")
    if not 0.1 <= fps <= 60:
        raise ExportError(f"--fps {fps:g}: expected 0.1 to 60 steps per second")
    if suffix == ".mp4":
        missing = mp4_missing()
        if missing:
            raise ExportError(f"--out {out}: writing MP4 needs the Python package(s) {', '.join(missing)}, not "
                              "installed here; write a GIF (--out clip.gif) or install them")
        if width % 2 or height % 2:
            raise ExportError(f"--size {width}x{height}: an MP4's sides must be even numbers of pixels")
    return suffix


def mp4_missing() -> list[str]:
    """The packages writing an MP4 needs that cannot be imported here (none: it can be written)."""
    import importlib.util

    return [package for package, module in (("imageio", "imageio"), ("imageio-ffmpeg", "imageio_ffmpeg"))
            if importlib.util.find_spec(module) is None]


def export_clip(recording: str | Path, out: str | Path, *, first: int = 0, last: int | None = None,
                view: str | None = None, size: tuple[int, int] = DEFAULT_SIZE, fps: float = DEFAULT_FPS,
                show_plans: bool = True, timeline: Any = None,
                progress: Callable[[int, int], Any] | None = None) -> ClipResult:
    """Write the steps ``first``..``last`` (default: to the end) of ``recording`` as a GIF or an
    MP4 at ``out`` (by its name), drawn in ``view`` (``view_names``), ``fps`` steps a second.
    ``timeline``: the recording already loaded (the app's); ``progress(done, total)`` after each
    frame. Raises ExportError naming what cannot be done."""
    started = time.perf_counter()
    suffix = check_request(out, size, fps)
    timeline = timeline if timeline is not None else load_timeline(recording)
    steps = timeline.num_steps
    last = steps if last is None else last
    if not 0 <= first <= steps:
        raise ExportError(f"--from {first}: expected a step from 0 to {steps} (the recording's last)")
    if not first <= last <= steps:
        raise ExportError(f"--to {last}: expected a step from {first} (--from) to {steps} (the recording's last)")
    model = replay_model(timeline)
    chosen = choose_view(model, view)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    total = last - first + 1
    pictures = frames(model, first, last, size, chosen, show_plans)
    if suffix == ".gif":
        written = _write_gif(out, pictures, fps, total, progress)
    else:
        written = _write_mp4(out, pictures, fps, total, progress)
    return ClipResult(out, written, size, chosen, time.perf_counter() - started)


def _tick(progress: Callable[[int, int], Any] | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


def _write_gif(out: Path, pictures: Iterator[Any], fps: float, total: int,
               progress: Callable[[int, int], Any] | None) -> int:
    from PIL import Image

    shown = []
    for k, picture in enumerate(pictures, start=1):
        # one palette per frame, fitted to its colours; frames reuse the first's where they can
        shown.append(picture.convert("P", palette=Image.Palette.ADAPTIVE, colors=256))
        _tick(progress, k, total)
    partial = out.with_name(out.name + ".part")
    shown[0].save(partial, format="GIF", save_all=True, append_images=shown[1:], duration=round(1000 / fps),
                  loop=0, optimize=False, disposal=1)
    os.replace(partial, out)
    return len(shown)


def _write_mp4(out: Path, pictures: Iterator[Any], fps: float, total: int,
               progress: Callable[[int, int], Any] | None) -> int:
    import imageio.v2 as imageio
    import numpy

    partial = out.with_name(out.name + ".part.mp4")
    written = 0
    writer = imageio.get_writer(str(partial), format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                macro_block_size=2, pixelformat="yuv420p")
    try:
        for picture in pictures:
            writer.append_data(numpy.asarray(picture))
            written += 1
            _tick(progress, written, total)
    finally:
        writer.close()
    os.replace(partial, out)
    return written


def parse_size(text: str) -> tuple[int, int]:
    """``"960x640"`` -> (960, 640); ExportError otherwise."""
    width, sep, height = text.lower().partition("x")
    if not sep or not width.strip().isdigit() or not height.strip().isdigit():
        raise ExportError(f"--size {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 960x640")
    return int(width), int(height)


def cli(recording: str, out: str, first: int, last: int | None, view: str | None, size: str, fps: float,
        plans: bool = True) -> int:
    """``python main.py export``: 0 when written, else 2 with one line on stderr."""
    import sys

    try:
        clip = export_clip(recording, out, first=first, last=last, view=view, size=parse_size(size), fps=fps,
                           show_plans=plans)
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {clip.path}: {clip.frames} frames of {clip.size[0]}x{clip.size[1]}, {clip.view}, "
          f"{fps:g} steps/s, in {clip.seconds:.1f} s")
    return 0
