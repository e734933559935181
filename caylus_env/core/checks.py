"""Randomized consistency checks of any game's engine, in compiled code.

OpenSpiel's ``RandomSimulation`` checklist, written once over the game contract's kernels
(``caylus_env.core.contract``; the templates read them through the names declared in
``caylus_env.core.bindings``) and compiled per game (``caylus_env.core.specialize``), so that
thousands of complete random games per player count cost seconds and a new game is checked by
registering. At every decision of every game:

- the state passes the game's own ``check_invariants`` (conservation of components, bounds,
  the decision stack);
- the legal actions are sorted, unique and at least two (a decision with one legal action is
  played by the engine, never asked);
- the clock (``K.clock``) never goes back;
- an illegal action, drawn at random, is refused by ``step`` and leaves the state untouched.

Every ``sample_every`` decisions (and at the first one), the legal actions are exactly the ids
``step`` accepts (``accepted_actions``: every id tried on a copy), and the game's
``determinize`` hides nothing from the seat to move: on a copy determinized for that seat,
its observation (``encode_into``) and the legal actions are the same and every invariant
holds. Each game must end, by its
rules or by its decision cap, within ``decision_limit`` decisions; at the end nothing is asked, the state
is still consistent, and a game ended by its rules pays zero-sum rank returns in [-1, 1].

``check_random_games`` raises an ``AssertionError`` naming the game, the decision and the check
that failed; the test suite runs it for every registered game, player count and option set.

``check_game(spec)`` checks, before any game is played, that a registered game provides every
module and name of the contract (``caylus_env.core.contract``), naming each one missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from caylus_env.core.bindings import (
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_DTYPE,
    STATE_SIZE,
    K,
    encode,
    game_bindings,
)
from caylus_env.core.config import GameConfig
from caylus_env.core.contract import KERNELS, LAYOUT_NAMES, PARTS, REQUIRED, GameSpec
from caylus_env.core.game import Game
from caylus_env.core.observation import MAX_PLAYERS
from caylus_env.core.registry import game_spec
from caylus_env.core.specialize import specialize
from caylus_env.core.vector import _mix64, random_pick, setup_seed_of

#: What ``random_checks`` reports in ``report[0]`` (0: every check held).
FAILURES = (
    "ok",
    "an invariant of the game broke",
    "the legal actions differ from the ids step accepts",
    "a rejected action changed the state (or step accepted an illegal id)",
    "a decision has fewer than two legal actions",
    "the legal actions are not sorted and unique",
    "the clock went back",
    "the game did not end within decision_limit decisions",
    "the game is over but a seat is still asked, or it neither terminated nor truncated",
    "the rank returns of a finished game are not zero-sum in [-1, 1]",
    "determinize changed what the seat to move sees, its legal actions or an invariant",
)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _fail(report, kind, code, g, step):
    report[0] = kind
    report[1] = code
    report[2] = g
    report[3] = step


def _determinize_hides_nothing(s, probe, legal, n, scratch, seen, seen_after, key):
    """Whether ``determinize`` of a copy of ``s`` (a decision with legal ids ``legal[:n]``)
    for the seat to move keeps that seat's observation, the legal ids and the invariants."""
    seat = K.current_player(s)
    probe[:] = s
    K.determinize(probe, seat, np.int64(_mix64(key + np.uint64(n)) >> np.uint64(1)))
    if K.check_invariants(probe) != 0:
        return False
    encode(s, seat, seen)
    encode(probe, seat, seen_after)
    for i in range(seen.shape[0]):
        if seen[i] != seen_after[i]:
            return False
    same = K.legal_actions(probe, scratch) == n
    for i in range(n):
        same = same and scratch[i] == legal[i]
    return same


def random_checks(options, num_games, seed, sample_every, decision_limit, report, lengths):
    """Play ``num_games`` random games of ``options`` with every check of the module
    docstring; stop at the first failure (written into ``report``: failure, game code, game,
    decision). ``lengths[g]`` receives game ``g``'s number of decisions."""
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    probe = np.zeros(STATE_SIZE, STATE_DTYPE)
    legal = np.empty(NUM_ACTIONS, np.int64)
    accepted = np.empty(NUM_ACTIONS, np.int64)
    scratch = np.empty(NUM_ACTIONS, np.int64)
    seen = np.empty(OBS_SIZE, np.float32)
    seen_after = np.empty(OBS_SIZE, np.float32)
    ret = np.zeros(MAX_PLAYERS, np.float64)
    rng = np.zeros(1, np.uint64)
    report[:] = 0
    for g in range(num_games):
        key = _mix64(np.uint64(seed) * _GOLDEN + np.uint64(g))
        rng[0] = key
        s[:] = 0
        K.setup(s, options, setup_seed_of(key, 0))
        n = K.advance(s, legal)
        clock = K.clock(s)
        step = 0
        while n > 0:
            code = K.check_invariants(s) + 0
            if code != 0:
                _fail(report, 1, code, g, step)
                return
            if n < 2:
                _fail(report, 4, n, g, step)
                return
            for i in range(1, n):
                if legal[i] <= legal[i - 1]:
                    _fail(report, 5, 0, g, step)
                    return
            now = K.clock(s)
            if now < clock:
                _fail(report, 6, now, g, step)
                return
            clock = now
            # An illegal id, drawn at random: refused, and the state untouched.
            if n < NUM_ACTIONS:
                bad = random_pick(rng, 0, NUM_ACTIONS)
                while True:
                    hit = False
                    for i in range(n):
                        hit = hit or legal[i] == bad
                    if not hit:
                        break
                    bad = (bad + 1) % NUM_ACTIONS
                probe[:] = s
                if K.step(probe, bad, scratch) >= 0:
                    _fail(report, 3, bad, g, step)
                    return
                for i in range(STATE_SIZE):
                    if probe[i] != s[i]:
                        _fail(report, 3, bad, g, step)
                        return
            if step % sample_every == 0:
                m = K.accepted_actions(s, accepted)
                if m < 0:
                    _fail(report, 3, m, g, step)
                    return
                same = m == n
                for i in range(min(m, n)):
                    same = same and accepted[i] == legal[i]
                if not same:
                    _fail(report, 2, m, g, step)
                    return
                if not _determinize_hides_nothing(
                    s, probe, legal, n, scratch, seen, seen_after, key
                ):
                    _fail(report, 10, K.check_invariants(probe) + 0, g, step)
                    return
            if step >= decision_limit:
                _fail(report, 7, step, g, step)
                return
            K.apply(s, legal[random_pick(rng, 0, n)])
            n = K.advance(s, legal)
            step += 1
        code = K.check_invariants(s) + 0
        if code != 0:
            _fail(report, 1, code, g, step)
            return
        terminal = K.is_terminal(s)
        if K.current_player(s) != -1 or terminal == K.is_truncated(s):
            _fail(report, 8, 0, g, step)
            return
        if terminal:
            players = options[0]
            K.returns(s, ret)
            total = 0.0
            for p in range(players):
                total += ret[p]
                if ret[p] < -1.0 - 1e-9 or ret[p] > 1.0 + 1e-9:
                    _fail(report, 9, p, g, step)
                    return
            if abs(total) > 1e-9:
                _fail(report, 9, -1, g, step)
                return
        lengths[g] = step


@cache
def _kernels(game: str) -> SimpleNamespace:
    spec = game_spec(game)
    return specialize(
        (_fail, _determinize_hides_nothing, random_checks), spec.name, game_bindings(spec)
    )


@dataclass(frozen=True)
class CheckedGames:
    """What a passing `check_random_games` played: the decisions of each game."""

    lengths: np.ndarray


def check_random_games(
    game: str,
    num_players: int,
    num_games: int,
    seed: int = 0,
    sample_every: int = 64,
    decision_limit: int = 100_000,
    **options: Any,
) -> CheckedGames:
    """Play ``num_games`` random games of ``game`` with every check of the module docstring.

    Raises:
        AssertionError: naming the game's seed index, the decision and the check that failed
            (with the game's own invariant message when an invariant broke).
    """
    spec = game_spec(game)
    engine = spec.engine()
    config = engine.GameConfig.from_dict({**options, "num_players": num_players})
    report = np.zeros(4, np.int64)
    lengths = np.zeros(num_games, np.int64)
    _kernels(spec.name).random_checks(
        config.kernel_options(), num_games, seed, sample_every, decision_limit, report, lengths
    )
    kind, code, g, step = (int(x) for x in report)
    if kind:
        detail = f" ({engine.INVARIANT_MESSAGES[code]})" if kind == 1 else f" (value {code})"
        raise AssertionError(
            f"{spec.title}, {num_players} players, options {options}, seed {seed}, game {g}, "
            f"decision {step}: {FAILURES[kind]}{detail}"
        )
    return CheckedGames(lengths)


def check_game(spec: GameSpec) -> list[str]:
    """What the game ``spec`` fails to provide of the contract (empty when it is complete)."""
    missing = []
    for part in PARTS:
        try:
            module = spec.module(part)
        except ImportError as err:
            missing.append(f"{spec.package}.{part} cannot be imported ({err})")
            continue
        missing += [f"{spec.package}.{part}.{n}" for n in REQUIRED[part] if not hasattr(module, n)]
    try:
        engine = spec.engine()
    except ImportError:
        return missing  # already named above
    kernels = getattr(engine, "kernels", None)
    layout = getattr(engine, "layout", None)
    missing += [f"{spec.package}.engine.kernels.{n}" for n in KERNELS if not hasattr(kernels, n)]
    missing += [f"{spec.package}.engine.layout.{n}" for n in LAYOUT_NAMES if not hasattr(layout, n)]
    if not (isinstance(engine.Game, type) and issubclass(engine.Game, Game)):
        missing.append(f"{spec.package}.engine.Game is not a caylus_env.core.game.Game")
    if not (isinstance(engine.GameConfig, type) and issubclass(engine.GameConfig, GameConfig)):
        missing.append(
            f"{spec.package}.engine.GameConfig is not a caylus_env.core.config.GameConfig"
        )
    return missing


__all__ = [
    "FAILURES",
    "CheckedGames",
    "check_game",
    "check_random_games",
]
