"""See a game of any registered game: the self-contained HTML replay page, shared by all games.

- `write_replay_page` (record, path, names=None) / `replay_page_html` (record, names=None):
  the replay page of a `caylus_env.core.record.GameRecord` (or its dict): inline SVG and a
  little plain JavaScript, no network; slider, buttons, arrow keys, a clock-and-phase list,
  ``#step=N`` addresses, the decision panel with the legal actions by name, the score chart;
- `position_svg` (game, state_dict, names=None): one position as a standalone SVG picture.

The shell is here, once: the page data and its step diffs (``page``), the HTML template and
its navigation script (``template.html``), the score chart (``chart``), the SVG helpers
(``svg``) and the colours and fonts every game shares (``theme``). A game brings only its
drawing, its ``viewer`` module's ``Drawing`` (a subclass of `Drawing`: the slots of its
picture and how to draw a position) and ``position_svg`` (the game contract,
``caylus_env.core.contract``); the page reaches it through ``game_spec(record.game)``. The
browser never computes a rule, and what the players cannot see is never drawn or written.
"""

from __future__ import annotations

from caylus_env.core.viewer.page import (
    PAGE_FORMAT,
    DistinctValues,
    Drawing,
    changed_slots,
    page_data,
    position_svg,
    replay_page_html,
    script_json,
    seat_names,
    write_replay_page,
)

__all__ = [
    "PAGE_FORMAT",
    "DistinctValues",
    "Drawing",
    "changed_slots",
    "page_data",
    "position_svg",
    "replay_page_html",
    "script_json",
    "seat_names",
    "write_replay_page",
]
