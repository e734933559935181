"""Generic kernels, compiled once per game: one source, no copies.

The shared layers step games inside compiled loops (the batched environment, the training
pool, compiled playouts). Those loops are the same for every game; only the game's kernels
they call differ. A numba kernel resolves the functions it calls from its *globals* at compile
time and inlines them, so a generic loop is written once as a plain Python function that calls
the game's kernels through global names (``K.apply(s, a)``, ``encode(s, seat, out)``), and
`specialize` compiles it per game: it rebuilds each function with the same code over a copy of
its module's globals in which those names are bound to the game's kernels, and gives each copy
a qualified name of its own (``_step_all__puerto_rico``), under which numba caches it on disk
like any other kernel. The cached copy of one game never serves another (numba's cache index
is named after the qualified name), and the kernel cache directory (``caylus_env.core._cache``)
changes with any edit to the sources of a template or a game's kernels, so no copy is ever
stale. Specialized kernels run exactly as fast as hand-written ones: the game's kernels are
inlined, not called through pointers.

The names a template calls of a game are declared in `caylus_env.core.bindings` (the template
module imports them from there, so a reader sees what ``K.apply`` is): `specialize` refuses
to compile a template that calls one of them without a binding, so a declaration never
reaches numba.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from numba import njit

from caylus_env.core import _cache  # noqa: F401  (the kernel cache, before any kernel)
from caylus_env.core import bindings as declared


def specialize(
    templates: Sequence[Callable[..., Any]],
    suffix: str,
    bindings: Mapping[str, Any],
    inline: Collection[str] = (),
) -> types.SimpleNamespace:
    """Compile ``templates`` (plain functions of one module) with ``bindings`` as globals.

    Args:
        templates: the generic functions, in any order; they may call each other by name
            (the calls then reach the specialized copies).
        suffix: what tells the copies apart (a game's name, or a game and a variant).
        bindings: global names and their values for this copy (a game's kernel module, its
            encoder, constants).
        inline: the templates that numba inlines into the templates calling them (its
            ``inline="always"``): a call that takes many arrays copies each one's pointer,
            shape and strides, which a loop over the games cannot afford.

    Returns:
        A namespace of the compiled copies, by the templates' names.

    Raises:
        ValueError: for templates of several modules, a suffix that is not an identifier, or
            a template that calls a declaration of `caylus_env.core.bindings` that
            ``bindings`` does not give (naming the template and the names).
    """
    if not suffix.isidentifier():
        raise ValueError(f"suffix {suffix!r} must be an identifier")
    modules = {f.__module__ for f in templates}
    if len(modules) != 1:
        raise ValueError(f"templates must come from one module, got {sorted(modules)}")
    namespace = dict(templates[0].__globals__)
    for f in templates:
        unbound = sorted(
            name
            for name in set(f.__code__.co_names) - set(bindings)
            if name in declared.NAMES and namespace.get(name) is getattr(declared, name)
        )
        if unbound:
            raise ValueError(
                f"template {f.__name__} calls {', '.join(unbound)} of caylus_env.core.bindings, "
                f"which the bindings of {suffix!r} do not give"
            )
    namespace.update(bindings)
    out = {}
    for f in templates:
        copy = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__, f.__closure__)
        copy.__qualname__ = f"{f.__qualname__}__{suffix}"
        copy.__module__ = f.__module__
        copy.__doc__ = f.__doc__
        kernel = njit(cache=True, inline="always" if f.__name__ in inline else "never")(copy)
        namespace[f.__name__] = kernel
        out[f.__name__] = kernel
    return types.SimpleNamespace(**out)


__all__ = ["specialize"]
