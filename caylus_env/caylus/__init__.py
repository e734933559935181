"""Caylus (William Attia, Ystari 2005): everything that is only Caylus, and its registration.

``engine/`` (the rules, NumPy and numba only), ``observation`` (the observer's named pieces),
``rendering`` (the board as text), ``viewer/`` (the drawing of its replay page), ``bots/``
(``castle``, ``town``, ``economy`` and ``mcts``) and ``env`` (the PettingZoo declaration,
``caylus_v0``). The rules it follows are ``docs/rules/caylus.md``, cited by section number in
the code. ``GAME`` is its entry in the platform's registry (``caylus_env.core.registry``).
"""

from caylus_env.core.contract import GameSpec

GAME = GameSpec(
    name="caylus",
    title="Caylus",
    summary="William Attia, Ystari 2005: workers on the road, the provost, the castle and "
    "the royal favors; the most prestige wins",
    package="caylus_env.caylus",
    env_name="caylus_v0",
    min_players=2,
    max_players=5,
    default_players=4,
    score_word="prestige",
    score_key="prestige",
    score_scale=50.0,  # prestige points: a winning score is around 50-80
    clock_word="turn",
    rules_doc="docs/rules/caylus.md",
    option_sets={
        "rules": {},
        "variants": {
            "simplified_favors": True,
            "lawyer_prestige": 3,
            "jeweller": True,
            "house_cap": True,
        },
    },
    record_formats=("caylus-record/1", "caylus-record/2"),
)
