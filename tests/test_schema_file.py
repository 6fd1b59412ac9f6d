import json
from pathlib import Path

from sim.dkg.scenario import json_schema

SCHEMA = Path(__file__).resolve().parent.parent / "scenarios" / "dkg.schema.json"


def test_shipped_json_schema_matches_the_validator():
    """scenarios/dkg.schema.json is what editors check scenario files against; keep it current with
    .venv/bin/python -c "import json; from sim.dkg.scenario import json_schema; print(json.dumps(json_schema(), indent=2))" > scenarios/dkg.schema.json"""
    assert json.loads(SCHEMA.read_text()) == json_schema()
