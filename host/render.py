"""Pictures of a Trax position: compact ASCII for terminals and SVG.

Both take either a :class:`~traxfpga.host.reference.trax.Game` or the canonical rows of
``Game.board_rows()`` (``"NW NS . ES"`` ...), so positions reported by any
engine can be drawn.

The ASCII picture is the FAQ's compact representation (1994 FAQ, D2): every
tile is a 3x3 block that shares its edges with its neighbours, ``o`` marks
white track and ``x`` black track on an edge, ``.`` the corners of tiles::

    . o . x .
    o / x + o      the FAQ leaves a straight's centre blank; here it shows
    . x . x .      the notation symbol + so every tile reads as it is written

It is drawn with one empty column and row all around (``@``/``0`` and the
ones after the last), labelled the way moves are written, so a person can
type the next move straight from the picture.
"""

from __future__ import annotations

from .reference.trax import MASK_NAMES, column_name, row_name

__all__ = ["ascii_board", "svg_board", "svg_tile", "space_box", "rows_to_masks"]

_SHAPE_CHAR = {0b0101: "+", 0b1010: "+", 0b1001: "/", 0b0110: "/", 0b0011: "\\", 0b1100: "\\"}


def rows_to_masks(game_or_rows):
    """The position as a list of rows of white-edge masks (``None`` for empty).

    Accepts a ``Game`` or canonical rows.
    """
    rows = game_or_rows.board_rows() if hasattr(game_or_rows, "board_rows") else list(game_or_rows)
    grid = []
    for row in rows:
        cells = row.split()
        grid.append([None if c == "." else MASK_NAMES[c] for c in cells])
    if grid and any(len(r) != len(grid[0]) for r in grid):
        raise ValueError("board rows have different lengths")
    return grid


def ascii_board(game_or_rows, labels: bool = True) -> str:
    """The FAQ's compact ASCII picture of a position, with notation labels.

    Parameters
    ----------
    game_or_rows : Game or list of str
    labels : bool
        Column letters above and below, row numbers left and right.

    Returns
    -------
    str
        Lines joined by newlines (no trailing newline).  An empty board gives
        a one-line note saying that the first move is ``@0/`` or ``@0+``.
    """
    grid = rows_to_masks(game_or_rows)
    if not grid:
        return "(empty board: the first move is @0/ or @0+)"
    h, w = len(grid), len(grid[0])

    def cell(cx, cy):  # area-relative, may be outside
        if 0 <= cy < h and 0 <= cx < w:
            return grid[cy][cx]
        return None

    # character grid over cells -1..w (columns) and -1..h (rows)
    cw, ch = w + 2, h + 2
    chars = [[" "] * (2 * cw + 1) for _ in range(2 * ch + 1)]
    for cy in range(-1, h + 1):
        for cx in range(-1, w + 1):
            m = cell(cx, cy)
            if m is None:
                continue
            X, Y = 2 * (cx + 1) + 1, 2 * (cy + 1) + 1
            chars[Y][X] = _SHAPE_CHAR[m]
            for d, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
                chars[Y + dy][X + dx] = "o" if m >> d & 1 else "x"
            for dx in (-1, 1):
                for dy in (-1, 1):
                    chars[Y + dy][X + dx] = "."
    # drop the outermost character rows/columns (always blank); like the FAQ,
    # put a space between characters, so cell centres are 4 apart
    lines = [" ".join(r[1:-1]).rstrip() for r in chars[1:-1]]
    if not labels:
        return "\n".join(lines)
    names = [column_name(c) for c in range(-1, w + 1)]
    rnames = [row_name(r) for r in range(-1, h + 1)]
    lw = max(len(n) for n in rnames)
    pad = " " * (lw + 2)
    width = 4 * (cw - 1) + 1
    header = pad + "".join(n.ljust(4) for n in names).rstrip()
    out = [header]
    for j, line in enumerate(lines):
        if j % 2 == 0:  # centre line of a cell row
            rn = rnames[j // 2]
            out.append(f"{rn:>{lw}}  {line.ljust(width)}  {rn}".rstrip())
        else:
            out.append((pad + line).rstrip())
    out.append(header)
    return "\n".join(out)


# ------------------------------------------------------------------ SVG

_TILE_FILL = "#b3262e"      # the classic red tile
_TILE_EDGE = "#1a1a1a"
_WHITE = "#f4f1ea"
_BLACK = "#111111"
_LABEL = "#333333"
_MARK = "#f2b705"       # a winning loop or line


def _edge_point(x0, y0, s, d):
    return ((x0 + s / 2, y0), (x0 + s, y0 + s / 2), (x0 + s / 2, y0 + s), (x0, y0 + s / 2))[d]


def _track(x0, y0, s, cmask, colour, width):
    """SVG path of the track joining the two edges in ``cmask``."""
    d1, d2 = [d for d in range(4) if cmask >> d & 1]
    (ax, ay), (bx, by) = _edge_point(x0, y0, s, d1), _edge_point(x0, y0, s, d2)
    common = (f'fill="none" stroke="{colour}" stroke-width="{width:.2f}" '
              f'stroke-linecap="butt"')
    if d2 == d1 + 2:  # straight
        return f'<path d="M{ax:.2f},{ay:.2f} L{bx:.2f},{by:.2f}" {common}/>'
    # quarter circle around the tile corner shared by the two edges
    cx = x0 + s if 1 in (d1, d2) else x0
    cy = y0 + s if 2 in (d1, d2) else y0
    cross = (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
    sweep = 1 if cross > 0 else 0
    r = s / 2
    return (f'<path d="M{ax:.2f},{ay:.2f} A{r:.2f},{r:.2f} 0 0 {sweep} {bx:.2f},{by:.2f}" '
            f'{common}/>')


def _origin(tile, title):
    """(margin, top): where column ``@`` and row ``0`` of :func:`svg_board` begin."""
    margin = tile * 0.75
    return margin, margin + (tile * 0.6 if title else 0)


def space_box(col: int, row: int, tile: int = 48, title: str | None = None) -> tuple:
    """``(x, y, size)`` of the square of area-relative ``(col, row)`` (``-1`` for ``@`` and
    ``0``) in the picture :func:`svg_board` draws with the same ``tile`` and ``title``, so
    a page can lay clickable squares over it."""
    margin, top = _origin(tile, title)
    return (round(margin + (col + 1) * tile, 2), round(top + (row + 1) * tile, 2), tile)


def svg_tile(name: str, tile: int = 48) -> str:
    """An SVG picture of one tile, given by its white edges (``"NW"``...), drawn as
    :func:`svg_board` draws it, without labels."""
    m = MASK_NAMES[name]
    tw = tile * 0.17
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{tile}" height="{tile}" '
        f'viewBox="0 0 {tile} {tile}">',
        f'<rect x="0" y="0" width="{tile}" height="{tile}" fill="{_TILE_FILL}" '
        f'stroke="{_TILE_EDGE}" stroke-width="1.5"/>',
        _track(0, 0, tile, 15 ^ m, _BLACK, tw), _track(0, 0, tile, m, _WHITE, tw),
        "</svg>"]) + "\n"


def svg_board(game_or_rows, tile: int = 48, title: str | None = None, marks=()) -> str:
    """An SVG picture of a position.

    Tiles are red squares with a dark outline, the white track drawn light and
    the black track dark (curves as quarter circles, straights crossing); the
    empty ring where the next move can go (``@``, ``0`` ...) is outlined
    faintly, and columns and rows carry their notation labels on all sides.

    Parameters
    ----------
    game_or_rows : Game or list of str
    tile : int
        Tile size in pixels.
    title : str, optional
        A caption drawn above the board.
    marks : iterable of (cells, colour), optional
        Tracks to mark (a winning loop or line): the track of ``colour`` (``"white"`` or
        ``"black"``) through each area-relative ``(col, row)`` of ``cells`` gets a gold
        centre line.  Without marks the picture is exactly as before marks existed.

    Returns
    -------
    str
        A complete SVG document.
    """
    grid = rows_to_masks(game_or_rows)
    h, w = (len(grid), len(grid[0])) if grid else (0, 0)
    s = tile
    margin, top = _origin(s, title)
    cols, rows = w + 2, h + 2
    W = 2 * margin + cols * s
    H = top + margin + rows * s
    tw = s * 0.17
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.0f}" height="{H:.0f}" '
           f'viewBox="0 0 {W:.2f} {H:.2f}" font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect x="0" y="0" width="{W:.2f}" height="{H:.2f}" fill="#fbfaf7"/>']
    if title:
        out.append(f'<text x="{W / 2:.2f}" y="{margin * 0.9:.2f}" font-size="{s * 0.36:.1f}" '
                   f'text-anchor="middle" fill="{_LABEL}">{_escape(title)}</text>')
    fs = s * 0.32
    for i in range(cols):
        name = column_name(i - 1)
        x = margin + (i + 0.5) * s
        for y in (top - s * 0.2, top + rows * s + s * 0.45):
            out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{fs:.1f}" text-anchor="middle" '
                       f'fill="{_LABEL}">{name}</text>')
    for j in range(rows):
        name = row_name(j - 1)
        y = top + (j + 0.5) * s + fs * 0.35
        for x, anchor in ((margin - s * 0.15, "end"), (margin + cols * s + s * 0.15, "start")):
            out.append(f'<text x="{x:.2f}" y="{y:.2f}" font-size="{fs:.1f}" text-anchor="{anchor}" '
                       f'fill="{_LABEL}">{name}</text>')
    cells = [(i, j, grid[j - 1][i - 1] if 0 < i <= w and 0 < j <= h else None)
             for j in range(rows) for i in range(cols)]
    for i, j, m in cells:  # the empty spaces first, so tile outlines stay on top
        if m is None:
            out.append(f'<rect x="{margin + i * s:.2f}" y="{top + j * s:.2f}" width="{s}" '
                       f'height="{s}" fill="none" stroke="#cfcac0" stroke-width="1" '
                       f'stroke-dasharray="3,3"/>')
    for i, j, m in cells:
        if m is None:
            continue
        x0, y0 = margin + i * s, top + j * s
        out.append(f'<rect x="{x0:.2f}" y="{y0:.2f}" width="{s}" height="{s}" '
                   f'fill="{_TILE_FILL}" stroke="{_TILE_EDGE}" stroke-width="1.5"/>')
        # black first, white on top (on a straight tile one crosses the other)
        out.append(_track(x0, y0, s, 15 ^ m, _BLACK, tw))
        out.append(_track(x0, y0, s, m, _WHITE, tw))
    for cells, colour in marks:     # on top of everything, so a mark is never hidden
        for c, r in cells:
            m = grid[r][c]
            x0, y0 = margin + (c + 1) * s, top + (r + 1) * s
            out.append(_track(x0, y0, s, m if colour == "white" else 15 ^ m, _MARK, tw * 0.4))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
