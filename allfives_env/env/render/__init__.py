"""Rendering: :mod:`.text` (the layout as text, used by the env and the terminal play)
and :mod:`.image` (RGB frames, GIFs; Pillow is imported only when asked for)."""
