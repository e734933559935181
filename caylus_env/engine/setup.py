"""Transitional: setup still lives in rules.py while it is split into phases."""

from caylus_env.engine.rules import init_game

__all__ = ["init_game"]
