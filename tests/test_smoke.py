from main import main


def test_run_writes_recordings_and_metrics(tmp_path, capsys):
    assert main(["run", "two-rooms", "--agents", "planner", "--episodes", "2", "--out", str(tmp_path), "--quiet"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.csv", "two-rooms-seed0.jsonl", "two-rooms-seed1.jsonl"]
