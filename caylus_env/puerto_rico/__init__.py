"""Puerto Rico (2002) for the caylus-env platform.

The rules engine lives in ``caylus_env.puerto_rico.engine`` (NumPy and numba only); the
rules it implements are ``docs/rules/puerto_rico.md``, cited by section number in the code.
"""
