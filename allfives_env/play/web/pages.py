"""The HTML of the pages: one shell for every mode, its data in a JSON script tag, drawn by ``static/app.js``.

The same shell and script make the server's pages (assets linked from
``/static``) and the self-contained replay file of ``allfives replay --html``
(assets and data inlined: no server, no network).
"""

import json
from importlib.resources import files

TITLES = {"home": "All Fives", "game": "All Fives", "replay": "All Fives replay"}


def asset(name) -> str:
    """The text of a file of ``static/`` (``app.js``, ``style.css``)."""
    return files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def boot_json(data) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace(
        "&", "\\u0026")


def page_html(mode, boot, inline=False) -> str:
    """The page for ``mode`` (``"home"``, ``"game"``, ``"replay"``) with ``boot`` data for the script.
    ``inline``: put the stylesheet and the script in the page (a file that works alone)."""
    if inline:
        style = f"<style>\n{asset('style.css')}\n</style>"
        script = f"<script>\n{asset('app.js')}\n</script>"
    else:
        style = '<link rel="stylesheet" href="/static/style.css">'
        script = '<script src="/static/app.js" defer></script>'
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{TITLES[mode]}</title>
<link rel="icon" href="data:,">
{style}
</head>
<body data-mode="{mode}">
<header class="top"><a class="brand" href="{'/' if not inline else '#'}">All Fives</a>
<span id="subtitle"></span></header>
<main id="app" aria-live="polite"><noscript>This page needs JavaScript.</noscript></main>
<script type="application/json" id="boot">{boot_json(boot)}</script>
{script}
</body>
</html>
"""


def replay_file_html(data) -> str:
    """One self-contained HTML file replaying a game: the replay page with its data and assets inlined."""
    return page_html("replay", {"replay": data, "offline": True}, inline=True)
