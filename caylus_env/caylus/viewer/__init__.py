"""Caylus's drawing: its positions as SVG, for the shared replay page (``caylus_env.core.viewer``).

- ``Drawing``: the game contract's drawing (a `caylus_env.core.viewer.Drawing`): the slots of
  the board picture and how to draw a position; the replay page of a Caylus record is
  ``caylus_env.core.viewer.write_replay_page(record, path)``, as for every game;
- ``position_svg(state_dict)``, ``board_targets(state_dict, legal)`` and
  ``action_words(state_dict, action)`` (from ``words``): the picture of one position, the
  slot each legal action stands for and what an action does there, as the game contract's
  ``viewer`` says (`caylus_env.core.contract`; ``caylus serve`` plays with them).

Drawing lives in one module per concern: ``board`` (road, special buildings, bridge, provost,
bailiff), ``castle``, ``favors`` and ``players``, with Caylus's colours in ``theme``;
``position`` cuts a position into slots. The package reads games only through the engine's
state dicts: the browser never computes a rule.
"""

from __future__ import annotations

from caylus_env.caylus.viewer.position import Drawing, position_svg
from caylus_env.caylus.viewer.targets import board_targets
from caylus_env.caylus.viewer.words import action_words

__all__ = ["Drawing", "action_words", "board_targets", "position_svg"]
