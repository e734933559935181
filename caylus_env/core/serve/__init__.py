"""Play any game of the platform against any agents in the browser: the server of
``caylus serve``.

- `PlayServer` (``server``): a local ``ThreadingHTTPServer`` with the page, a small JSON API,
  several games at once (one per tab, each under its own id, dropped when idle) and the replay
  pages of the games it saved;
- `Session` (``session``): one game, its seats (people and agents), undo, its record, and what
  the page is sent of it (the game's own drawing, never a state dict);
- `AgentSource`: where the agents come from. The core knows no agent: the command line
  (``caylus_cli/serve.py``) gives the agent registry's.

The page (``page.html``, package data) draws the board with the slot drawings of the game's
``viewer.Drawing``, the code of the replay pages (``caylus_env.core.viewer``), and makes the
targets of ``viewer.board_targets`` clickable. ``docs/serve.md`` describes the page, the API
and its limits. No engine imports this package.
"""

from __future__ import annotations

from caylus_env.core.serve.server import (
    DEFAULT_IDLE_MINUTES,
    DEFAULT_MAX_GAMES,
    DEFAULT_SAVE_DIR,
    DEFAULT_WORKERS,
    MAX_BODY_BYTES,
    MAX_WAIT_S,
    PlayServer,
    RequestError,
)
from caylus_env.core.serve.session import HUMAN, AgentSource, Session

__all__ = [
    "DEFAULT_IDLE_MINUTES",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_SAVE_DIR",
    "DEFAULT_WORKERS",
    "HUMAN",
    "MAX_BODY_BYTES",
    "MAX_WAIT_S",
    "AgentSource",
    "PlayServer",
    "RequestError",
    "Session",
]
