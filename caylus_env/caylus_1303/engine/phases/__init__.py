"""The rules by phase (rules 3.3, 4.1-4.5): each decision kind's ``legal_*`` / ``apply_*``
pair and each phase's driver, all ``@njit(cache=True)``; ``dispatch`` ties them together."""
