"""Generated SBL text and agent/mechanism specs thrown at their public readers.

SBL (CoBel-World's Symbolic Belief Language, ``agents/cobel/sbl.py``): every text either parses
(and prints back to text that parses to the same value) or raises ``SBLError`` with a line, a
column and an offset inside the text. Specs (``KIND:param=value,...``, ``agents/registry.py``):
every spec either builds its agent or mechanism or raises ``AgentSpecError`` with one line that
names the spec; never a traceback, a hang, or a value outside the documented range accepted
(docs/limits.md).

Budget and seed as in tests/test_robustness_scenarios.py (TOM_ARENA_FUZZ_EXAMPLES,
TOM_ARENA_FUZZ_REPORT; docs/testing.md).
"""

from __future__ import annotations

from hypothesis import given, strategies as st
from test_robustness_scenarios import Hang, fuzz_settings, record, time_limit
from test_sbl import fuzz_inputs

from agents.cobel.sbl import SBLError, format_document, parse, parse_atom, parse_document, to_text
from agents.registry import AgentSpecError, agent_kinds, make_agent, make_mechanism, mechanism_kinds

HANG_SECONDS = 20


@fuzz_settings(600)
@given(fuzz_inputs)
def test_sbl_text(text):
    for reader in (parse, parse_atom, parse_document):
        try:
            with time_limit(HANG_SECONDS):
                value = reader(text)
        except SBLError as error:
            inside = error.line >= 1 and error.column >= 1 and 0 <= error.offset <= len(text)
            one_line = "\n" not in str(error).strip()
            record("sbl", "clean error" if inside and one_line else "unclear message", f"{text!r:.200}: {error}")
            continue
        except Hang as exc:
            record("sbl", "hang", f"{reader.__name__}({text!r:.200}): {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - the point of the suite
            record("sbl", "traceback", f"{reader.__name__}({text!r:.200}): {type(exc).__name__}: {exc}")
            continue
        printed = format_document(value) if reader is parse_document else to_text(value)
        same = reader(printed) == value
        record("sbl", "accepted" if same else "silent nonsense", f"{text!r:.200} printed as {printed!r:.200}")


# Which spec may run where: the family each kind is made for (None: any world)
SKIPPED = ("llm", "cobel-llm", "llm-trader")  # they start a model when made (tests/test_llm_*)
AGENTS = sorted(k for k in agent_kinds() if k not in SKIPPED and not k.startswith("room-llm"))
MECHANISMS = sorted(k for k in mechanism_kinds() if k not in SKIPPED)
NAMES = ["temperature", "eps", "phi", "particles", "compliance", "order", "k", "probability", "size", "every",
         "simulations", "depth", "rounds", "epsilon", "noise", "lapse", "alpha", "max_size", "divergence",
         "show_plan", "respect_busy", "nosuch", "", " ", "a b"]
VALUES = ["-1", "0", "0.5", "1", "2", "1e9", "1e400", "nan", "inf", "-inf", "abc", "", "true", "false", "none",
          "self", "eta", "js", "kl", "cycle", "3.5", "1" * 40, "\u00e9", "=", ":"]


@st.composite
def specs(draw) -> tuple[str, str, str]:
    what = draw(st.sampled_from(["agent", "mechanism"]))
    kind = draw(st.sampled_from(AGENTS if what == "agent" else MECHANISMS + ["none"]))
    pairs = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(VALUES)), max_size=3))
    tail = ",".join(f"{n}={v}" for n, v in pairs)
    spec = draw(st.sampled_from([kind, f"{kind}:{tail}", f"{kind}:", f" {kind} :{tail}", f"{kind}:{tail},"]))
    family = draw(st.sampled_from([None, "dkg", "kitchen", "household", "tradecraft"]))
    return what, spec, family


@fuzz_settings(400)
@given(specs())
def test_agent_and_mechanism_specs(case):
    what, spec, family = case
    try:
        with time_limit(HANG_SECONDS):
            made = make_agent(spec, family) if what == "agent" else make_mechanism(spec, family)
    except AgentSpecError as error:
        message = str(error)
        clean = "\n" not in message and (spec.strip() in message or spec.partition(":")[0].strip() in message)
        record("specs", "clean error" if clean else "unclear message", f"{what} {spec!r} ({family}): {message}")
        return
    except Hang as exc:
        record("specs", "hang", f"{what} {spec!r} ({family}): {exc}")
        return
    except Exception as exc:  # noqa: BLE001 - the point of the suite
        record("specs", "traceback", f"{what} {spec!r} ({family}): {type(exc).__name__}: {exc}")
        return
    # accepted: no number that is not finite slipped through into what was built
    values = [v for v in vars(made).values() if isinstance(v, float)] if made is not None else []
    finite = all(v == v and abs(v) != float("inf") for v in values)
    record("specs", "accepted" if finite else "silent nonsense", f"{what} {spec!r} ({family}): {values}")
