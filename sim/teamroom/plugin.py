"""The team room: everything the family brings, in one declaration."""

from sim.plugins import WorldPlugin, lazy

PLUGIN = WorldPlugin(
    name="teamroom",
    title="Team room",
    validate=lazy("sim.teamroom.scenario:validate_room"),
    build=lazy("sim.teamroom.world:build_room"),
    rules_text=(
        "Programming: each round the project manager assigns the functions of a small Python task to the "
        "engineers and says what to do; then every engineer submits code or sits the round out. The room runs "
        "each function's hidden tests on the submitted code in a sandbox; pass@1 is the share of functions whose "
        "first submission passes. Debate: the affirmative and the negative side speak in turn for a few rounds "
        "(each debater speaks or sits out), then the judge scores both sides from 0 to 10."),
    default_agent="room-scripted",
    default_mechanisms=("teams:round_steps=2",),
    renderer="ui.teamroom.renderer:TeamRoomRenderer",
    categories=(("programming", "programming projects"), ("debate", "debates")),
    default_category="programming",
)
