"""The few SVG elements the games' drawing modules write, as short escaped strings.

Every piece of a replay page is plain SVG text built here, so that one position always gives
the same bytes (the golden tests compare them) and the page can store each distinct piece
once. Coordinates are integers; text is XML-escaped.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from caylus_env.core.viewer.theme import FONT, FONT_TEXT, INK, ON_SEAT, SEAT_COLOURS


def _attrs(extra: dict[str, object]) -> str:
    """``key="value"`` pairs, in the given order; ``class_`` is written ``class``, ``data_x``
    ``data-x``; None values are left out."""
    parts = []
    for key, value in extra.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        parts.append(f"{name}={quoteattr(str(value))}")
    return (" " + " ".join(parts)) if parts else ""


def rect(x: int, y: int, w: int, h: int, fill: str, **extra: object) -> str:
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"{_attrs(extra)}/>'


def circle(cx: int, cy: int, r: int, fill: str, **extra: object) -> str:
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}"{_attrs(extra)}/>'


def line(x1: int, y1: int, x2: int, y2: int, stroke: str, **extra: object) -> str:
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}"{_attrs(extra)}/>'


def text(
    x: int,
    y: int,
    content: object,
    size: int = FONT_TEXT,
    fill: str = INK,
    anchor: str | None = None,
    weight: str | None = None,
    **extra: object,
) -> str:
    """A line of text with its baseline at ``y``; ``anchor`` is ``middle`` or ``end``."""
    attrs = _attrs({"text_anchor": anchor, "font_weight": weight, **extra})
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" fill="{fill}"{attrs}>'
        f"{escape(str(content))}</text>"
    )


def group(content: str, **extra: object) -> str:
    return f"<g{_attrs(extra)}>{content}</g>"


def slot_group(name: str, origin: tuple[int, int], piece: str = "", **extra: object) -> str:
    """The element that holds one slot of a position: named, and moved to where the slot
    stands (a slot at the origin is not moved)."""
    x, y = origin
    move = f"translate({x},{y})" if (x, y) != (0, 0) else None
    return group(piece, data_slot=name, transform=move, **extra)


def seat_disc(cx: int, cy: int, seat: int, r: int = 9, **extra: object) -> str:
    """A seat's token (a worker, a role's taker): a disc in its colour with its number on it."""
    size = max(8, r + 1)
    return group(
        circle(cx, cy, r, SEAT_COLOURS[seat], stroke=INK, stroke_width=1)
        + text(
            cx, cy + size // 2 - 1, seat, size=size, fill=ON_SEAT, anchor="middle", weight="bold"
        ),
        class_="worker",
        data_seat=seat,
        **extra,
    )


def document(width: int, height: int, body: str, **extra: object) -> str:
    """A standalone ``<svg>`` element with the pictures' font."""
    attrs = _attrs(extra)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="{FONT}"{attrs}>{body}</svg>'
    )


def wrap(label: str, width: int) -> list[str]:
    """A label cut into lines of at most ``width`` characters at spaces (a longer word keeps
    its own line)."""
    lines: list[str] = []
    for word in label.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def shorten(name: str, width: int) -> str:
    """A name cut to ``width`` characters, its end replaced by an ellipsis when cut."""
    return name if len(name) <= width else name[: width - 1] + "…"


__all__ = [
    "circle",
    "document",
    "group",
    "line",
    "rect",
    "seat_disc",
    "shorten",
    "slot_group",
    "text",
    "wrap",
]
