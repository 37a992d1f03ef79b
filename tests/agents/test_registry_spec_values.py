"""Agent spec options (allfives_env.agents.registry): how option values are read and repeats refused.

The registry's contract (module docstring): option values are numbers, ``none``, or booleans
(``true``/``false``, ``yes``/``no``); each option is given once. The existing spec tests use only
``true``/``false`` in lower case and repeats written without spaces, so these pin the rest."""

import pytest

from allfives_env.agents import make_agent, parse_spec


@pytest.mark.parametrize("word, value", [("yes", True), ("no", False), ("true", True), ("false", False)])
def test_yes_and_no_are_booleans_like_true_and_false(word, value):
    """``yes``/``no`` read as booleans, as ``true``/``false`` do; an agent's boolean option takes them."""
    assert parse_spec(f"champion:value=none,any_rules={word}") == (
        "champion", None, {"value": None, "any_rules": value})
    assert make_agent(f"champion:any_rules={word}").any_rules is value


@pytest.mark.parametrize("word, value", [("True", True), ("YES", True), ("No", False), ("FALSE", False),
                                         ("None", None), ("NULL", None)])
def test_boolean_and_none_words_are_read_in_any_case(word, value):
    """The words are read case-insensitively (``sample=True`` as a Python user writes it)."""
    assert parse_spec(f"search:win_value={word}")[2] == {"win_value": value}
    if value is not None:
        assert make_agent(f"champion:any_rules={word}").any_rules is value


def test_an_option_repeated_with_spaces_around_its_name_is_still_a_repeat():
    """Keys are compared stripped: ``samples=3, samples =4`` names ``samples`` twice and is refused in one
    line, rather than the second value silently replacing the first."""
    for spec in ("search:samples=3,samples =4", "search:samples=3, samples=4", "search: samples=3,samples=4 "):
        with pytest.raises(ValueError, match="given twice"):
            parse_spec(spec.strip())
    assert parse_spec("search: samples = 3 , depth=2") == ("search", None, {"samples": 3, "depth": 2})


def test_a_missing_policy_file_is_named_as_the_user_gave_it(tmp_path, monkeypatch):
    """A path that is neither a file here nor a shipped file is reported as given: the error names
    ``'nope/value.pt'``, not a place inside the installed package the user never named
    (``resolve_policy_path`` returns the shipped copy only when that copy exists)."""
    from allfives_env.agents.ppo.agent import PPOAgent
    from allfives_env.agents.registry import resolve_policy_path

    monkeypatch.chdir(tmp_path)
    assert resolve_policy_path("nope/value.pt") == "nope/value.pt"
    with pytest.raises(ValueError, match=r"not found: 'nope/value\.pt'"):
        PPOAgent("nope/value.pt")
    with pytest.raises(ValueError, match=r"not found: 'nope/value\.pt'"):
        make_agent("champion:value=nope/value.pt")


@pytest.mark.parametrize("spec", ["search:samples=2,", "search:,samples=2", "search:samples=2,,win_value=1",
                                  "ppo:checkpoints/ppo_2p.pt,"])
def test_an_empty_option_is_refused_as_a_trailing_colon_is(spec):
    """``search:samples=2,`` would play as ``search:samples=2`` under another name (the arena names agents by
    their spec), as ``random:`` would as ``random``, which is refused."""
    with pytest.raises(ValueError, match="has an empty option"):
        parse_spec(spec)


@pytest.mark.parametrize("spec", [":Cls", ":Cls:a=1"])
def test_a_user_class_spec_without_its_module_says_how_to_write_one(spec):
    with pytest.raises(ValueError, match=r"needs a module and a class: module:Class\[:options\]"):
        parse_spec(spec)
