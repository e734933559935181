"""Caylus 1303's drawing: its positions as SVG, for the shared replay page
(``caylus_env.core.viewer``).

- ``Drawing``: the game contract's drawing (a `caylus_env.core.viewer.Drawing`): the slots of
  the board picture and how to draw a position; the replay page of a Caylus 1303 record is
  ``caylus_env.core.viewer.write_replay_page(record, path)``, as for every game;
- ``position_svg(state_dict)``, ``board_targets(state_dict, legal)`` and
  ``action_words(state_dict, action)`` (from ``words``): the picture of one position, the
  slot each legal action stands for and what an action does there, as the game contract's
  ``viewer`` says (`caylus_env.core.contract`; ``caylus serve`` plays with them).

Drawing lives in one module per concern: ``board`` (the printed buildings, the Guilds Bridge,
the Construction Site, the Road and the Provost), ``supply`` (the wood, stone and monument
supplies and the characters) and ``players`` (each seat's panel), with the colours and names in
``theme``; ``view`` reads a position, ``position`` cuts it into slots. The package reads games
only through the engine's state dicts: the browser never computes a rule, and with
``hide_opponent_pp`` no prestige is drawn before the game is over (D37).
"""

from __future__ import annotations

from caylus_env.caylus_1303.viewer.position import Drawing, position_svg
from caylus_env.caylus_1303.viewer.targets import board_targets
from caylus_env.caylus_1303.viewer.words import action_words

__all__ = ["Drawing", "action_words", "board_targets", "position_svg"]
