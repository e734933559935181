"""Command-line options declared once, as the fields of the dataclass a command fills.

A command whose arguments are a dataclass (``caylus train ppo``: ``training.config.PPOConfig``;
``caylus tournament``: ``agents.tournament.specs.TournamentSpec``) takes its options from that
dataclass's fields (`from_fields`): field ``n_steps`` is the option ``--n-steps``, of the
field's type, with the field's default, and the help, flags and other facts of the option in the
field's ``metadata``:

================  ==============================================================================
key               what it gives
================  ==============================================================================
``help``          the option's ``--help`` text (required, unless the option is a shared one)
``flags``         the option's names when not ``--n-steps`` (``("--resume",)``: a flag without
                  its ``--no-`` form; ``("--permutations/--rotations",)``)
``show_default``  what ``--help`` shows as the default instead of the value
``cli_type``      the type the command line reads when it is not the field's (text for a list)
``cli_default``   the command line's default when it is not the field's
``option``        ``False``: not an option (the command derives it)
================  ==============================================================================

A field that is one of the options every command shares (``--game``, ``--seed``,
``--progress``: ``caylus_cli.app``) names that option in ``shared``. A new setting is then one
field: its option, help, default and ``run.json`` entry all follow from it.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import typer


def _optional(kind: Any) -> Any:
    """``kind`` or None (typer's form of an option that may be left out)."""
    if kind is Any or type(None) in typing.get_args(kind):
        return kind
    return kind | None


def field_parameters(cls: type, shared: Mapping[str, Any] | None = None) -> list[inspect.Parameter]:
    """The typer parameters of the dataclass ``cls``'s fields, in field order (module
    docstring); ``shared``: the fields whose option is a shared one, with its ``Annotated``
    declaration.

    Raises:
        ValueError: for a field that is an option without a ``help`` text (naming it).
    """
    shared = shared or {}
    hints = typing.get_type_hints(cls)
    params = []
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if meta.get("option", True) is False:
            continue
        if "cli_default" in meta:
            default = meta["cli_default"]
        elif f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = inspect.Parameter.empty
        if f.name in shared:
            annotation = shared[f.name]
        elif "help" not in meta:
            raise ValueError(
                f"{cls.__name__}.{f.name} is an option without help: give its field "
                "metadata={'help': ...}, or metadata={'option': False}"
            )
        else:
            kind = meta.get("cli_type", hints[f.name])
            if default is None:
                kind = _optional(kind)
            extra = {"show_default": meta["show_default"]} if "show_default" in meta else {}
            option = typer.Option(*meta.get("flags", ()), help=meta["help"], **extra)
            annotation = Annotated[kind, option]
        params.append(
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )
    return params


def from_fields(
    cls: type, shared: Mapping[str, Any] | None = None
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Decorate a command ``body(values, **own)`` so that typer sees the options of ``cls``'s
    fields (`field_parameters`) followed by the body's own keyword parameters (``own``: the
    options that are not fields, declared as usual); the body gets the fields' values as
    the dict ``values``, by field name, as the command line gave them."""

    def decorate(body: Callable[..., None]) -> Callable[..., None]:
        fields = field_parameters(cls, shared)
        own = [
            p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for p in list(inspect.signature(body, eval_str=True).parameters.values())[1:]
        ]
        names = {p.name for p in fields}

        def command(**kwargs: Any) -> None:
            values = {k: v for k, v in kwargs.items() if k in names}
            body(values, **{k: v for k, v in kwargs.items() if k not in names})

        params = [*fields, *own]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        command.__doc__ = body.__doc__
        command.__name__ = body.__name__
        command.__qualname__ = body.__qualname__
        command.__module__ = body.__module__
        return command

    return decorate


__all__ = ["field_parameters", "from_fields"]
