"""The shipped policies and the scripted baselines make every recorded decision as before (issue 22)."""

import json

import pytest
from decision_record import RECORD_PATH, replay_decisions

RECORDS = json.loads(RECORD_PATH.read_text())


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r['players']}p-{'+'.join(r['specs'])}-{r['seed']}" for r in RECORDS])
def test_every_decision_matches_the_record(record):
    made, scores = replay_decisions(record)
    recorded = [hand["decisions"] for hand in record["hands"]]
    for k, (now, before) in enumerate(zip(made, recorded)):
        assert now == before, f"hand {k}: first differing step {next(i for i, (a, b) in enumerate(zip(now, before)) if a != b)}"
    assert len(made) == len(recorded)
    assert scores == record["scores"]


def test_the_record_covers_each_shipped_policy_and_baseline():
    specs = {spec for r in RECORDS for spec in r["specs"]}
    for name in ("ppo_2p", "ppo_3p", "ppo_4p"):
        assert any(name in s for s in specs)
    assert {"greedy", "heuristic", "search"} <= specs
    assert sum(len(h["decisions"]) for r in RECORDS for h in r["hands"]) > 1000
