"""The CoBel-World agent with a language model (Sections 3.1-3.2, Appendix C), for the household world.

It keeps everything of the non-LLM agent (``agents.cobel.agent``: the SBL belief world, the Bayesian
intent hypotheses, the miscoordination detector, the planner), and asks the model, through the
LLM layer (``LLMClient.ask_json``: schema-checked JSON, retries, repairs, recorded calls), at the
paper's five points. Each prompt carries the beliefs in SBL; each answer is checked against the
world before it is used:

===================  ==========================================================================
module               the model answers (schema)                                    used as
===================  ==========================================================================
``rules``            once: the belief rules for this task, in words                 quoted in every later prompt
                     (``{"rules": [str]}``)
``belief_update``    when messages arrive: what the sender believes now, as SBL     parsed with ``agents.cobel.sbl``;
                     (``{"partner_believes": [str]}``)                              valid atoms go into the first-order beliefs
``prediction``       the partner's intents with probabilities, from a list of      averaged with the Bayesian hypotheses
                     candidates (``{"intents": [{"intent": enum, "p": number}]}``)
``collaboration``    whether there is miscoordination, and which of the detector's  the message sent (SBL), or none
                     statements to send (``{"miscoordination": bool, "reason": str,
                     "send": [enum]}``)
``planning``         the next action among the planner's and a few alternatives     the action, if legal
                     (``{"action": enum, "reason": str}``)
===================  ==========================================================================

The rules are built together by default (``rules=together``, the paper's collaborative
representing step): the first agent's proposal is sent to the others, each revises it with the
model and sends the revision back, which the proposer adopts; ``rules=alone`` has each agent
propose its own. ``beliefs=text`` (the paper's "No SBR" ablation) writes the beliefs in the
prompts as plain sentences instead of SBL; messages between agents stay SBL.

When a call fails (no answer within the budgets, or an answer that cannot be used) the non-LLM
agent's choice stands in for that step, and an ``ErrorEvent`` of kind ``llm_fallback`` says why:
an episode never stops for the model. Works with the embedded model (Gemma 3 270M through
llama.cpp) and with any OpenAI-compatible endpoint (``base_url=...``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any, Literal

from agents.cobel.agent import HOUSEHOLD_VOCABULARY, CoBelAgent, intent_text
from agents.cobel.sbl import Agent as SBLAgent, Belief, Property, Relation, SBLError, Thing, parse
from agents.llm.agent import SETTING_PARAMS, settings_from_params
from agents.llm.client import CallOutcome, LLMClient
from agents.llm.server import require_runnable
from sim.events import ErrorEvent
from sim.household.world import HouseholdObservation
from sim.seats import SeatContext
from sim.snapshots import Intents

MODULES = ("rules", "belief_update", "prediction", "collaboration", "planning")
#: how the belief rules are exchanged when they are built together (``rules=together``)
RULES_PROPOSAL, RULES_REVISION = "Belief rules proposed:", "Belief rules revised:"
_RULE_ITEM = re.compile(r"\((\d+)\) ")
MAX_STATEMENT_CHARS = 160

SYSTEM = (
    "You are {me}, an embodied agent in a house, collaborating with {partners}. {rules_text}\n"
    "You keep a collaborative belief world written in the Symbolic Belief Language (SBL): atoms are "
    "'<name>(id) PREDICATE <name>(id)' or '<name>(id) ATTRIBUTE state' (predicates IN, ON, INSIDE, AT, "
    "NEAR, HOLD, WILL_FETCH, WILL_EXPLORE; attributes EXPLORATION_STATE, CONTENTS, OPEN_STATE); "
    "'A BELIEVE x' is a zero-order belief, 'A BELIEVE B BELIEVE x' a first-order one. Answer with "
    "JSON only, in the format asked.")
#: the system prompt of the free-text ablation (``beliefs=text``, the paper's "No SBR")
SYSTEM_TEXT = (
    "You are {me}, an embodied agent in a house, collaborating with {partners}. {rules_text}\n"
    "You keep beliefs about the house and about what your partners believe, written as plain "
    "sentences. Answer with JSON only, in the format asked.")
#: predicates and attributes in words, for the free-text ablation
_WORDS = {"IN": "is in", "ON": "is on", "INSIDE": "is inside", "AT": "is at", "NEAR": "is near", "HOLD": "holds",
          "WILL_FETCH": "will fetch", "WILL_EXPLORE": "will explore"}


def _entity_words(entity: Any) -> str:
    if isinstance(entity, Thing):
        return f"the {entity.name.replace('_', ' ')} {entity.id}"
    return str(getattr(entity, "name", entity))


def belief_sentence(belief: Belief, p: float) -> str:
    """A belief in plain English, for the free-text ablation: ``alice believes bob believes the
    apple 3 is on the kitchen counter 1004 (fairly sure)``."""
    atom = belief.atom
    if isinstance(atom, Relation):
        fact = f"{_entity_words(atom.subject)} {_WORDS.get(atom.predicate, atom.predicate.lower())} " \
               f"{_entity_words(atom.object)}"
    elif isinstance(atom, Property):
        what = {"EXPLORATION_STATE": "explored", "CONTENTS": "holding", "OPEN_STATE": ""}.get(atom.attribute, "")
        fact = f"{_entity_words(atom.subject)} is {what + ': ' if what else ''}{atom.state}"
    else:
        fact = str(atom)
    holders = " believes ".join(h.name if isinstance(h, SBLAgent) else str(h) for h in belief.holders)
    sure = "certain" if p >= 0.99 else "fairly sure" if p >= 0.7 else "unsure" if p >= 0.4 else "doubtful"
    return f"{holders} believes {fact} ({sure})"


class CoBelLLMAgent(CoBelAgent):
    """CoBel-World with LLM prompts for rules, belief update, prediction, collaboration and planning."""

    measure_messages = False  # a copy deciding again would ask the model again

    kind = "cobel-llm"

    def __init__(self, *, client: LLMClient | None = None, config: str | None = None,
                 modules: str | Sequence[str] = MODULES, beliefs_in_prompt: int = 40,
                 beliefs: Literal["sbl", "text"] = "sbl", rules: Literal["together", "alone"] = "together",
                 **params: Any) -> None:
        settings = {k: params.pop(k) for k in list(params) if k in SETTING_PARAMS}
        super().__init__(**params)
        self.client = client or LLMClient(settings_from_params(settings, config))
        chosen = tuple(m for m in (modules.split("+") if isinstance(modules, str) else modules) if m)
        unknown = sorted(set(chosen) - set(MODULES))
        if unknown:
            raise ValueError(f"cobel-llm: unknown module(s) {', '.join(unknown)}; modules are "
                             f"{'+'.join(MODULES)} (joined with '+')")
        self.modules = chosen
        self.beliefs_in_prompt = int(beliefs_in_prompt)
        if beliefs not in ("sbl", "text"):
            raise ValueError(f"cobel-llm: beliefs={beliefs!r}; expected sbl or text")
        #: how beliefs are written in the prompts: SBL statements, or plain sentences (ablation)
        self.belief_format = beliefs
        if rules not in ("together", "alone"):
            raise ValueError(f"cobel-llm: rules={rules!r}; expected together or alone")
        #: together: the first agent proposes the belief rules, the others revise them (by message)
        self.rules_mode = rules

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind, "modules": "+".join(self.modules),
                "beliefs": self.belief_format, "rules": self.rules_mode, "llm": self.client.describe()}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        self.rule_texts: list[str] = self.beliefs.rules.texts()
        self.rules_built = False
        self.sources: dict[str, str] = {}
        self.calls = 0
        self.partner_notes: dict[str, list[str]] = {p: [] for p in self.partners}  # free-text updates
        self.rules_outbox: str | None = None  # a rules proposal or revision to send

    # ------------------------------------------------------------------ calls

    def _ask(self, module: str, prompt: str, schema: dict[str, Any], tick: int) -> dict[str, Any] | None:
        system = (SYSTEM if self.belief_format == "sbl" else SYSTEM_TEXT).format(me=self.me, partners=", ".join(self.partners),
                               rules_text="Belief rules: " + " ".join(f"({i + 1}) {t}" for i, t in enumerate(self.rule_texts)))
        outcome: CallOutcome = self.client.ask_json(
            [{"role": "system", "content": system}, {"role": "user", "content": prompt}], schema,
            agent=self.me, module=module, tick=tick, schema_name=module, seed=self.ctx.seed + tick)
        self.calls += outcome.attempts
        for event in outcome.events:
            self.ctx.emit(event)
        if outcome.value is None:
            self._fallback(module, f"the model gave no usable answer ({outcome.failure})", tick)
        return outcome.value

    def _fallback(self, module: str, why: str, tick: int) -> None:
        self.sources[module] = "fallback"
        self.ctx.emit(ErrorEvent(tick=tick, source=self.me, kind="llm_fallback",
                                 message=f"{module}: {why}; the non-LLM CoBel agent's choice stands"))

    def _beliefs_text(self) -> str:
        statements = self.beliefs.statements()[: self.beliefs_in_prompt]
        if self.belief_format == "text":
            lines = [belief_sentence(b, p) for b, p in statements]
            for partner, notes in self.partner_notes.items():
                lines += [f"(your note on what {partner} believes) {n}" for n in notes]
        else:
            lines = [f"{b} (p={p:.2f})" for b, p in statements]
        return "\n".join(lines) or "(none yet)"

    def _task_text(self, obs: HouseholdObservation) -> str:
        if obs.task == "transport":
            return (f"Task: bring the targets ({', '.join(obs.goal[1])}) to {obs.goal[0]} within {obs.budget} "
                    f"frames; it is frame {obs.time}.")
        units = "; ".join(f"{n} {cls} {rel} {place}" for rel, cls, place, n in obs.goal)
        return f"Task: {units}, within {obs.budget} steps; it is step {obs.time}."

    # ------------------------------------------------------------------ the five modules

    def build_rules(self, obs: HouseholdObservation, tick: int, proposal: tuple[str, list[str]] | None = None) -> bool:
        """Ask the model for the belief rules: a proposal from the current ones, or (``proposal``:
        its author and rules) a revision of a partner's. True when the model gave rules."""
        schema = {"type": "object", "properties": {"rules": {"type": "array", "maxItems": 8,
                                                             "items": {"type": "string", "maxLength": 300}}},
                  "required": ["rules"]}
        if proposal is None:
            prompt = (f"{self._task_text(obs)}\nPropose the belief rules that should guide how you and your "
                      "partners update beliefs in this task (task constraints, what each agent can see and do, "
                      "dependencies). Start from the current rules and revise them. "
                      'Answer {"rules": ["...", ...]}.')
        else:
            author, rules_given = proposal
            listed = " ".join(f"({i + 1}) {r}" for i, r in enumerate(rules_given))
            prompt = (f"{self._task_text(obs)}\n{author} proposes these belief rules for the team: {listed}\n"
                      "Revise them: keep what is right, correct what is wrong, add what is missing for what you "
                      'can see and do. Answer {"rules": ["...", ...]}.')
        answer = self._ask("rules", prompt, schema, tick)
        rules = [r.strip() for r in (answer or {}).get("rules", []) if isinstance(r, str) and r.strip()]
        if rules:
            self.rule_texts = rules
            self.sources["rules"] = "model" if proposal is None else f"model, revising {proposal[0]}'s"
            return True
        if answer is not None:
            self.sources["rules"] = "default (the model proposed none)"
        return False

    def read_rules(self, obs: HouseholdObservation, tick: int) -> None:
        """Propose-and-revise (the paper's collaborative representing step): a partner's proposal is
        revised by the model and the revision sent back; a revision of the agent's own proposal is
        adopted."""
        for sender, text in obs.inbox:
            for head, is_proposal in ((RULES_PROPOSAL, True), (RULES_REVISION, False)):
                if sender not in self.partners or not text.startswith(head):
                    continue
                items = [r.strip() for r in _RULE_ITEM.split(text[len(head):])[2::2] if r.strip()]
                if not items:
                    continue
                if is_proposal and self.build_rules(obs, tick, proposal=(sender, items)):
                    self.rules_outbox = RULES_REVISION + " " + " ".join(
                        f"({i + 1}) {r}" for i, r in enumerate(self.rule_texts))
                elif not is_proposal and self.me == self.world.agents[0]:
                    self.rule_texts = items
                    self.sources["rules"] = f"{sender}'s revision"

    def llm_belief_update(self, obs: HouseholdObservation, tick: int) -> None:
        schema = {"type": "object", "properties": {"partner_believes": {
            "type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": MAX_STATEMENT_CHARS}}},
            "required": ["partner_believes"]}
        for sender, text in obs.inbox:
            if sender not in self.partners:
                continue
            what = "the SBL atoms" if self.belief_format == "sbl" else "in plain sentences what"
            prompt = (f"{self._task_text(obs)}\nYour beliefs:\n{self._beliefs_text()}\n\n{sender} told you:\n{text}\n\n"
                      f"Taking {sender}'s perspective (what it could see and was told, not what only you know), "
                      f"list {what} {sender} believes now. Answer {{\"partner_believes\": [\"...\"]}}.")
            answer = self._ask("belief_update", prompt, schema, tick)
            if self.belief_format == "text":  # kept as notes, quoted in later prompts
                notes = [n.strip() for n in (answer or {}).get("partner_believes", []) if isinstance(n, str) and n.strip()]
                self.partner_notes[sender] = (self.partner_notes[sender] + notes)[-12:]
                if answer is not None:
                    self.sources["belief_update"] = f"model ({len(notes)} notes)"
                continue
            used = 0
            for line in (answer or {}).get("partner_believes", []):
                try:
                    atom = parse(line, vocabulary=HOUSEHOLD_VOCABULARY)
                except SBLError:
                    continue
                if hasattr(atom, "atom"):
                    continue  # a nested belief: first-order worlds hold atoms
                if all(self.names.resolve(e) is not None for e in (atom.subject, getattr(atom, "object", None))
                       if e is not None):
                    self.beliefs.model_of(sender).observe_true(atom)
                    used += 1
            if answer is not None:
                self.sources["belief_update"] = f"model ({used} atoms used)"

    def llm_prediction(self, obs: HouseholdObservation, tick: int) -> None:
        for p in self.partners:
            candidates = [h for h, _ in sorted(self.hypotheses[p].items(), key=lambda kv: (-kv[1], kv[0]))][:6]
            if len(candidates) < 2:
                continue
            names = [intent_text(h) for h in candidates]
            schema = {"type": "object", "properties": {"intents": {"type": "array", "maxItems": 6, "items": {
                "type": "object", "properties": {"intent": {"type": "string", "enum": names},
                                                 "p": {"type": "number", "minimum": 0, "maximum": 1}},
                "required": ["intent", "p"]}}}, "required": ["intents"]}
            prompt = (f"{self._task_text(obs)}\nYour beliefs:\n{self._beliefs_text()}\n\nPredict what {p} "
                      f"will do next. Consider several intents, not only the likeliest, from: {', '.join(names)}. "
                      'Answer {"intents": [{"intent": "...", "p": 0.5}, ...]}.')
            answer = self._ask("prediction", prompt, schema, tick)
            given = {x["intent"]: float(x["p"]) for x in (answer or {}).get("intents", [])}
            total = sum(given.values())
            if total <= 0:
                continue
            post = self.hypotheses[p]
            for h, name in zip(candidates, names):  # the model's view and the Bayesian one, half each
                post[h] = 0.5 * post.get(h, 0.0) + 0.5 * given.get(name, 0.0) / total
            norm = sum(post.values())
            self.hypotheses[p] = {h: v / norm for h, v in post.items()}
            self.sources["prediction"] = "model"

    def llm_collaboration(self, obs: HouseholdObservation, statements: list, reason: str, tick: int) -> list:
        words = self.belief_format == "text"
        options = [belief_sentence(Belief((SBLAgent(self.me),), s), 1.0).removeprefix(f"{self.me} believes ")
                   .removesuffix(" (certain)") if words else str(s) for s in statements]
        schema = {"type": "object", "properties": {
            "miscoordination": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 300},
            "send": {"type": "array", "maxItems": len(options) or 1,
                     "items": {"type": "string", "enum": options or ["nothing"]}}},
            "required": ["miscoordination", "reason", "send"]}
        guesses = {p: ", ".join(f"{intent_text(h)} ({v:.2f})" for h, v in self.top_intents(p)) for p in self.partners}
        prompt = (f"{self._task_text(obs)}\nYour beliefs:\n{self._beliefs_text()}\n\nYour next sub-goal: "
                  f"{intent_text(self.intent)}. Your partners' likely intents: {guesses}.\n"
                  f"Reason over (1) belief misalignment (what only you know that matters to them) and (2) "
                  f"conflicting plans (the same room or object). The detector suggests: {reason or 'no problem'}. "
                  "Send a message only if there is miscoordination; choose the statements to send from: "
                  f"{options or ['nothing']}. Answer "
                  '{"miscoordination": true/false, "reason": "...", "send": ["..."]}.')
        answer = self._ask("collaboration", prompt, schema, tick)
        if answer is None:
            return statements
        self.sources["collaboration"] = "model"
        if not answer.get("miscoordination"):
            return []
        chosen = set(answer.get("send", []))
        return [s for s, option in zip(statements, options) if option in chosen]

    def llm_planning(self, obs: HouseholdObservation, legal: Sequence[str], planned: str, tick: int) -> str:
        alternatives = [a for a in legal if a != planned and not a.startswith(("wait", "close"))][:7]
        options = [planned] + alternatives
        schema = {"type": "object", "properties": {"action": {"type": "string", "enum": options},
                                                   "reason": {"type": "string", "maxLength": 300}},
                  "required": ["action", "reason"]}
        prompt = (f"{self._task_text(obs)}\nYou are in the {obs.room} holding "
                  f"{', '.join(h for h in obs.holding if h) or 'nothing'}.\nYour beliefs:\n{self._beliefs_text()}\n\n"
                  f"Plan your next action, avoiding what your partners are likely doing. The planner suggests "
                  f"'{planned}' (sub-goal: {self.subgoal}). Options: {options}. "
                  'Answer {"action": "...", "reason": "..."}.')
        answer = self._ask("planning", prompt, schema, tick)
        if answer is None:
            return planned
        action = answer.get("action")
        problem = self.world.why_illegal(self._state_for_check, self.me, action) if self._state_for_check else None
        if action not in options or problem is not None:
            self._fallback("planning", f"the model chose {action!r}, which cannot be done here", tick)
            return planned
        self.sources["planning"] = "model"
        return action

    # ------------------------------------------------------------------ acting

    def observe_state(self, state: Any) -> None:
        self._state_for_check = state

    def decide(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        obs = observation
        tick = self.ctx.tick
        self.sources = {}
        if not hasattr(self, "_state_for_check"):
            self._state_for_check = None
        if "rules" in self.modules and not self.rules_built:
            self.rules_built = True
            if self.rules_mode == "alone" or self.me == self.world.agents[0]:
                proposed = self.build_rules(obs, tick)
                if proposed and self.rules_mode == "together" and self.partners:
                    self.rules_outbox = RULES_PROPOSAL + " " + " ".join(
                        f"({i + 1}) {r}" for i, r in enumerate(self.rule_texts))
        if "rules" in self.modules and self.rules_mode == "together":
            self.read_rules(obs, tick)
        self.update_beliefs(obs)
        if "belief_update" in self.modules and obs.inbox:
            self.llm_belief_update(obs, tick)
        self._fetchable_set = set(self._fetchable(obs))
        self.update_intents(obs)
        if "prediction" in self.modules:
            self.llm_prediction(obs, tick)
        planned = self.plan(obs)
        self._acted = True
        if self.rules_outbox is not None and not self.just_said:  # the rules go first; a message costs its time
            text, self.rules_outbox = self.rules_outbox, None
            self.just_said = True
            self.sent += 1
            self.last_reason = "building the belief rules together"
            return self.world.message_action(None, self.me, text)
        if self.just_said:
            self.just_said = False
        else:
            statements, reason = self.miscoordination(obs)
            if statements and "collaboration" in self.modules:
                statements = self.llm_collaboration(obs, statements, reason, tick)
            if statements:
                self.just_said = True
                self.sent += 1
                self.last_reason = reason
                self.announced = self.intent
                self.tell(statements)
                return self.world.message_action(None, self.me, "\n".join(str(s) for s in statements))
        if "planning" in self.modules:
            return self.llm_planning(obs, legal_actions, planned, tick)
        return planned

    def intents_snapshot(self) -> Intents:
        return dataclasses.replace(super().intents_snapshot(), sources=dict(self.sources), llm_calls=self.calls)


def make_cobel_llm_agent(config: str | None = None, **params: Any) -> CoBelLLMAgent:
    """Factory for specs such as ``cobel-llm:base_url=http://127.0.0.1:11434/v1,model=qwen3`` or
    ``cobel-llm:modules=prediction+collaboration``; fails early, with the fix, when no endpoint is
    configured and the embedded model is missing."""
    client = params.pop("client", None)
    agent = CoBelLLMAgent(client=client, config=config, **params)
    if client is None:
        require_runnable(agent.client.settings)
    return agent
