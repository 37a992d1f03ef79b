"""``allfives serve``: the browser app, a Starlette application on the same engine as the terminal.

Routes (every ``/api`` answer is JSON; a refused request is ``{"error": "..."}``
with a 4xx status and changes nothing):

* ``GET /``, ``GET /games/{id}``, ``GET /replay``: the pages (home, a game, the replay viewer);
* ``GET /api/options``: the player count and the agents a game may choose;
* ``POST /api/games``: start a game: ``{"mode": "play", "seat": 0, "opponents": ["greedy"],
  "partner": null, "seed": null}`` or ``{"mode": "watch", "agents": ["greedy", "heuristic"],
  "seed": null}``;
* ``GET /api/games/{id}``: the position; ``POST /api/games/{id}/move`` ``{"version", "action"}``:
  the person's move; ``POST /api/games/{id}/advance`` ``{"version"}``: the next agent's turn or
  the next deal; ``GET /api/games/{id}/record``: the game's record (JSONL);
* ``POST /api/replays?game=K``: a record file in the body; the replay page's data.

A request can only choose among the agent specs the server was started with, by their exact
text: nothing from the network is imported or opened, and an uploaded record is parsed as data
with a size limit (:data:`~allfives_env.play.web.replays.MAX_RECORD_BYTES`).
"""

import json
import random

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import parse_host_header
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ...agents.registry import make_agent
from ...arena.match import check_agents
from ...rules.actions import NUM_ACTIONS
from ...rules.config import is_int
from ..seats import play_seat_specs, watch_seat_specs
from .games import PLAY, WATCH, GameStore, RequestError, WebGame
from .pages import page_html
from .replays import MAX_RECORD_BYTES, pick_record, records_from_upload, replay_data

#: the largest JSON body of a game request
MAX_REQUEST_BYTES = 4_096
#: the pages' scripts and styles come from this server only
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                           "object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_SEED = 2**63 - 1


def check_agent_specs(config, specs) -> list:
    """Build each spec once and seat it in a game of ``config``: a spec that cannot play is
    refused before the server starts, as ``allfives play`` would refuse it."""
    specs = list(dict.fromkeys(specs))
    check_agents(config, specs)
    return specs


class ServerSettings:
    """What a server was started with: the rules, the agent specs a request may choose, the games it keeps."""

    def __init__(self, config, agent_specs, capacity=64, host="127.0.0.1"):
        self.config = config
        self.agent_specs = check_agent_specs(config, agent_specs)
        self.capacity = capacity
        self.host = host

    def options(self):
        n = self.config.num_players
        return {"players": n, "sides": self.config.num_sides, "target": self.config.target_points,
                "agents": self.agent_specs, "seats": list(range(n)), "max_record_bytes": MAX_RECORD_BYTES}


def create_app(config, agent_specs, capacity=64, host="127.0.0.1") -> Starlette:
    """The app: ``agent_specs`` are the only agents a game may choose (checked here, once)."""
    settings = ServerSettings(config, agent_specs, capacity, host)
    store = GameStore(capacity)
    api = _Api(settings, store)
    routes = [
        Route("/", api.page("home")),
        Route("/games/{game_id}", api.page("game")),
        Route("/replay", api.page("replay")),
        Route("/api/options", api.get_options),
        Route("/api/games", api.new_game, methods=["POST"]),
        Route("/api/games/{game_id}", api.get_game),
        Route("/api/games/{game_id}/move", api.move, methods=["POST"]),
        Route("/api/games/{game_id}/advance", api.advance, methods=["POST"]),
        Route("/api/games/{game_id}/record", api.record),
        Route("/api/replays", api.new_replay, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static"),
    ]
    middleware = []
    if host in LOCAL_HOSTS:  # a page on another site cannot reach a local server by a rebound DNS name
        middleware.append(Middleware(LocalHostsOnly))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={RequestError: _refused, HTTPException: _http_error})
    app.state.settings, app.state.store = settings, store
    return app


class LocalHostsOnly:
    """Refuse a request whose Host header names another machine (400): a page on another site cannot reach
    a local server by a rebound DNS name. As every refusal of the API, ``{"error": ...}`` under /api/."""

    ALLOWED = ("127.0.0.1", "localhost", "[::1]")

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            given = Headers(scope=scope).get("host")
            parsed = parse_host_header(given)
            if parsed is None or parsed.host.lower() not in self.ALLOWED:
                text = (f"Host {given!r} is not allowed; allowed: {', '.join(self.ALLOWED)} (this server answers "
                        "its own machine only)")
                api = scope.get("path", "").startswith("/api/")
                response = JSONResponse({"error": text}, 400) if api else Response(text, 400, media_type="text/plain")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refused(request, exc):
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def _http_error(request, exc):
    headers = getattr(exc, "headers", None)  # a 405's Allow names the methods the route takes
    if request.url.path.startswith("/api/"):
        detail = exc.detail
        if exc.status_code == 405 and headers and "Allow" in headers:
            detail = f"{request.method} is not allowed here; allowed: {headers['Allow']}"
        return JSONResponse({"error": detail}, status_code=exc.status_code, headers=headers)
    return Response(f"{exc.status_code}: {exc.detail}", status_code=exc.status_code, media_type="text/plain",
                    headers=headers)


#: The fields of a new game's request, by mode.
PLAY_FIELDS, WATCH_FIELDS = {"mode", "seat", "opponents", "partner", "seed"}, {"mode", "agents", "seed"}


class _Api:
    """The route handlers, over one server's settings and game store."""

    def __init__(self, settings, store):
        self.settings, self.store = settings, store

    def page(self, mode):
        async def handler(request):
            boot = {"options": self.settings.options(), "game_id": request.path_params.get("game_id")}
            return HTMLResponse(page_html(mode, boot), headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})

        return handler

    async def get_options(self, request):
        return JSONResponse(self.settings.options())

    async def new_game(self, request):
        body = await _json_body(request, None)  # its fields depend on its mode: _make_game checks them
        game = await run_in_threadpool(self.store.add, lambda game_id: self._make_game(game_id, body))
        return JSONResponse(game.view(), status_code=201)

    def _make_game(self, game_id, body):
        config = self.settings.config
        mode = body.get("mode")
        seed = body.get("seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        elif not is_int(seed) or not 0 <= seed <= MAX_SEED:
            raise RequestError(f"'seed' is {_shown(seed)}; allowed: null (a fresh deal) or a whole number "
                               f"0..{MAX_SEED}")
        if mode == PLAY:
            _only(body, PLAY_FIELDS, "a play game")
            seat = _given(body, "seat", 0)
            if not is_int(seat) or not 0 <= seat < config.num_players:
                raise RequestError(f"'seat' is {_shown(seat)}; allowed: 0..{config.num_players - 1}")
            opponents = self._chosen(_given(body, "opponents", [self.settings.agent_specs[0]]), "opponents")
            partner = body.get("partner")
            if partner is not None:
                partner = self._chosen([partner], "partner")[0]
            specs = _seats_or_refuse(play_seat_specs, config.num_players, seat, opponents, partner)
            names = [f"You (player_{s})" if spec is None else f"player_{s} ({spec})" for s, spec in enumerate(specs)]
            seat_specs = ["human" if spec is None else spec for spec in specs]
            human = seat
        elif mode == WATCH:
            _only(body, WATCH_FIELDS, "a watch game")
            chosen = self._chosen(_given(body, "agents", [self.settings.agent_specs[0]]), "agents")
            specs = seat_specs = _seats_or_refuse(watch_seat_specs, config.num_players, chosen)
            names = [f"player_{s} ({spec})" for s, spec in enumerate(specs)]
            human = None
        else:
            said = "missing" if "mode" not in body else f"is {_shown(mode)}"
            raise RequestError(f"'mode' {said}; allowed: 'play' (a person against agents) or "
                               "'watch' (agents only)")
        agents = [None if spec is None else make_agent(spec) for spec in specs]
        try:
            return WebGame(game_id, mode, config, agents, names, seat_specs, seed, human)
        except ValueError as exc:  # an agent that cannot sit at this seat: named in one JSON line
            raise RequestError(f"{exc}; this game cannot start with it", 500) from None

    def _chosen(self, specs, key):
        """``specs`` (from a request) checked to be among the server's agents, by their exact text."""
        allowed = self.settings.agent_specs
        if not isinstance(specs, list) or not specs:
            raise RequestError(f"{key!r} is {_shown(specs)}; allowed: a non-empty list of this server's agents "
                               f"({', '.join(allowed)})")
        for spec in specs:
            if spec not in allowed:
                raise RequestError(f"{key!r} names {_shown(spec)}, which is not one of this server's agents; "
                                   f"allowed: {', '.join(allowed)} (start the server with --agents to offer others)")
        return specs

    async def get_game(self, request):
        game = self.store.get(request.path_params["game_id"])
        return JSONResponse(await run_in_threadpool(_locked, game, None))

    async def move(self, request):
        game = self.store.get(request.path_params["game_id"])
        body = await _json_body(request, {"version", "action"})
        version, action = _version(body), body.get("action")
        if "action" not in body:
            raise RequestError(f"'action' is missing; allowed: an action id 0..{NUM_ACTIONS - 1} "
                               "(one of the position's moves)")
        if not is_int(action) or not 0 <= action < NUM_ACTIONS:
            raise RequestError(f"'action' is {_shown(action)}; allowed: an action id 0..{NUM_ACTIONS - 1} "
                               "(one of the position's moves)")
        return JSONResponse(await run_in_threadpool(_locked, game, game.move, version, action))

    async def advance(self, request):
        game = self.store.get(request.path_params["game_id"])
        version = _version(await _json_body(request, {"version"}))
        return JSONResponse(await run_in_threadpool(_locked, game, game.advance, version))

    async def record(self, request):
        game = self.store.get(request.path_params["game_id"])
        text = await run_in_threadpool(_locked_record, game)
        headers = {"Content-Disposition": f'attachment; filename="allfives-{game.id}.jsonl"'}
        return Response(text, media_type="application/x-ndjson", headers=headers)

    async def new_replay(self, request):
        number = request.query_params.get("game", "1")
        if not _is_digits(number) or int(number) < 1:
            raise RequestError(f"game={_shown(number)}; allowed: a game number from 1")
        _check_sender(request, "application/octet-stream")
        data = await _body(request, MAX_RECORD_BYTES, "a record file")
        return JSONResponse(await run_in_threadpool(_replay_upload, data, int(number)))


def _locked(game, change, *args):
    """``change(*args)`` (if any) under the game's lock, then the game's view: a view is never built
    while an agent's turn is half done."""
    with game.lock:
        if change is not None:
            change(*args)
        return game.view()


def _locked_record(game):
    with game.lock:
        return game.record_text()


def _replay_upload(data, number):
    try:
        records = records_from_upload(data)
        record = pick_record(records, number, "the uploaded file")
    except ValueError as exc:
        raise RequestError(str(exc)) from None
    try:
        return replay_data(record, number, len(records))
    except ValueError as exc:
        raise RequestError(f"Record check failed: {exc}") from None


# ------------------------------------------------------------------ request checks
#: The most digits a number in a request is read with (Python refuses to read 4,301 or more).
MAX_DIGITS = 18


def _is_digits(text) -> bool:
    """Whether ``text`` is a whole number of at most :data:`MAX_DIGITS` ASCII digits."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


async def _body(request, limit, what) -> bytes:
    """The request body, refused (413) past ``limit`` bytes without reading the rest."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit():
        readable = _is_digits(declared)  # a size of thousands of digits is over any limit, unread
        if not readable or int(declared) > limit:
            size = f"{int(declared):,} bytes" if readable else f"a size of {len(declared):,} digits"
            raise RequestError(f"{what} of {size} is over the limit of {limit:,} bytes", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(f"{what} over {limit:,} bytes is over the limit", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def _check_sender(request, content_type):
    """Refuse a request another site's page could send: a foreign ``Origin``, or a body that is not
    ``content_type`` (a cross-site form or ``text/plain`` post needs no permission; these types do)."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        raise RequestError(f"a request from {origin} is refused: this server answers its own pages only", 403)
    sent = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if sent != content_type:
        raise RequestError(f"the request body is sent as {sent or 'nothing'!r}; send it as {content_type!r}", 415)


async def _json_body(request, allowed_keys) -> dict:
    """The request's JSON object, with only ``allowed_keys`` (None: the caller checks them)."""
    _check_sender(request, "application/json")
    data = await _body(request, MAX_REQUEST_BYTES, "a request")
    try:
        body = json.loads(data or b"{}")
    except (ValueError, RecursionError):
        fields = sorted(allowed_keys or PLAY_FIELDS | WATCH_FIELDS)
        raise RequestError(f"the request body is not valid JSON; send a JSON object with the fields "
                           f"{', '.join(fields)}") from None
    if not isinstance(body, dict):
        raise RequestError(f"the request body is {_shown(body)}; send a JSON object")
    if allowed_keys is not None:
        _only(body, allowed_keys, "this request")
    return body


def _only(body, allowed, what):
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise RequestError(f"{what} has no field {unknown[0]!r}; its fields: {', '.join(sorted(allowed))}")


def _given(body, key, default):
    """``body[key]``, or ``default`` when it is missing or null (as for ``seed`` and ``partner``)."""
    value = body.get(key)
    return default if value is None else value


def _version(body):
    version = body.get("version")
    if "version" not in body:
        raise RequestError("'version' is missing; allowed: the version of the position the page shows "
                           "(a whole number >= 0)")
    if not is_int(version) or version < 0:
        raise RequestError(f"'version' is {_shown(version)}; allowed: the version of the position the page shows "
                           "(a whole number >= 0)")
    return version


def _seats_or_refuse(seat_specs, *args):
    try:
        return seat_specs(*args)
    except ValueError as exc:
        raise RequestError(str(exc).replace("--seat", "seat").replace("--partner", "partner")) from None


def _shown(value, limit=40):
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
