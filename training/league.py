"""Evaluation matches and gated promotion of checkpoints, for every game.

After each checkpoint the trainer

1. **evaluates** it against fixed references (``--eval-opponents``: by default ``random`` and
   the game's scripted bots): ``games`` games each, the checkpoint greedy in one seat and the
   reference in every other, every game run in one batch (``PoolGames`` with the reference as
   the only opponent). The results make the learning curve (``curve.csv``,
   ``learning_curve.png``);
2. **gates** it: a match of ``gate_games`` games against the current best checkpoint (both
   greedy, batched the same way). It is promoted when its score is at least
   ``PROMOTION_SCORE`` (AlphaGo Zero's 55% gate), and then becomes the best and joins the
   opponent pool (the ``pool`` entry of ``--opponents``). The first checkpoint is promoted
   without a match. Every decision, with the score's Wilson 95% interval, goes into
   ``league.json`` (atomic) and ``league.md``.

A match's games are played in rotated blocks (``PoolGames(rotated=True)``): ``games`` is
rounded up to a multiple of the player count, and the games of a block share their setup and
their opponents' random streams while the checkpoint sits one seat further in each, so each
seat's advantage cancels out (with 2 players: pairs, the same setup with the seats swapped).
The matches depend on the seed only, so every checkpoint meets the same setups.

The score of a game is the learner seat's rank reward mapped to [0, 1],
``(reward + 1) / 2``: a win 1, a tie 0.5, a loss 0 in 2-player games; 1 first and 0 last
with more players; 0.5 for a game cut off by its decision cap (zero reward).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.stats.ratings import wilson_interval
from caylus_env.core.fileio import atomic_write_json, atomic_write_text
from training.learner import BatchPolicy, PoolGames

#: A checkpoint is promoted when it scores at least this much against the best.
PROMOTION_SCORE = 0.55
LEAGUE_JSON = "league.json"
LEAGUE_MD = "league.md"
MAX_MATCH_GAMES = 100_000
"""Most games one match plays: they are played all at once, one batch of ``PoolGames`` (about
27 kB a game for Caylus and Caylus 1303, 13 kB for Puerto Rico, so 2.7 GB at most) plus one
network call over all of them; a bigger number is refused before anything is allocated."""


@dataclass(frozen=True)
class MatchResult:
    """A match of one policy (the learner) against one opponent.

    Attributes:
        opponent: the opponent's spec.
        games: games played.
        wins, ties, losses: by the learner's rank reward (> 0, 0, < 0).
        score: mean ``(reward + 1) / 2``.
        low, high: Wilson 95% interval of the score.
    """

    opponent: str
    games: int
    wins: int
    ties: int
    losses: int
    score: float
    low: float
    high: float


def play_match(
    policy: BatchPolicy,
    opponent: str,
    games: int,
    num_players: int,
    seed: int,
    game: str,
) -> MatchResult:
    """Play ``games`` games of ``game`` (rounded up to a multiple of ``num_players``) of
    ``policy`` against ``opponent`` (a ``PoolGames`` opponent: ``random``, a scripted bot,
    ``policy:PATH``, an agent spec), all at once, in rotated blocks (module docstring).

    The games depend on ``seed`` only: two checkpoints are compared on the same setups.

    Raises:
        ValueError: for a number of games that is not 1 to `MAX_MATCH_GAMES`.
    """
    return match_result(opponent, match_rewards(policy, opponent, games, num_players, seed, game))


def match_rewards(
    policy: BatchPolicy,
    opponent: str,
    games: int,
    num_players: int,
    seed: int,
    game: str,
) -> np.ndarray:
    """The learner seat's rank reward in each game of `play_match` (the same games, in the
    order of their setups: two policies' rewards on the same seed are paired game by game).

    Raises:
        ValueError: for a number of games that is not 1 to `MAX_MATCH_GAMES`.
    """
    check_match_games(games)
    games = -(-games // num_players) * num_players
    pool = PoolGames(game, games, num_players, opponents=f"{opponent}:1", rotated=True)
    b = pool.reset(seed=seed)
    done = np.zeros(games, np.bool_)
    rewards = np.zeros(games)
    u = np.zeros(games)  # greedy: unused
    while not done.all():
        actions = policy.act_batch(b.obs, b.mask.view(np.bool_), u, pool.states)
        b = pool.step(actions)
        ended = b.done & ~done
        rewards[ended] = b.rewards[ended]
        done |= b.done
    return rewards


def check_match_games(games: int) -> int:
    """A match's number of games: an int from 1 to `MAX_MATCH_GAMES`.

    Raises:
        ValueError: naming the number and what is allowed.
    """
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_MATCH_GAMES:
        raise ValueError(f"games={games!r}; allowed: 1 to {MAX_MATCH_GAMES} games a match")
    return games


def match_result(opponent: str, rewards: np.ndarray) -> MatchResult:
    """The ``MatchResult`` of the learner's rank rewards ``rewards`` (one per game) against
    ``opponent``: wins, ties and losses by the reward's sign, the mean score and its Wilson
    interval."""
    games = len(rewards)
    wins = int((rewards > 0).sum())
    losses = int((rewards < 0).sum())
    ties = games - wins - losses
    total = float(((rewards + 1.0) / 2.0).sum())
    low, high = wilson_interval(total, games)
    return MatchResult(opponent, games, wins, ties, losses, total / games, low, high)


def play_checkpoint(
    ckpt: Path | str, opponent: str, games: int, num_players: int, seed: int, game: str
) -> MatchResult:
    """``play_match`` of checkpoint ``ckpt`` (greedy) against ``opponent`` in ``game``.

    Raises:
        ValueError: for a checkpoint or an opponent of another game (naming both).
    """
    from agents.policy import PolicyAgent

    agent = PolicyAgent(f"policy:{ckpt}", ckpt, game=game)
    return play_match(agent, opponent, games, num_players, seed, game)


def checkpoint_rewards(
    ckpt: Path | str,
    opponent: str,
    games: int,
    num_players: Sequence[int],
    seed: int,
    game: str,
) -> np.ndarray:
    """`match_rewards` of checkpoint ``ckpt`` (greedy) against ``opponent`` at each count of
    ``num_players``, ``games`` split evenly between them as `play_checkpoint_counts` splits
    them, concatenated count by count: the same games as that match, paired game by game
    with another checkpoint's on the same seed.

    Raises:
        ValueError: for a checkpoint or an opponent of another game (naming both).
    """
    from agents.policy import PolicyAgent

    agent = PolicyAgent(f"policy:{ckpt}", ckpt, game=game)
    share = -(-games // len(num_players))
    return np.concatenate(
        [match_rewards(agent, opponent, share, n, seed, game) for n in num_players]
    )


def checkpoint_counts(games: int, num_players: Sequence[int]) -> np.ndarray:
    """The player count of each game of `checkpoint_rewards`, in its order: each count's
    share of ``games`` (rounded up as that function splits them), rounded up to whole blocks
    as `match_rewards` plays it."""
    share = -(-games // len(num_players))
    return np.concatenate([np.full(-(-share // n) * n, n) for n in num_players])


def play_checkpoint_counts(
    ckpt: Path | str,
    opponent: str,
    games: int,
    num_players: int | Sequence[int],
    seed: int,
    game: str,
) -> MatchResult:
    """`play_checkpoint` at one player count, or at several with ``games`` split evenly
    between them (each share rounded up to whole blocks), pooled into one result: the
    wins, ties, losses and score summed over every game, the Wilson interval of the pool."""
    counts = [num_players] if isinstance(num_players, int) else list(num_players)
    share = -(-games // len(counts))
    parts = [play_checkpoint(ckpt, opponent, share, n, seed, game) for n in counts]
    if len(parts) == 1:
        return parts[0]
    total_games = sum(m.games for m in parts)
    total = sum(m.score * m.games for m in parts)
    low, high = wilson_interval(total, total_games)
    return MatchResult(
        opponent,
        total_games,
        sum(m.wins for m in parts),
        sum(m.ties for m in parts),
        sum(m.losses for m in parts),
        total / total_games,
        low,
        high,
    )


@dataclass
class League:
    """The promotion record of a run (``league.json``).

    Attributes:
        best: the current best checkpoint's directory (None before the first).
        promoted: every promoted checkpoint, oldest first (the opponent pool).
        decisions: one entry per gated checkpoint.
    """

    best: str | None
    promoted: list[str]
    decisions: list[dict[str, Any]]

    @classmethod
    def load(cls, run_dir: Path) -> League:
        """The league of run directory ``run_dir`` (an empty one without ``league.json``).
        The file names the run's checkpoints relative to the run directory
        (``checkpoints/step-...``); they are returned as paths under ``run_dir``, so a moved
        run directory resumes (an absolute path written before is read by its last two
        parts: a run's league holds the run's own checkpoints only).

        Raises:
            ValueError: naming the file and the field that is not a league's.
        """
        from training.checkpoints import read_run_file, resolve_pool_entry

        path = Path(run_dir) / LEAGUE_JSON
        d = read_run_file(run_dir, LEAGUE_JSON)
        if d is None:
            return cls(None, [], [])

        def entry(value: Any, where: str) -> str:
            return resolve_pool_entry(run_dir, value, f"{path}: {where}")

        if (
            not isinstance(d, dict)
            or not isinstance(d.get("promoted"), list)
            or not isinstance(d.get("decisions"), list)
            or not all(isinstance(x, dict) and "checkpoint" in x for x in d["decisions"])
        ):
            raise ValueError(
                f"{path}: must be an object with best, promoted (a list) and decisions (a "
                "list of objects naming their checkpoint)"
            )
        best = None if d.get("best") is None else entry(d["best"], "best")
        promoted = [entry(c, f"promoted[{i}]") for i, c in enumerate(d["promoted"])]
        decisions = []
        for i, x in enumerate(d["decisions"]):
            x = dict(x)
            x["checkpoint"] = entry(x["checkpoint"], f"decisions[{i}].checkpoint")
            if x.get("against") is not None:
                x["against"] = entry(x["against"], f"decisions[{i}].against")
            decisions.append(x)
        return cls(best, promoted, decisions)

    def save(self, run_dir: Path) -> None:
        """Write ``league.json`` (checkpoints relative to the run directory) and
        ``league.md``, atomically."""
        from training.checkpoints import pool_entry

        def rel(c: str | None) -> str | None:
            return None if c is None else pool_entry(c)

        d = asdict(self)
        d["best"] = rel(self.best)
        d["promoted"] = [pool_entry(c) for c in self.promoted]
        d["decisions"] = [
            {**x, "checkpoint": rel(x["checkpoint"]), "against": rel(x.get("against"))}
            for x in self.decisions
        ]
        atomic_write_json(Path(run_dir) / LEAGUE_JSON, d)
        atomic_write_text(Path(run_dir) / LEAGUE_MD, self.markdown())

    def markdown(self) -> str:
        """``league.md``: every checkpoint's promotion match and its decision, as a table."""
        lines = [
            "# League",
            "",
            f"A checkpoint is promoted when it scores at least {PROMOTION_SCORE:.0%} against "
            "the best checkpoint so far (score per game: win 1, tie 0.5, loss 0; with 3 or more "
            "players (rank reward + 1) / 2, 1 first and 0 last; Wilson 95% interval).",
            "",
            "| checkpoint | step | against | games | W-T-L | score | 95% interval | decision |",
            "|---|---:|---|---:|---|---:|---|---|",
        ]
        for d in self.decisions:
            m = d.get("match")
            if m is None:
                lines.append(
                    f"| {Path(d['checkpoint']).name} | {d['step']} | (none) | 0 | - | - | - "
                    f"| {d['decision']} |"
                )
                continue
            lines.append(
                f"| {Path(d['checkpoint']).name} | {d['step']} | {Path(d['against']).name} "
                f"| {m['games']} | {m['wins']}-{m['ties']}-{m['losses']} | {m['score']:.3f} "
                f"| [{m['low']:.3f}, {m['high']:.3f}] | {d['decision']} |"
            )
        lines.append("")
        lines.append(f"Best: {Path(self.best).name if self.best else '(none)'}")
        return "\n".join(lines) + "\n"

    def gate(
        self,
        ckpt: Path,
        step: int,
        games: int,
        num_players: int | Sequence[int],
        seed: int,
        game: str,
    ) -> dict[str, Any]:
        """Gate checkpoint ``ckpt`` of ``game``: promote it or not, and record the decision.

        With several player counts, the ``games`` are split evenly between them
        (`play_checkpoint_counts`) and the decision reads the pooled score."""
        if self.best is None:
            decision: dict[str, Any] = {
                "checkpoint": str(ckpt),
                "step": step,
                "against": None,
                "match": None,
                "decision": "promoted (first checkpoint)",
            }
        else:
            m = play_checkpoint_counts(ckpt, f"policy:{self.best}", games, num_players, seed, game)
            promoted = m.score >= PROMOTION_SCORE
            decision = {
                "checkpoint": str(ckpt),
                "step": step,
                "against": self.best,
                "match": asdict(m),
                "decision": "promoted" if promoted else "kept out",
            }
        if decision["decision"].startswith("promoted"):
            self.best = str(ckpt)
            self.promoted.append(str(ckpt))
        self.decisions.append(decision)
        return decision
