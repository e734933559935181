"""The games' rules references as pages of ``caylus serve`` (``GET /rules/GAME``), from the
package itself.

Each game's rules reference is its ``GameSpec.rules_doc``, a page of ``docs/rules/``. The
package ships those pages as package data: ``rules/`` of this package is a link to
``docs/rules/`` in the repository, and a built wheel holds the pages as files there
(``pyproject.toml``'s package data), so an installed ``caylus serve`` finds them with
``importlib.resources`` and never looks for a ``docs/`` folder (`rules_markdown`).

`markdown_html` turns the Markdown those pages are written in into HTML: headings (with the
anchors GitHub and the docs site give them, so a page's own ``#section`` links work),
paragraphs, lists, tables, code blocks, rules, inline code, bold, italics and links. Every
character of the text is escaped before any markup is added, and a link keeps its target only
when it is an anchor of the page or another rules page (``/rules/NAME``): the page runs no
script and loads nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from html import escape
from importlib import resources
from pathlib import PurePosixPath

from caylus_env.core.contract import GameSpec
from caylus_env.core.registry import GAME_NAMES, game_spec

#: The folder of this package that holds the rules pages (a link to ``docs/rules/`` in the
#: repository, files in a wheel).
RULES_DIR = "rules"
#: Where every rules page of ``GameSpec.rules_doc`` lies in the repository.
DOCS_RULES = PurePosixPath("docs/rules")
#: The longest rules page read (the largest is about 56 KB).
MAX_RULES_BYTES = 2**20

_FENCE = re.compile(r"^```")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,})\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![*\w])\*(?=\S)(.+?)(?<=\S)\*(?![*\w])")


def rules_name(spec: GameSpec) -> str:
    """The file name of ``spec``'s rules page (``caylus.md``).

    Raises:
        ValueError: for a ``rules_doc`` outside ``docs/rules/`` (the package ships that
            folder only).
    """
    doc = PurePosixPath(spec.rules_doc)
    if doc.parent != DOCS_RULES or doc.suffix != ".md":
        raise ValueError(
            f"{spec.name}'s rules_doc {spec.rules_doc!r} is not a page of {DOCS_RULES}/; "
            "allowed: docs/rules/NAME.md, the folder the package ships"
        )
    return doc.name


def rules_markdown(spec: GameSpec) -> str:
    """The text of ``spec``'s rules page, read from the package (`RULES_DIR`).

    Raises:
        FileNotFoundError: when the package does not hold it (an install without its package
            data), naming where it was looked for.
        ValueError: for a page over `MAX_RULES_BYTES`, or a ``rules_doc`` outside
            ``docs/rules/``.
    """
    name = rules_name(spec)
    page = resources.files(__package__).joinpath(RULES_DIR, name)
    if not page.is_file():
        raise FileNotFoundError(
            f"the rules page {name} of {spec.title} is not in the package "
            f"({__package__}/{RULES_DIR}/): reinstall caylus-env"
        )
    data = page.read_bytes()
    if len(data) > MAX_RULES_BYTES:
        raise ValueError(f"the rules page {name} is {len(data)} bytes; at most {MAX_RULES_BYTES}")
    return data.decode("utf-8")


def slug(text: str) -> str:
    """The anchor of a heading, as GitHub and the docs site write it (``Phase 1 — Income``:
    ``phase-1--income``).

    Example:
        >>> slug("Phase 1 — Income"), slug("5.3 Taking a favor")
        ('phase-1--income', '53-taking-a-favor')
    """
    words = re.sub(r"[`*]", "", text.lower())
    return re.sub(r"[^\w\- ]", "", words).replace(" ", "-")


def rules_link(target: str) -> str | None:
    """Where a link of a rules page may lead on the served page: an anchor of the page, or
    another game's rules page (``caylus.md`` -> ``/rules/caylus``); None for anything else
    (its text stays, without a link)."""
    if re.fullmatch(r"#[\w\-]+", target):
        return target
    path, _, anchor = target.partition("#")
    pages = {rules_name(game_spec(g)): g for g in GAME_NAMES}
    if path in pages and re.fullmatch(r"[\w\-]*", anchor):
        return f"/rules/{pages[path]}" + (f"#{anchor}" if anchor else "")
    return None


def inline(text: str, link: Callable[[str], str | None] = rules_link) -> str:
    """One line's inline Markdown as HTML: everything escaped, then code, links, bold and
    italics (no markup inside code; bold may hold code).

    Example:
        >>> inline("**Pass**: `pass`, see [5.3](#53-taking-a-favor) <b>")
        '<strong>Pass</strong>: <code>pass</code>, see <a href="#53-taking-a-favor">5.3</a> &lt;b&gt;'
    """
    codes: list[str] = []

    def hold(m: re.Match[str]) -> str:
        codes.append(f"<code>{escape(m.group(1))}</code>")
        return f"\x00{len(codes) - 1}\x00"

    def anchor(m: re.Match[str]) -> str:
        target = link(m.group(2))
        return m.group(1) if target is None else f'<a href="{escape(target)}">{m.group(1)}</a>'

    words = escape(_CODE.sub(hold, text.replace("\x00", "")), quote=False)
    words = _LINK.sub(anchor, words)
    words = _BOLD.sub(r"<strong>\1</strong>", words)
    words = _EM.sub(r"<em>\1</em>", words)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], words)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _blocks(lines: list[str]) -> Iterator[str]:
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif _FENCE.match(line):
            end = next((j for j in range(i + 1, len(lines)) if _FENCE.match(lines[j])), len(lines))
            yield f"<pre><code>{escape(chr(10).join(lines[i + 1 : end]))}</code></pre>"
            i = end + 1
        elif m := _HEADING.match(line):
            level = len(m.group(1))
            yield f'<h{level} id="{slug(m.group(2))}">{inline(m.group(2))}</h{level}>'
            i += 1
        elif _RULE.match(line):
            yield "<hr>"
            i += 1
        elif (
            line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1])
        ):
            head = "".join(f"<th>{inline(c)}</th>" for c in _cells(line))
            rows = []
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append("".join(f"<td>{inline(c)}</td>" for c in _cells(lines[i])))
                i += 1
            body = "".join(f"<tr>{r}</tr>" for r in rows)
            yield f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        elif m := _ITEM.match(line):
            tag = "ul" if m.group(2) in "-*+" else "ol"
            items: list[list[str]] = []
            while i < len(lines):
                item = _ITEM.match(lines[i])
                if item:
                    items.append([item.group(3)])
                elif lines[i].strip() and lines[i].startswith(" ") and items:
                    items[-1].append(lines[i].strip())
                else:
                    break
                i += 1
            body = "".join(f"<li>{inline(' '.join(words))}</li>" for words in items)
            yield f"<{tag}>{body}</{tag}>"
        else:
            words = []
            while i < len(lines) and lines[i].strip():
                if words and (
                    _HEADING.match(lines[i]) or _FENCE.match(lines[i]) or _ITEM.match(lines[i])
                ):
                    break
                words.append(lines[i].strip())
                i += 1
            yield f"<p>{inline(' '.join(words))}</p>"


def markdown_html(text: str) -> str:
    """The Markdown of a rules page as HTML (see the module docstring).

    Example:
        >>> markdown_html("# Title\\n\\n| a | b |\\n|---|---|\\n| 1 | `x` |\\n")
        '<h1 id="title">Title</h1>\\n<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><code>x</code></td></tr></tbody></table>'
    """
    return "\n".join(_blocks(text.splitlines()))


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="caylus-env serve">
<title>{title}</title>
<style>
  body {{ margin: 0 auto; max-width: 980px; padding: 12px 20px 40px; background: #fbf8f1;
         color: #1d1d1f; font: 15px/1.5 "DejaVu Sans", Verdana, Arial, sans-serif; }}
  table {{ border-collapse: collapse; margin: 10px 0; font-size: 13px; }}
  th, td {{ border: 1px solid #b9b3a6; padding: 3px 7px; vertical-align: top; }}
  th {{ background: #efe8d8; }}
  code {{ font: 13px "DejaVu Sans Mono", Menlo, monospace; background: #efe8d8;
          padding: 0 3px; border-radius: 3px; }}
  pre {{ background: #efe8d8; padding: 8px 12px; overflow-x: auto; }}
  pre code {{ padding: 0; }}
  h1, h2, h3 {{ color: #2f2a22; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def rules_page(spec: GameSpec) -> str:
    """The served page of ``spec``'s rules reference: one self-contained HTML document.

    Raises:
        FileNotFoundError, ValueError: as `rules_markdown`.
    """
    return PAGE.format(
        title=escape(f"{spec.title}: rules"), body=markdown_html(rules_markdown(spec))
    )


__all__ = [
    "MAX_RULES_BYTES",
    "RULES_DIR",
    "inline",
    "markdown_html",
    "rules_link",
    "rules_markdown",
    "rules_name",
    "rules_page",
    "slug",
]
