"""Clips of recordings (``python main.py export``, File > Export clip…): frames drawn offscreen by
the app's renderer in the chosen view, written as a GIF with Pillow; checked by reading the GIF
back with Pillow."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

import main
from ui.export import clip as export


def record(tmp_path: Path, scenario: str, agents: list[str]) -> Path:
    out = tmp_path / "runs"
    assert main.main(["run", scenario, "--agents", *agents, "--out", str(out), "--quiet"]) == 0
    (path,) = sorted(out.glob("*.jsonl*"))
    return path


@pytest.fixture(scope="module")
def sally(tmp_path_factory) -> Path:
    """A recorded Sally-Anne episode: CoBel minds that report what they believe."""
    return record(tmp_path_factory.mktemp("sally"), "false-belief-unexpected-transfer", ["cobel"])


def frames_of(path: Path) -> list[Image.Image]:
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        out = []
        for k in range(gif.n_frames):
            gif.seek(k)
            out.append(gif.convert("RGB"))
        return out


def test_export_writes_a_gif_of_the_chosen_steps_in_the_chosen_view(tmp_path, sally):
    timeline = export.load_timeline(sally)
    assert "As sally believes it" in export.view_names(timeline)
    out = tmp_path / "clip.gif"
    clip = export.export_clip(sally, out, first=1, last=4, view="As sally believes it", size=(480, 320), fps=5)
    assert (clip.frames, clip.size, clip.view) == (4, (480, 320), "As sally believes it")
    pictures = frames_of(out)
    assert len(pictures) == 4 and all(p.size == (480, 320) for p in pictures)
    with Image.open(out) as gif:
        assert gif.info["duration"] == 200 and gif.info.get("loop") == 0
    # the believed view is not the world as it is: the ball sally thinks is on the basket is drawn
    plain = tmp_path / "plain.gif"
    export.export_clip(sally, plain, first=1, last=4, size=(480, 320), fps=5)
    assert any(ImageChops.difference(a, b).getbbox() for a, b in zip(pictures, frames_of(plain)))


def test_export_draws_each_step_as_the_app_draws_it(tmp_path, sally):
    """A frame's map is what the app's renderer draws at that step, with the app's overlays."""
    import pygame

    from ui.render import renderer_for
    from ui.render.worldview import draw_frame, map_overlays

    timeline = export.load_timeline(sally)
    model = export.replay_model(timeline)
    export.choose_view(model, "As anne believes it")
    (picture,) = export.frames(model, 2, 2, (400, 300), "As anne believes it")
    # the same step drawn directly, as the world view draws a frame
    model.seek(2)
    renderer = renderer_for(timeline.world)
    high = export.map_height(300)
    assert 250 < high < 300  # a caption line under the map
    surface = pygame.Surface((400, high), 0, 32)
    renderer.layout(400, high)
    draw_frame(renderer, surface, timeline.state_at(2), map_overlays(model, renderer, show_plans=True)[0])
    direct = Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))
    assert ImageChops.difference(picture.crop((0, 0, 400, high)), direct).getbbox() is None


def test_the_export_command_writes_a_whole_recording(tmp_path, capsys):
    path = record(tmp_path, "two-rooms", ["planner"])
    out = tmp_path / "all.gif"
    assert main.main(["export", str(path), "--out", str(out), "--size", "320x240", "--view", "alice's eyes"]) == 0
    steps = export.load_timeline(path).num_steps
    assert len(frames_of(out)) == steps + 1
    assert f"{steps + 1} frames of 320x240, alice's eyes" in capsys.readouterr().out


def test_export_refuses_what_it_cannot_write_in_one_line(tmp_path, sally, capsys):
    out = str(tmp_path / "clip.gif")
    assert main.main(["export", str(sally), "--out", out, "--view", "As bob believes it"]) == 2
    said = capsys.readouterr().err
    assert "--view 'As bob believes it': this recording has no such view" in said and '"As sally believes it"' in said
    assert main.main(["export", str(sally), "--out", out, "--from", "5", "--to", "2"]) == 2
    assert "--to 2: expected a step from 5" in capsys.readouterr().err
    assert main.main(["export", str(sally), "--out", str(tmp_path / "clip.avi")]) == 2
    assert "expected a file name ending in .gif or .mp4" in capsys.readouterr().err
    assert main.main(["export", str(tmp_path / "none.jsonl"), "--out", out]) == 2
    assert "cannot open" in capsys.readouterr().err
    assert not Path(out).exists()


def test_mp4_says_which_package_is_missing(tmp_path, sally, monkeypatch):
    monkeypatch.setattr(export, "mp4_missing", lambda: ["imageio-ffmpeg"])
    with pytest.raises(export.ExportError, match="writing MP4 needs the Python package.s. imageio-ffmpeg"):
        export.export_clip(sally, tmp_path / "clip.mp4")


@pytest.mark.skipif(bool(export.mp4_missing()), reason="imageio and imageio-ffmpeg are not installed")
def test_export_writes_an_mp4(tmp_path, sally):
    import imageio.v3 as iio

    out = tmp_path / "clip.mp4"
    clip = export.export_clip(sally, out, first=0, last=5, view="As sally believes it", size=(480, 320))
    assert clip.frames == 6
    assert iio.improps(out).shape[1:3] == (320, 480)


def test_file_export_clip_writes_the_shown_episode(qtbot, tmp_path, sally):
    from ui_support import open_window

    from ui.export.dialog import open_export_dialog

    with open_window(qtbot, tmp_path) as window:
        assert window.open_recording(sally)
        window.model.set_believed(("sally", None))
        window.model.seek(2)
        dialog = open_export_dialog(window)
        assert dialog.view.currentText() == "As sally believes it" and dialog.first.value() == 2
        dialog.last.setValue(3)
        dialog.path.setText(str(tmp_path / "from-the-app.gif"))
        result = dialog.write()
        assert result is not None and result.frames == 2
        assert len(frames_of(tmp_path / "from-the-app.gif")) == 2
        assert "from-the-app.gif" in window.statusBar().currentMessage()
