"""The files a spec names (``agents.registry.spec_paths``): every head says which parts of its
argument are paths of the user's, before anything reads them, so that ``caylus serve`` can
confine them; the checkpoints shipped in the package, named by name, are none."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import registry
from agents.random_agent import RandomAgent


@pytest.mark.parametrize(
    ("spec", "paths"),
    [
        ("policy:runs/a", ("runs/a",)),
        ("policy:/x/y:sample", ("/x/y",)),
        ("policy:/x/y:temp=0.5", ("/x/y",)),
        ("puct:20:ckpt=runs/b", ("runs/b",)),
        ("puct:20:c=2:ckpt=/abs/c:temp=1", ("/abs/c",)),
        ("puct:20", ()),
        ("puct:20:ckpt=ppo-2p", ()),  # shipped names are the package's, not the user's
        ("puct:20:ckpt=ppo-caylus", ()),
        ("ppo-2p", ()),
        ("ppo-2p:sample", ()),
        ("random", ()),
        ("mcts:20", ()),
    ],
)
def test_spec_paths_lists_every_path_a_caylus_spec_names_and_no_shipped_name(spec, paths):
    assert registry.spec_paths(spec, "caylus") == tuple(Path(p) for p in paths)


def test_spec_paths_reads_nothing_and_refuses_a_bad_spec_like_make_agent(tmp_path):
    missing = tmp_path / "nowhere"
    assert registry.spec_paths(f"puct:5:ckpt={missing}", "caylus") == (missing,)
    for spec, words in (
        ("puct:0:ckpt=/x", "SIMS must be"),
        ("puct:5:ckpt=/x:ckpt=/y", "repeated option"),
        ("policy", "needs an argument"),
        ("alphazero", "unknown Caylus agent"),
    ):
        with pytest.raises(ValueError, match=words):
            registry.spec_paths(spec, "caylus")


def test_a_plugin_declares_its_path_arguments_with_key_paths():
    registry.register(
        "filebot",
        lambda spec, arg: RandomAgent(spec),
        needs_arg=True,
        game="caylus",
        paths=registry.key_paths("model", "book"),
    )
    spec = "filebot:3:model=/m:x=1:book=rel/b"
    assert registry.spec_paths(spec, "caylus") == (Path("/m"), Path("rel/b"))
    assert registry.spec_paths("filebot:3", "caylus") == ()
    with pytest.raises(ValueError, match="non-empty paths"):
        registry.spec_paths("filebot:3:model=", "caylus")
    with pytest.raises(ValueError, match="without '='"):
        registry.key_paths("a=b")
    with pytest.raises(ValueError, match="paths must be callable"):
        registry.register("other", lambda spec, arg: RandomAgent(spec), paths="model")


def test_a_game_bot_declares_its_paths_in_the_game_contract(monkeypatch):
    from caylus_env.core.contract import Bot
    from caylus_env.core.registry import game_spec

    bots = game_spec("puerto_rico").module("bots")
    bot = Bot("bookbot", lambda spec, arg: RandomAgent(spec), needs_arg=True, paths=lambda a: [a])
    monkeypatch.setitem(bots.BOTS, "bookbot", bot)
    registry._builtin_entries.cache_clear()
    try:
        assert registry.spec_paths("bookbot:/some/book", "puerto_rico") == (Path("/some/book"),)
    finally:
        monkeypatch.undo()
        registry._builtin_entries.cache_clear()
