"""``mcts:SIMS`` for Caylus: the one search (``caylus_env.core.mcts``) with Caylus's parts.

Caylus has no hidden information and no chance after setup, so the search is determinized once
per move (its ``determinize`` leaves the state as it is) and its nodes keep their positions
(``int16`` states, 700 bytes each). What is Caylus's own (``caylus_env.caylus.bots.rollouts``):

- *rollouts*: a scripted bot (default ``castle``: every seat plays the bot's one-ply search
  ``depth`` follow-up levels deep, default 2; with opponent models each opponent plays the
  bot that predicts it best), ``heuristic`` (cheap rules of thumb that place workers where
  they produce, give batches and build; about 60 times faster per rollout) or ``random``;
- *scoring*: the rank returns mixed (``margin``, default 0.5) with their soft version
  ``tanh(prestige difference / scale)`` averaged over the other seats, the prestige of a
  rollout cut off before the end (``cutoff``) estimated by the bots' value function: with
  near-deterministic bot rollouts, pure win/loss returns give every move the same value
  whenever all of them win (or all lose);
- *defaults*: progressive widening (``widen`` 1, ``power`` 0.5) with the expansion order of
  the ``castle`` bot's one-ply values fixed when a node is made (``prior``), opponent models
  (``model``; against the economy bot, castle-bot rollouts for both seats mispredict its
  provost cuts and the search lost 21 of 26 games; with the model it wins most of them), a
  budget scaled with the legal actions (``scaled``: placements have 15-30 choices, many
  follow-ups 2), an early stop, the reuse of the subtree below the move played, and one
  stream of numba's generator per move for the rollouts.

Spec strings: ``mcts:SIMS``, ``mcts:SIMS:ROLLOUT`` with ROLLOUT one of ``heuristic``,
``random``, ``castle``, ``town``, ``economy``, then ``:key=value`` options ``c``, ``cutoff``,
``scale``, ``margin``, ``widen``, ``power``, ``prior`` (a bot or ``none``), ``depth``,
``scaled`` and ``model``, e.g. ``mcts:2000:heuristic:prior=none:widen=0:c=1`` for textbook UCT.

Measured (2-player games, seats alternating, one core per game): ``mcts:60`` took 28 s per game
on average (at most 58 s, on a shared machine) and beat the strongest scripted bot,
``economy``, in 44 of 60 games (73%, Wilson 95% interval 61-83%; 3 of the 44 were shared
wins) and ``castle`` in 31 of 40 (78%, 63-88%).
"""

from __future__ import annotations

from caylus_env.caylus.bots import rollouts as R
from caylus_env.caylus.bots import scripted_kernels as SK
from caylus_env.caylus.bots.scripted import STRATEGIES
from caylus_env.core import mcts
from caylus_env.core.mcts import MAX_SIMS

ROLLOUTS = ("heuristic", "random", *STRATEGIES)


class MCTSAgent(mcts.MCTSAgent):
    """Caylus's ``mcts:SIMS`` (see the module docstring and ``caylus_env.core.mcts``)."""

    GAME = mcts.MCTSGame(
        game="caylus",
        strategies=tuple(STRATEGIES),
        rollouts=ROLLOUTS,
        policies={"heuristic": R.HEURISTIC},
        strategy_values=R.strategy_values,
        rollout_choice=R.rollout_choice,
        evaluate=R.evaluate,
        scripted_depth=SK.MAX_DEPTH,
        ordered_expansion=True,
        stream_per_move=True,
        options=(
            "c",
            "cutoff",
            "scale",
            "margin",
            "widen",
            "power",
            "prior",
            "depth",
            "scaled",
            "model",
        ),
        # a game has under 2,000 decisions; prestige margins of a few points are clear leads
        ranges={"cutoff": (1, 100_000), "scale": (0.01, 1000.0)},
        defaults={
            "rollout": "castle",
            "sims": 60,
            "c": 0.5,
            "eps": 0.0,
            "max_rollout": None,
            "margin": 0.5,
            "widen": 1.0,
            "prior": "castle",
            "bot_depth": 2,
            "scaled": True,
            "early_stop": True,
            "reuse": True,
            "model": True,
        },
    )


make_mcts = MCTSAgent.from_spec

__all__ = ["MAX_SIMS", "ROLLOUTS", "MCTSAgent", "make_mcts"]
