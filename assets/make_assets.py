"""Write the sprites and icons of ToM Arena to assets/sprites/ as PNG files.

    .venv/bin/python assets/make_assets.py [--size 128]

The drawings are made for this project, procedurally, by ``ui/render/sprites.py``; the
world view draws them at the tile size it needs and prefers these files when present
(scaled from 128 px). Run this again after changing a drawing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from ui.render import sprites  # noqa: E402


def app_icon(size: int) -> pygame.Surface:
    """The window icon: two agents and a gem on a dark tile."""
    icon = pygame.Surface((size, size), pygame.SRCALPHA)
    pygame.draw.rect(icon, (*sprites.WALL, 255), (0, 0, size, size), border_radius=size // 6)
    half = size // 2
    icon.blit(sprites.agent_sprite(half, sprites.agent_color(0)), (size // 16, size // 3))
    icon.blit(sprites.agent_sprite(half, sprites.agent_color(1)), (size // 2 - size // 16, size // 3))
    icon.blit(sprites.gem_sprite(half, sprites.ITEM_COLORS["yellow"]), (size // 4, 0))
    return icon


def write_all(out: Path, size: int) -> list[Path]:
    pygame.display.init()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in sprites.sprite_names().items():
        path = out / f"{name}.png"
        pygame.image.save(draw(size), str(path))
        written.append(path)
    path = out / "icon.png"
    pygame.image.save(app_icon(size), str(path))
    written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=128, help="pixels per side (default 128)")
    parser.add_argument("--out", default=str(HERE / "sprites"), help="output folder (default assets/sprites)")
    args = parser.parse_args(argv)
    files = write_all(Path(args.out), args.size)
    print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
