"""The generic experiment runner: designs checked before anything runs, per-episode results,
resuming a sweep killed half-way (a real process, SIGKILL), reports, and worlds other than DKG."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments.design import ExperimentError, load_design
from experiments.runner import RESULTS, ResultsFile, compute_metrics, plan, resolve_scenarios, run_checks, run_sweep
from main import main
from sim.registry import SCENARIO_DIR

ROOT = Path(__file__).resolve().parent.parent
PROTOM = SCENARIO_DIR / "experiments" / "protom-dkg.json"


def write_design(tmp_path: Path, name: str = "small", **changes) -> Path:
    data = json.loads(PROTOM.read_text())
    data.update({"experiment": name, **changes})
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def episode_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if '"record":"episode"' in line]


def test_designs_are_checked_with_the_file_and_field(tmp_path):
    design = load_design(PROTOM)
    assert [c.name for c in design.conditions] == ["none", "protom", "oracle", "random"]
    assert (design.seeds.count, design.seeds.first, design.baseline, design.reference) == (10, 42, "none", "protom")
    cases = [
        ({"reference": "nobody"}, r"field '\(top level\)'.*reference 'nobody' is not a condition"),
        ({"seeds": {"count": 0}}, r"field 'seeds.count'"),
        ({"metrics": [{"name": "x", "source": "outcome.success", "derive": "a:b"}]}, "exactly one of"),
        ({"checks": [{"hook": "experiments.protom_dkg:no_such_check"}]}, r"field 'checks\[0\].hook': no pre-check hook"),
        ({"facilitators": []}, "old ProToM-only format"),
        ({"baseline": None}, r"field 'metrics\[1\].params': metric 'speedup' compares with the baseline"),
    ]
    for changes, message in cases:
        with pytest.raises(ExperimentError, match=message):
            load_design(write_design(tmp_path, **changes))
    success = [{"name": "success", "source": "outcome.success", "kind": "binary"}]
    bad = load_design(write_design(tmp_path, conditions=[{"name": "p", "mechanisms": ["protom:phi_threshold=1"]}],
                                   baseline=None, reference=None, floor=None, ceiling=None,
                                   share_metrics=None, metrics=success))
    with pytest.raises(ExperimentError, match="condition 'p' on protom-01-open-hall.*phi_threshold"):
        plan(bad, resolve_scenarios(["protom-01-open-hall"]), [0])
    with pytest.raises(ExperimentError, match="no scenario matches 'kitchen/protom-\\*'"):
        resolve_scenarios(["kitchen/protom-*"])
    # a mechanism whose parameters are fine but which cannot work in this world: one line, before any episode
    big = load_design(write_design(tmp_path, conditions=[{"name": "r", "mechanisms": ["random-teams:size=9"]}],
                                   baseline=None, reference=None, floor=None, ceiling=None,
                                   share_metrics=None, metrics=success))
    with pytest.raises(ExperimentError, match="condition 'r' on protom-01-open-hall .dkg.: the episode cannot "
                                              "start: size 9 exceeds the 2 agents"):
        plan(big, resolve_scenarios(["protom-01-open-hall"]), [0])


def test_a_wrong_category_or_an_unsolvable_scenario_stops_the_experiment(tmp_path):
    data = json.loads((SCENARIO_DIR / "dkg" / "protom-15-locked-in.json").read_text())
    data["category"] = "useful"
    (tmp_path / "mislabelled.json").write_text(json.dumps(data))
    data = json.loads((SCENARIO_DIR / "dkg" / "protom-15-locked-in.json").read_text())
    data["options"] = {"t_max": 20}  # the joint optimum takes 37 ticks
    (tmp_path / "no-key.json").write_text(json.dumps(data))
    from experiments.runner import ScenarioRef

    design = load_design(PROTOM)
    refs = [ScenarioRef(p.stem, str(p), "dkg", "x", ("alice", "bob")) for p in
            (tmp_path / "mislabelled.json", tmp_path / "no-key.json")]
    with pytest.raises(ExperimentError) as err:
        run_checks(design, refs)
    assert "declares 'useful', computed 'necessary'" in str(err.value)
    assert "cannot all get their gems" in str(err.value)


def test_small_sweep_writes_results_tables_figures_and_report(tmp_path):
    path = write_design(tmp_path, scenarios=["protom-01-open-hall", "protom-13-on-the-way", "protom-17-bobs-door"],
                        seeds={"count": 2, "first": 42})
    out = tmp_path / "out"
    assert main(["experiment", str(path), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    for name in ("episodes.jsonl", "episodes.csv", "scenarios.csv", "summary.csv", "tests.csv", "design.json",
                 "figure_summary.png", "figure_groups.png", "figure_effects.png", "report.md", "report.html",
                 "shares.csv", "figure_shares.png"):
        assert (out / name).stat().st_size > 0, name
    lines = episode_lines(out / RESULTS)
    assert len(lines) == 3 * 4 * 2
    keys = [json.loads(line)["key"] for line in lines]
    assert keys[:3] == ["protom-01-open-hall|none|42", "protom-01-open-hall|none|43", "protom-01-open-hall|protom|42"]
    first = json.loads(lines[0])
    assert {"outcome", "metrics", "events", "setup", "seed", "condition", "scenario", "world"} <= set(first)
    report = (out / "report.md").read_text()
    assert "n counts scenarios" in report and "3 scenarios × 4 conditions × 2 seeds" in report
    assert "python main.py experiment" in report and "--out" in report and "git commit" in report
    assert "<table>" in (out / "report.html").read_text()
    # the design's floor (none) and ceiling (oracle): every other condition's share of the gain
    assert "### Share of the available gain" in report and "Floor: `none`" in report
    import csv
    shares = {(r["group"], r["metric"], r["condition"]) for r in csv.DictReader(open(out / "shares.csv"))}
    assert ("all", "speedup", "protom") in shares and ("all", "success", "random") in shares
    assert not any(c in ("none", "oracle") for _, _, c in shares)
    summary = {(r["group"], r["condition"]): r for r in csv.DictReader(open(out / "summary.csv"))}
    assert summary[("all", "protom")]["n_scenarios"] == "3" and summary[("all", "protom")]["episodes"] == "6"
    assert float(summary[("necessary", "none")]["success_mean"]) == 0
    assert float(summary[("necessary", "protom")]["success_mean"]) == 1
    assert float(summary[("not_needed", "protom")]["feedback_mean"]) == 0
    assert float(summary[("useful", "protom")]["speedup_mean"]) > 0.1
    tests = list(csv.DictReader(open(out / "tests.csv")))
    assert {t["test"] for t in tests} == {"sign_test", "wilcoxon_signed_rank"}
    assert all(t["unit"] == "scenario pairs" for t in tests)


def test_speedup_is_the_ratio_of_mean_lengths_and_speedup_ratios_is_matched_by_seed(tmp_path):
    design = load_design(write_design(tmp_path, scenarios=["protom-13-on-the-way"], seeds={"count": 2, "first": 42}))
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True)
    compute_metrics(result.records, design)
    length = {(r["condition"], r["seed"]): r["values"]["length"] for r in result.records}
    mean = {c: sum(v for (k, _), v in length.items() if k == c) / 2 for c, _ in length}
    for r in result.records:
        base = length[("none", r["seed"])]
        assert r["values"]["speedup_ratios"] == pytest.approx(base / r["values"]["length"] - 1)
        assert r["values"]["speedup"] == pytest.approx(mean["none"] / mean[r["condition"]] - 1)
        assert r["values"]["length"] == r["metrics"]["ticks"]


def test_the_report_process_imports_while_the_episodes_run_and_writes_the_same_report(tmp_path):
    """With ``preload``, a process forked before the episodes (``ReportProcess``) imports the
    statistics' and the figures' modules while they run, then computes the statistics and writes
    the report: every file it writes is the one this process writes (the report's line about the
    run's seconds aside), its analysis is the same, and it ends once it has answered."""
    from experiments.report import ReportProcess, analyse_and_report

    if not ReportProcess.available():
        pytest.skip("the report process needs two cores and fork")
    design = load_design(write_design(tmp_path, scenarios=["protom-01-open-hall", "protom-13-on-the-way"],
                                      seeds={"count": 1, "first": 42}))
    here = run_sweep(design, tmp_path / "here", jobs=1, quiet=True)
    assert here.reporter is None
    there = run_sweep(design, tmp_path / "there", jobs=1, quiet=True, preload=True)
    reporter, there.reporter = there.reporter, None
    assert isinstance(reporter, ReportProcess)
    try:
        for result in (here, there):
            compute_metrics(result.records, design)
            result.seconds = 1.0
        analysis, report = analyse_and_report(here, command="python main.py experiment small", jobs=1)
        analysis_there, report_there = reporter.analyse_and_report(there, command="python main.py experiment small")
    finally:
        reporter.close()
    assert not reporter._process.is_alive()
    assert report == tmp_path / "here" / "report.md" and report_there == tmp_path / "there" / "report.md"
    assert analysis_there.tests == analysis.tests and analysis_there.summary == analysis.summary
    names = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "there").iterdir()) and "figure_summary.png" in names
    for name in names:
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "there" / name).read_bytes(), name


def test_the_report_process_raises_its_error_here_and_ends_unasked(tmp_path):
    """An exception in the report process is raised in the caller; closed without a request
    (a sweep that failed), the process ends at once."""
    from experiments.report import ReportProcess

    if not ReportProcess.available():
        pytest.skip("the report process needs two cores and fork")
    design = load_design(write_design(tmp_path, scenarios=["protom-01-open-hall"], seeds={"count": 1, "first": 42}))
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True, preload=True)
    reporter, result.reporter = result.reporter, None
    try:
        with pytest.raises(KeyError, match="values"):  # no metrics computed
            reporter.analyse_and_report(result, command="x")
    finally:
        reporter.close()
    unasked = ReportProcess()
    unasked.close()
    assert not unasked._process.is_alive() and not reporter._process.is_alive()


def test_other_worlds_run_through_the_same_runner(tmp_path):
    """A design on the kitchen world with a team mechanism: no ProToM hooks, default seats."""
    path = tmp_path / "kitchen.json"
    path.write_text(json.dumps({
        "experiment": "kitchen-teams", "scenarios": ["kitchen/*"], "seeds": {"count": 1}, "max_ticks": 20,
        "conditions": [{"name": "alone"}, {"name": "teams", "mechanisms": ["teams"]}], "reference": "teams",
        "metrics": [{"name": "ticks", "source": "metrics.ticks"},
                    {"name": "team_events", "source": "events.team", "test": False}]}))
    design = load_design(path)
    scenarios = resolve_scenarios(design.scenarios)
    assert scenarios and {s.family for s in scenarios} == {"kitchen"}
    scenarios = scenarios[:2]
    design = design.model_copy(update={"scenarios": [s.name for s in scenarios]})
    result = run_sweep(design, tmp_path / "out", jobs=1, quiet=True)
    compute_metrics(result.records, design)
    assert len(result.records) == 2 * 2
    assert all(r["world"] == "kitchen" and 1 <= r["values"]["ticks"] <= 20 for r in result.records)
    assert any(r["values"]["team_events"] > 0 for r in result.records if r["condition"] == "teams")


def test_results_file_drops_a_cut_line_and_refuses_another_experiment(tmp_path):
    f = ResultsFile(tmp_path / RESULTS, "exp")
    assert f.open(resume=False) == {}
    f.append({"record": "episode", "key": "a|x|0", "setup": "s"})
    f.close()
    with open(tmp_path / RESULTS, "a") as fh:
        fh.write('{"record":"episode","key":"a|x|1","set')  # killed mid-line
    f = ResultsFile(tmp_path / RESULTS, "exp")
    assert list(f.open(resume=True)) == ["a|x|0"]
    f.close()
    assert (tmp_path / RESULTS).read_text().endswith('"setup":"s"}\n')
    with pytest.raises(ExperimentError, match="holds experiment 'exp', not 'other'"):
        ResultsFile(tmp_path / RESULTS, "other").open(resume=True)
    # without --resume the old results are kept aside, never lost
    f = ResultsFile(tmp_path / RESULTS, "exp")
    assert f.open(resume=False) == {}
    f.close()
    assert "a|x|0" in (tmp_path / f"{RESULTS}.1").read_text()


def test_resume_refuses_results_played_with_another_setup(tmp_path):
    path = write_design(tmp_path, scenarios=["protom-01-open-hall"], seeds={"count": 1})
    out = tmp_path / "out"
    assert main(["experiment", str(path), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    changed = write_design(tmp_path, scenarios=["protom-01-open-hall"], seeds={"count": 1},
                           agents=["boltzmann:temperature=0.9"])
    assert main(["experiment", str(changed), "--out", str(out), "--jobs", "1", "--quiet", "--resume"]) == 2


def test_a_sweep_killed_half_way_resumes_without_rerunning_a_finished_episode(tmp_path, capsys):
    path = write_design(tmp_path, scenarios=["dkg/protom-1*"], seeds={"count": 1, "first": 42})
    out = tmp_path / "out"
    results = out / RESULTS
    total = 10 * 4
    proc = subprocess.Popen([sys.executable, "main.py", "experiment", str(path), "--out", str(out), "--jobs", "1",
                             "--quiet"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and len(episode_lines(results)) >= 12:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = episode_lines(results)
    assert 12 <= len(before) < total
    assert main(["experiment", str(path), "--out", str(out), "--jobs", "1", "--resume"]) == 0
    printed = capsys.readouterr().out
    assert f"{total - len(before)} episodes run, {len(before)} already done" in printed
    after = episode_lines(results)
    keys = [json.loads(line)["key"] for line in after]
    assert len(after) == total and len(set(keys)) == total
    assert set(before) <= set(after)  # finished episodes kept byte for byte
    # and the result is the same file as an uninterrupted sweep
    fresh = tmp_path / "fresh"
    assert main(["experiment", str(path), "--out", str(fresh), "--jobs", "2", "--quiet"]) == 0
    assert (fresh / RESULTS).read_bytes() == results.read_bytes()
    # resuming a finished sweep runs nothing
    assert main(["experiment", str(path), "--out", str(out), "--jobs", "1", "--resume"]) == 0
    assert f"0 episodes run, {total} already done" in capsys.readouterr().out


def test_cli_errors():
    assert main(["experiment", "no-such-experiment"]) == 2
    assert main(["experiment", "protom-dkg", "--jobs", "0"]) == 2
    assert main(["experiment", "protom-dkg", "--address", "127.0.0.1:1"]) == 2


@pytest.mark.slow
def test_full_protom_experiment_meets_the_bar(tmp_path):
    """The shipped design (20 scenarios x 4 conditions x 10 seeds)."""
    import csv

    assert main(["experiment", "protom-dkg", "--out", str(tmp_path), "--quiet"]) == 0
    rows = {(r["group"], r["condition"]): r for r in csv.DictReader(open(tmp_path / "summary.csv"))}
    f = lambda g, n, m: float(rows[(g, n)][m])  # noqa: E731
    assert rows[("all", "protom")]["n_scenarios"] == "20" and rows[("all", "protom")]["episodes"] == "200"
    assert f("all", "protom", "success_mean") == 1.0
    assert f("all", "protom", "speedup_mean") > f("all", "random", "speedup_mean") > 0
    assert f("not_needed", "protom", "feedback_mean") == 0.0
    assert abs(f("all", "protom", "speedup_mean") - f("all", "oracle", "speedup_mean")) < 0.1
    tests = {(t["group"], t["metric"], t["second"]): t for t in csv.DictReader(open(tmp_path / "tests.csv"))}
    assert tests[("all", "speedup", "none")]["n"] == "20" and float(tests[("all", "speedup", "none")]["p_adj"]) < 0.05
