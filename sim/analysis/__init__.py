"""Statistics, tables and figures computed from recordings and experiment results."""
