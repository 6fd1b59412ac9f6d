"""TradeCraft: everything the family brings, in one declaration."""

from sim.plugins import WorldPlugin, lazy

PLUGIN = WorldPlugin(
    name="tradecraft",
    title="TradeCraft",
    validate=lazy("sim.tradecraft.instance:validate_instance"),
    build=lazy("sim.tradecraft.world:TradeCraftWorld"),
    rules_text=(
        "Each player holds items and has a private target. Every turn one player (in rotation) may "
        "propose a trade to another, who accepts or rejects it; then every player crafts with "
        "Minecraft-style recipes, at fractional scale. A player wins when its hand holds every "
        "target amount; the game ends when someone wins or the turn limit passes."),
    default_agent="trader",
    renderer="ui.tradecraft.renderer:TradeCraftRenderer",
    panels=("ui.tradecraft.board:TradeCraftBoard", "ui.tradecraft.heatmap:ToMValuesPanel"),
)
