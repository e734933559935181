"""See a Puerto Rico game: a self-contained HTML replay page drawn from the engine's states.

- ``replay_page_html(record, names=None)`` / ``write_replay_page(record, path, names=None)``:
  the replay page of a `caylus_env.puerto_rico.engine.GameRecord` (inline SVG and a little
  plain JavaScript; no network), with the same navigation as Caylus's page
  (``caylus_env.caylus.viewer``): slider, buttons, arrow keys, a round and phase list, ``#step=N``;
- ``position_svg(state_dict)``: one position as a standalone SVG picture.

Drawing lives in one module per concern: ``board`` (roles, colonists, supplies, face-up
plantations, goods, trading house, cargo ships, building supply), ``players`` (each seat's
panel: doubloons, VP chips, score, goods, San Juan, island, city) and ``timeline`` (the VP
chart), with the colours in ``theme``; ``position`` cuts a position into slots and ``page``
builds the HTML from the template file ``template.html``. The package reads games only
through the engine (``Game``, ``state_dict``, ``scores``, ``action_to_string``): the browser
never computes a rule, and the hidden order of the face-down plantations
(docs/rules/puerto_rico.md 6.8) is never drawn or written.
"""

from __future__ import annotations

from caylus_env.puerto_rico.viewer.page import (
    PAGE_FORMAT,
    page_data,
    replay_page_html,
    write_replay_page,
)
from caylus_env.puerto_rico.viewer.position import position_svg

__all__ = ["PAGE_FORMAT", "page_data", "position_svg", "replay_page_html", "write_replay_page"]
