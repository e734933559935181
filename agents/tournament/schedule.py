"""Seat-balanced tournament schedules: which agents sit where, on which seed, in which block.

The schedule is a pure, deterministic function of its arguments, so a killed run can be resumed
(the same game ids mean the same games), two backends can be compared game by game, and a run's
identity can be checked with one hash.

Design (seat balance, blocks and seeds, as the tournament statistics need them):

- A **block** is one seed and one table *composition* (the multiset of agents at the table),
  played in every distinct *seating* of that composition: every cyclic rotation by default, or
  every permutation with ``seating="permutations"``. Inside a block each agent of the
  composition occupies every seat equally often, so seat advantage cancels by construction and
  the games of a block share their setup luck. The block is therefore the independent unit of the
  bootstrap and of paired comparisons. Seatings that repeat (e.g. the rotations of ``A B A B``)
  are played once: with deterministic agents they would replay the same game.
- **Compositions** cycle over the blocks:

  * fewer agents than seats (``k < n``): the agents fill the table cyclically, composition ``j``
    being ``agents[j], agents[j+1], ...`` (indices modulo ``k``); one cycle of ``k`` compositions
    gives every agent exactly ``n`` places (compositions equal as multisets are kept once);
  * as many agents as seats: one composition, everybody;
  * more agents than seats, ``C(k, n) <= MAX_COMBINATIONS``: all ``C(k, n)`` combinations, in a
    greedy order that always picks next the combination whose agents have been seated least so
    far (ties: lexicographic), so every prefix of the cycle stays close to balanced and a full
    cycle is exactly balanced (each agent at ``C(k-1, n-1)`` tables, each pair together equally
    often);
  * more agents than seats and too many combinations: rolling windows over a shuffled agent
    order, ``k`` tables per cycle (table ``j`` takes positions ``j*n .. j*n+n-1`` modulo ``k``),
    a fresh order per cycle drawn from the master seed; each cycle gives every agent exactly
    ``n`` tables and any prefix differs by at most one table between agents.

  Agent counts (and hence the (agent, seat) cells) are exactly equal whenever the number of
  blocks is a multiple of ``cycle_blocks``; the per-agent seat balance is exact in every block.
- **Seeds**: block ``b`` draws its game seed and one agent seed per (game, seat) from
  ``numpy.random.SeedSequence(entropy=master_seed, spawn_key=(b,))``; every game of a block uses
  the block's game seed.
- The requested number of games is rounded up to whole blocks.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from caylus_env.core.registry import DEFAULT_GAME, game_spec

SEATINGS = ("rotations", "permutations")
"""How the games of a block seat the composition: cyclic rotations or all permutations."""

MAX_COMBINATIONS = 5000
"""Above this many ``C(agents, players)`` combinations the rolling-window design is used: the
greedy ordering is quadratic in the number of combinations, and a tournament that cannot afford
one game per combination gains nothing from enumerating them."""

SCHEDULE_FORMAT = "caylus-schedule/1"

MAX_GAMES = 1_000_000
"""Most games one run may ask for. The schedule is built in memory before the first game (its
hash identifies the run): a million games take about 20 s and 600 MB to schedule, measured on
the 2-core development machine, and a bigger request would spend minutes and gigabytes before
failing. Larger studies are several runs with other seeds."""


class ScheduleError(ValueError):
    """Arguments from which no schedule can be built; the message names the argument."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class GameJob:
    """One scheduled game: everything a worker needs to play it, and nothing else.

    Attributes:
        game_id: Position in the schedule (0, 1, ...); unique within a run.
        block: The (seed, composition) group this game belongs to.
        seed: Engine setup seed (shared by every game of the block).
        seats: Agent spec per seat; seat index = engine player number.
        agent_seeds: Seed passed to each seat's ``agent.reset``.
        seating: Index of this seating within its block.
    """

    game_id: int
    block: int
    seed: int
    seats: tuple[str, ...]
    agent_seeds: tuple[int, ...]
    seating: int

    @property
    def num_players(self) -> int:
        return len(self.seats)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what crosses process boundaries: plain data, never pickled objects)."""
        return {
            "game_id": self.game_id,
            "block": self.block,
            "seed": self.seed,
            "seats": list(self.seats),
            "agent_seeds": list(self.agent_seeds),
            "seating": self.seating,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameJob:
        return cls(
            game_id=int(data["game_id"]),
            block=int(data["block"]),
            seed=int(data["seed"]),
            seats=tuple(data["seats"]),
            agent_seeds=tuple(int(s) for s in data["agent_seeds"]),
            seating=int(data["seating"]),
        )


@dataclass(frozen=True)
class Schedule:
    """A whole tournament schedule; build it with `build_schedule`.

    Attributes:
        agents: The distinct agent specs, in the order given.
        players: Seats per table.
        requested_games: The number of games asked for (before rounding up to whole blocks).
        master_seed: Entropy of every seed of the run.
        seating: ``"rotations"`` or ``"permutations"``.
        cycle_blocks: Blocks after which the composition cycle repeats; agent counts are exactly
            balanced after every multiple of it.
        jobs: The games, ordered by ``game_id``.
    """

    agents: tuple[str, ...]
    players: int
    requested_games: int
    master_seed: int
    seating: str
    cycle_blocks: int
    jobs: tuple[GameJob, ...]

    @property
    def games(self) -> int:
        """Scheduled games (``requested_games`` rounded up to whole blocks)."""
        return len(self.jobs)

    @property
    def blocks(self) -> int:
        return self.jobs[-1].block + 1 if self.jobs else 0

    @property
    def balanced(self) -> bool:
        """Whether every agent gets exactly the same number of games in every seat."""
        return self.blocks % self.cycle_blocks == 0

    def block_jobs(self) -> list[list[GameJob]]:
        """The jobs grouped by block, in block order."""
        out: list[list[GameJob]] = []
        for job in self.jobs:
            if job.block == len(out):
                out.append([])
            out[job.block].append(job)
        return out

    def seat_counts(self) -> dict[str, list[int]]:
        """Games per (agent, seat): ``{agent: [games in seat 0, seat 1, ...]}``."""
        counts = {a: [0] * self.players for a in self.agents}
        for job in self.jobs:
            for seat, agent in enumerate(job.seats):
                counts[agent][seat] += 1
        return counts

    def hash(self) -> str:
        """SHA-256 of the canonical JSON of every job: two runs with equal hashes play the same
        games with the same seeds in the same seats."""
        payload = {
            "format": SCHEDULE_FORMAT,
            "agents": list(self.agents),
            "players": self.players,
            "master_seed": self.master_seed,
            "seating": self.seating,
            "jobs": [
                [j.game_id, j.block, j.seed, list(j.seats), list(j.agent_seeds)] for j in self.jobs
            ],
        }
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def describe(self) -> str:
        """One line for people: games, blocks, rounding and balance."""
        per_block = sorted({len(b) for b in self.block_jobs()})
        sizes = "/".join(str(s) for s in per_block)
        text = (
            f"{self.games} games in {self.blocks} blocks of {sizes} {self.seating} "
            f"({len(self.agents)} agents, {self.players} players, seed {self.master_seed})"
        )
        if self.games != self.requested_games:
            text += f"; {self.requested_games} requested, rounded up to whole blocks"
        if self.balanced:
            text += "; every agent plays every seat equally often"
        else:
            text += (
                f"; compositions cycle every {self.cycle_blocks} blocks, so agent game counts "
                f"are exactly equal only for multiples of {self.cycle_blocks} blocks"
            )
        return text


# --------------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------------


def check_seed(seed: Any, field: str = "seed") -> int:
    """A master seed must be a non-negative int (what ``SeedSequence`` accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise ScheduleError(field, f"{field} must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_players(players: Any, game: str = DEFAULT_GAME) -> int:
    """A player count ``game``'s rules allow (its ``GameSpec.player_counts``)."""
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
        raise ScheduleError("players", f"players must be an integer, got {players!r}")
    spec = game_spec(game)
    if int(players) not in spec.player_counts:
        raise ScheduleError(
            "players",
            f"players={players} is not allowed; {spec.title} is played by {spec.min_players} "
            f"to {spec.max_players} players",
        )
    return int(players)


def check_agents(agents: Sequence[str]) -> tuple[str, ...]:
    """Agent specs must be non-empty and distinct: the spec is the agent's identity in every
    statistic, so a repeated spec would silently merge two "different" agents. An agent fills
    several seats by itself only when there are fewer agents than seats."""
    if isinstance(agents, str):
        raise ScheduleError("agents", "agents must be a list of specs, not one string")
    specs = tuple(a.strip() if isinstance(a, str) else a for a in agents)
    if not specs:
        raise ScheduleError("agents", "at least one agent is needed")
    for spec in specs:
        if not isinstance(spec, str) or not spec:
            raise ScheduleError("agents", f"agent specs must be non-empty strings, got {spec!r}")
    repeated = sorted(a for a, c in Counter(specs).items() if c > 1)
    if repeated:
        raise ScheduleError(
            "agents",
            f"agent {repeated[0]!r} is listed more than once; list each agent once (with fewer "
            "agents than seats an agent fills several seats by itself)",
        )
    return specs


# --------------------------------------------------------------------------------------------------
# Compositions
# --------------------------------------------------------------------------------------------------


def _fill_compositions(agents: tuple[str, ...], players: int) -> list[tuple[str, ...]]:
    k = len(agents)
    out: list[tuple[str, ...]] = []
    seen: set[tuple[tuple[str, int], ...]] = set()
    for j in range(k):
        comp = tuple(agents[(j + i) % k] for i in range(players))
        key = tuple(sorted(Counter(comp).items()))
        if key not in seen:
            seen.add(key)
            out.append(comp)
    return out


def _balanced_combinations(agents: tuple[str, ...], players: int) -> list[tuple[str, ...]]:
    """All combinations, each next one the least-seated so far (ties: lexicographic)."""
    k = len(agents)
    combos = np.array(list(itertools.combinations(range(k), players)), dtype=np.int64)
    counts = np.zeros(k, dtype=np.int64)
    used = np.zeros(len(combos), dtype=bool)
    big = np.iinfo(np.int64).max
    order: list[tuple[str, ...]] = []
    for _ in range(len(combos)):
        load = counts[combos].sum(axis=1)
        load[used] = big
        pick = int(np.argmin(load))  # argmin returns the first minimum: lexicographic ties
        used[pick] = True
        counts[combos[pick]] += 1
        order.append(tuple(agents[i] for i in combos[pick]))
    return order


def _window_composition(
    agents: tuple[str, ...], players: int, master_seed: int, block: int
) -> tuple[str, ...]:
    k = len(agents)
    cycle, j = divmod(block, k)
    # A spawn key of length 2 can never collide with the 1-element keys of the block seeds.
    rng = np.random.default_rng(np.random.SeedSequence(entropy=master_seed, spawn_key=(cycle, 1)))
    order = rng.permutation(k)
    return tuple(agents[order[(j * players + i) % k]] for i in range(players))


def _seatings(composition: tuple[str, ...], seating: str) -> list[tuple[str, ...]]:
    n = len(composition)
    if seating == "rotations":
        candidates = [tuple(composition[(s + r) % n] for s in range(n)) for r in range(n)]
    else:
        candidates = list(itertools.permutations(composition))
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for c in candidates:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def _block_seeds(master_seed: int, block: int, count: int) -> tuple[int, list[int]]:
    """The block's game seed and ``count`` agent seeds, all below 2**63 (the engine's bound)."""
    words = np.random.SeedSequence(entropy=master_seed, spawn_key=(block,)).generate_state(
        1 + count, dtype=np.uint64
    )
    values = [int(w) >> 1 for w in words]
    return values[0], values[1:]


def build_schedule(
    agents: Sequence[str],
    players: int,
    games: int,
    seed: int = 0,
    seating: str = "rotations",
    *,
    game: str = DEFAULT_GAME,
) -> Schedule:
    """Build the deterministic, seat-balanced schedule of a tournament (see the module docstring).

    Args:
        agents: Distinct agent specs.
        players: Seats per table (a count ``game``'s rules allow).
        games: Games wanted, at least 1; rounded up to whole blocks.
        seed: Master seed (non-negative).
        seating: ``"rotations"`` (cyclic, ``players`` games per block) or ``"permutations"``
            (every order, up to ``players!`` games per block).
        game: The game (``caylus_env.core.registry``) whose player counts are allowed; the
            schedule itself is the same for every game.

    Raises:
        ScheduleError: naming the offending argument.
    """
    specs = check_agents(agents)
    n = check_players(players, game)
    master = check_seed(seed)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ScheduleError("games", f"games must be an integer >= 1, got {games!r}")
    if games > MAX_GAMES:
        raise ScheduleError(
            "games", f"games={games} is too many; allowed: 1 to {MAX_GAMES} games per run"
        )
    if seating not in SEATINGS:
        raise ScheduleError(
            "seating", f"seating={seating!r} is not allowed; allowed: {', '.join(SEATINGS)}"
        )
    cycle_blocks, blocks = _block_stream(specs, n, master, seating)
    jobs: list[GameJob] = []
    for block_jobs in blocks:
        jobs.extend(block_jobs)
        if len(jobs) >= games:
            break
    return Schedule(
        agents=specs,
        players=n,
        requested_games=int(games),
        master_seed=master,
        seating=seating,
        cycle_blocks=cycle_blocks,
        jobs=tuple(jobs),
    )


def _block_stream(
    specs: tuple[str, ...], n: int, master: int, seating: str
) -> tuple[int, Iterator[list[GameJob]]]:
    """``(cycle_blocks, the blocks one after another)``, games numbered from 0 in that order."""
    k = len(specs)
    if k <= n:
        cycle: list[tuple[str, ...]] | None = _fill_compositions(specs, n)
    elif math.comb(k, n) <= MAX_COMBINATIONS:
        cycle = _balanced_combinations(specs, n)
    else:
        cycle = None
    cycle_blocks = len(cycle) if cycle is not None else k

    def blocks() -> Iterator[list[GameJob]]:
        first = 0
        for block in itertools.count():
            if cycle is not None:
                comp = cycle[block % len(cycle)]
            else:
                comp = _window_composition(specs, n, master, block)
            seats_list = _seatings(comp, seating)
            game_seed, agent_seeds = _block_seeds(master, block, len(seats_list) * n)
            jobs = [
                GameJob(
                    game_id=first + r,
                    block=block,
                    seed=game_seed,
                    seats=seats,
                    agent_seeds=tuple(agent_seeds[r * n : (r + 1) * n]),
                    seating=r,
                )
                for r, seats in enumerate(seats_list)
            ]
            first += len(jobs)
            yield jobs

    return cycle_blocks, blocks()


def iter_blocks(
    agents: Sequence[str],
    players: int,
    seed: int = 0,
    seating: str = "rotations",
    *,
    game: str = DEFAULT_GAME,
) -> Iterator[list[GameJob]]:
    """The blocks of `build_schedule`'s schedule one at a time, without end, in memory that
    does not grow with their number (what a run longer than `MAX_GAMES` needs: self-play
    datasets, ``caylus_env.datasets``). Block ``b``'s jobs are those of every schedule of these
    arguments that reaches block ``b``, game ids included.

    Raises:
        ScheduleError: naming the offending argument.
    """
    specs = check_agents(agents)
    n = check_players(players, game)
    master = check_seed(seed)
    if seating not in SEATINGS:
        raise ScheduleError(
            "seating", f"seating={seating!r} is not allowed; allowed: {', '.join(SEATINGS)}"
        )
    return _block_stream(specs, n, master, seating)[1]


__all__ = [
    "MAX_COMBINATIONS",
    "MAX_GAMES",
    "SEATINGS",
    "GameJob",
    "Schedule",
    "ScheduleError",
    "build_schedule",
    "check_agents",
    "check_players",
    "check_seed",
    "iter_blocks",
]
