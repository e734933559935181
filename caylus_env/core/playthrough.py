"""Golden playthroughs of every game: a whole game as diffable text, regenerated and compared in
the tests.

OpenSpiel's playthrough format, one writer for every registered game. A file holds a header
(format, game, environment and version, options, player count, seed, policy seed, sizes, the
explicit setup), then for every decision a ``# Step`` line with the round (the game's clock),
phase, decision, player and context, the legal action ids and the chosen action
(``action: <id>``); the first steps and every tenth one also show the game's compact picture
of the state (its ``rendering.compact_text``) and the legal actions' names, and the first three
list the non-zero observation pieces of the acting player (the game's observer). The end
gives the final state, scores, ranks and returns.

The tests parse the ``action:`` lines back out, replay them, regenerate the text and compare it
line by line, so any change of rules, encodings or names shows up as a diff; every registered
game must have a file per player count with its rules as printed and one per option set
(``GameSpec.option_sets``), named ``<game>_<n>p_seed<s>[_<option set>].txt``. After an intended
change, regenerate with::

    python -m caylus_env.core.playthrough --regenerate-all tests/playthroughs

and a new file with ``python -m caylus_env.core.playthrough --game puerto_rico --players 3
--seed 3 --option-set expansion --out tests/playthroughs``.
"""

from __future__ import annotations

import argparse
import ast
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from caylus_env._version import __version__
from caylus_env.core.fileio import atomic_write_text
from caylus_env.core.registry import GAME_NAMES, game_spec

FORMAT = "game-playthrough/1"
"""The header's format; bump it when the layout of the files changes."""
OBSERVED_STEPS = 3
"""Full observation pieces for the first steps only (OpenSpiel's selective display)."""
SHOWN_STEPS = 12
SHOWN_EVERY = 10
"""The state picture and the legal names for the first ``SHOWN_STEPS`` steps, then every
``SHOWN_EVERY``-th step and at the end (OpenSpiel's selective display): every step still lists
its legal action ids and its action, so a change of rules shows up at once, and the files stay
small enough to review."""
RULES = "rules"
"""The option set of the rules as printed (first in every game's ``option_sets``)."""
_ACTION_LINE = re.compile(r"^action: (\d+)$")
_HEADER_LINE = re.compile(r"^(format|game|env|options|seed|policy_seed): (.*)$")
#: The ``env:`` line: the environment's versioned name and the caylus-env version that wrote it.
_ENV_LINE = re.compile(r"^(\S+) \((.+)\)$")


@dataclass(frozen=True)
class Playthrough:
    """What a playthrough file replays: the game, its options (``GameConfig``), the setup
    seed, the seed of the random policy that drew the actions (None: they came from
    elsewhere), the action ids and the caylus-env version that wrote it (its header says so;
    a replay compares the game, not the version: a release that changes no rule keeps every
    file as it is)."""

    game: str
    config: Any
    seed: int
    policy_seed: int | None
    actions: list[int]
    version: str = __version__


def _observation_lines(game: Any, observer: Any) -> list[str]:
    """The non-zero entries of each observation piece of the player to act."""
    vec = np.zeros(observer.OBS_SIZE, np.float32)
    observer.encode_into(game.state, game.current_player(), vec)
    lines = []
    for name, view in observer.observation_pieces(vec).items():
        nz = np.flatnonzero(view)
        if len(nz):
            values = " ".join(f"{i}={view.flat[i]:g}" for i in nz)
            lines.append(f"obs {name}: {values}")
    return lines


def render_playthrough(
    game: str,
    config: Any,
    seed: int,
    actions: Sequence[int] | None = None,
    policy_seed: int | None = 0,
    version: str = __version__,
) -> tuple[str, list[int]]:
    """Play a game of ``game`` (the given ``actions``, else uniformly random ones drawn by
    ``random.Random(policy_seed)``) and write it as playthrough text, its header naming
    ``version`` as the caylus-env version that wrote it (a replay passes the file's own).

    Returns:
        The text and the list of action ids played.

    Raises:
        ValueError: if ``actions`` end before the game does, or neither they nor a policy seed
            are given.
    """
    spec = game_spec(game)
    engine, observer = spec.engine(), spec.observation()
    compact = spec.module("rendering").compact_text
    if actions is None and policy_seed is None:
        raise ValueError("a playthrough needs its actions or the seed of a random policy")
    g = engine.Game(config, seed)
    rng = random.Random(policy_seed)
    out = [
        f"format: {FORMAT}",
        f"game: {spec.name}",
        f"env: {spec.env_name} ({version})",
        f"options: {config.to_dict()}",
        f"num_players: {config.num_players}",
        f"seed: {seed}",
        f"policy_seed: {'none' if policy_seed is None else policy_seed}",
        f"num_actions: {engine.NUM_ACTIONS}",
        f"state_size: {engine.layout.STATE_SIZE}",
        f"setup: {g.setup()}",
        "",
    ]
    played: list[int] = []
    while not g.is_over():
        step = len(played)
        dec = g.decision()
        out.append(
            f"# Step {step}  round={g.round} phase={g.phase} "
            f"decision={dec.kind} player={dec.player} context={dec.args}"
        )
        shown = step < SHOWN_STEPS or step % SHOWN_EVERY == 0
        if shown:
            out.extend(compact(g))
        legal = g.legal_actions()
        out.append(f"legal_actions = {legal}")
        if shown:
            out.append(f"legal_names = {[engine.action_to_string(a) for a in legal]}")
        if step < OBSERVED_STEPS:
            out.extend(_observation_lines(g, observer))
        if actions is None:
            a = rng.choice(legal)
        elif step < len(actions):
            a = int(actions[step])
        else:
            raise ValueError(
                f"the playthrough ends after {len(actions)} actions, before the game does"
            )
        out.append(f'# Apply action "{engine.action_to_string(a)}"')
        out.append(f"action: {a}")
        g.apply(a)
        played.append(a)
    out.append("# Game over" if g.is_terminal() else "# Game truncated")
    out.extend(compact(g))
    out.append(f"final_scores = {g.scores().tolist()}")
    out.append(f"ranks = {g.ranks().tolist()}")
    out.append(f"returns = {[round(x, 6) for x in g.returns().tolist()]}")
    return "\n".join(out) + "\n", played


def parse_playthrough(text: str) -> Playthrough:
    """The game, options, seeds and action ids of a playthrough file.

    Raises:
        ValueError: for text that is not a playthrough of a registered game, naming what is
            missing or wrong.
    """
    header: dict[str, str] = {}
    actions: list[int] = []
    for line in text.splitlines():
        m = _HEADER_LINE.match(line)
        if m and m.group(1) not in header:
            header[m.group(1)] = m.group(2)
        m = _ACTION_LINE.match(line)
        if m:
            actions.append(int(m.group(1)))
    missing = [k for k in ("format", "game", "options", "seed", "policy_seed") if k not in header]
    if missing:
        raise ValueError(f"not a playthrough: no {missing[0]!r} line in its header")
    if header["format"] != FORMAT:
        raise ValueError(f"playthrough format {header['format']!r}; allowed: {FORMAT!r}")
    spec = game_spec(header["game"])
    try:
        options = ast.literal_eval(header["options"])
    except (ValueError, SyntaxError):
        raise ValueError(f"playthrough options {header['options']!r} are not a dict") from None
    if not isinstance(options, dict):
        raise ValueError(f"playthrough options {header['options']!r} are not a dict")
    policy = header["policy_seed"]
    env = _ENV_LINE.match(header.get("env", ""))
    return Playthrough(
        game=spec.name,
        config=spec.engine().GameConfig.from_dict(options),
        seed=int(header["seed"]),
        policy_seed=None if policy == "none" else int(policy),
        actions=actions,
        version=env.group(2) if env else __version__,
    )


def option_set_of(game: str, config: Any) -> str | None:
    """The name of ``game``'s option set (``GameSpec.option_sets``) that ``config`` plays, or
    None when it plays none of them."""
    spec = game_spec(game)
    options = config.to_dict()
    for name, chosen in spec.option_sets.items():
        if spec.config(config.num_players, **dict(chosen)).to_dict() == options:
            return name
    return None


def file_name(game: str, config: Any, seed: int) -> str:
    """``<game>_<n>p_seed<s>[_<option set>].txt``; the rules as printed add no suffix.

    Raises:
        ValueError: for options that are none of the game's option sets.
    """
    chosen = option_set_of(game, config)
    if chosen is None:
        sets = ", ".join(game_spec(game).option_sets)
        raise ValueError(f"the options {config.to_dict()} are none of {game}'s option sets: {sets}")
    suffix = "" if chosen == RULES else f"_{chosen}"
    return f"{game}_{config.num_players}p_seed{seed}{suffix}.txt"


def regenerate(path: Path) -> bool:
    """Replay a playthrough file's actions and rewrite it; whether its text changed."""
    old = path.read_text(encoding="utf-8")
    p = parse_playthrough(old)
    text, _ = render_playthrough(p.game, p.config, p.seed, p.actions, p.policy_seed)
    if text != old:
        atomic_write_text(path, text)
    return text != old


def write_new(
    game: str,
    num_players: int,
    seed: int,
    option_set: str = RULES,
    out: Path = Path("."),
) -> Path:
    """Write a new playthrough of random moves (policy seed = ``seed``) into the folder ``out``.

    Raises:
        ValueError: naming an unknown game, option set or player count.
    """
    spec = game_spec(game)
    if option_set not in spec.option_sets:
        raise ValueError(f"option set {option_set!r}; allowed: {', '.join(spec.option_sets)}")
    options: Mapping[str, Any] = spec.option_sets[option_set]
    config = spec.config(num_players, **dict(options))
    text, _ = render_playthrough(game, config, seed, policy_seed=seed)
    path = out / file_name(game, config, seed)
    atomic_write_text(path, text)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write or regenerate golden playthroughs.")
    parser.add_argument("--game", choices=GAME_NAMES, default=None)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--option-set", default=RULES, help="one of the game's option_sets")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder to write into")
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
            changed = regenerate(path)
            print(f"{'regenerated' if changed else 'unchanged'} {path}")
        return
    if args.game is None or args.players is None:
        parser.error("--game and --players are required unless --regenerate-all is given")
    try:
        path = write_new(args.game, args.players, args.seed, args.option_set, args.out)
    except ValueError as err:
        parser.error(str(err))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()


__all__ = [
    "FORMAT",
    "OBSERVED_STEPS",
    "Playthrough",
    "file_name",
    "option_set_of",
    "parse_playthrough",
    "regenerate",
    "render_playthrough",
    "write_new",
]
