"""TradeCraft traders: the planner trader with ToM value reports."""
