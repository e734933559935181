"""Caylus's drawing: its positions as SVG, for the shared replay page (``caylus_env.core.viewer``).

- ``Drawing``: the game contract's drawing (a `caylus_env.core.viewer.Drawing`): the slots of
  the board picture and how to draw a position; the replay page of a Caylus record is
  ``caylus_env.core.viewer.write_replay_page(record, path)``, as for every game;
- ``position_svg(state_dict)``: one position as a standalone SVG picture;
- ``board_targets(state_dict, legal)``: the slot each legal action stands for, so that a
  person plays by clicking the board (``caylus serve``).
- ``action_words(state_dict, action)``: what an action does there, its cost and its effect,
  in the game's words (``words``): how ``caylus serve`` lists a decision's actions.

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
