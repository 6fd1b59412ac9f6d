"""``python main.py study analyze DIR``: the command of ``experiments.study_analysis`` (imported only
when it runs, so the command line starts fast)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(actions: argparse._SubParsersAction) -> None:
    """``study analyze DIR [--out DIR]`` among the ``study`` actions (``ui.net.cli.add_parser``)."""
    analyze = actions.add_parser("analyze", help="success, speedup, feedback and ratings per condition",
                                 description="Analyse a study folder: per condition success, speedup, feedback and "
                                             "ignored feedback (the pair is the unit) and the questionnaire items "
                                             "(the participant is the unit), paired tests with effect sizes and "
                                             "intervals, report.md, CSV tables and figure.png (docs/study.md).")
    analyze.add_argument("folder", metavar="DIR", help="a study folder written by 'study host'")
    analyze.add_argument("--out", metavar="DIR", help="where the analysis goes (default DIR/analysis)")
    analyze.set_defaults(func=cmd_study_analyze)


def cmd_study_analyze(args: argparse.Namespace) -> int:
    from experiments.study_analysis import analyze_study
    from sim.inputs import InputError
    from study.design import StudyError

    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"error: {folder}: not a folder; expected a study folder written by 'python main.py study host'",
              file=sys.stderr)
        return 2
    try:
        result = analyze_study(folder, Path(args.out) if args.out else None)
    except (StudyError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(Path(result["report"]).read_text(encoding="utf-8"))
    print(f"written: {Path(result['report']).parent}")
    return 0
