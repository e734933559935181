"""Versioned entry point, PettingZoo style: ``from caylus_env import caylus_v0``.

The suffix changes whenever rules, encodings or rewards change behaviour (see the
Version History in ``caylus_env.caylus.env``), so code that names ``caylus_v0`` keeps the
behaviour it was written for.
"""

from __future__ import annotations

from caylus_env.caylus.env import env, raw_env

__all__ = ["env", "raw_env"]
