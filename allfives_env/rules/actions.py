"""The action codec: the only place that turns moves into integer ids.

One ``Discrete(114)`` space serves every seat:

* ``4 * tile + slot`` places ``tile`` (R1 index) at ``slot`` (W=0, E=1, N=2,
  S=3, R8). A lead is ``4 * tile + 0``.
* ``112`` (:data:`DRAW`) draws one tile from the boneyard (R13).
* ``113`` (:data:`PASS`) passes (R13, only with an empty boneyard).
"""

from .config import is_int
from .tiles import NUM_TILES, parse_tile, tile_name

NUM_SLOTS = 4
W, E, N, S = 0, 1, 2, 3
SLOT_NAMES = ("W", "E", "N", "S")
NUM_PLACEMENTS = NUM_SLOTS * NUM_TILES  # 112: the placement ids are 0..111
DRAW = NUM_PLACEMENTS  # 112
PASS = DRAW + 1  # 113
NUM_ACTIONS = PASS + 1  # 114


def tile_of(action):
    """The tile of placement id ``action`` (0..111), unchecked: for ids already known to be placements.
    Works element-wise on NumPy and torch integer arrays; the kernels use its compiled twin."""
    return action >> 2


def slot_of(action):
    """The slot of placement id ``action``, unchecked (as :func:`tile_of`)."""
    return action & 3


def placement_id(tile, slot):
    """The id placing ``tile`` at ``slot``, unchecked (:func:`encode` checks; as :func:`tile_of`)."""
    return NUM_SLOTS * tile + slot


def encode(tile: int, slot: int) -> int:
    """Action id placing ``tile`` at ``slot``."""
    if not is_int(tile) or not 0 <= tile < NUM_TILES:
        raise ValueError(f"tile index {tile!r} is not allowed; allowed: integers 0..{NUM_TILES - 1}")
    if not is_int(slot) or not 0 <= slot < NUM_SLOTS:
        raise ValueError(f"slot {slot!r} is not allowed; allowed: integers 0..3 (W, E, N, S)")
    return placement_id(int(tile), int(slot))


def decode(action: int) -> tuple:
    """``(kind, tile, slot)`` with kind ``"play"``, ``"draw"`` or ``"pass"``;
    tile and slot are -1 for draw and pass."""
    action = check_action_id(action)
    if action == DRAW:
        return ("draw", -1, -1)
    if action == PASS:
        return ("pass", -1, -1)
    return ("play", tile_of(action), slot_of(action))


def check_action_id(action) -> int:
    """Return ``action`` as an int, or raise ValueError if it is not an id of the space. Integers
    (Python or NumPy), whole floats and one-element arrays or tensors of them pass; bools and
    strings do not, though ``int()`` would take them."""
    shown = _shown(action)
    if getattr(getattr(action, "dtype", None), "kind", "i") not in "iufb":  # a duration, an object, a string array
        raise ValueError(f"action {shown} is not an integer; allowed: integers 0..{NUM_ACTIONS - 1}")
    if not isinstance(action, (int, float)) and callable(getattr(action, "item", None)):
        try:  # a NumPy scalar, a one-element array or tensor: its Python number (a bool stays a bool)
            action = action.item()
        except (ValueError, RuntimeError):  # more than one element
            raise ValueError(f"action {shown} is not an integer; allowed: integers 0..{NUM_ACTIONS - 1}") from None
    if action is None or isinstance(action, (str, bytes, bool)):
        raise ValueError(f"action {shown} is not an integer; allowed: integers 0..{NUM_ACTIONS - 1}")
    try:
        as_int = int(action)
    except (TypeError, ValueError, OverflowError):  # OverflowError: inf
        raise ValueError(f"action {shown} is not an integer; allowed: integers 0..{NUM_ACTIONS - 1}") from None
    if as_int != action:
        raise ValueError(f"action {shown} is not an integer; allowed: integers 0..{NUM_ACTIONS - 1}")
    if not 0 <= as_int < NUM_ACTIONS:
        raise ValueError(f"action {shown} is out of range; allowed: integers 0..{NUM_ACTIONS - 1}")
    return as_int


def _shown(value, limit=60) -> str:
    """``repr(value)`` on one line, cut at ``limit`` characters (an array's repr spans lines)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def action_name(action: int) -> str:
    """Readable name: ``"[3|5]@E"``, ``"draw"`` or ``"pass"``."""
    kind, tile, slot = decode(action)
    if kind != "play":
        return kind
    return f"{tile_name(tile)}@{SLOT_NAMES[slot]}"


def parse_action(text: str) -> int:
    """Inverse of :func:`action_name` (``"3|5@E"``, ``"draw"``, ``"pass"``)."""
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} is not a string; allowed: a tile and slot such as '3|5@E', "
                         "'draw' or 'pass'")
    text = text.strip()
    if text.lower() in ("draw", "pass"):
        return DRAW if text.lower() == "draw" else PASS
    tile_text, _, slot_text = text.partition("@")
    slot_text = slot_text.strip().upper() or "W"
    if slot_text not in SLOT_NAMES:
        raise ValueError(f"unknown slot {slot_text!r}; allowed W, E, N, S")
    return encode(parse_tile(tile_text), SLOT_NAMES.index(slot_text))
