"""An image of the layout (``render_mode="rgb_array"``) and animated game recordings.

:func:`render_rgb` draws the game as an ``(IMAGE_SIZE, IMAGE_SIZE, 3)`` uint8
array: the tiles with their pips, laid out as a cross around the spinner
(the row W - centre - E, the side branches N above and S below), doubles
crosswise, the spinner outlined in gold, each open end labelled with its
value, and a status line (hand, count, boneyard, scores) at the top. The
tiles shrink so that the whole layout always fits.

Pillow is imported only when an image is drawn.
"""

from ...rules.tiles import TILE_HIGH, TILE_LOW
from .text import arm_tiles

#: Width and height of :func:`render_rgb` images, in pixels.
IMAGE_SIZE = 600

BACKGROUND = (22, 92, 52)
TILE_FACE = (246, 241, 226)
SPINNER_FACE = (255, 234, 160)
TILE_EDGE = (40, 40, 40)
SPINNER_EDGE = (230, 180, 30)
PIP = (20, 20, 20)
TEXT = (240, 240, 240)
MARGIN_TOP, MARGIN = 48, 16
MAX_UNIT = 34  # the short side of a tile, in pixels, when there is room

# Pip positions on a unit square half (0..1), per value.
_PIPS = {
    0: (), 1: ((0.5, 0.5),), 2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)),
}


def layout_boxes(game):
    """Tiles as boxes in tile units (the short side is 1): a list of
    ``(tile, x0, y0, x1, y1, first, second)`` where ``first`` is the value on
    the box's left (horizontal box) or top (vertical box) half, ``second`` on
    the other; plus the open ends as ``{slot: (x, y)}`` label anchors.
    A double's ``first == second`` and it lies across its arm."""
    if game.is_lead:
        return [], {}
    boxes, ends = [], {}
    lead = game.lead_tile
    low, high = TILE_LOW[lead], TILE_HIGH[lead]
    if low == high:
        boxes.append((lead, -0.5, -1.0, 0.5, 1.0, low, high))
        left, right = -0.5, 0.5
    else:
        boxes.append((lead, -1.0, -0.5, 1.0, 0.5, low, high))
        left, right = -1.0, 1.0
    spinner_x = 0.0
    x = right
    for tile, inner, outer in arm_tiles(game, 1):
        width = 1.0 if inner == outer else 2.0
        boxes.append(_row_box(tile, x, x + width, inner, outer))
        if tile == game.spinner_tile:
            spinner_x = x + 0.5
        x += width
    ends[1] = (x + 0.3, 0.0)
    x = left
    for tile, inner, outer in arm_tiles(game, 0):
        width = 1.0 if inner == outer else 2.0
        boxes.append(_row_box(tile, x - width, x, outer, inner))
        if tile == game.spinner_tile:
            spinner_x = x - 0.5
        x -= width
    ends[0] = (x - 0.3, 0.0)
    if game.branches_open:
        y = -1.0
        for tile, inner, outer in arm_tiles(game, 2):
            height = 1.0 if inner == outer else 2.0
            boxes.append(_column_box(tile, spinner_x, y - height, y, outer, inner))
            y -= height
        ends[2] = (spinner_x, y - 0.3)
        y = 1.0
        for tile, inner, outer in arm_tiles(game, 3):
            height = 1.0 if inner == outer else 2.0
            boxes.append(_column_box(tile, spinner_x, y, y + height, inner, outer))
            y += height
        ends[3] = (spinner_x, y + 0.3)
    return boxes, ends


def _row_box(tile, x0, x1, first, second):
    if first == second:  # a double lies across the row
        return (tile, x0, -1.0, x1, 1.0, first, second)
    return (tile, x0, -0.5, x1, 0.5, first, second)


def _column_box(tile, centre, y0, y1, first, second):
    if first == second:  # a double lies across the column
        return (tile, centre - 1.0, y0, centre + 1.0, y1, first, second)
    return (tile, centre - 0.5, y0, centre + 0.5, y1, first, second)


def render_rgb(game, agent_names=None, size=IMAGE_SIZE):
    """The game as an ``(size, size, 3)`` uint8 numpy array (see the module docstring)."""
    import numpy as np
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (size, size), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 8), _status_line(game, agent_names), fill=TEXT)
    draw.text((MARGIN, 26), _scores_line(game, agent_names), fill=TEXT)
    boxes, ends = layout_boxes(game)
    if not boxes:
        draw.text((size // 2 - 60, size // 2), "empty layout", fill=TEXT)
        return np.asarray(image, dtype=np.uint8).copy()
    to_pixels = _fit(boxes, ends, size)
    for tile, x0, y0, x1, y1, first, second in boxes:
        _draw_tile(draw, to_pixels, (x0, y0, x1, y1), first, second, tile == game.spinner_tile)
    for slot, (x, y) in ends.items():
        px, py = to_pixels(x, y)
        counted = game.weight[slot] > 0  # an unstarted branch counts nothing (R14)
        draw.text((px - 3, py - 6), str(game.open_value[slot]), fill=SPINNER_EDGE if counted else TEXT)
    return np.asarray(image, dtype=np.uint8).copy()


def _fit(boxes, ends, size):
    """A map from tile units to pixels that fits every box and end label in the image."""
    xs = [x for b in boxes for x in (b[1], b[3])] + [x for x, _ in ends.values()]
    ys = [y for b in boxes for y in (b[2], b[4])] + [y for _, y in ends.values()]
    x_lo, x_hi, y_lo, y_hi = min(xs) - 0.4, max(xs) + 0.4, min(ys) - 0.4, max(ys) + 0.4
    width, height = size - 2 * MARGIN, size - MARGIN_TOP - MARGIN
    unit = min(MAX_UNIT, width / (x_hi - x_lo), height / (y_hi - y_lo))
    ox = MARGIN + (width - unit * (x_hi - x_lo)) / 2 - unit * x_lo
    oy = MARGIN_TOP + (height - unit * (y_hi - y_lo)) / 2 - unit * y_lo
    return lambda x, y: (ox + unit * x, oy + unit * y)


def _draw_tile(draw, to_pixels, box, first, second, is_spinner):
    x0, y0 = to_pixels(box[0], box[1])
    x1, y1 = to_pixels(box[2], box[3])
    edge = SPINNER_EDGE if is_spinner else TILE_EDGE
    width = max(2, round((x1 - x0) / 12)) if is_spinner else 1
    radius = max(1, round(min(x1 - x0, y1 - y0) / 8))
    face = SPINNER_FACE if is_spinner else TILE_FACE
    draw.rounded_rectangle((x0, y0, x1, y1), radius=radius, fill=face, outline=edge, width=width)
    if x1 - x0 >= y1 - y0:  # horizontal: halves left and right
        mid = (x0 + x1) / 2
        draw.line((mid, y0 + 2, mid, y1 - 2), fill=TILE_EDGE)
        halves = ((x0, y0, mid, y1, first), (mid, y0, x1, y1, second))
    else:
        mid = (y0 + y1) / 2
        draw.line((x0 + 2, mid, x1 - 2, mid), fill=TILE_EDGE)
        halves = ((x0, y0, x1, mid, first), (x0, mid, x1, y1, second))
    for hx0, hy0, hx1, hy1, value in halves:
        side = min(hx1 - hx0, hy1 - hy0)
        r = max(1.0, side / 11)
        for px, py in _PIPS[value]:
            cx, cy = hx0 + px * (hx1 - hx0), hy0 + py * (hy1 - hy0)
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PIP)


def _names(game, agent_names):
    return agent_names or [f"player_{i}" for i in range(game.num_players)]


def _status_line(game, agent_names):
    names = _names(game, agent_names)
    state = "game over" if game.game_over else ("hand over" if game.hand_over else f"to move: {names[game.to_move]}")
    sizes = " ".join(str(game.hand_size(s)) for s in range(game.num_players))
    return (f"Hand {game.hand_number + 1}   count {game.count}   boneyard {game.boneyard_left}   "
            f"hands {sizes}   {state}")


def _scores_line(game, agent_names):
    names = _names(game, agent_names)
    parts = []
    for side in range(game.num_sides):
        members = "+".join(names[s] for s in range(game.num_players) if game.seat_side[s] == side)
        score = game.scores[side]
        parts.append(f"{members} {int(score) if score == int(score) else score}")
    return "Scores: " + "   ".join(parts) + f"   (target {game.target:g})"


def save_animation(frames, path, seconds_per_frame=0.6):
    """Write numpy RGB frames as an animated GIF (``path`` ending in ``.gif``) or,
    for any other ``path``, as numbered PNG files in that folder (for a video
    tool such as ``ffmpeg -framerate 2 -i frame_%05d.png game.mp4``).
    Returns the paths written."""
    import os

    from PIL import Image

    if not frames:
        raise ValueError("no frames to write")
    images = [Image.fromarray(frame) for frame in frames]
    if str(path).lower().endswith(".gif"):
        images[0].save(path, format="GIF", save_all=True, append_images=images[1:],  # ".gif" alone has no suffix
                       duration=int(seconds_per_frame * 1000), loop=0, optimize=False)
        return [str(path)]
    os.makedirs(path, exist_ok=True)
    written = []
    for i, image in enumerate(images):
        name = os.path.join(path, f"frame_{i:05d}.png")
        image.save(name)
        written.append(name)
    return written
