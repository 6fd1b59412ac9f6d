"""Agents of the household world (transport and household tasks)."""
