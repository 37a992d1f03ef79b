"""The double-six set (R1): tile indices, halves, pips and suit masks.

Every table here is an immutable tuple computed once at import; nothing in
this module changes at run time.
"""

import re

NUM_TILES = 28


def tile_index(a: int, b: int) -> int:
    """Canonical index of tile ``[a|b]`` (R1); the halves may come in any order."""
    if a > b:
        a, b = b, a
    if not (0 <= a <= b <= 6):
        raise ValueError(f"tile [{a}|{b}] is not in a double-six set (halves must be 0..6)")
    return 7 * a - a * (a - 1) // 2 + (b - a)


_PAIRS = tuple((a, b) for a in range(7) for b in range(a, 7))
assert all(tile_index(a, b) == i for i, (a, b) in enumerate(_PAIRS))

#: Lower half of each tile.
TILE_LOW = tuple(a for a, _ in _PAIRS)
#: Higher half of each tile.
TILE_HIGH = tuple(b for _, b in _PAIRS)
#: Pips (a + b) of each tile.
TILE_PIPS = tuple(a + b for a, b in _PAIRS)
#: True for the seven doubles.
TILE_IS_DOUBLE = tuple(a == b for a, b in _PAIRS)
#: Bit mask (over tile indices) of the tiles carrying each suit 0..6.
SUIT_TILES = tuple(
    sum(1 << i for i, (a, b) in enumerate(_PAIRS) if a == s or b == s) for s in range(7)
)
#: Bit mask over suits (7 bits) that each tile carries.
TILE_SUITS = tuple((1 << a) | (1 << b) for a, b in _PAIRS)
ALL_TILES_MASK = (1 << NUM_TILES) - 1


def tile_name(tile: int) -> str:
    """Human name of a tile, e.g. ``[3|5]``."""
    return f"[{TILE_LOW[tile]}|{TILE_HIGH[tile]}]"


#: A tile's name: ``3|5``, ``[3|5]``, ``3-5`` or ``35``, spaces allowed around its parts.
_TILE_TEXT = re.compile(r"\s*(\[?)\s*([0-6])\s*[|-]?\s*([0-6])\s*(\]?)\s*")


def parse_tile(text: str) -> int:
    """Parse ``"3|5"``, ``"[3|5]"``, ``"3-5"`` or ``"35"`` into a tile index; anything else (a third half,
    a sign, other characters) is a ValueError."""
    match = _TILE_TEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None or bool(match.group(1)) != bool(match.group(4)):  # brackets come in pairs
        raise ValueError(f"cannot read a tile from {text!r}; write it as [a|b] with halves 0..6")
    return tile_index(int(match.group(2)), int(match.group(3)))


def mask_to_tiles(mask: int) -> list:
    """Tile indices set in a bit mask, ascending."""
    tiles = []
    while mask:
        low = mask & -mask
        tiles.append(low.bit_length() - 1)
        mask ^= low
    return tiles


def tiles_to_mask(tiles) -> int:
    mask = 0
    for t in tiles:
        mask |= 1 << t
    return mask


def mask_pips(mask: int) -> int:
    """Total pips of the tiles in a bit mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += TILE_PIPS[low.bit_length() - 1]
        mask ^= low
    return total


def heaviness(tile: int) -> tuple:
    """Sort key for V3 ``heaviest_tile``: most pips, then the double, then the higher half."""
    return (TILE_PIPS[tile], TILE_IS_DOUBLE[tile], TILE_HIGH[tile])
