"""Play, watch and replay All Fives in a browser (``allfives serve``, ``allfives replay --html``).

:mod:`.views` turns a position into the data a page draws (only what its viewer
may see), :mod:`.games` keeps the server's games, :mod:`.replays` turns a
record into a replay page's data, :mod:`.pages` writes the HTML and
:mod:`.app` is the Starlette application. The pages draw with
``static/app.js``; every rule stays in the engine. Only :mod:`.app` needs the
``web`` extra (Starlette and uvicorn).
"""
