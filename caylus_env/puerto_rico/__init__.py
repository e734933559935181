"""Puerto Rico (2002) for the caylus-env platform.

The rules engine lives in ``caylus_env.puerto_rico.engine`` (NumPy and numba only); the
rules it implements are ``docs/rules/puerto_rico.md``, cited by section number in the code.
"""

SCORE_NOTE = (
    "The prestige columns hold victory points (docs/rules/puerto_rico.md 5.2), "
    "and ranks break ties by doubloons plus goods (5.3). A game cut off by the decision cap "
    "(6.9) ends truncated and is ranked by its position then."
)
"""How to read a Puerto Rico run in the platform's game-generic tables (tournament and dataset
reports), whose score columns carry Caylus's word "prestige"."""
