"""Versioned entry point, PettingZoo style: ``from caylus_env import puerto_rico_v0``.

The counterpart of ``caylus_env.caylus_v0``. The suffix changes whenever rules, encodings
or rewards change behaviour (see the Version History in ``caylus_env.puerto_rico.env``),
so code that names ``puerto_rico_v0`` keeps the behaviour it was written for.
"""

from __future__ import annotations

from caylus_env.puerto_rico.env import env, raw_env

__all__ = ["env", "raw_env"]
