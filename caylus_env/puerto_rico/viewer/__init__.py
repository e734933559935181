"""Puerto Rico's drawing: its positions as SVG, for the shared replay page
(``caylus_env.core.viewer``).

- ``Drawing``: the game contract's drawing (a `caylus_env.core.viewer.Drawing`): the slots of
  the table picture, where each stands and how to draw a position; the replay page of a Puerto
  Rico record is ``caylus_env.core.viewer.write_replay_page(record, path)``, as for every game;
- ``position_svg(state_dict)``, ``board_targets(state_dict, legal)`` and
  ``action_words(state_dict, action)`` (from ``words``): the picture of one position, the
  slot each legal action stands for and what an action does there, as the game contract's
  ``viewer`` says (`caylus_env.core.contract`; ``caylus serve`` plays with them).

Drawing lives in one module per concern: ``board`` (roles, colonists, supplies, face-up
plantations, goods, trading house, cargo ships, building supply) and ``players`` (each seat's
panel: doubloons, VP chips, score, goods, San Juan, island, city), with the colours in
``theme``; ``position`` cuts a position into slots. The package reads games only through the
engine's state dicts and scores: the browser never computes a rule, and the hidden order of the
face-down plantations (docs/rules/puerto_rico.md 6.8) is never drawn or written.
"""

from __future__ import annotations

from caylus_env.puerto_rico.viewer.position import Drawing, position_svg
from caylus_env.puerto_rico.viewer.targets import board_targets
from caylus_env.puerto_rico.viewer.words import action_words

__all__ = ["Drawing", "action_words", "board_targets", "position_svg"]
