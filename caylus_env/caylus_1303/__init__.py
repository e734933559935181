"""Caylus 1303 (William Attia, Space Cowboys 2019), reconstructed rules: everything that is only
Caylus 1303, and its registration.

The official rulebook we hold stops inside Phase 3, so the rules this folder plays are
``docs/rules/caylus_1303.md``: the official text where it exists, and the numbered decisions
D1-D39 everywhere else, each a named value of one table (``engine.rules.RULES``). ``engine/``
(the rules, NumPy and numba only), ``observation`` (the observer's named pieces),
``rendering`` (the table as text), ``viewer/`` (the drawing of its replay page), ``bots/``
(its scripted bots and ``mcts``), ``env`` (the PettingZoo declaration, ``caylus_1303_v0``) and
``positions``. ``GAME`` is its entry in the platform's registry (``caylus_env.core.registry``).
"""

from caylus_env.core.contract import GameSpec

GAME = GameSpec(
    name="caylus_1303",
    title="Caylus 1303 (reconstructed rules)",
    summary="William Attia, Space Cowboys 2019, reconstructed rules: workers on the Road, the "
    "Provost, the Construction Site, 12 characters and monuments; the most prestige wins",
    package="caylus_env.caylus_1303",
    env_name="caylus_1303_v0",
    min_players=2,
    max_players=5,
    default_players=4,
    score_word="prestige",  # prestige points (PP), as Caylus's
    score_key="prestige",
    score_scale=40.0,  # prestige plus 2 per gold: the scripted bots win with 30-45 (rules 4.6)
    clock_word="round",
    rules_doc="docs/rules/caylus_1303.md",
    option_sets={"rules": {}, "hidden_prestige": {"hide_opponent_pp": True}},
    truncating_options=None,
    record_formats=(),
)
