"""Golden playthroughs: a whole game as diffable text, regenerated and compared in CI.

OpenSpiel's playthrough format adapted to Caylus. A file holds a header (format,
env version, options, seed, sizes), then for every decision a ``# Step`` line
with turn, phase, decision and player, a compact picture of the state, the legal
actions as ids and names, and the chosen action (``action: <id>``); the first
steps also list the non-zero observation pieces of the acting player. The end
gives final prestige, ranks and returns.

The test suite parses the ``action:`` lines back out, replays them, regenerates
the text and compares it line by line, so any change of rules, encodings or
names shows up as a diff. After an intended change, regenerate with::

    python -m caylus_env.core.playthrough --regenerate-all tests/playthroughs
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import numpy as np

from caylus_env.caylus.engine import NUM_ACTIONS, Game, GameConfig, action_to_string
from caylus_env.caylus.engine.constants import RESOURCE_NAMES
from caylus_env.caylus.engine.layout import STATE_SIZE
from caylus_env.core.fileio import atomic_write_text

FORMAT = "caylus-playthrough/1"
OBSERVED_STEPS = 3  # full observation pieces for the first steps only (OpenSpiel style)
_ACTION_LINE = re.compile(r"^action: (\d+)$")
_HEADER_LINE = re.compile(r"^(num_players|seed|policy_seed): (\d+)$")


def compact_state(game: Game) -> list[str]:
    """A few short lines with everything that changes during a game."""
    d = game.state_dict()
    lines = [
        f"turn {d['turn']} {d['phase']} | provost {d['provost']} bailiff {d['bailiff']} | "
        f"order {d['turn_order']} passed {d['passing_order']} | "
        f"scored {[k for k, v in d['scored'].items() if v]}"
    ]
    for p, pd in enumerate(d["players"]):
        cubes = " ".join(f"{r[0].upper()}{pd['cubes'][r]}" for r in RESOURCE_NAMES)
        fav = ",".join(str(c) for c in pd["favor_columns"].values())
        lines.append(
            f"p{p}: {pd['money']}d {cubes} pp{pd['prestige']} out{pd['workers_out']} "
            f"houses{pd['houses']} favors[{fav}]"
        )
    road = []
    for r in d["road"]:
        if r["building"] is None:
            continue
        tag = r["building"]
        if r["owner"] is not None:
            tag += f"@{r['owner']}"
        if r["worker"] is not None:
            tag += f"+w{r['worker']}"
        if r["lawyer_pending"] is not None:
            tag += f"!L{r['lawyer_pending']}"
        road.append(f"{r['space']}:{tag}")
    lines.append("road " + " ".join(road))
    specials = {k: v for k, v in d["special_workers"].items() if v is not None}
    lines.append(
        f"specials {specials} stables {d['stables']} inn {d['inn']} "
        f"castle_workers {d['castle_workers']} castle {d['castle']}"
    )
    return lines


def _observation_lines(game: Game) -> list[str]:
    from caylus_env.caylus.observation import OBS_SIZE, encode, observation_pieces

    vec = np.zeros(OBS_SIZE, np.float32)
    encode(game.state, game.current_player(), vec)
    lines = []
    for name, view in observation_pieces(vec).items():
        nz = np.flatnonzero(view)
        if len(nz):
            values = " ".join(f"{i}={view.flat[i]:g}" for i in nz)
            lines.append(f"obs {name}: {values}")
    return lines


def render_playthrough(
    config: GameConfig, seed: int, actions: list[int] | None = None, policy_seed: int = 0
) -> tuple[str, list[int]]:
    """Play a game (given ``actions``, else random ones from ``policy_seed``) as text.

    Returns:
        The text and the list of action ids played.
    """
    from caylus_env._version import __version__

    game = Game(config, seed)
    rng = random.Random(policy_seed)
    out = [
        f"format: {FORMAT}",
        f"env: caylus_v0 ({__version__})",
        f"options: {config.to_dict()}",
        f"num_players: {config.num_players}",
        f"seed: {seed}",
        f"policy_seed: {policy_seed}",
        f"num_actions: {NUM_ACTIONS}",
        f"state_size: {STATE_SIZE}",
        f"setup: {game.setup()}",
        "",
    ]
    played: list[int] = []
    step = 0
    while not game.is_terminal():
        dec = game.decision()
        out.append(
            f"# Step {step}  turn={game.turn} phase={game.phase} "
            f"decision={dec.kind} player={dec.player} context={dec.args}"
        )
        out.extend(compact_state(game))
        legal = game.legal_actions()
        out.append(f"legal_actions = {legal}")
        out.append(f"legal_names = {[action_to_string(a) for a in legal]}")
        if step < OBSERVED_STEPS:
            out.extend(_observation_lines(game))
        if actions is None:
            a = rng.choice(legal)
        else:
            if step >= len(actions):
                raise ValueError(
                    f"the playthrough ends after {len(actions)} actions, before the game does"
                )
            a = actions[step]
        out.append(f'# Apply action "{action_to_string(a)}"')
        out.append(f"action: {a}")
        game.apply(a)
        played.append(a)
        step += 1
    out.append("# Game over")
    out.extend(compact_state(game))
    out.append(f"final_prestige = {game.prestige().tolist()}")
    out.append(f"ranks = {game.ranks().tolist()}")
    out.append(f"returns = {[round(x, 6) for x in game.returns().tolist()]}")
    return "\n".join(out) + "\n", played


def parse_playthrough(text: str) -> tuple[GameConfig, int, int, list[int]]:
    """Config, seed, policy seed and action ids of a playthrough file."""
    header: dict[str, int] = {}
    actions: list[int] = []
    options = None
    for line in text.splitlines():
        if line.startswith("options: "):
            import ast

            options = ast.literal_eval(line[len("options: ") :])
        m = _HEADER_LINE.match(line)
        if m:
            header[m.group(1)] = int(m.group(2))
        m = _ACTION_LINE.match(line)
        if m:
            actions.append(int(m.group(1)))
    if options is None or "seed" not in header:
        raise ValueError("not a caylus playthrough: missing 'options:' or 'seed:' header")
    return GameConfig.from_dict(options), header["seed"], header.get("policy_seed", 0), actions


def default_name(config: GameConfig, seed: int) -> str:
    return f"caylus_{config.num_players}p_seed{seed}.txt"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write or regenerate golden playthroughs.")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="file to write")
    parser.add_argument(
        "--regenerate-all",
        type=Path,
        default=None,
        metavar="DIR",
        help="replay and rewrite every playthrough in DIR",
    )
    args = parser.parse_args(argv)
    if args.regenerate_all:
        for path in sorted(args.regenerate_all.glob("*.txt")):
            config, seed, policy_seed, actions = parse_playthrough(path.read_text())
            text, _ = render_playthrough(config, seed, actions, policy_seed)
            atomic_write_text(path, text)
            print(f"regenerated {path}")
        return
    if args.players is None:
        parser.error("--players is required unless --regenerate-all is given")
    config = GameConfig(num_players=args.players)
    text, _ = render_playthrough(config, args.seed, policy_seed=args.seed)
    path = args.out or Path(default_name(config, args.seed))
    atomic_write_text(path, text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
