"""The human seat: a person at the keyboard or mouse, in any world."""

from agents.human.seat import HumanAgent

__all__ = ["HumanAgent"]
