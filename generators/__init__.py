"""The scenario generators: library code that writes the shipped scenarios and rule sets of
``scenarios/`` from a fixed seed (or fixed tables), each runnable as ``python -m generators.<name>``
with ``--check`` to confirm the files on disk are what it gives.

* ``make_teams``, ``make_rush``, ``make_scarce``, ``make_rounds``, ``make_taskround``, ``make_joint``,
  ``make_jointconfirm``: Doors, Keys and Gems team halls (scenarios/dkg/teams, rush, scarce, rounds,
  taskround, joint, jointconfirm);
* ``make_kitchen_teams``: kitchen team levels (scenarios/kitchen/teams);
* ``make_household_episodes``: the household world's episodes (scenarios/household);
* ``make_rules``: the TradeCraft rule sets (scenarios/tradecraft/rulesets);
* ``common``: what they share: a recipe's ``generate`` and command line (``Recipe``), and the
  halls' map, agents and scenario fields.

A generator imports ``sim/`` and ``agents/`` (a kitchen level is kept only when the cooks can do
it); nothing below ``experiments/`` imports a generator.
"""
