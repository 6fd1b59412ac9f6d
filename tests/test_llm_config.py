"""LLM settings: layers (defaults, file, environment, overrides), errors that name the field,
and the key kept out of everything public."""

import json

import pytest

from agents.llm.config import (
    LLMConfigError,
    LLMSettings,
    config_dir,
    config_path,
    load_settings,
    public_url,
    save_settings,
)

KEY = "sk-test-config-0123456789abcdef"


def test_defaults_use_the_embedded_model():
    settings = load_settings(env={"HOME": "/nonexistent"})
    assert settings.uses_embedded
    assert settings.model_name == "gemma-3-270m"
    assert settings.public_dict()["base_url"] == "embedded"
    assert settings.api_key is None


def test_file_then_environment_then_overrides(tmp_path):
    (tmp_path / "llm.toml").write_text('base_url = "http://127.0.0.1:11434/v1"\nmodel = "from-file"\n'
                                       'temperature = 0.3\n[embedded]\nn_ctx = 2048\n')
    env = {"TOM_ARENA_CONFIG_DIR": str(tmp_path), "TOM_ARENA_LLM_MODEL": "from-env", "OPENAI_API_KEY": KEY}
    sources: dict[str, str] = {}
    settings = load_settings(env=env, overrides={"temperature": 0.7}, sources=sources)
    assert settings.base_url == "http://127.0.0.1:11434/v1" and not settings.uses_embedded
    assert settings.model_name == "from-env"
    assert settings.temperature == 0.7
    assert settings.embedded.n_ctx == 2048
    assert settings.api_key_value() == KEY
    assert sources["model"] == "env TOM_ARENA_LLM_MODEL"
    assert sources["temperature"] == "override"
    assert sources["base_url"] == str(tmp_path / "llm.toml")
    assert sources["api_key"] == "env OPENAI_API_KEY"


def test_tom_arena_variables_win_over_openai_ones():
    env = {"HOME": "/nonexistent", "OPENAI_BASE_URL": "http://a/v1", "TOM_ARENA_LLM_BASE_URL": "embedded"}
    assert load_settings(env=env).uses_embedded


def test_json_file_and_llm_table(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"llm": {"max_tokens": 99, "structured_output": "none"}}))
    settings = load_settings(path, env={})
    assert settings.max_tokens == 99 and settings.structured_output == "none"


def test_errors_name_the_file_and_the_field(tmp_path):
    path = tmp_path / "llm.toml"
    path.write_text('temperature = "hot"\n')
    with pytest.raises(LLMConfigError, match=r"llm.toml: field 'temperature'.*'hot'"):
        load_settings(path, env={})
    path.write_text("colour = 3\n")
    with pytest.raises(LLMConfigError, match="field 'colour': Extra inputs are not permitted"):
        load_settings(path, env={})
    path.write_text("temperature = \n")
    with pytest.raises(LLMConfigError, match="not valid TOML"):
        load_settings(path, env={})
    with pytest.raises(LLMConfigError, match="TOM_ARENA_LLM_TIMEOUT"):
        load_settings(env={"HOME": "/nonexistent", "TOM_ARENA_LLM_TIMEOUT": "soon"})
    with pytest.raises(LLMConfigError, match="no such file"):
        load_settings(tmp_path / "missing.toml", env={})


def test_the_key_never_shows(tmp_path):
    settings = LLMSettings(base_url="http://user:pw@example.test:8080/v1?api-key=abc", api_key=KEY)
    public = json.dumps(settings.public_dict())
    assert KEY not in public and KEY not in repr(settings) and KEY not in str(settings)
    assert settings.public_dict()["base_url"] == "http://example.test:8080/v1"
    assert "pw" not in public and "abc" not in public
    saved = save_settings(settings, tmp_path / "llm.toml")
    assert KEY not in saved.read_text()
    assert (saved.stat().st_mode & 0o777) == 0o600
    saved_with_key = save_settings(settings, tmp_path / "with-key.toml", include_api_key=True)
    assert load_settings(saved_with_key, env={}).api_key_value() == KEY


def test_save_and_load_round_trip(tmp_path):
    settings = LLMSettings(base_url="http://127.0.0.1:8080/v1", model='my "model"', temperature=0.25,
                           max_tokens=64, embedded={"threads": 2})
    for name in ("llm.toml", "llm.json"):
        assert load_settings(save_settings(settings, tmp_path / name), env={}) == settings


def test_config_locations(tmp_path):
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert config_dir(env) == tmp_path / "xdg" / "tom-arena"
    assert config_path(env) is None
    (tmp_path / "xdg" / "tom-arena").mkdir(parents=True)
    (tmp_path / "xdg" / "tom-arena" / "llm.json").write_text("{}")
    assert config_path(env) == tmp_path / "xdg" / "tom-arena" / "llm.json"
    assert config_path({**env, "TOM_ARENA_LLM_CONFIG": "/x/y.toml"}).as_posix() == "/x/y.toml"


def test_with_overrides_keeps_the_key_and_validates():
    settings = LLMSettings(api_key=KEY)
    assert settings.with_overrides(model="m").api_key_value() == KEY
    with pytest.raises(LLMConfigError, match="max_tokens"):
        settings.with_overrides(max_tokens=0)


def test_public_url_strips_credentials():
    assert public_url("https://k:s@api.example.test/v1?key=1#x") == "https://api.example.test/v1"


def test_the_llm_help_names_every_environment_variable():
    """``main.py llm check --help`` words the variables without importing the settings models:
    the wording covers every one of ``ENV_VARS``."""
    from agents.llm.cli import ENV_WORDING
    from agents.llm.config import ENV_VARS

    named = [w.strip() for w in ENV_WORDING.split(",")]
    for var in ENV_VARS:
        assert any(var == w or w.endswith("*") and var.startswith(w[:-1]) for w in named), var
