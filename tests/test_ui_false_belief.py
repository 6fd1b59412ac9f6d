"""The false-belief scenarios in the desktop app (offscreen): each loads, draws its first frame,
plays with the app's default seats (first-order CoBel agents), and the belief panel shows the
false belief at the steps it holds and no more once it is corrected."""

from __future__ import annotations

import pytest

import ui.beliefs.panel  # noqa: F401  (registers the panel for symbolic_beliefs snapshots)
from sim.registry import load_scenario
from tests.ui_support import make_window, plan, wait_finished
from ui.beliefs.panel import BeliefWorldPanel
from ui.session.catalog import default_agent

CASES = [
    # scenario, the statement of the false belief, the steps the panel shows it held, the step it is gone
    ("false-belief-unexpected-transfer", "sally BELIEVE <ball>(1) ON <basket>(1000)", (1, 2), 3),
    ("false-belief-unexpected-contents", "sally BELIEVE <sugar>(2) IN <sugar_jar>(1001)", (1, 2, 3, 4), 5),
    ("false-belief-second-order", "anne BELIEVE bob BELIEVE <ball>(1) ON <basket>(1000)", (1, 2), 3),
]


def held(panel: BeliefWorldPanel, text: str) -> bool:
    owner = text.split(" ", 1)[0]
    return any(r.text == text and r.present and r.p is not None and r.p >= 0.5 for r in panel.rows(owner))


@pytest.mark.parametrize("name, statement, shown, gone", CASES)
def test_a_false_belief_scenario_plays_in_the_app_and_the_panel_shows_its_false_belief(
        qtbot, tmp_path, name, statement, shown, gone):
    world, _ = load_scenario(name)
    assert default_agent(world.family) == "cobel"
    window = make_window(qtbot, tmp_path)
    try:
        window.start_session(plan(name, [default_agent(world.family)] * len(world.agents)), playing=False)
        window.view.render_frame()  # the first frame
        assert window.renderer.drawn_agents == list(world.agents)
        assert window.renderer.drawn_objects == {o.id for o in world.objects}
        window.set_playing(True)
        wait_finished(qtbot, window)
        assert window.model.timeline.outcome.outcome["success"]
        panel = window.panels.panel("Beliefs")
        assert isinstance(panel, BeliefWorldPanel)
        for tick in (0, *shown, gone):
            window.model.seek(tick)
            window.panels.refresh(force=True)
            window.view.render_frame()
            assert held(panel, statement) == (tick in shown), (tick, [r.text for r in panel.rows("anne")])
        if name == "false-belief-second-order":  # a belief about a belief, marked between the two minds
            window.model.seek(2)
            window.panels.refresh(force=True)
            row = next(r for r in panel.rows("anne") if r.text == statement)
            assert row.between == ["anne believes bob believes <ball>(1) ON <basket>(1000); bob does not"]
    finally:
        window.shutdown()
