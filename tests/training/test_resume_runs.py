"""Resuming the runs that real training produces: a warm-started run (``--init``) and a
finished run whose last rollout overshot ``--steps``, both continued for more steps."""

from __future__ import annotations

import json

import pytest

from tests.training.conftest import tiny_config

GAME = "puerto_rico"


def _steps(out):
    return sorted(int(p.name.split("-")[1]) for p in (out / "checkpoints").iterdir())


@pytest.fixture(scope="module")
def overshot(tmp_path_factory):
    """A finished run of 700 steps: rollouts of 512 decisions end it at 1,024."""
    from training.ppo import train

    out = tmp_path_factory.mktemp("overshot") / "run"
    train(tiny_config(GAME, out, steps=700))
    return out


def test_a_finished_run_whose_last_rollout_overshot_resumes_for_more_steps(overshot):
    from training.ppo import train

    assert _steps(overshot) == [512, 1024]  # SB3's progress left is 1 - 1024/700 < 0 there
    train(tiny_config(GAME, overshot, steps=1536, resume=True))
    assert _steps(overshot) == [512, 1024, 1536]


def test_a_warm_started_run_resumes_without_init_and_keeps_its_warm_start(overshot, tmp_path):
    from training.ppo import train

    init = str(overshot / "checkpoints" / "step-000000000512")
    out = tmp_path / "warm"
    train(tiny_config(GAME, out, steps=512, init=init))
    train(tiny_config(GAME, out, steps=1024, resume=True))  # no --init: run.json has it
    assert _steps(out) == [512, 1024]
    assert json.loads((out / "run.json").read_text())["init"] == init
    second = json.loads((out / "checkpoints" / "step-000000001024" / "config.json").read_text())
    assert second["parent"].endswith("step-000000000512") and "warm" in second["parent"]
    with pytest.raises(ValueError, match="leave --init out"):
        train(tiny_config(GAME, out, steps=1536, init=init, resume=True))
