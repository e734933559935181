"""Play one game between agents, sandboxed, and return its complete replayable record.

The arena is the game loop that every tournament game, duel game and self-play dataset game
runs (in a worker process: ``worker``). It treats agents as untrusted: an agent that raises, that
answers with an action which is not legal, that modifies the game it was shown, or whose ``act``
takes longer than the per-move time limit *forfeits*. The game stops at that decision, the
forfeiting seat is ranked last, the others keep their order by the position's ranks (ties
averaged, ``caylus_env.core.ranks.forfeit_ranks``),
the reason is recorded, and the tournament goes on (Kaggle-style agent statuses; design doc (f),
goal 13). Errors of the engine itself are not an agent's fault and propagate.

Each ``act`` runs under the move clock (``moveclock``): a ``SIGALRM`` `Deadline` interrupts it
past the limit, its measured time (numba compile time excluded) is checked after it returns,
and in a local pool worker each move is reported to the worker's move slot for the driver's
watchdog (``moveclock.active_slot``). So a game plays the same with a cold and a warm cache.

A record is the one record of every game (`caylus_env.core.record.GameRecord`):
``Game.record()`` plus the match fields and the timings (see `finish`); it replays exactly
(``caylus_env.core.record.replay``). Only its ``timings`` differ between two runs of the same
job. Nothing here depends on the game: it is named by ``play_game(..., game=NAME)`` and reached
through its ``GameSpec`` (``caylus_env.core.registry``; its engine's ``Game``) and the agent
registry (``agents.registry.make_agent(spec, game)``, extended by plugins: `load_plugins`).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral
from typing import Any

from agents.base import Agent
from agents.tournament.moveclock import Deadline, MoveTimeout, active_slot
from caylus_env.core.errors import IllegalActionError
from caylus_env.core.game import Game
from caylus_env.core.ranks import forfeit_ranks
from caylus_env.core.record import FinalResult, GameRecord, MatchInfo, Timings
from caylus_env.core.registry import DEFAULT_GAME, game_spec

DEFAULT_MOVE_TIME_LIMIT = 10.0
"""Seconds one ``act`` call may take before the agent forfeits."""

TIMING_FIELDS = ("wall_time_s", "move_time_s")
"""Result fields that measure time and so differ between runs of the same game (in a record:
its ``timings``)."""

RESULT_FIELDS = (
    "game_id",
    "seed",
    "block",
    "num_players",
    "seats",
    "scores",
    "ranks",
    "forfeit",
    "forfeit_reason",
    "end",
    "wall_time_s",
)
"""The part of a record that a driver keeps in memory (`result_of`, ``GameRecord.result()``):
what the statistics (``agents.stats.GameResult`` reads these keys), the SPRT and the chunk
sizing need. Full records hold every action, and a long run's would not fit."""


# --------------------------------------------------------------------------------------------------
# One game
# --------------------------------------------------------------------------------------------------


def _describe_error(err: BaseException) -> str:
    text = str(err)
    if len(text) > 500:
        text = text[:497] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _check_action(action: Any, legal: list[int], game: Game) -> str | None:
    """Why ``action`` is not acceptable, or None when it is a legal action id."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        return f"illegal action: act returned {action!r} ({type(action).__name__}), not an int id"
    a = int(action)
    if a in legal:
        return None
    try:
        name = game.action_to_string(a)
    except (ValueError, IndexError):
        name = "out of range"
    return f"illegal action: {a} ({name}) is not among the {len(legal)} legal actions"


DecisionHook = Callable[[Game, int, int, Agent, list[int], bytes], None]
"""``hook(game, seat, action, agent, legal, state)``: called once per accepted move, after
``agent.act`` returned ``action`` (checked legal) and before it is applied, outside the move
clock; the game is the position the agent was shown, ``legal`` its legal action ids and
``state`` its state's bytes (both already computed by the loop, so the hook does not compute
them again). How a self-play dataset (``caylus_env.datasets``) records every decision, and an
agent's policy target, on the tournament's own game loop."""


def _play_moves(
    game: Game,
    agents: list[Agent],
    deadline: Deadline,
    move_time: list[float],
    reasons: list[str | None],
    on_decision: DecisionHook | None = None,
) -> Game:
    """Ask the agents for moves until the game ends or one forfeits (its reason set in
    ``reasons``). Returns the game, which is a rebuilt object if an agent tampered with it."""
    limit = deadline.seconds
    moves = list(game.history)  # our own copy: an agent could rewrite game.history
    slot = active_slot()
    while not game.is_over():
        p = game.current_player()
        legal = game.legal_actions()
        snapshot = game.state.tobytes()
        reason = None
        action: Any = None
        try:
            deadline.arm()
            if slot is not None:
                slot.move(p)
            try:
                action = agents[p].act(game)
            finally:
                deadline.disarm()
        except MoveTimeout:
            reason = f"timeout: act was interrupted at the {limit:g} s move time limit"
        except Exception as err:
            reason = f"error: {_describe_error(err)}"
        elapsed = deadline.thinking()
        move_time[p] += elapsed
        if slot is not None:
            slot.moved(p, move_time[p])
        if reason is None and limit is not None and elapsed > limit:
            reason = f"timeout: act took {elapsed:.3f} s, the move time limit is {limit:g} s"
        if len(game.history) != len(moves) or game.state.tobytes() != snapshot:
            # Rebuild the untouched position so that the record stays exactly replayable.
            game = type(game)(game.config, game.seed)
            for a in moves:
                game.apply(a)
            reason = reason or "error: the agent modified the game it was given"
        if reason is None:
            reason = _check_action(action, legal, game)
        if reason is None and on_decision is not None:
            on_decision(game, p, int(action), agents[p], legal, snapshot)
        if reason is None:
            try:
                game.apply(int(action))
                moves.append(int(action))
                if slot is not None:
                    slot.action(int(action))
            except IllegalActionError as err:  # the legal list and the engine disagree
                reason = f"illegal action: {err}"
        if reason is not None:
            reasons[p] = reason
            break
    if game.history != moves:  # rewritten in place without changing the state: restore it
        game.history = moves
    return game


def play_game(
    seats: Sequence[str],
    num_players: int | None = None,
    seed: int = 0,
    config_options: Mapping[str, Any] | None = None,
    *,
    game_id: int = 0,
    block: int = 0,
    agent_seeds: Sequence[int] | None = None,
    move_time_limit: float | None = DEFAULT_MOVE_TIME_LIMIT,
    agent_factory: Callable[[str], Agent] | None = None,
    on_decision: DecisionHook | None = None,
    game: str = DEFAULT_GAME,
) -> Any:
    """Play one game to its end (or to the first forfeit) and return its record.

    Agents are created fresh for every game and reset with their seat's seed, so a game depends
    on its job alone: which worker plays it, and what that worker played before, cannot change
    it (resumed runs and other backends reproduce it exactly).

    Args:
        seats: Agent spec per seat (seat index = engine player number).
        num_players: Seats; defaults to ``len(seats)`` and must agree with it.
        seed: Engine setup seed.
        config_options: Further `GameConfig` options (``num_players`` excluded).
        game_id: Id stored in the record.
        block: Block id stored in the record.
        agent_seeds: Seed per seat for ``agent.reset``; defaults to ``seed + seat``.
        move_time_limit: Seconds per ``act`` call; None or 0 disables the limit.
        agent_factory: Creates an agent from its spec (``agents.registry.make_agent(spec,
            game)`` by default).
        on_decision: Called at every accepted move (`DecisionHook`); None in tournaments.
        game: Which game (a name of ``caylus_env.core.registry``).

    Returns:
        The game's record with ``match``, ``timings`` and ``final`` also for a forfeit (see
        `finish`).

    Raises:
        ValueError: for bad arguments (before any agent is created).
    """
    start = time.perf_counter()
    name = game_spec(game).name
    make = agent_factory if agent_factory is not None else registry_factory(name)
    seats = [str(s) for s in seats]
    n = len(seats) if num_players is None else int(num_players)
    if len(seats) != n:
        raise ValueError(f"{len(seats)} seats given for a {n}-player game")
    options = dict(config_options or {})
    if "num_players" in options:
        raise ValueError("config_options must not hold num_players; pass num_players instead")
    seeds = (
        [int(seed) + s for s in range(n)] if agent_seeds is None else [int(x) for x in agent_seeds]
    )
    if len(seeds) != n:
        raise ValueError(f"{len(seeds)} agent seeds given for a {n}-player game")
    limit = float(move_time_limit) if move_time_limit else None

    state = new_game(name, n, options, seed)
    reasons: list[str | None] = [None] * n
    move_time = [0.0] * n
    agents: list[Agent] = []
    for s, spec in enumerate(seats):
        try:
            agent = make(spec)
            agent.reset(seeds[s])
        except Exception as err:
            reasons[s] = f"error: could not create agent {spec!r}: {_describe_error(err)}"
            break
        agents.append(agent)

    if not any(reasons):
        slot = active_slot()
        if slot is not None:
            slot.game(int(game_id), state.history)
        with Deadline(limit) as deadline:
            state = _play_moves(state, agents, deadline, move_time, reasons, on_decision)

    return finish(
        state,
        reasons,
        game_id=game_id,
        block=block,
        seats=seats,
        agent_seeds=seeds,
        move_time=move_time,
        wall_time=time.perf_counter() - start,
    )


def registry_factory(game: str) -> Callable[[str], Agent]:
    """What creates a seat's agent from its spec by default (``play_game``'s ``agent_factory``,
    and the warm-up's): ``agents.registry.make_agent(spec, game)``, imported on first use."""
    from agents.registry import make_agent

    return lambda spec: make_agent(spec, game)


def new_game(game: str, num_players: int, options: Mapping[str, Any], seed: int) -> Game:
    """A fresh game of ``game`` with ``num_players`` and the other ``options`` on setup
    ``seed`` (the engine's ``Game``; refuses an unknown option naming the allowed ones)."""
    spec = game_spec(game)
    return spec.engine().Game(spec.config(int(num_players), **options), int(seed))


def finish(
    game: Game,
    reasons: Sequence[str | None],
    *,
    game_id: int,
    block: int,
    seats: Sequence[str],
    agent_seeds: Sequence[int],
    move_time: Sequence[float],
    wall_time: float,
) -> GameRecord:
    """The tournament record of a game that ended or stopped at the first forfeit (``reasons``:
    per seat why it forfeited, or None): ``game.record()`` with ``match`` (game id, block,
    agents, agent seeds, forfeit reasons), ``timings`` (rounded to the microsecond) and, after
    a forfeit, ``final`` from the position (its scores; its ranks with the forfeiting seat
    last, ``forfeit_ranks``), which is what ``replay`` checks."""
    loser = next((s for s, r in enumerate(reasons) if r is not None), None)
    forfeit = {}
    if loser is not None:
        ranks = forfeit_ranks(game.ranks().tolist(), loser)
        forfeit["final"] = FinalResult(game.scores().tolist(), ranks, "forfeit")
    return game.record(
        match=MatchInfo(int(game_id), int(block), list(seats), list(agent_seeds), list(reasons)),
        timings=Timings([round(float(t), 6) for t in move_time], round(float(wall_time), 6)),
        **forfeit,
    )


def result_of(record: GameRecord) -> dict[str, Any]:
    """The `RESULT_FIELDS` of a tournament record (one with ``match`` and ``final``)."""
    return record.result()


# --------------------------------------------------------------------------------------------------
# The agents that specs name: the registry, and the plugins that add to it
# --------------------------------------------------------------------------------------------------


def load_plugins(plugins: Sequence[str]) -> None:
    """Import agent plugin modules and let them register their agents.

    A plugin is a module that calls ``agents.registry.register`` when imported, or that defines
    ``register_agents()``, which is called on every load (registering is idempotent, and a hook
    keeps mere imports, such as doctest collection, free of side effects). Workers start from a
    fresh interpreter (spawn, Ray), so registrations made in the driver do not exist there;
    loading the same plugins in every worker recreates them.
    """
    for name in plugins:
        module = importlib.import_module(name)
        hook = getattr(module, "register_agents", None)
        if callable(hook):
            hook()


__all__ = [
    "DEFAULT_MOVE_TIME_LIMIT",
    "RESULT_FIELDS",
    "TIMING_FIELDS",
    "DecisionHook",
    "finish",
    "forfeit_ranks",
    "load_plugins",
    "new_game",
    "play_game",
    "registry_factory",
    "result_of",
]
