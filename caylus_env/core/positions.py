"""Position builders: set up a puzzle, an endgame or a rule scenario of any game from a short
description, and play it forward by the actions' names.

Every game's ``positions`` module (the game contract, ``caylus_env.core.contract``) provides
the same four public functions:

- ``build(num_players=None, **description)``: the `Game` of a position described by who
  holds what. Everything the description leaves out is filled from the game's component
  totals (the supply, the bank, the stock), so every conservation invariant holds; the
  result is validated by the game's own state-dict validation (``Game.from_state_dict``) and
  run to its first decision. A description that names an unknown field, building, good or
  seat, or asks for more components than the game has, raises `PositionError` naming the
  field and what is allowed; a position the rules do not allow raises the engine's
  ``InvalidStateError`` naming the state-dict field. Both are ``ValueError``.
- ``build_dict(num_players=None, **description)``: the same position as a state dict, to edit
  further by hand before ``start``.
- ``position(num_players, **options)`` and ``start(d)``: the bare state dict and the
  validated ``Game`` (what ``build`` is made of).
- ``describe(position)``: the description of a ``Game`` or a state dict that ``build_dict``
  turns back into that very state dict (the builder's inverse). A description can set up any
  decision of the game's decision schema, pending mid-step included: the ``pending`` stack,
  whose turn it is and the cursors the engine itself keeps; a stack the engine could not have
  built is refused by the game's validation, naming the field.
- ``play(game, *names)`` and ``legal_names(game)``: forced moves by their stable names (the
  same for every game, defined here).

A decision with one legal action is answered by the engine as soon as it is reached, so the
built ``Game`` never shows it; ``Game.legal_actions_at(state_dict)`` reads its legal set
before that. `decisions` walks seeded games through every decision the engine reaches,
forced ones included (the tests check every decision kind of every game with it).

This module reaches any registered game by name: ``build("puerto_rico", 3, ...)``,
``positions("caylus")`` (the game's module, with its own helpers), ``play_out(game, seed)``
(random legal moves to the end). The description's fields are each game's own
(``FIELDS``, documented in its ``build``), see ``docs/positions.md``.

Examples:
    >>> from caylus_env.core import positions as P
    >>> g = P.build("puerto_rico", 3, players={0: {"money": 10, "buildings": ["harbor"]}})
    >>> g.state_dict()["players"][0]["money"], P.legal_names(g)[:2]
    (10, ['role:settler', 'role:mayor'])
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from caylus_env.core.game import Game

#: `decisions`: game ``g`` of seed ``seed`` is set up with seed ``seed * stride + g`` (a prime).
DECISION_SEED_STRIDE = 1_000_003


class PositionError(ValueError):
    """A position description that cannot be built: an unknown field, name or seat, a value
    of the wrong type or out of its domain, or more components than the game has. The
    message names the field and what is allowed."""


def positions(game: str) -> ModuleType:
    """The ``positions`` module of the registered game ``game`` (its ``build``, ``position``,
    ``start`` and the game's own editing helpers).

    Raises:
        ValueError: for a name that is not a registered game, listing the registered ones.
    """
    from caylus_env.core.registry import game_spec

    return game_spec(game).module("positions")


def build(game: str, num_players: int | None = None, **description: Any) -> Game:
    """The position of ``game`` (a registered name) that ``description`` describes, validated
    and run to its first decision (the game's ``positions.build``).

    Raises:
        PositionError: for a description that cannot be built, naming the field.
        InvalidStateError: for a position the game's rules do not allow.
    """
    return positions(game).build(num_players, **description)


def describe(game: str, position: Game | Mapping[str, Any]) -> dict[str, Any]:
    """The description of a position (a ``Game`` or a state dict of ``game``) that the game's
    ``build_dict`` turns back into that very state dict: the inverse of the builder, pending
    decision and cursors included (the game's ``positions.describe``). A position reached in
    play, read this way, can be edited as a description and built again.

    Raises:
        ValueError: for a state dict the game's loader refuses.
    """
    return positions(game).describe(position)


@dataclass(frozen=True)
class Reached:
    """One decision the engine reached in play (`decisions`): its kind, the seat asked, the
    position (a copy of the flat state, the decision on top of its stack) and its legal ids.
    A ``forced`` one has one legal action, which the engine applies by itself."""

    kind: str
    player: int
    state: np.ndarray
    legal: tuple[int, ...]

    @property
    def forced(self) -> bool:
        return len(self.legal) == 1


def decisions(
    game: str,
    num_players: int,
    *,
    options: Mapping[str, Any] | None = None,
    games: int = 1,
    seed: int = 0,
    bots: bool = True,
) -> Iterator[Reached]:
    """Every decision the engine reaches in ``games`` seeded games of ``game``, the forced ones
    included (which ``Game`` never shows: it answers them itself), in order.

    The movers mix uniformly random legal moves and, with ``bots``, the game's compiled
    scripted bots (``bots.choose_scripted``; seat ``p`` of game ``g`` plays random or one of
    them in turn), so rarely chosen decisions are reached too. The game is stepped with the
    engine's own kernels: ``next_decision`` up to each decision, ``answer`` for a forced one
    (as ``advance`` does), ``apply`` for the movers' choices. Deterministic in ``seed``.
    """
    from caylus_env.core.registry import game_spec

    spec = game_spec(game)
    engine = spec.engine()
    kernels, layout = engine.kernels, engine.layout
    config = engine.GameConfig.from_dict({**(options or {}), "num_players": num_players})
    bot_module = spec.module("bots") if bots else None
    rows = (
        []
        if bot_module is None
        else [b.scripted for b in bot_module.BOTS.values() if b.scripted is not None]
    )
    rng = np.random.default_rng(seed)
    out = np.empty(engine.NUM_ACTIONS, np.int64)
    for g in range(games):
        s = np.zeros(layout.STATE_SIZE, layout.STATE_DTYPE)
        kernels.setup(s, config.kernel_options(), seed * DECISION_SEED_STRIDE + g)
        movers = [(g + p) % (len(rows) + 1) - 1 for p in range(num_players)]  # -1: random
        while (n := int(kernels.next_decision(s, out))) > 0:
            top = layout.STACK + (int(s[layout.STACK_SIZE]) - 1) * layout.STACK_ENTRY
            player = int(kernels.current_player(s))
            kind = engine.DECISION_NAMES[int(s[top + layout.KIND_OFFSET])]
            yield Reached(kind, player, s.copy(), tuple(out[:n].tolist()))
            if n == 1:
                kernels.answer(s, out[0])
                continue
            mover = movers[player]
            if mover < 0:
                i = int(rng.integers(n))
            else:
                i = int(bot_module.choose_scripted(rows[mover], s, out, n, rng.random(n)))
            kernels.apply(s, out[i])


def play(game: Game, *names: str) -> None:
    """Apply actions given by their stable names, in order.

    Raises:
        ValueError: for a name that is no action of the game (``string_to_action``), or
            ``IllegalActionError`` for one not legal now; the actions before it stay applied.
    """
    for name in names:
        game.apply(game.string_to_action(name))


def legal_names(game: Game) -> list[str]:
    """The stable names of the legal actions, in action id order."""
    return [game.action_to_string(a) for a in game.legal_actions()]


def play_out(game: Game, seed: int = 0, max_decisions: int = 100_000) -> int:
    """Play uniformly random legal moves until the game is over (ended or cut off by its
    decision cap) or ``max_decisions`` were played; returns the number played."""
    rng = random.Random(seed)
    played = 0
    while not game.is_over() and played < max_decisions:
        game.apply(rng.choice(game.legal_actions()))
        played += 1
    return played


# -- what the games' builders share: checking a description ----------------------------------


def builder(
    build_dict: Callable[..., dict[str, Any]], start: Callable[[dict[str, Any]], Game]
) -> Callable[..., Game]:
    """A game's ``build`` from its ``build_dict`` and ``start``: what ``build`` does is the
    same for every game, so a game's ``positions`` module declares it with
    ``build = core.builder(build_dict, start)``; the function belongs to that module."""

    def build(num_players: int | None = None, **description: Any) -> Game:
        """The position ``description`` describes, validated and run to its first decision.

        ``build_dict`` documents the description; this is ``start(build_dict(...))``.

        Raises:
            PositionError: naming the description's field and what is allowed.
            InvalidStateError: for a position the rules do not allow (the engine's validation,
                naming the state dict's field).
        """
        return start(build_dict(num_players, **description))

    build.__module__, build.__qualname__ = build_dict.__module__, "build"
    return build


def opening(
    num_players: Any,
    description: Mapping[str, Any],
    allowed: Iterable[str],
    spec: Any,
    options: Iterable[str],
) -> tuple[int, Mapping[str, Any]]:
    """The checks every ``build_dict`` starts with: the description's fields (``allowed``),
    the player count (`players`, within ``spec``'s range) and the names of its ``options``.
    Returns the player count and the description's options (``{}`` when left out)."""
    fields(description, allowed, "description")
    n = players(num_players, spec)
    chosen = description.get("options", {})
    fields(chosen, options, "options")
    return n, chosen


def fields(description: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """Refuse a key of ``description`` that is not one of ``allowed``."""
    if not isinstance(description, Mapping):
        raise PositionError(f"{where} must be a dict, got {type(description).__name__}")
    allowed = list(allowed)
    for key in description:
        if key not in allowed:
            raise PositionError(f"{where}: unknown field {key!r}; allowed: {', '.join(allowed)}")


def count(v: Any, where: str, low: int = 0, high: int = 9999) -> int:
    """A whole number in ``low..high`` (never a bool or a float)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise PositionError(f"{where} must be a whole number, got {v!r}")
    if not low <= v <= high:
        raise PositionError(f"{where}={v} is not allowed; allowed: {low}..{high}")
    return int(v)


def name(v: Any, where: str, allowed: Iterable[str]) -> str:
    """One of ``allowed`` names."""
    allowed = list(allowed)
    if not isinstance(v, str) or v not in allowed:
        raise PositionError(f"{where}={v!r} is not allowed; allowed: {', '.join(allowed)}")
    return v


def counts(v: Any, where: str, allowed: Iterable[str], high: int = 9999) -> dict[str, int]:
    """A ``{name: count}`` dict over ``allowed`` names."""
    if not isinstance(v, Mapping):
        raise PositionError(f"{where} must be a dict {{name: count}}, got {type(v).__name__}")
    allowed = list(allowed)
    return {
        name(k, f"{where} key", allowed): count(n, f"{where}.{k}", 0, high) for k, n in v.items()
    }


def seat(v: Any, where: str, num_players: int) -> int:
    """A seat of the table: ``0..num_players - 1``."""
    return count(v, where, 0, num_players - 1)


def seats(v: Any, where: str, num_players: int) -> dict[int, Any]:
    """Per-seat entries given as a list (seat 0 first, at most one per seat) or a
    ``{seat: entry}`` dict."""
    if isinstance(v, (list, tuple)):
        if len(v) > num_players:
            raise PositionError(f"{where} lists {len(v)} players; allowed: at most {num_players}")
        return dict(enumerate(v))
    if isinstance(v, Mapping):
        return {seat(k, f"{where} key", num_players): e for k, e in v.items()}
    raise PositionError(f"{where} must be a list or a dict {{seat: ...}}, got {type(v).__name__}")


def players(num_players: Any, spec: Any) -> int:
    """The player count: ``num_players`` or the game's default, within the game's range."""
    if num_players is None:
        return spec.default_players
    return count(num_players, "num_players", spec.min_players, spec.max_players)


def too_many(what: str, used: int, total: int, detail: str = "") -> PositionError:
    """More components placed than the game has."""
    more = f" ({detail})" if detail else ""
    return PositionError(f"{what}: {used} placed{more} but the game has {total}")


__all__ = [
    "PositionError",
    "Reached",
    "build",
    "builder",
    "count",
    "counts",
    "decisions",
    "describe",
    "fields",
    "legal_names",
    "name",
    "opening",
    "play",
    "play_out",
    "players",
    "positions",
    "seat",
    "seats",
    "too_many",
]
