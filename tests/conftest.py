"""Fixtures shared by the test modules of the whole suite."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest

from agents import registry


@pytest.fixture(autouse=True)
def private_registry() -> Iterator[None]:
    """Keep the agents a test registers (plugins, test agents, for any game) out of the
    registry that other tests see: the plugins registered during the test are removed after
    it, and the registry is checked to be as it was. Every test uses it (an in-process
    tournament or dataset with ``--plugin`` registers agents too), so no test's outcome
    depends on which tests ran before it."""
    before = copy.copy({game: dict(heads) for game, heads in registry._PLUGINS.items()})
    yield
    for game, heads in list(registry._PLUGINS.items()):
        for head in list(heads):
            if head not in before.get(game, {}):
                registry.unregister(head, game)
    assert {g: set(h) for g, h in registry._PLUGINS.items() if h} == {
        g: set(h) for g, h in before.items() if h
    }
