"""ToM Arena command line.

    python main.py run SCENARIO [--agents SPEC ...] [--episodes N] [--seed S] [--out DIR]
    python main.py replay FILE [--step K]
    python main.py recording convert SRC DST                                   format 1, 2 -> current
    python main.py list
    python main.py experiment NAME [--seeds N] [--out DIR] [--jobs J] [--concurrent C] [--resume] [--backend local|ray]
    python main.py llm serve [--port P] | llm check                              the LLM layer
    python main.py tradecraft generate | selfplay | analyze | tool | rules | import | play    TradeCraft
    python main.py [gui [SCENARIO] [FILE] [--cooks N] [--agents SPEC ...] [--facilitator F] [--mechanism M]]   the app
    python main.py study host | check | analyze ; python main.py join HOST:PORT --code C   human studies
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.outputs import file_problem, output_problem

EXIT_USAGE = 2


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


#: largest seed accepted (recording file names carry it; numpy takes any non-negative integer)
MAX_SEED = 2**63 - 1
#: the largest counts the command line accepts (docs/limits.md)
COUNT_LIMITS = {"--episodes": 1_000_000, "--seeds": 1_000_000, "--max-turns": 1000, "--jobs": 256,
                "--concurrent": 256, "--count": 100_000, "--bootstrap": 1_000_000, "--rounds": 1000}


def argument_problem(args: argparse.Namespace) -> str | None:
    """Checks every command shares: numbers in range and output folders writable."""
    import math

    seed = getattr(args, "seed", None)
    if seed is not None and not 0 <= seed <= MAX_SEED:
        return f"--seed must be a non-negative integer up to {MAX_SEED}, got {seed}"
    for option, most in COUNT_LIMITS.items():
        value = getattr(args, option[2:].replace("-", "_"), None)
        if value is not None and value < 1:
            return f"{option} must be at least 1, got {value}"
        if value is not None and value > most:
            return f"{option} must be at most {most:,} (docs/limits.md), got {value}"
    runs = getattr(args, "episodes", None) or getattr(args, "seeds", None) or 1
    if seed is not None and seed + runs - 1 > MAX_SEED:
        return f"--seed {seed} with {runs} seeds goes past the largest seed, {MAX_SEED}"
    port = getattr(args, "port", None)
    if port is not None and not 1 <= port <= 65535:
        return f"--port must be between 1 and 65535, got {port}"
    speed = getattr(args, "speed", None)
    if speed is not None and not (math.isfinite(speed) and speed > 0):
        return f"--speed must be a positive number of steps per second, got {speed}"
    out = getattr(args, "out", None)
    if out is not None:
        problem = output_problem(out)
        if problem:
            return f"--out {out!r:.200}: {problem}"
    record = getattr(args, "record", None)
    if record is not None:
        problem = file_problem(record)
        if problem:
            return f"--record {record!r:.200}: {problem}"
    settings = getattr(args, "settings", None)
    if settings is not None:
        problem = settings_problem(settings)
        if problem:
            return f"--settings {settings!r:.200}: {problem}"
    facilitator = getattr(args, "facilitator", None)
    if facilitator is not None:
        problem = facilitator_problem(facilitator)
        if problem:
            return f"--facilitator {facilitator!r:.200}: {problem}"
    return None


#: the largest settings file the app reads (an INI file of a few dozen keys is a few KiB)
MAX_SETTINGS_BYTES = 1024 * 1024


def settings_problem(path: str) -> str | None:
    """Why ``path`` cannot be the app's INI settings file (read and rewritten), or None: it
    must be a file that can be written (or created), and an existing one must be INI text."""
    problem = file_problem(path)
    if problem:
        return problem
    target = Path(path)
    if not target.exists():
        return None
    if not target.is_file():
        return "not a regular file; expected an INI settings file"
    from sim.inputs import InputError, read_text

    try:
        read_text(target, InputError, max_bytes=MAX_SETTINGS_BYTES, kind="settings file (INI text)")
    except InputError as exc:
        return str(exc).removeprefix(f"{target}: ")
    return None


def facilitator_problem(spec: str) -> str | None:
    """Why ``spec`` is not a facilitator (a team mechanism, say), or None; its parameters are
    checked against the world when the scenario is known."""
    from agents.registry import AgentSpecError, mechanism_kinds, parse_agent_spec

    try:
        kind, _ = parse_agent_spec(spec)
    except AgentSpecError as exc:
        return str(exc)
    if kind in ("none", ""):
        return None
    facilitators = mechanism_kinds("facilitator")
    if kind in facilitators:
        return None
    known = f"expected a facilitator kind: none, {', '.join(sorted(facilitators))}"
    other = mechanism_kinds().get(kind)
    if other is not None:
        return f"{kind!r} is a {other.role} mechanism, not a facilitator (give it with --mechanism); {known}"
    return f"no mechanism kind {kind!r}; {known}"


def format_table(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[str(c) for c in columns]] + [["" if r.get(c) is None else str(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agents.registry import AgentSpecError, make_agent, make_mechanism, make_mechanisms, seat_specs
    from sim.plugins import plugin
    from sim.recording import RecordingWriter
    from sim.redact import DictWriter
    from sim.registry import ScenarioError, load_questions, load_scenario
    from sim.session import Session

    mechanism_specs = [args.facilitator, *(args.mechanism or [])]
    try:
        world, name = load_scenario(args.scenario, args.format, {"cooks": args.cooks})
        questions = load_questions(args.scenario, args.format, {"cooks": args.cooks})  # kept in each recording
        specs = seat_specs(world.agents, args.agents or [plugin(world.family).default_agent])
        if not args.agents and getattr(world, "default_agent", None):  # a world may name its own default seat
            specs = seat_specs(world.agents, [world.default_agent])
        for spec in specs.values():
            make_agent(spec, world.family)  # validate before the first episode
        make_mechanism(args.facilitator, world.family, role="facilitator")  # not a team mechanism
        make_mechanisms(mechanism_specs, world.family)
    except (ScenarioError, AgentSpecError, ValueError) as exc:
        return _fail(str(exc))
    if args.episodes < 1:
        return _fail("--episodes must be at least 1")
    out = Path(args.out or Path("runs") / name)
    keep_table = not args.no_record or bool(args.out)  # --no-record without --out writes nothing
    problem = None if args.out or not keep_table else output_problem(out)  # an explicit --out was checked before
    if problem:
        return _fail(f"output folder {out}: {problem}; choose another with --out")
    longest = f"{name}-seed{args.seed + args.episodes - 1}.jsonl.gz"
    if len(os.fsencode(longest)) > 255:
        return _fail(f"scenario name {name[:40]!r}... makes recording file names longer than 255 bytes; "
                     "expected a shorter name")
    suffix = ".jsonl.gz" if args.gzip else ".jsonl"
    table_path = out / "metrics.csv"
    targets = ([table_path] if keep_table else []) + ([] if args.no_record else
                              [out / f"{name}-seed{args.seed + i}{suffix}" for i in range(min(args.episodes, 10_000))])
    for k, target in enumerate(targets):  # a folder standing where a file goes, a read-only file: before any episode
        problem = file_problem(target, probe_folder=k == 0)
        if problem:
            return _fail(f"cannot write {target}: {problem}")
    rows = []
    columns = ["scenario", "seed", "agents", "mechanisms", "success", "length", "ticks", "feedback", "team_changes",
               "messages", "message_words", "errors", "recording"]
    table: Any = contextlib.nullcontext()
    writer = None
    if keep_table:
        out.mkdir(parents=True, exist_ok=True)
        table = open(table_path, "w", newline="", encoding="utf-8")  # one row per episode as it ends, flushed
        writer = DictWriter(table, fieldnames=columns)  # scrubbed: a spec may hold an endpoint's credentials
        writer.writeheader()
        table.flush()
    bar = tqdm(range(args.episodes), desc=f"{name}", unit="ep", disable=args.quiet or None,
               file=sys.stderr, dynamic_ncols=True)
    with table:
        for i in bar:
            seed = args.seed + i
            seats = {a: make_agent(spec, world.family) for a, spec in specs.items()}
            try:  # a mechanism that does not fit this world says so when it meets it (reset)
                session = Session(world, seats, seed=seed, scenario=name,
                                  mechanisms=make_mechanisms(mechanism_specs, world.family), rounds=args.rounds,
                                  questions=questions)
            except ValueError as exc:
                return _fail(f"{name}: {exc}")
            path = None
            if not args.no_record:
                path = out / f"{name}-seed{seed}{suffix}"
                problem = file_problem(path, probe_folder=False)  # the first 10,000 were checked before
                if problem:
                    return _fail(f"cannot write {path}: {problem}")
                RecordingWriter.attach(session, path)
            outcome = session.run()
            metrics = session.metrics()
            row = {"scenario": name, "seed": seed, "agents": " ".join(f"{a}={s}" for a, s in specs.items()),
                   "mechanisms": " ".join(s for s in mechanism_specs if s != "none"),
                   "success": outcome.get("success"), "length": outcome.get("length"),
                   "ticks": metrics["ticks"], "feedback": metrics["feedback"],
                   "team_changes": metrics["team_changes"], "messages": metrics["messages"],
                   "message_words": metrics["message_words"],
                   "errors": metrics["errors"], "recording": str(path) if path else ""}
            rows.append(row)
            if writer is not None:
                writer.writerow(row)
                table.flush()
                os.fsync(table.fileno())  # a killed run keeps every finished episode's row
    if not args.quiet:
        print(format_table(rows, ["seed", "success", "length", "ticks", "feedback", "errors"]))
        successes = sum(bool(r["success"]) for r in rows)
        lengths = [r["length"] for r in rows if r["length"] is not None]
        mean = f"{sum(lengths) / len(lengths):.1f}" if lengths else "-"
        print(f"\n{name}: {successes}/{len(rows)} successful, mean length {mean} ticks")
        print((f"metrics: {table_path}" if keep_table else "metrics: not written (--no-record without --out)")
              + ("" if args.no_record else f"\nrecordings: {out}/"))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from sim.recording import RecordingError
    from sim.registry import ScenarioError
    from sim.replay import Replay

    try:
        replay = Replay(args.file)
    except (RecordingError, ScenarioError) as exc:
        return _fail(str(exc))
    for note in replay.notes:
        print(f"note: {note}", file=sys.stderr)
    if replay.unverified:
        print(f"warning: {replay.unverified}", file=sys.stderr)
    for warning in replay.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    k = replay.num_steps if args.step is None else args.step
    if not 0 <= k <= replay.num_steps:
        return _fail(f"--step must be between 0 and {replay.num_steps}, got {k}")
    header = replay.recording.header
    print(f"{args.file}: {header.get('scenario')} seed {header.get('seed')}, "
          f"{replay.num_steps} steps; showing step {k}")
    print(replay.world.render_text(replay.state_at(k)))
    if k < replay.num_steps:
        print(f"next: {replay.joint_action(k)}")
    shown = [e for e in replay.events_at(k) if e.type not in ("observation",)]
    if shown:
        print("\nrecorded at this step:")
        for e in shown:
            d = e.to_dict()
            d.pop("tick")
            print(f"  {d.pop('type')}: {d}")
    footer = replay.recording.footer
    if footer and k == replay.num_steps:
        print(f"\noutcome: {footer['outcome']}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    problem = file_problem(args.clip)
    if problem:
        return _fail(f"--out {args.clip!r:.200}: {problem}")
    from ui.export.clip import cli

    return cli(args.recording, args.clip, args.first, args.last, args.view, args.size, args.fps,
               plans=not args.no_plans)


def cmd_experiment(args: argparse.Namespace) -> int:
    from experiments.runner import find_design, known_designs, main as run_experiment

    if find_design(args.name) is None:
        return _fail(f"no experiment {args.name!r:.200}; known: {', '.join(known_designs()) or 'none'}")
    if args.jobs is not None and args.jobs < 1:
        return _fail("--jobs must be at least 1")
    if args.address and args.backend != "ray":
        return _fail("--address needs --backend ray")
    jobs = args.jobs if args.jobs is not None else (2 if args.backend == "local" else None)
    command = " ".join(["python", "main.py", *(_quote(a) for a in sys.argv[1:])]) if sys.argv[1:2] == ["experiment"] \
        else None
    return run_experiment(args.name, seeds=args.seeds, out=args.out, jobs=jobs, resume=args.resume,
                          backend=args.backend, address=args.address, quiet=args.quiet, command=command,
                          concurrent=args.concurrent)


def _quote(arg: str) -> str:
    import shlex
    return shlex.quote(arg)


def cmd_recording_convert(args: argparse.Namespace) -> int:
    from sim.recording import FORMAT_VERSION, RecordingError, convert_recording

    try:
        recording = convert_recording(args.src, args.dst)
    except RecordingError as exc:
        return _fail(str(exc))
    for warning in [recording.unverified] * bool(recording.unverified) + recording.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"{args.dst}: format version {FORMAT_VERSION} with a hash chain, {len(recording.events)} events "
          f"from {args.src} (format version {recording.file_version})")
    return 0


def _worlds(kind: Any) -> str:
    """The worlds a kind plays, for people: "any", or "none" for a method no world declares."""
    return ", ".join(kind.worlds()) or ("none" if kind.needs else "any")


def cmd_list(args: argparse.Namespace) -> int:
    from sim.registry import ScenarioError, families, list_scenarios

    if args.world is not None and args.world not in families():
        return _fail(f"--world {args.world!r:.80}: no such world; known worlds: {', '.join(sorted(families()))}")
    try:
        infos = list_scenarios()
    except ScenarioError as exc:
        return _fail(str(exc))
    from sim.plugins import plugin_problems

    for problem in plugin_problems():
        print(f"warning: {problem}", file=sys.stderr)
    titles = {name: fam.title for name, fam in families().items()}
    rows = [{"scenario": i.name, "world": titles.get(i.family, i.family), "category": i.category or "",
             "agents": ", ".join(i.agents), "title": i.title} for i in infos
            if not getattr(args, "world", None) or i.family == args.world]
    print(format_table(rows, ["scenario", "world", "category", "agents", "title"]))
    if args.agents:
        from agents.registry import agent_kinds, kind_problems

        for problem in kind_problems():
            print(f"warning: {problem}", file=sys.stderr)
        print("\nagent kinds (for --agents):")
        kinds = [{"kind": k.name, "worlds": _worlds(k), "what it does": k.summary} for k in agent_kinds(listed=True).values()]
        print(format_table(kinds, ["kind", "worlds", "what it does"]))
        from agents.registry import mechanism_kinds
        print("\nmechanism kinds (for --facilitator and --mechanism):")
        kinds = [{"kind": k.name, "role": k.role, "worlds": _worlds(k), "what it does": k.summary}
                 for k in mechanism_kinds(listed=True).values()]
        print(format_table(kinds, ["kind", "role", "worlds", "what it does"]))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="main.py", description="ToM Arena: simulate, record and replay Theory-of-Mind multi-agent episodes.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  python main.py list --agents\n"
               "  python main.py run two-rooms --agents planner boltzmann:temperature=1.0 --episodes 10\n"
               "  python main.py replay runs/two-rooms/two-rooms-seed0.jsonl --step 5\n"
               "  python main.py run protom-15-locked-in --agents boltzmann --facilitator protom\n"
               "  python main.py experiment protom-dkg --seeds 10")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run episodes headless, write recordings and a metrics table",
                         description="Run episodes of a scenario without a window. Writes one recording "
                                     "per episode and metrics.csv into --out (default runs/<scenario>), and "
                                     "prints a summary. With --no-record it writes no recordings, and "
                                     "metrics.csv only when --out is given.")
    run.add_argument("scenario", help="scenario name (see 'list') or path to a scenario file")
    run.add_argument("--format", metavar="NAME",
                     help="the scenario file's format: json, or a world's level format (kitchen, gym-cooking); "
                          "default: by the file's name, else by its content")
    run.add_argument("--cooks", type=int, metavar="N",
                     help="how many cooks play a gym-cooking level (1-4, default 2; its file gives start "
                          "positions, not cooks); refused by levels that name their cooks")
    run.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="one agent spec per seat in turn order, or SEAT=SPEC; a single spec fills every "
                          "seat. SPEC is KIND or KIND:param=value,... e.g. boltzmann:temperature=0.5 "
                          "(default: the world's, e.g. planner in Doors, Keys and Gems, trader in TradeCraft)")
    run.add_argument("--facilitator", default="none", metavar="SPEC",
                     help="facilitator: none, protom, oracle, random or llm, optionally KIND:param=value,... "
                          "e.g. protom:eps=0.2,temperature=0.5 (default: none; see docs/protom.md)")
    run.add_argument("--mechanism", action="append", metavar="SPEC",
                     help="another mechanism to run beside the facilitator (repeatable), e.g. a team "
                          "mechanism; 'list --agents' lists the kinds")
    run.add_argument("--episodes", type=int, default=1, metavar="N", help="number of episodes (default 1)")
    run.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first episode; episode i "
                                                                     "uses S+i (default 0)")
    run.add_argument("--rounds", type=int, default=1, metavar="R",
                     help="task rounds per episode: the scenario is played R times in a row from its start, "
                          "with the same agents and mechanisms (teams formed earlier play later rounds; "
                          "default 1)")
    run.add_argument("--out", metavar="DIR", help="output folder (default runs/<scenario>)")
    run.add_argument("--gzip", action="store_true", help="compress recordings (.jsonl.gz)")
    run.add_argument("--no-record", action="store_true", help="write no recordings; metrics.csv only into an --out given (without --out nothing "
                          "is written, only the summary is printed)")
    run.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    run.add_argument("--unsafe-sandbox", action="store_true",
                     help="where the team room's sandbox (bubblewrap) cannot run, run submitted code "
                          "with resource limits only; NOT safe against code written to escape "
                          "(docs/teamroom.md)")
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="print a recorded state as text",
                            description="Rebuild a recorded episode (checking every state hash) and print "
                                        "the state after step K with what was recorded at that step.")
    replay.add_argument("file", help="a recording (.jsonl or .jsonl.gz)")
    replay.add_argument("--step", type=int, metavar="K", help="step to show (default: the last)")
    replay.set_defaults(func=cmd_replay)

    export = sub.add_parser("export", help="write a clip of a recording (GIF or MP4) for slides",
                            description="Draw steps of a recorded episode offscreen, with the app's own renderer "
                                        "and in the view of your choice (the world as it is, a seat's eyes, or as "
                                        "a mind believes it), and write them as a GIF (Pillow) or an MP4 (needs "
                                        "the packages imageio and imageio-ffmpeg). The app's File > Export clip… "
                                        "does the same. docs/gui.md, \"Clips for slides\".")
    export.add_argument("recording", metavar="RECORDING", help="a recording (.jsonl or .jsonl.gz)")
    export.add_argument("--out", dest="clip", required=True, metavar="FILE", help="the clip to write: a name ending in .gif or .mp4")
    export.add_argument("--from", dest="first", type=int, default=0, metavar="N", help="first step (default 0)")
    export.add_argument("--to", dest="last", type=int, metavar="M", help="last step (default: the recording's last)")
    export.add_argument("--view", metavar="VIEW",
                        help="what the map shows: \"the world as it is\" (default), \"NAME's eyes\" (what a seat "
                             "sees), or a believed world as the app's View > As X believes it names it, e.g. "
                             "\"As sally believes it\"; a wrong name lists the recording's views")
    export.add_argument("--size", default="960x640", metavar="WxH", help="picture size in pixels (default 960x640)")
    export.add_argument("--fps", type=float, default=4.0, metavar="STEPS", help="steps per second (default 4)")
    export.add_argument("--no-plans", action="store_true", help="leave out the agents' planned paths")
    export.set_defaults(func=cmd_export)

    lst = sub.add_parser("list", help="list scenarios", description="List the shipped scenarios.")
    lst.add_argument("--agents", action="store_true", help="also list the agent kinds")
    lst.add_argument("--world", metavar="FAMILY", help="only scenarios of this world (dkg, tradecraft, ...)")
    lst.set_defaults(func=cmd_list)

    designs = sorted(p.stem for p in (Path(__file__).parent / "scenarios" / "experiments").glob("*.json"))
    exp = sub.add_parser("experiment", help="run a configured experiment (e.g. protom-dkg)",
                         description="Run every scenario x condition x seed of an experiment configured in "
                                     "scenarios/experiments/NAME.json and write CSV tables, statistics and "
                                     f"figures into --out (docs/experiments.md). Shipped: {', '.join(designs)}.")
    exp.add_argument("name", help="experiment name (a file in scenarios/experiments/) or a path to its JSON")
    exp.add_argument("--seeds", type=int, metavar="N", help="seeds per scenario and condition "
                                                           "(default: the configuration's)")
    exp.add_argument("--out", metavar="DIR", help="output folder (default runs/<experiment>)")
    exp.add_argument("--jobs", type=int, metavar="J", help="episodes at once: worker processes (local, default 2; "
                                                           "1 runs everything in this process) or Ray tasks in "
                                                           "flight (default: the cluster's CPUs)")
    exp.add_argument("--concurrent", type=int, default=1, metavar="C",
                     help="episodes at once in each worker, on threads (default 1): for conditions whose "
                          "episodes wait on a model endpoint, so that its requests overlap (the embedded "
                          "model answers C at once with TOM_ARENA_LLM_SLOTS=C: docs/llm.md)")
    exp.add_argument("--resume", action="store_true", help="finish an interrupted sweep: run only the episodes "
                                                          "missing from --out's episodes.jsonl")
    exp.add_argument("--backend", choices=("local", "ray"), default="local",
                     help="where episodes run: a local process pool (default) or a Ray cluster (optional extra)")
    exp.add_argument("--address", metavar="ADDR", help="with --backend ray: an existing cluster (auto, HOST:PORT or "
                                                       "ray://HOST:10001); default: start a local one")
    exp.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    exp.add_argument("--unsafe-sandbox", action="store_true",
                     help="where the team room's sandbox (bubblewrap) cannot run, run submitted code "
                          "with resource limits only; NOT safe against code written to escape "
                          "(docs/teamroom.md)")
    exp.set_defaults(func=cmd_experiment)

    recording = sub.add_parser("recording", help="convert recordings between format versions",
                               description="Work on recording files. 'convert' writes a recording of an older "
                                           "format version (1 or 2) in the current one, with the hash chain that "
                                           "reports later edits; every event is kept (a version 1 or 2 file did "
                                           "not keep its teaching questions: they stay unknown).")
    recording_sub = recording.add_subparsers(dest="recording_command", metavar="ACTION", required=True)
    convert = recording_sub.add_parser("convert", help="write SRC in the current format as DST",
                                       description="Write the recording SRC (any format version this program "
                                                   "reads) in the current format as DST, which must not exist. "
                                                   "A damaged or cut SRC converts to what loads, with its warnings.")
    convert.add_argument("src", metavar="SRC", help="the recording to convert (.jsonl or .jsonl.gz)")
    convert.add_argument("dst", metavar="DST", help="the new file (.jsonl.gz compresses it)")
    convert.set_defaults(func=cmd_recording_convert)

    from agents.llm.cli import add_parser as add_llm_parser  # llm serve | llm check
    add_llm_parser(sub)
    from agents.tradecraft.cli import add_parser as add_tradecraft_parser  # tradecraft generate | selfplay | ...
    add_tradecraft_parser(sub)
    from sim.dkg.cli import add_parser as add_dkg_parser  # dkg import
    add_dkg_parser(sub)
    from experiments.team_diagnosis import add_parser as add_teams_parser  # teams diagnose
    add_teams_parser(sub)
    from experiments.study_cli import add_parser as add_study_analysis  # study analyze
    from ui.net.cli import add_parser as add_study_parser  # study host | check, join
    add_study_analysis(add_study_parser(sub))

    gui = sub.add_parser("gui", help="open the desktop app (the default command)",
                         description="Open the ToM Arena window. With no TARGET it plays the default scenario "
                                     "by itself; TARGET is a scenario name or file, or a recording to replay "
                                     "(.jsonl / .jsonl.gz). Keys, panels and playback: docs/gui.md.")
    gui.add_argument("targets", nargs="*", metavar="TARGET", help="a scenario and/or a recording file")
    gui.add_argument("--cooks", type=int, metavar="N",
                     help="how many cooks play a gym-cooking level given as TARGET, as for 'run' (1-4, default 2); "
                          "refused by levels that name their cooks")
    gui.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="seats as for 'run' (KIND, KIND:param=value,... or SEAT=SPEC); 'human' lets you "
                          "play a seat with the keyboard (TradeCraft: with the board dock, docs/tradecraft.md) "
                          "(default: boltzmann in every seat; trader in TradeCraft)")
    gui.add_argument("--facilitator", metavar="SPEC", help="facilitator kind: none, protom, oracle, random, llm "
                                                            "(default: protom when installed and the world has "
                                                            "it, else none)")
    gui.add_argument("--mechanism", action="append", metavar="SPEC",
                     help="another mechanism beside the facilitator (repeatable), as for 'run'")
    gui.add_argument("--seed", type=int, default=0, metavar="S", help="episode seed (default 0)")
    gui.add_argument("--speed", type=float, metavar="STEPS", help="playback speed in steps per second")
    gui.add_argument("--paused", action="store_true", help="start paused (press K to play)")
    gui.add_argument("--exit-when-done", action="store_true",
                     help="close the window when the episode ends (demos, scripted checks)")
    gui.add_argument("--settings", metavar="FILE", help="keep settings in this INI file instead of the "
                                                         "user's settings")
    gui.add_argument("--unsafe-sandbox", action="store_true",
                     help="where the team room's sandbox (bubblewrap) cannot run, run submitted code "
                          "with resource limits only; NOT safe against code written to escape "
                          "(docs/teamroom.md)")
    gui.add_argument("--host", type=int, metavar="PORT",
                     help="host a human study on this port instead (the same as 'study host --port PORT'; "
                          "docs/study.md)")
    gui.add_argument("--study", metavar="STUDY", help="with --host: the study file or shipped study's name")
    gui.set_defaults(func=cmd_gui)
    return parser


def cmd_gui(args: argparse.Namespace) -> int:
    if args.host is not None:
        if args.cooks is not None:
            return _fail("--cooks sets how many cooks play a gym-cooking level in the window; a hosted study's "
                         "levels come from its study file")
        from ui.net.cli import DEFAULT_STUDY, host_study

        return host_study(args.study or DEFAULT_STUDY, args.host, None, None)
    if args.study is not None:
        return _fail("--study is for hosting a study: give --host PORT too")
    from ui.app import run_app

    return run_app(targets=args.targets, agents=args.agents or (), facilitator=args.facilitator,
                   mechanisms=args.mechanism or (), seed=args.seed, cooks=args.cooks,
                   paused=args.paused, speed=args.speed, exit_when_done=args.exit_when_done,
                   settings_file=args.settings)


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["gui", *argv]  # `main.py --paused` means `main.py gui --paused`: gui is the default command
    args = parser.parse_args(argv)
    if args.command is None:  # no command: the desktop app on its default scenario
        args = parser.parse_args(["gui"])
    problem = argument_problem(args)
    if problem:
        return _fail(problem)
    if getattr(args, "unsafe_sandbox", False):
        from sim.teamroom.sandbox import allow_unsafe

        allow_unsafe()  # an explicit choice; experiment workers inherit it through the environment
    return args.func(args)


if __name__ == "__main__":
    try:
        code = main()
    except BrokenPipeError:  # output piped into a pager or `head` that closed early: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    # The process ends here: the garbage collector's passes over everything loaded while the
    # interpreter shuts down (0.08-0.1 s of CPU after an experiment) free nothing it needs.
    # Exit handlers and the modules' own teardown still run.
    import gc

    gc.freeze()
    sys.exit(code)
