"""Fixtures shared by the test modules of the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agents import registry


@pytest.fixture
def private_registry() -> Iterator[None]:
    """Keep the agents a test registers (plugins, test agents) out of the registry that other
    tests see: whatever was registered during the test is unregistered after it, through the
    registry's public API."""
    before = set(registry.specs())
    heads = {info.head for info in registry.describe()}
    yield
    for info in registry.describe():
        if info.head not in heads:
            registry.unregister(info.head)
    assert set(registry.specs()) == before
