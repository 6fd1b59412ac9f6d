"""The ``held`` agent: a decision under way for as long as a test wants (see ``agent.py``)."""
