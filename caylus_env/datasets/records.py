"""Between game records and dataset rows: what a worker stores, and what `verify` recomputes.

A dataset row is a function of the game: its record (``caylus_env.core.record.GameRecord``:
seed, options, actions, result, match fields) determines every stored state, mask, decision
kind and return. `decision_rows` turns the states an agent was shown into the stored columns,
`game_row` turns a record into its games row, and `rows_from_record` replays a record with its
game's engine to produce both (what the generator stores for a game whose worker was killed,
and what ``verify`` compares with). The record's ``game`` field picks the engine and the widths
(``caylus_env.datasets.format``: `state_bytes`, `mask_bytes`, `kinds_of`), so every game of the
registry goes through the same code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from caylus_env.core.record import FinalResult, GameRecord, MatchInfo
from caylus_env.core.registry import DEFAULT_GAME, game_spec
from caylus_env.datasets.format import (
    GameRows,
    games_rows,
    kinds_of,
    mask_bytes,
    num_actions,
    pack_legal_ids,
    pack_masks,
    returns_of,
    state_size,
    unpack_masks,
)


def game_row(record: GameRecord, decisions: int) -> dict[str, Any]:
    """The games row (``GAMES_SCHEMA``) of a finished record with a seed and match fields."""
    match, final = record.match, record.final
    if match is None or final is None or record.seed is None:
        raise ValueError("a dataset game needs a finished record with a seed and match fields")
    loser = match.loser
    options = {k: v for k, v in record.options.items() if k != "num_players"}
    return {
        "game_id": match.game_id,
        "block": match.block,
        "seed": record.seed,
        "num_players": record.num_players,
        "options": json.dumps(options, sort_keys=True, separators=(",", ":")),
        "agents": list(match.agents),
        "agent_seeds": list(match.agent_seeds),
        "scores": list(final.scores),
        "ranks": list(final.ranks),
        "returns": returns_of(final.ranks),
        "decisions": decisions,
        "end": final.end,
        "forfeit_seat": -1 if loser is None else loser,
        "forfeits": [r or "" for r in match.forfeits],
    }


def decision_rows(
    record: GameRecord,
    states: Sequence[np.ndarray] | np.ndarray,
    masks: Sequence[np.ndarray] | np.ndarray,
    seats: Sequence[int],
    policy: list[tuple[tuple[int, ...], tuple[float, ...]]] | None,
) -> GameRows:
    """A game's rows from the states, masks and seats of its decisions (one per action)."""
    mk = np.asarray(masks).reshape(len(record.actions), num_actions(game_spec(record.game)))
    num_legal = mk.astype(bool).sum(axis=1)
    return packed_decision_rows(record, states, pack_masks(mk), num_legal, seats, policy)


def packed_decision_rows(
    record: GameRecord,
    states: np.ndarray,
    legal: np.ndarray,
    num_legal: Sequence[int] | np.ndarray,
    seats: Sequence[int] | np.ndarray,
    policy: list[tuple[tuple[int, ...], tuple[float, ...]]] | None,
) -> GameRows:
    """`decision_rows` from masks already packed (``(D, mask_bytes)`` uint8, `pack_masks` or
    `pack_legal_ids`) and their legal counts: what a dataset worker builds, without a bool
    mask per decision."""
    d = len(record.actions)
    spec = game_spec(record.game)
    st = np.asarray(states, dtype=spec.engine().layout.STATE_DTYPE).reshape(d, state_size(spec))
    return GameRows(
        game=game_row(record, d),
        states=st,
        legal=np.asarray(legal, np.uint8).reshape(d, mask_bytes(spec)),
        actions=np.asarray(record.actions, np.int16),
        seats=np.asarray(seats, np.int8),
        kinds=kinds_of(spec, st),
        num_legal=np.asarray(num_legal).astype(np.int16),
        policy=policy,
    )


def new_game(game: str, options: Mapping[str, Any], seed: int) -> Any:
    """A fresh ``Game`` of ``game`` from a record's or a games row's options (``num_players``
    included) and seed."""
    engine = game_spec(game).engine()
    return engine.Game(engine.GameConfig.from_dict(dict(options)), int(seed))


def replay_decisions(record: GameRecord) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(states, masks, seats)`` of every decision of a record, replayed with its engine.

    Raises:
        ValueError: when an action is not legal where the record says it was played.
    """
    spec = game_spec(record.game)
    game = new_game(record.game, record.options, int(record.seed))
    d = len(record.actions)
    states = np.empty((d, state_size(spec)), spec.engine().layout.STATE_DTYPE)
    masks = np.zeros((d, num_actions(spec)), np.int8)
    seats = np.empty(d, np.int8)
    for i, a in enumerate(record.actions):
        states[i] = game.state
        game.legal_mask(masks[i])
        seats[i] = game.current_player()
        game.apply(a)
    return states, masks, seats


def rows_from_record(record: GameRecord) -> GameRows:
    """A game's rows computed from its record alone (no policy targets: only the agents
    that played knew them)."""
    states, masks, seats = replay_decisions(record)
    return decision_rows(record, states, masks, seats, None)


def record_of_row(
    row: Mapping[str, Any], actions: Sequence[int], engine: str, game: str = DEFAULT_GAME
) -> GameRecord:
    """Inverse of `game_row`: the record of a stored game of ``game``, from its games row (current
    column names, `caylus_env.datasets.format.games_rows`) and the ``action`` column of its
    decisions in ply order (``engine``: the manifest's version).

    Raises:
        ValueError: when the row's options or result do not form a record.
    """
    try:
        options = {**json.loads(row["options"]), "num_players": row["num_players"]}
        start = new_game(game, options, row["seed"])
        acts = tuple(int(a) for a in actions)
        to_string = start.action_to_string
        return GameRecord(
            game=game_spec(game).name,
            engine=engine,
            options=start.config.to_dict(),
            seed=row["seed"],
            setup=start.setup(),
            actions=acts,
            action_names=tuple(to_string(a) for a in acts),
            final=FinalResult(row["scores"], row["ranks"], row["end"]),
            match=MatchInfo(
                row["game_id"],
                row["block"],
                row["agents"],
                row["agent_seeds"],
                [reason or None for reason in row["forfeits"]],
            ),
        )
    except RecursionError:
        raise ValueError(
            f"game {row.get('game_id')} does not form a game record: its options are nested "
            "too deeply"
        ) from None
    except (TypeError, KeyError) as err:
        raise ValueError(f"game {row.get('game_id')} does not form a game record: {err}") from err


def dataset_records(
    root: Any, game_ids: Sequence[int], game: str = DEFAULT_GAME
) -> dict[int, GameRecord]:
    """The records of some games of a finished dataset of ``game`` (`record_of_row`), read in
    one pass over the decisions table (a filtered scan, so the cost does not grow with the
    games asked).

    Raises:
        DatasetError: when ``root`` is not a finished dataset of this engine and game.
        KeyError: naming the game ids the dataset does not hold.
    """
    import pyarrow.compute as pc

    from caylus_env.datasets.format import read_manifest
    from caylus_env.datasets.loader import open_dataset

    wanted = sorted(set(int(g) for g in game_ids))
    if not wanted:
        return {}
    from caylus_env.datasets.format import reading

    manifest = read_manifest(root)
    ids = pc.field("game_id").isin(wanted)
    games_table = open_dataset(root, "games", game=game)
    decisions = open_dataset(root, game=game)
    with reading(root):
        games = games_table.to_table(filter=ids)
        plies = decisions.to_table(filter=ids, columns=["game_id", "ply", "action"])
    rows = {r["game_id"]: r for r in games_rows(games)}
    missing = [g for g in wanted if g not in rows]
    if missing:
        raise KeyError(f"no game {', '.join(map(str, missing))} in {root}")
    plies = plies.sort_by([("game_id", "ascending"), ("ply", "ascending")])
    game_col = plies.column("game_id").to_numpy()
    action_col = plies.column("action").to_numpy()
    return {
        g: record_of_row(rows[g], action_col[game_col == g].tolist(), manifest["engine"], game)
        for g in wanted
    }


__all__ = [
    "dataset_records",
    "decision_rows",
    "game_row",
    "new_game",
    "pack_legal_ids",
    "pack_masks",
    "packed_decision_rows",
    "record_of_row",
    "replay_decisions",
    "rows_from_record",
    "unpack_masks",
]
