"""Puerto Rico (Andreas Seyfarth, alea 2002, with its 2004 expansion): everything that is only
Puerto Rico, and its registration.

``engine/`` (the rules, NumPy and numba only), ``observation`` (the observer's named pieces,
the hidden plantation order left out), ``rendering`` (the table as text), ``viewer/`` (the
drawing of its replay page), ``bots/`` (``shipper``, ``builder`` and ``mcts``) and ``env``
(the PettingZoo declaration, ``puerto_rico_v0``). The rules it follows are
``docs/rules/puerto_rico.md``, cited by section number in the code. ``GAME`` is its entry in
the platform's registry (``caylus_env.core.registry``).
"""

from caylus_env.core.contract import GameSpec

GAME = GameSpec(
    name="puerto_rico",
    title="Puerto Rico",
    summary="Andreas Seyfarth, alea 2002 (2004 expansion optional): roles, plantations, "
    "buildings, trade and shipping; the most victory points wins",
    package="caylus_env.puerto_rico",
    env_name="puerto_rico_v0",
    min_players=2,
    max_players=5,
    default_players=4,
    score_word="victory points",
    score_key="score",
    score_scale=50.0,  # victory points: winners score 40-60 (rules 5.2)
    clock_word="round",
    rules_doc="docs/rules/puerto_rico.md",
    option_sets={
        "rules": {},
        "expansion": {"expansion": True},
        "expansion_random_draft": {"expansion": True, "draft": "random", "library_limit": True},
    },
    truncating_options={"max_decisions": 40},
    record_formats=("puerto-rico-record/1",),
)
