"""Doors, Keys and Gems: everything the family brings, in one declaration."""

from sim.plugins import WorldPlugin, lazy

PLUGIN = WorldPlugin(
    name="dkg",
    title="Doors, Keys and Gems",
    validate=lazy("sim.dkg.scenario:validate_dkg"),
    build=lazy("sim.dkg.world:DKGWorld"),
    rules_text=(
        "Each agent wants one gem. Agents take turns; on its turn an agent moves one cell up, down, "
        "left or right, waits, picks up a key it stands on, unlocks an adjacent door of the key's "
        "colour (the key is used up), or hands a key to an agent next to it (not on its cell). A gem "
        "is taken by picking it up. The episode succeeds when every agent with a goal holds its gem "
        "(a helper has no gem of its own), and fails at the tick limit. Keys and doors are shared, "
        "so one agent's key can free another."),
    readers={".pddl": lazy("sim.dkg.reference:read_pddl_scenario")},  # a reference problem file plays as it is
    default_agent="planner",
    app_agent="boltzmann",
    default_mechanisms=("protom",),
    renderer="ui.render.dkg:DKGRenderer",
    beliefs="ui.render.dkg_beliefs:DKGBeliefs",
    feedback_progress="agents.dkg.agents:feedback_progress",
    methods={"protom": "agents.protom.dkg:DKGAdapter",
             "llm": "agents.llm.dkg:DKGLLM",
             "teams": "agents.teams.tom_dkg:TEAM_PLAY"},
    categories=(("necessary", "feedback necessary"), ("useful", "feedback useful"),
                ("not_needed", "feedback not needed")),
    default_category="necessary",
)
