"""The household world: everything the family brings, in one declaration."""

from sim.household.categories import CATEGORIES
from sim.plugins import WorldPlugin, lazy

PLUGIN = WorldPlugin(
    name="household",
    title="Household (transport and household tasks)",
    validate=lazy("sim.household.scenario:validate_household"),
    build=lazy("sim.household.world:HouseholdWorld"),
    rules_text=(
        "Agents share a house of rooms joined by doors. Each has two hands; it walks to rooms, explores "
        "a room to see what is in it (closed receptacles such as the fridge hide their contents), grabs "
        "objects, opens and closes receptacles, puts objects onto surfaces or into containers and "
        "receptacles, and sends messages. A partner is seen only in the same room. Transport tasks: "
        "bring the ten targets to the bed within 3000 frames, every action costing frames (a container "
        "carries three). Household tasks: make predicates such as 'two plates ON the dinner table' true "
        "within 250 steps, one step per action; a message costs a step too."),
    default_agent="rhp",
    app_agent="cobel",
    renderer="ui.render.household:HouseholdRenderer",
    beliefs="ui.render.household_beliefs:HouseholdBeliefs",
    panels=("ui.beliefs.panel:BeliefWorldPanel",),
    methods={"teams": "agents.teams.tom_household:TEAM_PLAY"},
    categories=tuple((c, c.replace("-", " ")) for c in CATEGORIES),  # (name, title) pairs, as WorldPlugin wants
    default_category="food-low-capacity",
)
