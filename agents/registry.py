"""The one agent registry: every agent of every game, created from a short spec string.

A spec is ``head[:argument]``. The heads of a game are:

- the platform's, for every game: ``random`` (uniform over the legal moves, seeded),
  ``policy:PATH[:greedy|:sample|:temp=T]`` (a trained checkpoint of that game,
  ``agents.policy``) and ``puct:SIMS[:key=value...]`` (search guided by a checkpoint,
  ``agents.puct``);
- the checkpoints shipped in the package, by name (``ppo-2p[:mode]``), each for the game it
  was trained on;
- the game's own bots (its ``bots.BOTS``, game contract ``caylus_env.core.contract``):
  Caylus's ``castle``, ``town``, ``economy``, ``mcts:SIMS``; Puerto Rico's ``shipper``,
  ``builder``, ``mcts:SIMS``;
- plugins (``register``), for one game or for every game.

``make_agent(spec, game)`` validates the spec and names what is allowed when it is not; a spec
whose head belongs to one game only may leave the game out. ``describe(game)`` gives every
head's syntax and a line on what it plays and costs (``caylus agents --game GAME`` prints it).

Every head declares which parts of its argument name files or directories of the user's
(``policy:PATH``, a puct spec's ``ckpt=PATH``, a plugin's or a bot's declared ``paths``, e.g.
`key_paths`): ``spec_paths(spec, game)`` lists them without reading anything, so that a
caller that must confine what an agent reads (``caylus serve``, whose requests name specs)
checks every one before ``make_agent`` touches it. The checkpoints shipped in the package,
named by name (``ppo-2p``, ``ckpt=ppo-caylus``), are no path of the user's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from agents.base import Agent
from caylus_env.core.contract import LADDER_SIMS, Bot
from caylus_env.core.registry import GAME_NAMES, game_spec

Factory = Callable[[str, str | None], Agent]
#: ``paths(argument or None)`` -> the files or directories a spec's argument names, as written.
PathsOf = Callable[[str | None], Sequence[str | os.PathLike[str]]]


@dataclass(frozen=True)
class AgentInfo:
    """What ``caylus agents`` shows for one spec head.

    Attributes:
        head: the spec's first word (``mcts``).
        syntax: the spec's grammar (``mcts:SIMS[:ROLLOUT][:key=value...]``).
        description: one line: what it plays, and what a move or a game costs.
        options: the allowed arguments and options (empty for agents that take none).
        needs_arg: whether the spec needs ``:ARGUMENT`` after the head.
        optional_arg: whether the spec may give an argument without needing one (a shipped
            checkpoint's mode).
        ladder_spec: the spec the public ladder (``caylus ladder``, ``agents.ladder``) rates
            this head as, ``caylus_env.core.contract.LADDER_SIMS`` standing for the ladder's
            simulations per move (``mcts:{sims}``); None for a head the ladder leaves out
            (``policy:PATH``, whose argument is a file of yours, and plugins' agents).
    """

    head: str
    syntax: str
    description: str
    options: str = ""
    needs_arg: bool = False
    optional_arg: bool = False
    ladder_spec: str | None = None


def _no_paths(spec: str, arg: str | None, game: str) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class _Entry:
    """One head: what ``caylus agents`` shows, its factory ``(spec, arg, game)`` and the paths
    its argument names ``(spec, arg, game)`` -> paths as written (read by nothing)."""

    info: AgentInfo
    factory: Callable[[str, str | None, str], Agent]
    paths: Callable[[str, str | None, str], Sequence[str | os.PathLike[str]]] = _no_paths


def _declared(paths: PathsOf | None) -> Callable[[str, str | None, str], Sequence[Any]]:
    """A plugin's or bot's ``paths(argument)`` as an entry's ``(spec, arg, game)`` one."""
    if paths is None:
        return _no_paths
    return lambda spec, arg, game, f=paths: f(arg)


def key_paths(*keys: str) -> PathsOf:
    """The ``paths`` of a head whose argument is ``:``-separated parts, the ``key=VALUE`` parts
    of these keys naming paths (``register("mine", f, True, paths=key_paths("model"))`` for
    ``mine:3:model=PATH``): the values of those keys, as written.

    Raises:
        ValueError: for a key that is not a word (empty, or holding ``=`` or ``:``).
    """
    for key in keys:
        if not isinstance(key, str) or not key or any(c in key for c in "=:"):
            raise ValueError(f"a path key must be a word without '=' or ':', got {key!r}")

    def paths(arg: str | None) -> tuple[str, ...]:
        parts = (part.partition("=") for part in (arg or "").split(":"))
        return tuple(value for key, eq, value in parts if eq and key in keys)

    return paths


def _random(spec: str, arg: str | None, game: str) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(spec)


def _policy(spec: str, arg: str | None, game: str) -> Agent:
    from agents.policy import make_policy

    return make_policy(spec, arg, game)


def _puct(spec: str, arg: str | None, game: str) -> Agent:
    from agents.puct import make_puct

    return make_puct(spec, arg, game)


def _policy_paths(spec: str, arg: str | None, game: str) -> tuple[Path, ...]:
    from agents.policy import resolve_path

    return (resolve_path(arg or "")[0],)


def _puct_paths(spec: str, arg: str | None, game: str) -> tuple[str, ...]:
    from agents.puct import checkpoint_paths

    return checkpoint_paths(spec, arg)


def _platform() -> dict[str, _Entry]:
    return {
        "random": _Entry(
            AgentInfo(
                "random",
                "random",
                "uniform over the legal moves (seeded), the floor of every ladder; about "
                "0.002 ms a move",
                ladder_spec="random",
            ),
            _random,
        ),
        "policy": _Entry(
            AgentInfo(
                "policy",
                "policy:PATH[:greedy|:sample|:temp=T]",
                "a trained network from a checkpoint directory (caylus train ppo), compiled "
                "inference, about 0.02 ms a move; refuses a checkpoint of another game, "
                "observation or action version",
                "PATH: a checkpoint directory; mode: greedy (default), sample, temp=T (T > 0)",
                needs_arg=True,
            ),
            _policy,
            _policy_paths,
        ),
        "puct": _Entry(
            AgentInfo(
                "puct",
                "puct:SIMS[:key=value...]",
                "AlphaZero-style PUCT search whose priors and leaf values come from a "
                "checkpoint's policy and value heads (compiled; hidden information "
                "redrawn per simulation); puct:200 about 5 ms a move at 2-player Caylus "
                "(mcts:200: about 420 ms), scaling with SIMS and, at 3-5 players, the seats",
                "SIMS: 1 to 20000; ckpt=NAME|PATH (default: the game's shipped ppo- "
                "checkpoint), c=C (default 1.5), fpu=F (0.2), temp=T (0: most visited), "
                "shaping=W (default: the checkpoint's), gumbel=M (0: PUCT root; M > 0: "
                "Gumbel root over M actions), cvisit=V (50), cscale=S (0.1)",
                needs_arg=True,
                ladder_spec=f"puct:{LADDER_SIMS}",
            ),
            _puct,
            _puct_paths,
        ),
    }


def _shipped(game: str) -> dict[str, _Entry]:
    from agents.policy import make_shipped, shipped_checkpoints

    out = {}
    for name, its_game in shipped_checkpoints().items():
        if its_game != game:
            continue
        info = AgentInfo(
            name,
            f"{name}[:greedy|:sample|:temp=T]",
            f"the checkpoint shipped as {name!r} (trained by the command in its config.json), "
            "as policy:PATH; about 0.02 ms a move",
            optional_arg=True,
            ladder_spec=name,
        )
        factory = make_shipped(name)
        out[name] = _Entry(info, lambda spec, arg, g, f=factory: f(spec, arg))
    return out


def _bot_entry(bot: Bot) -> _Entry:
    syntax = bot.syntax or (f"{bot.head}:ARG" if bot.needs_arg else bot.head)
    ladder = bot.ladder_spec or (None if bot.needs_arg else bot.head)
    info = AgentInfo(
        bot.head, syntax, bot.description, bot.options, bot.needs_arg, ladder_spec=ladder
    )
    return _Entry(info, lambda spec, arg, game, f=bot.factory: f(spec, arg), _declared(bot.paths))


#: Plugins by game (None: every game), head -> entry; ``register`` fills it.
_PLUGINS: dict[str | None, dict[str, _Entry]] = {}


@cache
def _builtin_entries(game: str) -> dict[str, _Entry]:
    """The heads of ``game`` that cannot change while a process runs: the platform's, the
    checkpoints shipped in the package and the game's bots. Built once per game (reading the
    shipped checkpoints' ``config.json`` files is most of what creating an agent cost)."""
    out = _platform()
    out.update(_shipped(game))
    out.update({head: _bot_entry(bot) for head, bot in game_spec(game).module("bots").BOTS.items()})
    return out


def _entries(game: str) -> dict[str, _Entry]:
    """Every head of ``game``: the platform's, its shipped checkpoints, its bots, plugins."""
    spec = game_spec(game)
    out = dict(_builtin_entries(spec.name))
    out.update(_PLUGINS.get(None, {}))
    out.update(_PLUGINS.get(spec.name, {}))
    return dict(sorted(out.items()))


def register(
    head: str,
    factory: Factory,
    needs_arg: bool = False,
    *,
    game: str | None = None,
    syntax: str | None = None,
    description: str = "",
    options: str = "",
    paths: PathsOf | None = None,
) -> None:
    """Register (or replace) the factory for specs starting with ``head``.

    Args:
        head: the spec's first word: not empty, no ``:`` (it separates the argument) and no
            ``,`` or whitespace (commas separate specs on the command line).
        factory: ``factory(spec, argument or None)`` -> a new agent.
        needs_arg: whether a spec must give ``head:ARGUMENT``.
        game: the game it plays (a registered name), or None for every game.
        syntax: the spec's grammar for ``caylus agents`` (default ``head`` or ``head:ARG``).
        description: one line on what the agent plays and what a move costs.
        options: the allowed arguments and options, for agents that take some.
        paths: for an agent whose argument names files or directories it reads,
            ``paths(argument or None)`` -> those paths as written, without reading them
            (`key_paths` for ``key=PATH`` parts); `spec_paths` lists them, and ``caylus
            serve`` loads such an agent only when every one lies inside its
            ``--checkpoints`` directories. An agent that reads a file of the user's must
            declare it.

    Raises:
        ValueError: for a head that could not be written in a spec list, a factory or
            ``paths`` that is not callable, or an unknown game.
    """
    if not isinstance(head, str) or not head or any(c in head for c in ":, \t\n"):
        raise ValueError(
            f"agent head must be a non-empty word without ':', ',' or spaces, got {head!r}"
        )
    if not callable(factory):
        raise ValueError(f"agent {head!r}: factory must be callable, got {factory!r}")
    if paths is not None and not callable(paths):
        raise ValueError(f"agent {head!r}: paths must be callable or None, got {paths!r}")
    key = None if game is None else game_spec(game).name
    info = AgentInfo(
        head, syntax or (f"{head}:ARG" if needs_arg else head), description, options, needs_arg
    )
    _PLUGINS.setdefault(key, {})[head] = _Entry(
        info, lambda spec, arg, g, f=factory: f(spec, arg), _declared(paths)
    )


def unregister(head: str, game: str | None = None) -> None:
    """Remove a registered plugin head (a test's or a plugin's agent).

    Raises:
        ValueError: when ``head`` is not registered for ``game``, naming the plugin heads
            that are.
    """
    plugins = _PLUGINS.get(None if game is None else game_spec(game).name, {})
    if head not in plugins:
        raise ValueError(
            f"no plugin agent {head!r} is registered; registered: {', '.join(sorted(plugins))}"
        )
    del plugins[head]


def describe(game: str) -> list[AgentInfo]:
    """Every head of ``game`` with its syntax and description, sorted by head."""
    return [entry.info for entry in _entries(game).values()]


def specs(game: str) -> list[str]:
    """The spec syntax of every head of ``game``, e.g. ``['castle', 'mcts:SIMS...', ...]``."""
    return [info.syntax for info in describe(game)]


def available_agents(game: str) -> list[str]:
    """The heads of ``game`` that can be created, ``ARG`` marking a required argument, e.g.
    ``['castle', 'mcts:ARG', 'random', ...]`` (short form of ``specs()``)."""
    return [f"{i.head}:ARG" if i.needs_arg else i.head for i in describe(game)]


def games_of(head: str) -> list[str]:
    """The games that have an agent called ``head``."""
    return [g for g in GAME_NAMES if head in _entries(g)]


def game_of_spec(spec: str, game: str | None = None) -> str:
    """The game a spec plays: ``game`` when given, else the one game whose agents have the
    spec's head.

    Raises:
        ValueError: for a head no game has, or one several games have (naming them: pass the
            game).
    """
    if game is not None:
        return game_spec(game).name
    head = spec.strip().partition(":")[0] if isinstance(spec, str) else ""
    owners = games_of(head)
    if len(owners) == 1:
        return owners[0]
    if not owners:
        import difflib

        known = {g: available_agents(g) for g in GAME_NAMES}
        close = [
            f"{other!r} ({g})"
            for g in GAME_NAMES
            for other in difflib.get_close_matches(head, list(_entries(g)), n=2, cutoff=0.6)
        ]
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise ValueError(f"unknown agent {spec!r}{hint}; available: {known}")
    raise ValueError(
        f"agent {spec!r} exists for several games ({', '.join(owners)}): name the game "
        "(make_agent(spec, game=...), --game on the command line)"
    )


def _unknown_hint(head: str, game: str) -> str:
    """What an unknown head of ``game`` may have meant: the game(s) that have it
    (``--game``), else the close spellings among ``game``'s heads (difflib), else close
    spellings of other games' heads with their game."""
    import difflib

    elsewhere = [g for g in games_of(head) if g != game]
    if elsewhere:
        flags = " or ".join(f"--game {g}" for g in elsewhere)
        return f" ({head!r} is an agent of {', '.join(elsewhere)}: pass {flags})"
    close = difflib.get_close_matches(head, list(_entries(game)), n=3, cutoff=0.6)
    if close:
        return f" (did you mean {' or '.join(map(repr, close))}?)"
    others = [
        f"{other!r} of {game_spec(g).title} (--game {g})"
        for g in GAME_NAMES
        if g != game
        for other in difflib.get_close_matches(head, list(_entries(g)), n=2, cutoff=0.6)
    ]
    return f" (did you mean {' or '.join(others)}?)" if others else ""


def _lookup(spec: str, game: str | None) -> tuple[_Entry, str, str | None, str]:
    """``(entry, spec stripped, argument or None, game)`` of a spec whose head exists and
    whose argument is given when needed and only when allowed.

    Raises:
        ValueError: as `make_agent`.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name = game_of_spec(spec, game)
    entries = _entries(name)
    head, _, arg = spec.strip().partition(":")
    if head not in entries:
        raise ValueError(
            f"unknown {game_spec(name).title} agent {spec!r}{_unknown_hint(head, name)}; "
            f"available: {', '.join(specs(name))}"
        )
    info = entries[head].info
    if info.needs_arg and not arg:
        raise ValueError(f"agent {head!r} needs an argument: {info.syntax}")
    if not info.needs_arg and not info.optional_arg and arg:
        raise ValueError(f"agent {head!r} takes no argument, got {spec!r}")
    return entries[head], spec.strip(), arg or None, name


def make_agent(spec: str, game: str | None = None) -> Agent:
    """Create an agent of ``game`` from its spec string.

    Args:
        spec: ``head[:argument]``.
        game: the game it plays; may be left out when only one game has the head.

    Raises:
        ValueError: naming the bad spec and the specs that exist for the game (and, for a
            head another game has, that game).
    """
    entry, spec, arg, name = _lookup(spec, game)
    return entry.factory(spec, arg, name)


def spec_paths(spec: str, game: str | None = None) -> tuple[Path, ...]:
    """The files and directories of the user's that ``make_agent(spec, game)`` would read, as
    written (a relative one is relative to the working directory): ``policy:PATH``'s
    checkpoint, a puct spec's ``ckpt=PATH``, what a plugin's or a bot's ``paths`` declares.
    Nothing is read or checked on disk: a caller that confines what agents read checks each
    (after resolving its links) before it calls `make_agent`. A shipped checkpoint named by
    name is none.

    Raises:
        ValueError: as `make_agent` for a spec it would refuse without reading a file (an
            unknown head, a missing or bad argument), or a ``paths`` that gives something
            other than paths.
    """
    entry, spec, arg, name = _lookup(spec, game)
    out = []
    for path in entry.paths(spec, arg, name):
        text = os.fspath(path) if isinstance(path, str | os.PathLike) else None
        if not isinstance(text, str) or not text:
            raise ValueError(f"agent {spec!r}: its paths must be non-empty paths, got {path!r}")
        out.append(Path(text))
    return tuple(out)


__all__ = [
    "AgentInfo",
    "available_agents",
    "describe",
    "game_of_spec",
    "games_of",
    "key_paths",
    "make_agent",
    "register",
    "spec_paths",
    "specs",
    "unregister",
]
