"""Screenshots of team formation in the app for the documentation, taken with the real app on a
private Xvfb display.

    .venv/bin/python -m ui.shots.teams [OUT_DIR]        (default docs/screenshots)

Seven agents in ``team-04-seven`` (Doors, Keys and Gems): six k-level ToM planners
(``tom-planner:k=cycle``, levels 0/1/2 by turn order) and a person who plays ``ben`` (here by
the planner's moves towards ben's gem, sent as the keys would), with the ``teams`` mechanism
(one round = 6 steps, teams of ceil(n/2)). Taken after the team re-formed:

- ``teams.png``: the map with the ToM-level badges in the team's colour, and the Alignment tab;
- ``teams-timeline.png``: the Teams tab (membership, numbered re-formations with their reasons,
  the monitor's misaligned share against theta);
- ``teams-stability.png``: the Team stability tab (welfare, stability, BAS, the monitor, each
  agent's team, level and scores, the team lifetimes);
- ``teams-rating.png``: then ben rates the others (``RATINGS``) in the Alignment tab's rating
  strip, the episode goes on past the end of the next round, and the strip is unfolded (Ctrl+R)
  above the matrix with ben's row from those ratings.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ui.shots.common import _settle, _wait, shot_window, shots_main

SCENARIO = "team-04-seven"
PERSON = "ben"
STEPS = 42
#: ben's answers to "did they act as you expected?" in teams-rating.png (1 not at all ... 5 exactly)
RATINGS = {"eli": 4, "gus": 5, "ada": 4, "cai": 5, "fay": 2, "dot": 2}


def take(out: Path) -> list[Path]:
    from PyQt6.QtCore import Qt

    from agents.dkg.agents import goal_task, planner_for
    from sim.registry import load_scenario
    from ui.session.catalog import SessionPlan

    app, window = shot_window("tom-arena-teams-shots-", (1358, 728), speed=16.0)  # as a 1366 x 768 screen fits it
    world, name = load_scenario(SCENARIO)
    seats = {a: "tom-planner:k=cycle,horizon=3" for a in world.agents}
    seats[PERSON] = "human"
    window.fill_setup()
    window.setup.select_scenario(name)
    window.start_session(SessionPlan(world=world, scenario=name, seats=seats,
                                     mechanisms=("teams:round_steps=6,max_size=eta",), seed=0))
    planner = planner_for(world)
    index = world.agent_index[PERSON]

    def play_to(steps: int) -> None:
        while window.model.timeline.num_steps < steps and window.model.timeline.outcome is None:
            if window.model.human_to_move() != PERSON:
                _settle(app, 0.02)
                continue
            state = window.model.timeline.state_at(window.model.cursor)
            plan = planner.plan(state, index, goal_task(world, PERSON))
            action = planner.first_action(state, index, plan) or "wait"
            legal = world.legal_actions(state, PERSON)
            before = window.model.timeline.num_steps
            window.model.runner.submit_human(PERSON, action if action in legal else "wait")
            if not _wait(app, lambda before=before: window.model.timeline.num_steps > before, 20):
                raise RuntimeError(f"the episode did not advance after step {before}")

    play_to(STEPS)
    window.set_playing(False)
    _wait(app, lambda: window.model.cursor == window.model.timeline.num_steps, 10)
    window.panels.refresh(force=True)
    window.setup_dock.hide()
    window.feedback_dock.hide()  # no facilitator here: room for the team panels
    window.resizeDocks([window.minds_dock], [520], Qt.Orientation.Horizontal)
    window.resizeDocks([window.minds_dock, window.log_dock], [640, 150], Qt.Orientation.Vertical)
    out.mkdir(parents=True, exist_ok=True)
    shots = []

    def grab(file: str, tab: str) -> None:
        window.panels.tabs.setCurrentWidget(window.panels.widgets[tab])
        window.panels.refresh(force=True)
        _settle(app, 0.6)
        path = out / file
        window.screen().grabWindow(0, 0, 0, window.frameGeometry().width(),
                                   window.frameGeometry().height()).save(str(path))
        shots.append(path)

    grab("teams.png", "Alignment")
    grab("teams-timeline.png", "Teams")
    grab("teams-stability.png", "Team stability")
    # the person's own alignment scores: ben rates the others in the rating strip, the episode
    # goes on past the end of the next round (when the seat reports them), the strip unfolded
    strip = window.panels.panel("Alignment").ratings
    for other, rating in RATINGS.items():
        strip.rate(other, rating, advance=True)
    window.set_playing(True)
    play_to(STEPS + 6)
    window.set_playing(False)
    _wait(app, lambda: window.model.cursor == window.model.timeline.num_steps, 10)
    window.human.focus_ratings()
    grab("teams-rating.png", "Alignment")
    window.shutdown()
    window.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    return shots_main("ui.shots.teams", take, argv)


if __name__ == "__main__":
    sys.exit(main())
