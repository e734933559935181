"""``caylus serve``: play any game against any agents in the browser.

Starts the local web server of ``caylus_env.core.serve`` on 127.0.0.1 (another address only
with ``--host``, with a warning), prints its address, and stops on Ctrl-C (exit 0). The agents
are the agent registry's (``caylus agents --game NAME``): the game's bots, ``random``, the
shipped checkpoints (``ppo-2p``) and plugins; an agent whose spec names a file or directory
(``policy:PATH``, ``puct:SIMS:ckpt=PATH``, a plugin's declared paths) is made only when every
one, its links followed, lies inside the directories given with ``--checkpoints`` (a page must
not make the server read any path it names), and the page lists the checkpoints found there.
Saved records go under ``--save-dir`` with names the server chooses. The page proposes the
game's best shipped network (``agents.policy.best_shipped``) for every seat that is not a
person's, and shows a trained agent's value estimate beside its move (`RegistryAgents.estimate`).
``docs/serve.md`` describes the page and its HTTP API.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from caylus_cli.app import GameOption, PluginsOption, _fail, _load_plugins, app
from caylus_env.core.registry import DEFAULT_GAME, game_spec
from caylus_env.core.serve import (
    DEFAULT_IDLE_MINUTES,
    DEFAULT_MAX_GAMES,
    DEFAULT_SAVE_DIR,
    DEFAULT_WORKERS,
)

#: The head of the agent registry's trained-checkpoint specs (``policy:PATH``).
POLICY_HEAD = "policy"
#: What a refusal says is allowed when no ``--checkpoints`` was given.
NO_ROOTS = "none: start caylus serve --checkpoints DIR"
#: The seats' agent when a game ships no network for all its player counts.
FALLBACK_AGENT = "random"
#: How deep under a ``--checkpoints`` directory checkpoints are looked for, and how many listed.
SCAN_DEPTH = 4
MAX_LISTED = 100
MAX_IDLE_MINUTES = 7 * 24 * 60.0
MAX_WORKERS = 64
MAX_GAMES = 1000


class RegistryAgents:
    """The agent registry as the server's `caylus_env.core.serve.AgentSource`: every spec of a
    game, an agent that names files only when every one lies inside ``roots``.

    The paths are the registry's ``spec_paths`` (``policy:PATH``, a puct spec's
    ``ckpt=PATH``, a plugin's or a game bot's declared ``paths``; not the checkpoints shipped
    in the package, named by name). Each is resolved (links followed, ``..`` taken) before
    anything else touches it, and one outside every root is refused with the same line
    whether it exists, is a file, a directory or a link: a page learns nothing of the disk
    outside the roots.

    Args:
        roots: the directories agents may read checkpoints from (``--checkpoints``).
    """

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [r.resolve() for r in roots]

    def inside(self, path: Path) -> bool:
        """Whether ``path``, its links followed, lies inside a root (nothing is opened)."""
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):  # a NUL byte, a path the system cannot resolve
            return False
        return any(real.is_relative_to(root) for root in self.roots)

    def _confine(self, spec: str, game: str) -> None:
        from agents.registry import spec_paths

        for path in spec_paths(spec, game):
            if not self.inside(path):
                where = ", ".join(map(str, self.roots)) or NO_ROOTS
                raise ValueError(
                    f"agent {spec.strip()!r} names {str(path)!r}, outside the checkpoint "
                    f"directories this server was given; allowed: paths under {where}"
                )

    def make(self, spec: str, game: str) -> Any:
        from agents.registry import make_agent

        if not isinstance(spec, str):
            raise ValueError(f"agent spec must be a string, got {spec!r}")
        self._confine(spec, game)
        return make_agent(spec, game)

    def checkpoints(self, game: str) -> list[Path]:
        """The checkpoint directories of ``game`` under the roots that ``policy:PATH`` can load,
        at most `MAX_LISTED`: inside a root once links are followed (a link out of the roots
        is neither read nor listed), their ``config.json`` read by the checkpoint reader
        (bounded, a regular file of the directory, this game and this build's versions), with
        a weights file."""
        from agents.policy import CONFIG_FILE, WEIGHTS_FILE, read_config

        found: list[Path] = []
        for root in self.roots:
            for depth in range(SCAN_DEPTH + 1):
                for config in sorted(root.glob("/".join(["*"] * depth + [CONFIG_FILE]))):
                    directory = config.parent
                    if not self.inside(directory):
                        continue
                    try:
                        read_config(directory, game)
                        loadable = (directory / WEIGHTS_FILE).is_file()
                    except (OSError, ValueError):  # a CheckpointError is a ValueError
                        continue
                    if loadable:
                        found.append(directory)
                    if len(found) >= MAX_LISTED:
                        return found
        return found

    def default_agent(self, game: str) -> str:
        """The spec the page proposes for the seats of ``game`` that are not a person's: the
        game's best shipped network (``agents.policy.best_shipped``, the single-seat env's
        default opponent too), or `FALLBACK_AGENT` when it ships none for all its counts."""
        from agents.policy import best_shipped

        return best_shipped(game) or FALLBACK_AGENT

    def estimate(self, agent: Any, game: Any, seat: int) -> float | None:
        """The agent's value estimate of the position ``game`` for ``seat``, the rank reward
        it expects (+1 first .. -1 last; `caylus_env.core.serve.session.win_chance` turns it
        into a chance), or None for an agent without one.

        A search guided by a network (``puct:SIMS``, ``root_values()`` and ``visit_counts()``
        of its last move) gives its root's value: its root children's mean values weighted by
        their visits, less the score-margin potential its values add (``shaping`` times the
        seat's margin over the best opponent now, in units of the game's ``score_scale``,
        ``agents.puct``), so that it reads as the network's own value head does. A trained
        network (an agent with a ``net`` whose ``value`` reads observations, ``policy:PATH``
        and the shipped checkpoints) gives its value head on the seat's observation.
        """
        values = _called(agent, "root_values")
        visits = _called(agent, "visit_counts")
        if values and visits:
            counts = dict(zip(*visits, strict=True))
            mean = dict(zip(*values, strict=True))
            total = sum(counts.get(a, 0) for a in mean)
            if total > 0:
                value = sum(v * counts.get(a, 0) for a, v in mean.items()) / total
                return value - float(getattr(agent, "shaping", 0.0)) * _margin(game, seat)
        net = getattr(agent, "net", None)
        if net is None or not callable(getattr(net, "value", None)):
            return None
        import numpy as np

        spec = game_spec(game.GAME)
        obs = np.zeros((1, spec.observation().OBS_SIZE), np.float32)
        spec.observation().encode_into(game.state, seat, obs[0])
        return float(net.value(obs)[0])

    def catalog(self, game: str) -> list[dict[str, Any]]:
        from agents.registry import describe

        out = []
        for info in describe(game):
            if info.head == POLICY_HEAD and not self.roots:
                continue
            spec = info.syntax if info.needs_arg else info.head
            out.append({"spec": spec, "syntax": info.syntax, "description": info.description})
        for path in self.checkpoints(game):
            out.append(
                {
                    "spec": f"{POLICY_HEAD}:{path}",
                    "syntax": f"{POLICY_HEAD}:{path}",
                    "description": "a checkpoint under --checkpoints",
                }
            )
        return out


def _called(agent: Any, name: str) -> Any:
    """What the agent's method ``name`` returns, or None without one."""
    method = getattr(agent, name, None)
    return method() if callable(method) else None


def _margin(game: Any, seat: int) -> float:
    """The seat's score margin over the best opponent now, in units of the game's
    ``score_scale`` (the potential ``agents.puct`` adds to its values)."""
    scores = [float(x) for x in game.scores()]
    others = [x for q, x in enumerate(scores) if q != seat]
    spec = game_spec(game.GAME)
    return (scores[seat] - max(others)) / spec.score_scale if others else 0.0


@app.command()
def serve(
    game: GameOption = DEFAULT_GAME,
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on. The default is this machine only; another address "
            "lets other machines play (and start agents) on it: a warning is printed."
        ),
    ] = "127.0.0.1",
    save_dir: Annotated[
        Path, typer.Option(help="Directory the saved records are written to.")
    ] = DEFAULT_SAVE_DIR,
    idle_minutes: Annotated[
        float, typer.Option(help="A game without a request for this long is dropped.")
    ] = DEFAULT_IDLE_MINUTES,
    max_games: Annotated[int, typer.Option(help="Games open at once.")] = DEFAULT_MAX_GAMES,
    workers: Annotated[int, typer.Option(help="Threads the agents think in.")] = DEFAULT_WORKERS,
    checkpoints: Annotated[
        list[Path] | None,
        typer.Option(
            "--checkpoints",
            help="Directory whose trained checkpoints agents may load (policy:PATH, "
            "puct:SIMS:ckpt=PATH; the page lists them); repeatable. Without it, only the "
            "shipped ones (ppo-2p).",
        ),
    ] = None,
    plugin: PluginsOption = None,
) -> None:
    """Play any game against any agents in the browser (a local web page; Ctrl-C stops it)."""
    from caylus_env.core.serve import PlayServer

    if not 0 <= port <= 65535:
        _fail(f"invalid value for --port: {port}; allowed: 0 to 65535")
    if not 0 < idle_minutes <= MAX_IDLE_MINUTES:  # NaN too
        _fail(f"invalid value for --idle-minutes: {idle_minutes}; allowed: above 0 to a week")
    if not 1 <= max_games <= MAX_GAMES:
        _fail(f"invalid value for --max-games: {max_games}; allowed: 1 to {MAX_GAMES}")
    if not 1 <= workers <= MAX_WORKERS:
        _fail(f"invalid value for --workers: {workers}; allowed: 1 to {MAX_WORKERS}")
    roots = list(checkpoints or [])
    for root in roots:
        if not root.is_dir():
            _fail(f"invalid value for --checkpoints: {root} is not a directory")
    if save_dir.exists() and not save_dir.is_dir():
        _fail(f"invalid value for --save-dir: {save_dir} exists and is not a directory")
    _load_plugins(plugin)
    try:
        server = PlayServer(
            RegistryAgents(roots),
            save_dir,
            host=host,
            port=port,
            idle_seconds=idle_minutes * 60,
            max_games=max_games,
            workers=workers,
            default_game=game_spec(game).name,
        )
    except OSError as err:
        _fail(f"cannot listen on {host}:{port}: {err}; choose another --port or --host")
    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(
            f"Warning: listening on {host}: anyone who can reach this address can play here, "
            "start agents and save records (there is no login)",
            err=True,
        )

    def _stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:  # a Ctrl-C right after the address is printed stops it cleanly too
        typer.echo(f"caylus serve: open {server.url} (Ctrl-C stops it)")
        typer.echo(f"records are saved under {save_dir.resolve()}")
        sys.stdout.flush()
        server.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM raised as one: the way to stop it
        pass
    finally:
        server.close()
    typer.echo("caylus serve: stopped")
