"""Fitting text to the console's width without ever splitting a tile.

Lines break only at spaces, so a word such as ``[2|5]`` or ``[6|6]*,`` stays
whole; a continuation line is indented under its first line. Styles survive
(the pieces are slices of the :class:`rich.text.Text`).
"""

import re

from rich.text import Text

_WORD = re.compile(r"\S+")


def fit_text(text, width, hang=2) -> list:
    """``text`` (a str or :class:`~rich.text.Text`) as Text lines of at most
    ``width`` characters (``None``: one line, as it is). Continuation lines are
    indented ``hang`` more than the first line's own indentation."""
    text = Text(text) if isinstance(text, str) else text
    plain = text.plain
    if width is None or len(plain) <= width:
        return [text]
    lead = len(plain) - len(plain.lstrip(" "))
    indent = " " * min(lead + hang, width // 3)
    lines, line, end = [], text[:lead], None
    for match in _WORD.finditer(plain):
        word = text[match.start():match.end()]
        if end is not None and len(line) + (match.start() - end) + len(word) <= width:
            line.append_text(text[end:match.start()])
        elif end is not None:
            lines.append(line)
            line = Text(indent)
        lines += _fold(line, word, width)
        line = lines.pop()
        end = match.end()
    return lines + [line]


def _fold(line, word, width):
    """``line`` with ``word`` appended, as lines: a word longer than a whole
    line (never a tile) is cut into pieces that fit."""
    lines = [line]
    while True:  # a loop, not recursion: a word of 100,000 characters is 100,000 lines at width 1
        room = max(1, width - len(line))
        if len(word) <= room:
            line.append_text(word)
            return lines
        line.append_text(word[:room])
        word, line = word[room:], Text("")
        lines.append(line)


def fit_lines(lines, width, hang=2) -> list:
    """:func:`fit_text` for each of ``lines``."""
    return [piece for line in lines for piece in fit_text(line, width, hang)]
