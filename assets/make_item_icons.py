"""Write the TradeCraft item icons to assets/items/<namespace>/<item>.png (16x16 pixel art).

    .venv/bin/python assets/make_item_icons.py [--rules NAME_OR_FOLDER ...] [--out DIR]

The drawings are made for this project, from each item's name, by ``ui/tradecraft/icons.py``
(default: every item of the shipped rule sets, minecraft and alchemy). The board prefers these
files to drawing, so an icon can be redrawn by hand: replace its PNG (16x16 is enlarged in
whole pixels; other sizes are scaled smoothly). Items without a file are drawn at run time.
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

from ui.tradecraft.icons import pixel_art  # noqa: E402


def write_icons(rule_sets: list[str], out: Path) -> list[Path]:
    from sim.tradecraft.instance import rules_folder
    from sim.tradecraft.rules import load_ruleset

    pygame.display.init()
    written = []
    for name in rule_sets:
        rules = load_ruleset(rules_folder(name))
        for item in sorted(rules.items):
            namespace, _, short = item.rpartition(":")
            path = out / (namespace or "_") / f"{short}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            pygame.image.save(pixel_art(item), str(path))
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", action="append", metavar="NAME_OR_FOLDER",
                        help="rule set (shipped name, rule-set folder or datapack); repeatable "
                             "(default: minecraft and alchemy)")
    parser.add_argument("--out", default=str(HERE / "items"), help="output folder (default assets/items)")
    args = parser.parse_args(argv)
    files = write_icons(args.rules or ["minecraft", "alchemy"], Path(args.out))
    print(f"wrote {len(files)} icons to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
