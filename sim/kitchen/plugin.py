"""The partially observable kitchen: everything the family brings, in one declaration."""

from typing import Any

from sim.kitchen.level import read_gym_cooking_file, read_kitchen_file, recognise_level, validate_kitchen
from sim.kitchen.overcooked import RULES_NAME, OvercookedWorld, read_layout_file
from sim.kitchen.world import KitchenWorld
from sim.plugins import ReadOption, WorldPlugin
from sim.world import World


def build_kitchen(spec: dict[str, Any]) -> World:
    """The kitchen of ``spec``: under overcooked_ai's rules (``rules: overcooked``) or ours."""
    return OvercookedWorld(spec) if spec.get("rules") == RULES_NAME else KitchenWorld(spec)


PLUGIN = WorldPlugin(
    name="kitchen",
    title="Kitchen (partially observable Overcooked)",
    validate=validate_kitchen,
    build=build_kitchen,
    rules_text=(
        "Each cook has a goal dish: SimpleTomato, SimpleLettuce or SimpleOnion. Both move at the same "
        "time, one cell up, down, left or right, or stay. Walking into a counter picks up what lies "
        "there or puts down what you hold; walking into a cutting board with a fresh ingredient chops "
        "it; walking into a plate with a chopped ingredient (or into a chopped ingredient with a plate) "
        "makes the dish; walking into the delivery station with your dish delivers it. You hold one "
        "object at a time and cannot hand it over: leave it on a counter your partner can reach. You "
        "see only the room you are in. The episode succeeds when every cook has delivered, and fails "
        "after 100 ticks. On gym-cooking's own levels the cooks share a list of orders instead: any cook "
        "delivers any dish, chopped foods merge with each other and one plate (a Salad is chopped lettuce and "
        "tomato on a plate), and the episode succeeds when every order is delivered."),
    readers={".kitchen.txt": read_kitchen_file, ".gym-cooking.txt": read_gym_cooking_file,
             ".layout": read_layout_file},
    formats={"kitchen": read_kitchen_file, "gym-cooking": read_gym_cooking_file,
             "overcooked-ai": read_layout_file},
    recognise=recognise_level,
    read_options=(ReadOption("cooks", ("gym-cooking",),
                             what="sets how many cooks play a gym-cooking level (its file gives start positions, "
                                  "not cooks)",
                             refusal="names its own cooks"),),
    default_agent="kitchen-heuristic",
    app_agent="kitchen-heuristic",
    default_mechanisms=("protom",),
    renderer="ui.render.overcooked:KitchenView",
    panels=("ui.particles:ParticlesPanel",),
    feedback_progress="agents.kitchen.feedback:feedback_progress",
    methods={"protom": "agents.protom.kitchen:KitchenAdapter",
             "llm": "agents.llm.kitchen:KitchenLLM",
             "teams": "agents.teams.tom_kitchen:TEAM_PLAY"},
    categories=(("necessary", "feedback necessary"), ("useful", "feedback useful"),
                ("not_needed", "feedback not needed")),
    default_category="necessary",
)
