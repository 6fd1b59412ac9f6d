"""The partially observable kitchen: everything the family brings, in one declaration."""

from sim.plugins import ReadOption, WorldPlugin, lazy

_read_kitchen = lazy("sim.kitchen.level:read_kitchen_file")
_read_gym_cooking = lazy("sim.kitchen.level:read_gym_cooking_file")
_read_layout = lazy("sim.kitchen.overcooked:read_layout_file")

PLUGIN = WorldPlugin(
    name="kitchen",
    title="Kitchen (partially observable Overcooked)",
    validate=lazy("sim.kitchen.level:validate_kitchen"),
    build=lazy("sim.kitchen.world:build_kitchen"),
    rules_text=(
        "Cooks chop ingredients, put them on plates and deliver the dishes: in ProToM's levels each cook "
        "has its own goal dish (SimpleTomato, SimpleLettuce or SimpleOnion), in gym-cooking's levels the "
        "cooks share a list of orders. All cooks move at the same "
        "time, one cell up, down, left or right, or stay. Walking into a counter picks up what lies "
        "there or puts down what you hold; walking into a cutting board with a fresh ingredient chops "
        "it; walking into a plate with a chopped ingredient (or into a chopped ingredient with a plate) "
        "makes the dish; walking into the delivery station with your dish delivers it. You hold one "
        "object at a time and cannot hand it over: leave it on a counter your partner can reach. You "
        "see only the room you are in. The episode succeeds when every cook has delivered, and fails "
        "after 100 ticks. On gym-cooking's own levels the cooks share a list of orders instead: any cook "
        "delivers any dish, chopped foods merge with each other and one plate (a Salad is chopped lettuce and "
        "tomato on a plate), and the episode succeeds when every order is delivered."),
    readers={".kitchen.txt": _read_kitchen, ".gym-cooking.txt": _read_gym_cooking, ".layout": _read_layout},
    formats={"kitchen": _read_kitchen, "gym-cooking": _read_gym_cooking, "overcooked-ai": _read_layout},
    recognise=lazy("sim.kitchen.level:recognise_level"),
    read_options=(ReadOption("cooks", ("gym-cooking",),
                             what="sets how many cooks play a gym-cooking level (its file gives start positions, "
                                  "not cooks)",
                             refusal="names its own cooks"),),
    default_agent="kitchen-heuristic",
    app_agent="kitchen-heuristic",
    default_mechanisms=("protom",),
    renderer="ui.render.overcooked:KitchenView",
    beliefs="ui.render.kitchen_beliefs:KitchenBeliefs",
    panels=("ui.beliefs.particles:ParticlesPanel",),
    feedback_progress="agents.kitchen.feedback:feedback_progress",
    methods={"protom": "agents.protom.kitchen:KitchenAdapter",
             "llm": "agents.llm.kitchen:KitchenLLM",
             "teams": "agents.teams.tom_kitchen:TEAM_PLAY"},
    categories=(("necessary", "feedback necessary"), ("useful", "feedback useful"),
                ("not_needed", "feedback not needed")),
    default_category="necessary",
)
