"""Rewrite the golden searches of every game's MCTS: the moves and root visit counts of seeded
searches, which a change of the search must keep (``tests/agents/test_mcts_golden.py``).

Run only after an intended change of what the search plays, then review the diff:

    python tests/agents/regenerate_mcts_golden.py

For every registered game with an ``mcts`` bot and every player count, `POSITIONS` positions
are reached by the game's scripted bots (seat ``q`` plays scripted bot ``q`` of the game's
``SCRIPTED``, cycled), one option set per position (the game's option sets and its truncating
options in turn); then one spec of `SPECS` (a few budgets, every rollout policy and the
options, in turn) searches `MOVES` decisions of the seat to move while the scripted bots
play the others (a fresh agent, ``reset`` to the position's seed). Each search is stored as
its move and its root visit counts ``[[action, visits], ...]`` sorted by action.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "agents" / "golden" / "mcts_searches.json"
#: Positions per game and player count.
POSITIONS = 20
#: Searched decisions per position.
MOVES = 2
#: The specs searched, per game, in turn over the positions: small and larger budgets,
#: every rollout policy, every option of the game's spec.
SPECS: dict[str, tuple[str, ...]] = {
    "caylus": (
        "mcts:6",
        "mcts:40",
        "mcts:30:heuristic",
        "mcts:60:random:prior=none",
        "mcts:24:town:widen=0:scaled=0:model=0",
        "mcts:16:economy:cutoff=12:depth=1:margin=0:scale=4",
        "mcts:20:castle:c=1.5:power=0.8:widen=2:prior=town",
    ),
    "puerto_rico": (
        "mcts:5",
        "mcts:60",
        "mcts:40:builder",
        "mcts:50:random",
        "mcts:40:shipper:eps=0:c=1.5",
        "mcts:30:builder:cutoff=12:margin=0.9:scale=3",
        "mcts:30:random:eps=0:margin=0",
    ),
    "caylus_1303": (
        "mcts:5",
        "mcts:60",
        "mcts:40:deliverer",
        "mcts:50:random",
        "mcts:40:constructor:eps=0:c=1.5",
        "mcts:30:deliverer:cutoff=12:margin=0.9:scale=3",
        "mcts:30:random:eps=0:margin=0",
    ),
}


def _option_sets(spec: Any) -> list[dict[str, Any]]:
    sets = [dict(s) for s in spec.option_sets.values()]
    if spec.truncating_options is not None:
        sets.append(dict(spec.truncating_options))
    return sets


def _scripted(game: str, num_players: int, seed: int) -> list[Any]:
    from agents.registry import make_agent
    from caylus_env.core.registry import game_spec

    names = game_spec(game).module("bots").SCRIPTED
    bots = [make_agent(names[q % len(names)], game) for q in range(num_players)]
    for q, bot in enumerate(bots):
        if hasattr(bot, "reset"):
            bot.reset(seed + q)
    return bots


def searches(game: str, num_players: int) -> list[dict[str, Any]]:
    """The golden searches of ``game`` at ``num_players`` (see the module docstring)."""
    from agents.registry import make_agent
    from caylus_env.core.registry import game_spec

    spec = game_spec(game)
    sets = _option_sets(spec)
    specs = SPECS[game]
    out: list[dict[str, Any]] = []
    for k in range(POSITIONS):
        seed = 1000 * num_players + k
        options = sets[k % len(sets)]
        rng = random.Random(seed)
        g = spec.new_game(spec.config(num_players, **options), seed)
        bots = _scripted(game, num_players, seed)
        for _ in range(rng.randrange(120)):
            if g.is_over():
                break
            g.apply(bots[g.current_player()].act(g))
        name = specs[(k + num_players) % len(specs)]
        agent = make_agent(name, game)
        agent.reset(seed)
        seat = None if g.is_over() else g.current_player()
        moves: list[dict[str, Any]] = []
        while not g.is_over() and len(moves) < MOVES:
            q = g.current_player()
            if q == seat:
                a = int(agent.act(g))
                counts = agent.visit_counts()
                visits = [] if counts is None else sorted(map(list, zip(*counts, strict=True)))
                moves.append({"action": a, "visits": visits})
            else:
                a = bots[q].act(g)
            g.apply(a)
        out.append(
            {"seed": seed, "options": options, "spec": name, "decision": len(g.history)}
            | {"moves": moves}
        )
    return out


def cases() -> list[tuple[str, int]]:
    """``(game, player count)`` of every golden list."""
    from caylus_env.core.registry import GAME_NAMES, game_spec

    return [
        (game, n)
        for game in GAME_NAMES
        if "mcts" in game_spec(game).module("bots").BOTS
        for n in game_spec(game).player_counts
    ]


def main() -> None:
    from caylus_env.core.fileio import atomic_write_text

    lists = {f"{game}/{n}": searches(game, n) for game, n in cases()}
    rows = ",\n".join(
        f"{json.dumps(key)}: [\n" + ",\n".join(json.dumps(s, sort_keys=True) for s in found) + "\n]"
        for key, found in lists.items()
    )
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(GOLDEN, "{\n" + rows + "\n}\n")
    print(f"wrote {GOLDEN.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
