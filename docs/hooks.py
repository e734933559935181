"""MkDocs hooks of the documentation site (``mkdocs.yml``, ``hooks:``).

- The notebooks live in ``notebooks/`` at the repository root (the tests run them there);
  ``on_files`` adds them to the site as ``notebooks/NAME.ipynb``, which mkdocs-jupyter renders
  with their saved outputs, without executing them.
- The API reference must not hide an undocumented object: mkdocstrings renders it anyway
  (``show_if_no_docstring``), and ``on_env`` logs a warning for every public object that a
  ``::: identifier`` block of a page renders without a docstring, so that
  ``mkdocs build --strict`` fails. Public, as mkdocstrings renders it: a module, class,
  function or method whose name has no leading underscore (``__init__`` is merged into its
  class), a module's members listed in its ``__all__`` when it has one, and otherwise the
  objects defined in the module itself (not the names it imports). Submodules are documented
  by their own blocks. Attributes are not checked: constants and fields are documented in
  their module's or class's docstring.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.docstrings")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: ``::: identifier`` with an optional ``members: [...]`` option below it.
BLOCK = re.compile(r"^::: *([\w.]+) *\n((?:[ \t]+.*\n?)*)", re.M)
MEMBERS = re.compile(r"^\s+members:\s*\[(.*?)\]", re.M)

_rendered: dict[str, tuple[str, list[str] | None]] = {}
_search_paths: list[str] = []


def on_config(config: Any) -> Any:
    """Reads the python handler's ``paths`` (where mkdocstrings finds the packages)."""
    handler = config.plugins["mkdocstrings"].config["handlers"].get("python", {})
    base = Path(config.config_file_path).resolve().parent
    _search_paths[:] = [str((base / path).resolve()) for path in handler.get("paths", ["."])]
    return config


def on_pre_build(config: Any) -> None:
    """Forgets the blocks of the previous build (``mkdocs serve`` rebuilds in one process)."""
    _rendered.clear()


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns them into pages
def on_files(files: Files, config: Any) -> Files:
    """Adds the repository's notebooks to the site, as ``notebooks/NAME.ipynb``."""
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(
            File(
                f"notebooks/{path.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Notes every ``::: identifier`` block of the page, with its ``members`` option."""
    for match in BLOCK.finditer(markdown):
        members = MEMBERS.search(match.group(2))
        names = [m.strip().strip("\"'") for m in members.group(1).split(",")] if members else None
        _rendered[match.group(1)] = (page.file.src_uri, names)
    return markdown


def _public_members(obj: Any) -> list[Any]:
    """The members mkdocstrings renders for ``obj`` (see the module docstring)."""
    names = getattr(obj, "exports", None) if obj.is_module else None
    chosen = []
    for name, member in obj.members.items():
        if names is not None:
            if name not in names:
                continue
        elif name.startswith("_") or member.is_alias:
            continue
        chosen.append(member)
    return chosen


def _undocumented(obj: Any, members: list[str] | None, seen: set[str]) -> list[str]:
    """Paths of the public objects under ``obj`` (itself included) without a docstring."""
    missing: list[str] = []
    target = obj.final_target if obj.is_alias else obj
    if target.path in seen or target.is_attribute:
        return missing
    seen.add(target.path)
    undocumented = not target.docstring or not target.docstring.value.strip()
    if undocumented and not (target.is_function and target.name == "__init__"):
        missing.append(f"{obj.path} ({target.kind.value})")
    if target.is_function:
        return missing
    children = (
        [target.members[name] for name in members if name in target.members]
        if members is not None
        else _public_members(target)
    )
    for child in children:
        child_target = child.final_target if child.is_alias else child
        if child_target.is_module:
            continue  # a submodule has a block of its own
        missing += _undocumented(child, None, seen)
    return missing


def on_env(env: Any, config: Any, files: Files) -> Any:
    """Warns of every public object the blocks render without a docstring (after every page's
    Markdown was read, before any is rendered)."""
    import griffe

    loader = griffe.GriffeLoader(search_paths=_search_paths, docstring_parser="google")
    # Each package once (griffe's load parses the whole package again at every call), then
    # the aliases once, for every block.
    for package in sorted({identifier.split(".")[0] for identifier in _rendered}):
        loader.load(package)
    loader.resolve_aliases(external=False, implicit=False)
    seen: set[str] = set()
    for identifier, (page, members) in sorted(_rendered.items()):
        obj = loader.modules_collection[identifier]
        for path in _undocumented(obj, members, seen):
            log.warning("%s: the API reference renders %s without a docstring", page, path)
    return env
