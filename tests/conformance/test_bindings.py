"""The generic kernel templates reach a game only through declared names.

``caylus_env.core.vector``'s templates (the batched environment's and the learner view's
loops) call a game's kernels through the names declared in ``caylus_env.core.bindings``;
``caylus_env.core.specialize`` binds them per game and refuses a template that would call a
declaration left unbound.
"""

from __future__ import annotations

import builtins
import dis
import inspect

import numpy as np
import pytest

from caylus_env.core import bindings, vector
from caylus_env.core.bindings import K, UnboundError
from caylus_env.core.contract import KERNELS
from caylus_env.core.registry import GAME_NAMES
from caylus_env.core.specialize import specialize


def _current_seat(s):
    """A template of this module: it calls the game's ``current_player``."""
    return K.current_player(s)


def _globals_read(f) -> set[str]:
    return {i.argval for i in dis.get_instructions(f) if i.opname == "LOAD_GLOBAL"}


def test_a_template_calling_an_unbound_declaration_is_refused_naming_it():
    with pytest.raises(
        ValueError, match=r"template _current_seat calls K of caylus_env\.core\.bindings"
    ):
        specialize((_current_seat,), "unbound_test", {})


def test_a_declaration_called_from_python_says_what_it_is():
    with pytest.raises(UnboundError, match=r"bindings\.K\.apply is a declaration"):
        K.apply(np.zeros(1), 0)


def test_the_declared_kernels_are_the_contracts():
    declared = [name for name, _ in inspect.getmembers(K, inspect.isfunction)]
    assert declared and set(declared) <= set(KERNELS)
    assert set(bindings.NAMES) == {"K", "encode", "choose_scripted", "engine"}


def test_every_name_a_batched_template_reads_is_defined_and_the_games_are_declared():
    module = vars(vector)
    for f in vector.TEMPLATES:
        undefined = sorted(
            n for n in _globals_read(f) if n not in module and n not in vars(builtins)
        )
        assert not undefined, f"{f.__name__} reads undefined globals {undefined}"
    reached = {n for f in vector.TEMPLATES for n in _globals_read(f) if n in bindings.NAMES}
    assert reached == set(bindings.NAMES)
    assert all(module[n] is getattr(bindings, n) for n in reached)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_gets_every_template(game):
    compiled = vector.kernels(game)
    assert sorted(vars(compiled)) == sorted(f.__name__ for f in vector.TEMPLATES)
