"""See a game: a self-contained HTML replay viewer drawn from the engine's own states.

- ``replay_html(record)`` / ``write_replay_html(record, path)``: the replay page of a
  `caylus_env.core.record.GameRecord` (inline SVG and a little plain JavaScript; no network);
- ``position_svg(state_dict)``: one position as a standalone SVG picture.

Drawing lives in one module per concern: ``board`` (road, special buildings, bridge, provost,
bailiff), ``castle``, ``favors``, ``players`` and ``timeline`` (the prestige chart), with the
shared colours in ``theme``; ``position`` cuts a position into slots and ``page`` builds the HTML
from the template file ``template.html``. The package reads games only through the engine
(``Game``, ``state_to_dict``, ``action_to_string``): the browser never computes a rule.
"""

from __future__ import annotations

from caylus_env.caylus.viewer.page import PAGE_FORMAT, page_data, replay_html, write_replay_html
from caylus_env.caylus.viewer.position import position_svg

__all__ = ["PAGE_FORMAT", "page_data", "position_svg", "replay_html", "write_replay_html"]
