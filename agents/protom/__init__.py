"""ProToM: the Theory-of-Mind-informed prosocial facilitator (seed 003) and its baselines.

core.py         world-agnostic beliefs, goal inference, utility, selection (Algorithms 1-2)
dkg.py          the Doors, Keys and Gems adapter (goals, likelihood, candidates, templates)
dkg_rollout.py  C(f, g): joint rollouts of planner agents with and without a feedback
categories.py   scenario categories from the joint optimum vs independent plans
facilitators.py protom, oracle and random facilitators (FACILITATOR_KINDS)
"""
