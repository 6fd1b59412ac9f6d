"""The TradeCraft board of the desktop app (docs/tradecraft.md, "The board").

``icons`` (item icons drawn for this project), ``renderer`` (the board picture in the world
view, registered for the ``tradecraft`` family), ``board`` (the controls of a human seat:
proposal composer, incoming proposals, crafting table, recipe browser), ``heatmap`` (the
live V0/V1/V2 panel), ``shots`` (the documentation screenshot).
"""
