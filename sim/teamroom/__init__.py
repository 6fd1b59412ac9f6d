"""The team room: a programming project and a debate (seed 000, Sections 3 and 6)."""
