"""``python main.py tradecraft ...``: generate instances, self-play, analyses, tools and terminal play.

    tradecraft generate [--set NAME ...]                     rewrite the shipped instance sets
    tradecraft generate --rules R --count N --out DIR ...     a new set for any rule set or datapack
    tradecraft selfplay [INSTANCE|SET ...] [--agents SPEC ...] [--seeds N] [--out DIR]
    tradecraft analyze PATH ... --out DIR                      the three analyses of Section 4
    tradecraft tool item_info ITEM | possible_recipes ITEM=N ... [--rules R]
    tradecraft rules [--rules R]                               what a rule set (or datapack) holds
    tradecraft import FILE --rules R --out DIR                 the paper's instance lists -> scenarios, per entry
    tradecraft play INSTANCE [--seat NAME] [--agents SPEC ...] play one seat in the terminal

Heavy modules are imported inside the commands so that ``main.py --help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def add_parser(sub: Any) -> None:
    tc = sub.add_parser("tradecraft", help="TradeCraft: instances, self-play, analyses, tools",
                        description="TradeCraft, the trade-and-craft game (docs/tradecraft.md).",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        epilog="examples:\n"
                               "  python main.py tradecraft selfplay minecraft-1v1 --seeds 3 --out runs/tc\n"
                               "  python main.py tradecraft analyze runs/tc --out runs/tc/analysis\n"
                               "  python main.py tradecraft tool item_info torch\n"
                               "  python main.py tradecraft play mc1v1-01 --seat alice")
    tsub = tc.add_subparsers(dest="tc_command", metavar="SUBCOMMAND", required=True)

    gen = tsub.add_parser("generate", help="generate validated instances with distractors and difficulty",
                          description="With --out: generate one set with the options given into DIR (an existing "
                                      "folder holding .json files needs --force, as they are replaced). Without "
                                      "--out: rewrite the shipped instance sets under scenarios/tradecraft/ "
                                      "(deterministic), only with --force.")
    gen.add_argument("--set", dest="sets", action="append", metavar="NAME",
                     help="shipped set to rewrite (minecraft-1v1, minecraft-3p, alchemy-1v1); default all")
    gen.add_argument("--out", metavar="DIR", help="write a new set into DIR instead")
    gen.add_argument("--rules", default="minecraft", help="rule set name or folder (datapack) (default minecraft)")
    gen.add_argument("--players", type=int, default=2, help="players per instance, 2 to 8 (default 2)")
    gen.add_argument("--force", action="store_true",
                     help="replace the .json files of --out, or (without --out) rewrite the shipped sets")
    gen.add_argument("--count", type=int, default=10, help="instances (default 10)")
    gen.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    gen.add_argument("--prefix", default="custom", help="instance name prefix (default custom)")
    gen.add_argument("--max-bill-units", type=int, default=14, help="largest bill of items per target (default 14)")
    gen.set_defaults(func=cmd_generate)

    sp = tsub.add_parser("selfplay", help="play instances headless with traders (progress bar, recordings)",
                         description="Play every instance with every seed; write one recording per game and "
                                     "selfplay.csv into --out, and print a summary.")
    sp.add_argument("instances", nargs="*", metavar="INSTANCE",
                    help="instance names, files, shipped set names (minecraft-1v1 ...) or folders of instance files "
                         "(e.g. what tradecraft import wrote); default: every shipped instance")
    sp.add_argument("--agents", nargs="+", default=["trader"], metavar="SPEC",
                    help="agent spec per seat in seat order (one spec fills every seat), e.g. "
                         "trader:order=2 trader:order=0 (default trader)")
    sp.add_argument("--seeds", type=int, default=1, metavar="N", help="seeds per instance (default 1)")
    sp.add_argument("--seed", type=int, default=0, metavar="S", help="first seed (default 0)")
    sp.add_argument("--out", metavar="DIR", help="output folder (default runs/tradecraft-selfplay)")
    sp.add_argument("--no-record", action="store_true", help="write no recordings")
    sp.add_argument("--max-turns", type=int, metavar="N", help="override the instances' turn limit")
    sp.add_argument("--stop", choices=["first", "all"], help="override when the game ends (first win / all win)")
    sp.add_argument("--ties", choices=["share", "draw"], help="override the tie rule")
    _rule_options(sp, "override")
    sp.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    sp.set_defaults(func=cmd_selfplay)

    an = tsub.add_parser("analyze", help="KL per turn, proposal scatter, decision utility fits",
                         description="Run the three analyses of seed 002 Section 4 over recordings (files or "
                                     "folders) and write CSV tables and PNG plots into --out.")
    an.add_argument("paths", nargs="+", metavar="PATH", help="recordings or folders of recordings")
    an.add_argument("--out", required=True, metavar="DIR", help="output folder")
    an.add_argument("--bootstrap", type=int, default=2000, metavar="B", help="bootstrap resamples (default 2000)")
    an.add_argument("--no-plots", action="store_true", help="CSV tables only")
    an.set_defaults(func=cmd_analyze)

    tool = tsub.add_parser("tool", help="run an agent tool (item_info, possible_recipes)",
                           description="The tools that traders use, with their plain-text output.")
    tool.add_argument("name", choices=["item_info", "possible_recipes"], help="the tool")
    tool.add_argument("args", nargs="+", metavar="ARG", help="item_info: ITEM; possible_recipes: ITEM=N ...")
    tool.add_argument("--rules", default="minecraft", help="rule set name or folder (default minecraft)")
    _rule_options(tool, "use")
    tool.set_defaults(func=cmd_tool)

    rules = tsub.add_parser("rules", help="summarize a rule set or datapack",
                            description="Load a rule set (a shipped name, a rule-set folder, or a datapack "
                                        "folder with data/<namespace>/recipes) and print what it holds.")
    rules.add_argument("--rules", default="minecraft", help="rule set name or folder (default minecraft)")
    rules.set_defaults(func=cmd_rules)

    imp = tsub.add_parser("import", help="convert the paper's instance lists into scenario files, entry by entry",
                          description="Read a JSON list of games ({hands, targets}, optionally max_turn; the "
                                      "authors' game_task.json), check every entry on its own, write one scenario "
                                      "file per valid entry into --out and say for each entry what happened. Exit "
                                      "status: 0 all imported, 1 some entries skipped, 2 nothing imported.")
    imp.add_argument("file", help="the paper-format instance file")
    imp.add_argument("--rules", default="minecraft", help="rule set name or folder (default minecraft)")
    imp.add_argument("--out", required=True, metavar="DIR", help="output folder")
    imp.add_argument("--prefix", help="instance name prefix (default: the file name)")
    imp.add_argument("--max-turns", type=int, metavar="N", help="turn limit of entries without max_turn (default 15)")
    _rule_options(imp, "set")
    imp.set_defaults(func=cmd_import)

    play = tsub.add_parser("play", help="play one seat in the terminal against traders",
                           description="Play a TradeCraft instance in the terminal. Type a JSON action, or: "
                                       "pass | accept | reject | done | info ITEM | recipes | "
                                       "propose TO offer ITEM=N,... request ITEM=N,... [message TEXT] | "
                                       "craft RECIPE [TIMES] | help | quit.")
    play.add_argument("instance", help="instance name or file")
    play.add_argument("--seat", help="the seat you play (default: the first)")
    play.add_argument("--agents", nargs="+", default=["trader"], metavar="SPEC",
                      help="spec(s) for the other seats (default trader)")
    play.add_argument("--seed", type=int, default=0, help="game seed for the traders (default 0)")
    play.add_argument("--record", metavar="FILE", help="write a recording of the game")
    play.set_defaults(func=cmd_play)


def _rule_options(parser: argparse.ArgumentParser, verb: str) -> None:
    parser.add_argument("--crafting", choices=["fractional", "original"],
                        help=f"{verb} the crafting rule: fractional (any scale, the paper) or original (the "
                             "original server: whole items, whole runs)")
    parser.add_argument("--rejections", choices=["hidden", "announced"],
                        help=f"{verb} what others see of a rejected proposal: nothing (hidden, the paper) or "
                             "that it was rejected (announced, the original server)")
    parser.add_argument("--recipe-list", choices=["any_scale", "full_scale"],
                        help=f"{verb} what possible_recipes_from_hands lists (full_scale: the original server)")


def _rule_values(args: argparse.Namespace) -> dict[str, Any]:
    return {k: v for k, v in (("crafting", args.crafting), ("rejections", args.rejections),
                               ("recipe_list", args.recipe_list)) if v is not None}


# --------------------------------------------------------------------- commands

def cmd_generate(args: argparse.Namespace) -> int:
    from sim.registry import ROOT, ScenarioError
    from sim.tradecraft.generator import SHIPPED_SETS, GeneratorConfig, check_prefix, generate, write_instances
    from sim.tradecraft.instance import MAX_PLAYERS

    if not 2 <= args.players <= MAX_PLAYERS:
        return _fail(f"--players must be 2 to {MAX_PLAYERS} (every player trades for part of its target), "
                     f"got {args.players}")
    if not 1 <= args.count <= 1000:
        return _fail(f"--count must be 1 to 1000, got {args.count}")
    if args.max_bill_units < 1:
        return _fail(f"--max-bill-units must be at least 1, got {args.max_bill_units}")
    known = sorted(name for name, _ in SHIPPED_SETS)
    unknown = sorted(set(args.sets or []) - set(known))
    if unknown:
        return _fail(f"--set {unknown[0]!r:.80}: no such shipped set; expected one of {', '.join(known)}")
    if args.sets and args.out:
        return _fail("--set names a shipped set to rewrite, --out a new set to write; expected one of the two")
    try:
        check_prefix(args.prefix)
    except ValueError as exc:
        return _fail(str(exc))
    if args.out:
        existing = sorted(Path(args.out).glob("*.json")) if Path(args.out).is_dir() else []
        if existing and not args.force:
            return _fail(f"{args.out} already holds {len(existing)} .json file(s) ({existing[0].name}, ...), which "
                         "generate would replace; choose another --out or add --force")
    elif not args.force:
        return _fail("without --out, generate rewrites the shipped instance sets in scenarios/tradecraft/; add "
                     "--force to do that, or give --out DIR for a new set")
    try:
        if args.out:
            config = GeneratorConfig(rules=args.rules, players=args.players, count=args.count, seed=args.seed,
                                     prefix=args.prefix, max_bill_units=args.max_bill_units)
            jobs = [(Path(args.out), config)]
        else:
            jobs = [(ROOT / "scenarios" / "tradecraft" / name, config) for name, config in SHIPPED_SETS
                    if not args.sets or name in args.sets]
        for folder, config in jobs:
            specs = generate(config)
            write_instances(specs, folder)
            lengths = sorted({s["difficulty"]["chain_length"] for s in specs})
            trades = sorted({s["difficulty"]["min_trades"] for s in specs})
            print(f"{folder}: {len(specs)} instances ({config.rules}, {config.players} players); chain lengths "
                  f"{lengths}, min trades {trades}")
    except (ScenarioError, RuntimeError, ValueError) as exc:
        return _fail(str(exc))
    return 0


def cmd_selfplay(args: argparse.Namespace) -> int:
    from agents.registry import AgentSpecError
    from agents.tradecraft.selfplay import instance_set, progress_bar, run_selfplay, summary
    from sim.registry import ScenarioError

    try:
        games = instance_set(args.instances)
    except (ScenarioError, ValueError) as exc:
        return _fail(str(exc))
    if args.seeds < 1:
        return _fail("--seeds must be at least 1")
    out = None if args.no_record else Path(args.out or "runs/tradecraft-selfplay")
    seeds = list(range(args.seed, args.seed + args.seeds))
    bar = progress_bar(len(games) * len(seeds), "selfplay", args.quiet)
    try:
        rows = run_selfplay(games, args.agents, seeds, out, progress=bar.update,
                            overrides={"max_turns": args.max_turns, "stop": args.stop, "ties": args.ties,
                                       **_rule_values(args)})
    except (AgentSpecError, ScenarioError, ValueError) as exc:
        return _fail(str(exc))
    finally:
        bar.close()
    if not args.quiet:
        print(summary(rows))
        if out is not None:
            print(f"table: {out / 'selfplay.csv'}\nrecordings: {out}/")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from sim.analysis.tradecraft import analyze, recovery
    from sim.recording import RecordingError

    try:
        result = analyze(args.paths, args.out, bootstrap=args.bootstrap, plots=not args.no_plots)
    except (FileNotFoundError, RecordingError) as exc:
        return _fail(str(exc))
    for w in result["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(f"{result['episodes']} episodes, {result['reports']} value reports, {result['proposals']} proposals, "
          f"{result['decisions']} decisions")
    for s in result["proposal_summary"]:
        print(f"proposals {s['group']}: n={s['n_proposals']} r={s['r']:.3f} [{s['r_ci_low']:.3f}, {s['r_ci_high']:.3f}]"
              f"  m={s['m']:.3f} [{s['m_ci_low']:.3f}, {s['m_ci_high']:.3f}]")
    for f in result["utility_fit"]:
        coef = " ".join(f"{k}={f[f'c_{k}']:+.2f}" for k in ("G0", "L0", "G1", "L1", "G2", "L2")
                        if f[f"c_{k}"] == f[f"c_{k}"])
        print(f"fit {f['group']} {f['model']}: macro-F1 {f['macro_f1_mean']:.2f} +- {f['macro_f1_std']:.2f} "
              f"(n={f['n_decisions']})  {coef}")
    for group, truth in _known_truths(args.paths).items():
        for f in result["utility_fit"]:
            if f["group"] == group and f["model"] == truth["model"]:
                rec = recovery(f, truth["coefficients"])
                print(f"known weights of {group}: signs {'match' if rec['signs_match'] else 'DIFFER'}, "
                      f"order {'matches' if rec['order_match'] else 'differs'} "
                      f"(truth {' > '.join(rec['order_truth'])}; fit {' > '.join(rec['order_fit'])}; "
                      f"Spearman of magnitudes {rec['spearman_abs']:.2f})")
    print(f"written to {args.out}: {', '.join(result['files'])}")
    return 0


def _known_truths(paths: list[str]) -> dict[str, dict[str, Any]]:
    """The planner traders' own utility weights per group (when all seats of the group agree)."""
    from agents.tradecraft.trader import UtilityWeights
    from sim.analysis.tradecraft import group_label, recording_files
    from sim.recording import read_header

    found: dict[str, set] = {}
    for path in recording_files(paths):
        header = read_header(path)
        for seat in (header.get("seats") or {}).values():
            if (seat or {}).get("kind") == "trader":
                key = tuple((k, seat[k]) for k in ("order", "rho", "w1", "gamma", "w2", "kappa"))
                found.setdefault(group_label(seat), set()).add(key)
    out = {}
    for group, keys in found.items():
        if len(keys) == 1:
            params = dict(next(iter(keys)))
            order = params.pop("order")
            weights = UtilityWeights(**params)
            out[group] = {"model": ["U0", "U01", "U012"][order], "coefficients": weights.coefficients(order)}
    return out


def _rules(name: str):
    from sim.tradecraft.instance import rules_folder
    from sim.tradecraft.rules import load_ruleset
    return load_ruleset(rules_folder(name))


def cmd_tool(args: argparse.Namespace) -> int:
    from sim.registry import ScenarioError
    from sim.tradecraft.instance import MAX_AMOUNT
    from sim.tradecraft.rules import RuleSetError
    from sim.tradecraft.tools import item_info, possible_recipes_from_hands

    try:
        rules = _rules(args.rules)
    except (ScenarioError, RuleSetError) as exc:
        return _fail(str(exc))
    if args.name == "item_info":
        name = " ".join(args.args).strip()
        try:
            rules.resolve(name)
        except KeyError:
            text = item_info(rules, name)  # the tool's own answer: the unknown item and close names
            return _fail(f"item_info {name!r:.80}: {text.removeprefix('item_info: ')}; expected an item the rule set "
                         "holds ('tradecraft rules' lists them)")
        print(item_info(rules, name))
        return 0
    hand: dict[str, int] = {}
    for part in args.args:
        name, eq, amount = part.partition("=")
        try:
            item = rules.resolve(name.strip())
        except KeyError as exc:
            return _fail(f"possible_recipes {part!r:.80}: {exc.args[0]}; expected ITEM=N with an item of rule set "
                         f"{rules.name!r}")
        if eq and not re.fullmatch(r"[0-9]{1,12}", amount.strip()):
            return _fail(f"possible_recipes {part!r:.80}: the amount {amount!r:.40} is not a whole number; expected "
                         f"ITEM=N with N from 1 to {MAX_AMOUNT:,}")
        count = int(amount) if eq else 1
        if not 1 <= count <= MAX_AMOUNT:
            return _fail(f"possible_recipes {part!r:.80}: expected ITEM=N with N from 1 to {MAX_AMOUNT:,}, got {count}")
        if item in hand:
            return _fail(f"possible_recipes {part!r:.80}: {item} is given twice; expected each item once")
        hand[item] = count
    print(possible_recipes_from_hands(rules, hand, args.crafting or "fractional", args.recipe_list or "any_scale"))
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from sim.registry import ScenarioError
    from sim.tradecraft.rules import RuleSetError

    try:
        rules = _rules(args.rules)
    except (ScenarioError, RuleSetError) as exc:
        return _fail(str(exc))
    s = rules.summary()
    print(f"rule set {s['name']} ({rules.source})")
    print(f"  {s['recipes']} recipes, {s['items']} items, {s['tags']} tags, {s['fuels']} fuels")
    for kind, n in s["by_type"].items():
        print(f"  {kind:<22} {n}")
    if s["skipped"]:
        print(f"  skipped {sum(s['skipped'].values())} recipe(s) of types the game does not use: "
              + ", ".join(f"{k} {v}" for k, v in s["skipped"].items()))
    print(f"  fuel values from {s['fuel_source']}")
    for note in s["notes"]:
        print(f"  note: {note}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from sim.registry import ScenarioError
    from sim.redact import write_text
    from sim.tradecraft.instance import import_paper_instances

    options = _rule_values(args)
    if args.max_turns is not None:
        if not 1 <= args.max_turns <= 1000:
            return _fail(f"--max-turns must be 1 to 1000, got {args.max_turns}")
        options["max_turns"] = args.max_turns
    try:
        report = import_paper_instances(args.file, args.rules, args.prefix, options)
    except ScenarioError as exc:
        return _fail(str(exc))
    out = Path(args.out)
    if report.specs:
        try:
            out.mkdir(parents=True, exist_ok=True)
            for spec in report.specs:
                data = {k: v for k, v in spec.items() if k != "_entry"}
                write_text(out / f"{spec['name']}.json", json.dumps(data, indent=2) + "\n")
        except OSError as exc:
            return _fail(f"{out}: cannot write the instances ({exc.strerror or exc})")
    for line in report.lines():
        print(line)
    skipped = len(report.problems)
    print(f"imported {len(report.specs)} of {report.total} entries"
          + (f" into {out}/" if report.specs else "") + (f"; {skipped} skipped" if skipped else "")
          + (f"\nplay them: python main.py tradecraft selfplay {out} --out runs/imported" if report.specs else ""))
    if not report.specs:
        return EXIT_USAGE
    return 1 if skipped else 0


def cmd_play(args: argparse.Namespace) -> int:
    from agents.registry import AgentSpecError, make_agent
    from agents.tradecraft.terminal import TerminalTrader
    from sim.recording import RecordingWriter
    from sim.registry import ScenarioError, load_scenario
    from sim.session import Session

    try:
        world, name = load_scenario(args.instance)
        if world.family != "tradecraft":
            return _fail(f"{args.instance} is not a TradeCraft instance")
        seat = args.seat or world.agents[0]
        if seat not in world.agents:
            return _fail(f"--seat must be one of {', '.join(world.agents)}")
        others = [a for a in world.agents if a != seat]
        seats = {a: make_agent(args.agents[k % len(args.agents)], world.family) for k, a in enumerate(others)}
    except (ScenarioError, AgentSpecError) as exc:
        return _fail(str(exc))
    seats[seat] = TerminalTrader()
    session = Session(world, seats, seed=args.seed, scenario=name)
    if args.record:
        RecordingWriter.attach(session, args.record)
    try:
        outcome = session.run()
    except (EOFError, KeyboardInterrupt):
        session.stop()
        print("\ngame stopped")
        return 1
    print(world.render_text(session.state))
    print(f"winners: {', '.join(outcome['winners']) or 'none'}")
    return 0
