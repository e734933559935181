"""One policy for several player counts (``caylus train ppo --players 2-5``) and the match
command that measures a checkpoint at each count (``caylus train match``)."""

from __future__ import annotations

import csv
import json

import pytest

from caylus_env.core.registry import GAME_NAMES, game_spec
from tests.training.conftest import TINY, pool_of

games = pytest.mark.parametrize("game", GAME_NAMES)


def _all_counts(game: str) -> list[int]:
    return list(game_spec(game).player_counts)


@games
def test_players_as_a_range_or_list_is_stored_as_the_sorted_counts(game):
    from training.config import PPOConfig

    counts = _all_counts(game)
    text = f"{counts[0]}-{counts[-1]}"
    cfg = PPOConfig(out="x", game=game, players=text)
    assert cfg.players == counts and cfg.counts == tuple(counts)
    cfg.check()
    listed = PPOConfig(out="x", game=game, players=",".join(map(str, reversed(counts))))
    assert listed.players == counts
    one = PPOConfig(out="x", game=game, players=str(counts[0]))
    assert one.players == counts[0] and one.counts == (counts[0],)  # stored as before: an int


@games
def test_the_learners_games_take_the_counts_in_turn(game):
    from training.config import PPOConfig
    from training.learner import PoolGames

    counts = _all_counts(game)
    cfg = PPOConfig(out="x", game=game, players=counts, envs=2 * len(counts) + 1)
    per_game = cfg.pool_players()
    assert per_game == [counts[k % len(counts)] for k in range(cfg.envs)]
    pool = PoolGames(game, cfg.envs, per_game, opponents="random:1")
    assert pool.num_players.tolist() == per_game
    b = pool.reset(seed=1)
    for k, n in enumerate(per_game):
        assert 0 <= b.seat[k] < n  # the learner's seat is one of its game's seats


@pytest.mark.parametrize("players", ["1-3", "2-9", "two", "5-2", ""])
def test_a_player_count_the_rules_do_not_allow_is_refused_naming_the_allowed(players):
    from training.config import PPOConfig

    with pytest.raises(ValueError, match=r"--players .* is not allowed; allowed: 2-5"):
        PPOConfig(out="x", game="caylus", players=players).check()


def test_a_run_of_several_counts_is_evaluated_and_gated_at_each(tmp_path):
    from training.ppo import config_from_args, train

    game = "puerto_rico"
    counts = _all_counts(game)
    out = tmp_path / "run"
    cfg = config_from_args(
        out=str(out),
        game=game,
        players=f"{counts[0]}-{counts[-1]}",
        steps=1024,
        seed=3,
        opponents=pool_of(game),
        eval_opponents="random",
        **TINY,
    )
    train(cfg)
    assert json.loads((out / "run.json").read_text())["players"] == counts
    with open(out / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for step in (512, 1024):
        got = sorted(r["opponent"] for r in rows if int(r["step"]) == step)
        assert got == sorted(f"random@{n}p" for n in counts)
        for r in rows:  # each count's match is rounded up to whole blocks of its own count
            n = int(r["opponent"].split("@")[1][:-1])
            assert int(r["games"]) % n == 0 and int(r["games"]) >= TINY["eval_games"]
    league = json.loads((out / "league.json").read_text())
    gated = [d for d in league["decisions"] if d["match"] is not None]
    assert gated, "the second checkpoint plays a promotion match"
    share = -(-TINY["gate_games"] // len(counts))  # split evenly, each rounded up to blocks
    assert gated[0]["match"]["games"] == sum(-(-share // n) * n for n in counts)
    for step in ("step-000000000512", "step-000000001024"):
        config = json.loads((out / "checkpoints" / step / "config.json").read_text())
        assert config["num_players"] == counts


def test_match_plays_a_checkpoint_at_each_count_against_each_opponent():
    from typer.testing import CliRunner

    from caylus_cli.app import app

    args = ["train", "match", "ppo-2p", "--opponents", "random,economy", "--players", "2,3"]
    r = CliRunner().invoke(app, [*args, "--games", "6", "--seed", "4"])
    assert r.exit_code == 0, r.output
    rows = [line.split("|")[1:-1] for line in r.output.splitlines() if line.startswith("| ")]
    body = [[c.strip() for c in row] for row in rows[1:]]
    assert [(row[0], row[1]) for row in body] == [
        ("random", "2"),
        ("random", "3"),
        ("economy", "2"),
        ("economy", "3"),
    ]
    for _, _n, played, wtl, score, interval in body:
        assert int(played) == 6 and sum(map(int, wtl.split("-"))) == 6
        low, high = (float(x) for x in interval.strip("[]").split(","))
        assert low <= float(score) <= high
    again = CliRunner().invoke(app, [*args, "--games", "6", "--seed", "4"])
    assert again.output == r.output  # the games depend on the seed only


@pytest.mark.parametrize(
    "args, message",
    [
        (["ppo-2p", "--opponents", "economy,foo"], "unknown Caylus agent 'foo'"),
        (["ppo-2p", "--players", "1"], "players='1'"),
        (["ppo-2p", "--games", "0"], "--games must be >= 1"),
        (["ppo-2p", "--game", "puerto_rico"], "use it with --game caylus"),
        (["no-such-dir"], "is not a directory"),
        (["ppo-2p", "--seed", "-1"], "--seed must be >= 0, got -1"),
        (["ppo-2p", "--games", "99999999999"], "--games must be >= 1 and at most 100000"),
        (["ppo-2p", "--opponents", "random,,economy"], "--opponents must be a comma-separated"),
        (["ppo-2p", "--opponents", "nobody"], "invalid value for --opponents: unknown"),
        (["ppo-2p", "--players", "9"], "invalid value for --players: players='9'"),
    ],
)
def test_match_refuses_bad_arguments_before_any_game(args, message):
    from typer.testing import CliRunner

    from caylus_cli.app import app

    r = CliRunner().invoke(app, ["train", "match", *args])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.output.split())
    assert "| " not in r.output  # no row was played
    assert not r.stdout and len(r.stderr.splitlines()) == 1  # nothing printed but the error
