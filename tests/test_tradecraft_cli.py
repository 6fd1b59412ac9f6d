"""The tradecraft command group of main.py."""

import json

from main import main


def test_tool_and_rules_commands(capsys):
    assert main(["tradecraft", "tool", "item_info", "torch"]) == 0
    assert "minecraft:torch [shaped]" in capsys.readouterr().out
    assert main(["tradecraft", "tool", "possible_recipes", "oak_planks=2"]) == 0
    assert "minecraft:stick" in capsys.readouterr().out
    assert main(["tradecraft", "rules", "--rules", "alchemy"]) == 0
    assert "crafting_shapeless" in capsys.readouterr().out
    assert main(["tradecraft", "tool", "item_info", "torch", "--rules", "nowhere"]) == 2
    assert "no rule set 'nowhere'" in capsys.readouterr().err


def test_generate_selfplay_analyze_round_trip(tmp_path, capsys):
    inst = tmp_path / "inst"
    assert main(["tradecraft", "generate", "--count", "2", "--seed", "5", "--out", str(inst)]) == 0
    files = sorted(inst.glob("*.json"))
    assert [f.name for f in files] == ["custom-01.json", "custom-02.json"]
    runs = tmp_path / "runs"
    assert main(["tradecraft", "selfplay", *map(str, files), "--seeds", "2", "--out", str(runs), "--quiet"]) == 0
    assert len(list(runs.glob("*.jsonl"))) == 4 and (runs / "selfplay.csv").exists()
    assert main(["tradecraft", "analyze", str(runs), "--out", str(tmp_path / "an"), "--bootstrap", "50",
                 "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert "4 episodes" in out and (tmp_path / "an" / "utility_fit.csv").exists()


def test_run_uses_traders_for_tradecraft_and_import(tmp_path, capsys):
    assert main(["run", "mc1v1-02", "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert (tmp_path / "r" / "mc1v1-02-seed0.jsonl").exists()
    paper = [{"hands": [{"minecraft:iron_ingot": 1, "minecraft:coal": 1}, {"minecraft:iron_ingot": 1,
                                                                            "minecraft:stick": 1}],
              "targets": [{"minecraft:shears": 1}, {"minecraft:torch": 1}]}]
    (tmp_path / "problem.json").write_text(json.dumps(paper))
    assert main(["tradecraft", "import", str(tmp_path / "problem.json"), "--out", str(tmp_path / "imp")]) == 0
    assert (tmp_path / "imp" / "problem-01.json").exists()
