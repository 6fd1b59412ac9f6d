"""A scripted two-pair mini study, end to end: each pair joins a host on loopback, plays its trials
in the drawn (Latin square) order with key presses, answers the questionnaires, and the study folder's
analysis states n and the unit."""

from __future__ import annotations

import csv

import pytest
from PyQt6.QtNetwork import QHostAddress

from main import main
from study.design import draw_trials, load_study
from tests.study_support import ITEMS, Participant, play_study, wait, write_study
from ui.net.host import StudyHost


@pytest.mark.slow
def test_two_pair_mini_study_end_to_end(qtbot, tmp_path, capsys):
    path = write_study(tmp_path, max_ticks=4, tutorial=False, order="latin_square")
    study = load_study(path)
    out = tmp_path / "study"
    for pair in (1, 2):
        host = StudyHost(study, path, out, port=0, address=QHostAddress(QHostAddress.SpecialAddress.LocalHost),
                         codes=(f"{pair}111-1111", f"{pair}222-2222"))
        try:
            assert host.pair == pair
            assert [(t.condition, t.scenario) for t in host.trials] == \
                [(t.condition, t.scenario) for t in draw_trials(study, pair)]
            people = [Participant(qtbot, host.port, f"{pair}111-1111"), Participant(qtbot, host.port, f"{pair}222-2222")]
            wait(qtbot, lambda people=people: all(p.client.welcome is not None for p in people))
            reveals: list[tuple] = []
            games = play_study(qtbot, people, [{i: 6 for i in ITEMS}, {i: 3 + pair for i in ITEMS}], reveals=reveals)
            assert games == study.trials
            wait(qtbot, lambda host=host: host.finished)
            # each seat's board was the app's own kitchen view, drawn with that seat's eyes
            for p in people:
                view = p.window.game.view
                assert type(view.renderer).__name__ == "KitchenRenderer" and view.overlays.viewer == p.frame_seat()
            # every reveal shows both players' outcomes, in the same words on both screens
            assert len(reveals) == study.trials
            for shown in reveals:
                assert shown[0]["outcomes"] == shown[1]["outcomes"] and len(shown[0]["outcomes"]) == 2
                assert all(line in page["text"] for page in shown for line in shown[0]["outcomes"])
        finally:
            host.shutdown()
    # the Latin square: the two pairs play the conditions in opposite orders
    orders = [[t.condition for t in draw_trials(study, p)] for p in (1, 2)]
    assert orders[0] == orders[1][::-1]

    with open(out / "answers.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 * 2 * len(ITEMS)  # two pairs, two participants, one facilitated trial each
    assert len({r["participant"] for r in rows}) == 4 and {r["pair"] for r in rows} == {"pair-01", "pair-02"}

    capsys.readouterr()
    assert main(["study", "analyze", str(out)]) == 0
    report = capsys.readouterr().out
    assert "n = 2 pairs" in report and "n = 4 participants" in report and "unit of replication" in report
    assert "| ProToM | helpful | 5.25 ± 0.48 | 4 | participants |" in report
    for name in ("report.md", "summary.csv", "tests.csv", "trials.csv", "figure.png"):
        assert (out / "analysis" / name).stat().st_size > 0
    with open(out / "analysis" / "trials.csv", newline="", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == 4
