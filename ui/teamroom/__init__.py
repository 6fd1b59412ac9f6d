"""The team room's view (programming projects and debates)."""
