"""Team-formation mechanisms and the k-level ToM planner agents by name (imported when made)."""

from agents.registry import ANY_WORLD, AgentKind, MechanismKind

MECHANISM_KINDS = [
    MechanismKind("teams", ANY_WORLD,
                  "belief-aligned team formation: phi from predicted vs actual trajectories, the "
                  "welfare-maximizing stable team (Eq. 5), re-formed when alignment drops (Algorithm 1); "
                  "round_steps=task,window=round: judged once per task round; counter=literal: line 11 as printed; "
                  "choose=random: the same monitor with a random team (matched baseline)",
                  "agents.teams.mechanism:TeamFormationMechanism", role="team"),
    MechanismKind("random-teams", ANY_WORLD,
                  "baseline: a random team of ceil(n/2) agents (size=k to change), redrawn every=R rounds",
                  "agents.teams.mechanism:RandomTeamMechanism", role="team"),
]

AGENT_KINDS = [
    AgentKind("tom-planner", ("dkg",),
              "k-level ToM planner (k=0,1,2 or k=cycle: turn-order index mod 3): predicts teammates from "
              "their history and its (k-1)-level model, frees stuck teammates (k>=1), stands aside when idle",
              "agents.teams.tom_dkg:tom_planner"),
    AgentKind("tom-cook", ("kitchen",),
              "k-level ToM cook (k=0,1,2 or k=cycle: index mod 3): predicts teammates from their history and its "
              "(k-1)-level model, passes a stuck teammate's ingredient over a counter (k>=1), stands aside when idle",
              "agents.teams.tom_kitchen:tom_cook"),
    AgentKind("tom-helper", ("household",),
              "k-level ToM helper (k=0,1,2 or k=cycle: index mod 3): RHP's rules; predicts teammates from their "
              "history and its (k-1)-level model and leaves them the objects and rooms it expects them to take (k>=1), "
              "waits when idle; never talks",
              "agents.teams.tom_household:tom_helper"),
]
