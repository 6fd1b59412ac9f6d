"""CoBel-World (seed 004): the Symbolic Belief Language and the collaborative belief world."""
