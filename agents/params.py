"""Annotated parameter types for agent and mechanism signatures.

The registry checks a spec's values against these before it builds anything
(``agents.registry.check_params``), so ``boltzmann:temperature=-1`` is one clear line.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

#: a number above 0 (temperatures, rates)
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
#: a number at least 0
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
#: a probability or share in [0, 1]
Probability = Annotated[float, Field(ge=0, le=1)]
#: a probability below 1, in [0, 1)
BelowOne = Annotated[float, Field(ge=0, lt=1)]
#: a count or distance, 0 or more
Count = Annotated[int, Field(ge=0)]
