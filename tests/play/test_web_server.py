"""`allfives serve` through Starlette's test client: whole games, refused requests that change nothing,
games side by side, record uploads; the command itself and `replay --html`."""

import json
import socket
import subprocess
import sys
import threading
import urllib.request

import numpy as np
import pytest
from starlette.testclient import TestClient
from support import serve_in_thread

from allfives_env.arena import run_match
from allfives_env.play.web.app import MAX_SEED, create_app
from allfives_env.play.web.replays import MAX_RECORD_BYTES
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.record import parse_records, replay

LOCAL = "http://127.0.0.1"
RECORD_FILE = {"content-type": "application/octet-stream"}
JSON = {"content-type": "application/json"}


def _client(players=2, agents=("greedy", "heuristic", "random"), target=None):
    app = create_app(RulesConfig(num_players=players, target=target), list(agents))
    return TestClient(app, base_url=LOCAL), app


def _engine(app, view):
    return app.state.store.get(view["id"]).game


def _play_to_the_end(client, app, view, rng, check=None):
    """Drive a game through the API (random legal person moves); returns the last view."""
    while view["waiting_for"] != "over":
        if check:
            check(view)
        if view["waiting_for"] == "person":
            move = view["moves"][int(rng.integers(len(view["moves"])))]
            response = client.post(f"/api/games/{view['id']}/move", json={"version": view["version"], "action": move["action"]})
        else:
            response = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_through_the_api_matches_the_engine_and_its_record(players):
    client, app = _client(players, target=100)
    body = {"mode": "play", "seat": 1, "opponents": ["greedy"], "seed": 9}
    if players == 4:
        body["partner"] = "heuristic"
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    view = response.json()

    def check(view):
        game = _engine(app, view)
        assert [m["action"] for m in view["moves"]] == (list(game.legal_actions()) if view["waiting_for"] == "person" else [])
        assert view["count"] == game.count and [s["score"] for s in view["sides"]] == game.scores

    final = _play_to_the_end(client, app, view, np.random.default_rng(players), check)
    game = _engine(app, final)
    assert final["game_over"] and final["winners"] == list(game.winners)
    record_text = client.get(f"/api/games/{final['id']}/record").text
    assert final["seed"] == 9 and final["record_ready"]
    [record] = parse_records(record_text.encode().splitlines(), "download")
    assert replay(record).scores == game.scores == [s["score"] for s in final["sides"]]
    expected_seats = {2: ["greedy", "human"], 3: ["greedy", "human", "greedy"],
                      4: ["greedy", "human", "greedy", "heuristic"]}[players]  # the partner sits opposite
    assert record["seats"] == expected_seats
    assert "Game over" in final["happened"][-1]


def test_a_watched_game_advances_one_turn_at_a_time_to_its_end():
    client, app = _client(4, target=60)
    view = client.post("/api/games", json={"mode": "watch", "agents": ["greedy", "heuristic"], "seed": 2}).json()
    assert view["viewer"] is None and set(view["hands"]) == {"0", "1", "2", "3"}
    turns = 0
    while view["waiting_for"] != "over":
        seat = view["to_move"]
        before = len(_engine(app, view).events)
        view = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]}).json()
        events = _engine(app, view).events
        if view["waiting_for"] in ("agent", "over") and seat is not None and len(events) > before:
            assert {e[0] for e in events[before:]} == {seat}  # one seat's turn: its draws, then its play
            turns += 1
    assert turns > 10 and view["game_over"]


def _start(client, seat=0, seed=4):
    return client.post("/api/games", json={"mode": "play", "seat": seat, "opponents": ["greedy"], "seed": seed}).json()


def _unchanged(client, app, view):
    """The game still is exactly at ``view``."""
    now = client.get(f"/api/games/{view['id']}").json()
    assert now == view
    return now


def test_refused_moves_say_why_and_change_nothing():
    client, app = _client()
    view = _start(client)
    while view["waiting_for"] != "person":  # the agent may lead
        view = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]}).json()
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(112) if a not in legal)
    cases = [
        ({"version": view["version"], "action": illegal}, 400, "is not a legal move here; legal:"),
        ({"version": view["version"] + 5, "action": min(legal)}, 409, "is not a version of this game, which is at"),
        ({"version": view["version"], "action": "3"}, 400, "'action' is \"3\""),
        ({"version": view["version"], "action": 999}, 400, "allowed: an action id 0..113"),
        ({"version": view["version"], "action": True}, 400, "'action' is true"),
        ({"version": -1, "action": min(legal)}, 400, "'version' is -1"),
        ({"action": min(legal)}, 400, "'version' is missing"),
        ({"version": view["version"]}, 400, "'action' is missing; allowed: an action id 0..113"),
        ({"version": view["version"], "action": min(legal), "seat": 1}, 400, "no field 'seat'"),
    ]
    for body, status, words in cases:
        response = client.post(f"/api/games/{view['id']}/move", json=body)
        assert response.status_code == status and words in response.json()["error"], (body, response.text)
        _unchanged(client, app, view)
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe", b"[" * 50_000):
        response = client.post(f"/api/games/{view['id']}/move", content=raw, headers=JSON)
        assert response.status_code in (400, 413) and response.json()["error"], raw[:10]
        _unchanged(client, app, view)
    response = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]})
    assert response.status_code == 409 and "waits for your move" in response.json()["error"]
    _unchanged(client, app, view)
    # after the person's move the agent is to play: a move now is refused, an old version too
    moved = client.post(f"/api/games/{view['id']}/move", json={"version": view["version"], "action": min(legal)}).json()
    if moved["waiting_for"] == "agent":
        response = client.post(f"/api/games/{view['id']}/move", json={"version": moved["version"], "action": 0})
        assert response.status_code == 409 and "not your move" in response.json()["error"]
    response = client.post(f"/api/games/{view['id']}/move", json={"version": view["version"], "action": min(legal)})
    assert response.status_code == 409 and "moved on" in response.json()["error"]
    _unchanged(client, app, moved)
    assert client.get("/api/games/nope").status_code == 404
    response = client.get("/api/games/" + "a" * 20_000)
    assert response.status_code == 404 and len(response.json()["error"]) < 300
    response = client.post(f"/api/games/{view['id']}/move", content=b"{not json", headers=JSON)
    assert "send a JSON object with the fields action, version" in response.json()["error"]
    response = client.post("/api/games", content=b"{not json", headers=JSON)
    assert "with the fields agents, mode, opponents, partner, seat, seed" in response.json()["error"]


@pytest.mark.parametrize("method, path, allowed", [("GET", "/api/games", "POST"), ("PUT", "/api/games/x/move", "POST"),
                                                   ("DELETE", "/api/options", "GET")])
def test_a_wrong_method_is_answered_with_the_allowed_ones(method, path, allowed):
    client, _ = _client()
    response = client.request(method, path)
    assert response.status_code == 405 and allowed in response.headers["allow"]
    assert response.json()["error"] == f"{method} is not allowed here; allowed: {response.headers['allow']}"


class FailingAgent:
    """Plays the first legal action, then fails in the way ``how`` says from its ``after``-th choice."""

    def __init__(self, how="raise", after=2):
        self.how, self.after, self.calls = how, after, 0

    def reset(self, seat, config, rng):
        pass

    def act(self, view, legal_actions):
        self.calls += 1
        if self.calls > self.after:
            if self.how == "raise":
                raise RuntimeError("the model file\nvanished")
            return 999
        return legal_actions[0]


@pytest.mark.parametrize("how, words", [("raise", "failed in act(): RuntimeError: the model file vanished;"),
                                        ("illegal", "chose an illegal action 999; legal:")])
def test_an_agent_that_fails_is_named_in_one_json_line_and_nothing_it_chose_is_played(how, words):
    client, app = _client(agents=("greedy", "random"))
    response = client.post("/api/games", json={"mode": "watch", "agents": ["greedy", "random"], "seed": 1})
    view = response.json()
    web = app.state.store.get(view["id"])
    web.table.agents[0] = FailingAgent(how)  # seat 0's agent fails from its third real choice
    for _ in range(1000):
        before = (web.version, list(web.game.events))
        response = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]})
        if response.status_code != 200:
            break
        view = response.json()
    assert response.status_code == 500 and response.headers["content-type"] == "application/json"
    message = response.json()["error"]
    assert words in message and "the agent at seat 0 (greedy)" in message and "\n" not in message
    assert "cannot go on with it, start a new one" in message
    # what the agent never chose was not played: only its forced draws, if any, moved the game
    played = web.game.events[len(before[1]):]
    assert all(event[1] == 112 for event in played)
    assert web.version == before[0] + len(played)
    assert client.get(f"/api/games/{view['id']}").status_code == 200  # the game can still be read


def test_a_request_can_only_choose_the_servers_agents_and_nothing_is_imported(tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    (tmp_path / "planted_agent.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Agent:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    client, app = _client()
    before = len(app.state.store)
    for spec in ("planted_agent:Agent", "os:path", "ppo:/etc/passwd", f"ppo:{tmp_path}/x.pt", "search:samples=1000",
                 "greedy ", 7):
        response = client.post("/api/games", json={"mode": "play", "opponents": [spec]})
        assert response.status_code == 400, spec
        assert "not one of this server's agents; allowed: greedy, heuristic, random" in response.json()["error"]
    for body, words in [({"mode": "fly"}, "'mode' is \"fly\""), ({}, "'mode' missing; allowed: 'play'"),
                        ({"mode": None}, "'mode' is null; allowed: 'play'"), ({"mode": "play", "seat": 2}, "'seat' is 2"),
                        ({"mode": "play", "seed": -3}, "'seed' is -3"), ({"mode": "play", "seed": "1"}, "'seed' is \"1\""),
                        ({"mode": "play", "partner": "greedy"}, "only for 4 players"),
                        ({"mode": "play", "opponents": []}, "a non-empty list"),
                        ({"mode": "watch", "agents": ["greedy"] * 3}, "3 agent specs for 2 players"),
                        ({"mode": "watch", "seat": 0}, "no field 'seat'"),
                        ({"mode": "play", "path": "x"}, "no field 'path'"),
                        ({"mode": "play", "target": 50}, "its fields: mode, opponents, partner, seat, seed")]:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400 and words in response.json()["error"], (body, response.text)
    assert not marker.exists() and "planted_agent" not in sys.modules
    assert len(app.state.store) == before


def test_null_means_the_default_for_every_optional_field():
    client, app = _client()
    for body in ({"mode": "play", "seat": None, "opponents": None, "partner": None, "seed": None},
                 {"mode": "watch", "agents": None, "seed": None}):
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        defaults = client.post("/api/games", json={"mode": body["mode"]}).json()
        assert response.json()["seat_specs"] == defaults["seat_specs"]


def test_a_persons_game_keeps_its_record_and_seed_until_it_is_over():
    client, app = _client(target=60)
    view = _start(client, seed=5)
    assert view["seed"] is None and not view["record_ready"]  # the seed would rebuild every hand
    early = client.get(f"/api/games/{view['id']}/record")
    assert early.status_code == 409 and "ready when the game is over" in early.json()["error"]
    final = _play_to_the_end(client, app, view, np.random.default_rng(1))
    assert final["seed"] == 5 and client.get(f"/api/games/{final['id']}/record").status_code == 200
    watched = client.post("/api/games", json={"mode": "watch", "seed": 4}).json()
    assert watched["seed"] == 4 and client.get(f"/api/games/{watched['id']}/record").status_code == 200


def test_reads_during_agent_turns_never_show_a_half_done_turn_or_a_drawn_tile():
    """A real server, one thread playing, two polling: every view is of a whole position, and a seated
    person is never told the tile an agent drew and must play."""
    app = create_app(RulesConfig(num_players=2, target=150), ["search:engine=compiled"])
    views, stop = [], threading.Event()
    with serve_in_thread(app) as url:
        def call(method, path, body=None):
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(url + path, data=data, method=method, headers=JSON)
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.load(response)

        view = call("POST", "/api/games", {"mode": "play", "seat": 0, "seed": 17})

        def poll():
            while not stop.is_set():
                views.append(call("GET", f"/api/games/{view['id']}"))

        pollers = [threading.Thread(target=poll) for _ in range(2)]
        for poller in pollers:
            poller.start()
        try:
            rng = np.random.default_rng(2)
            while view["waiting_for"] != "over":
                if view["waiting_for"] == "person":
                    move = view["moves"][int(rng.integers(len(view["moves"])))]
                    view = call("POST", f"/api/games/{view['id']}/move", {"version": view["version"], "action": move["action"]})
                else:
                    view = call("POST", f"/api/games/{view['id']}/advance", {"version": view["version"]})
        finally:
            stop.set()
            for poller in pollers:
                poller.join(timeout=60)
    drew = [v for v in views if v["to_move"] == 1 and any("player_1 (search:engine=compiled) drew" in t for t in v["happened"][-1:])]
    assert len(views) > 50
    for seen in views:
        if seen["to_move"] == 1:
            assert seen["must_play"] is None and seen["moves"] == []
            assert seen["waiting_for"] == "agent"
        assert set(seen["hands"]) == ({"0"} if not seen["hand_over"] else {"0", "1"})
    assert drew == []  # the agent's draws and play are one turn: no view between them


def test_requests_another_site_could_send_are_refused():
    client, app = _client()
    foreign = client.post("/api/games", json={"mode": "play"}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403 and "this server answers its own pages only" in foreign.json()["error"]
    as_text = client.post("/api/games", content=b'{"mode": "play"}', headers={"content-type": "text/plain"})
    assert as_text.status_code == 415 and "send it as 'application/json'" in as_text.json()["error"]
    as_form = client.post("/api/replays", content=b"x=1", headers={"content-type": "application/x-www-form-urlencoded"})
    assert as_form.status_code == 415
    own = client.post("/api/games", json={"mode": "play"}, headers={"origin": LOCAL})
    assert own.status_code == 201
    assert len(app.state.store) == 1


def test_the_server_only_answers_to_local_host_names_and_sends_a_content_policy():
    client, _ = _client()
    page = client.get("/")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    assert '"agents":["greedy","heuristic","random"]' in page.text
    assert client.get("/static/app.js").status_code == 200
    rebound = TestClient(client.app, base_url="http://evil.example")
    refused = rebound.get("/api/options")
    assert refused.status_code == 400  # as every refusal of the API, one line of JSON (was plain text)
    assert refused.json() == {"error": "Host 'evil.example' is not allowed; allowed: 127.0.0.1, localhost, [::1] "
                                       "(this server answers its own machine only)"}
    for name in ("127.0.0.1.evil.example", "localhost.evil.example:8000"):
        assert client.get("/api/options", headers={"host": name}).status_code == 400
    assert rebound.get("/").status_code == 400 and "is not allowed" in rebound.get("/").text
    for name in ("localhost:8000", "LOCALHOST", "[::1]:80", "127.0.0.1"):
        assert client.get("/api/options", headers={"host": name}).status_code == 200, name


def test_games_side_by_side_keep_their_own_state():
    client, app = _client(target=120)
    views = [_start(client, seat=k % 2, seed=100 + k) for k in range(4)]
    assert len({json.dumps(v["hands"]) for v in views}) == 4  # four different deals
    results, errors = {}, []

    def run(view, k):
        try:
            results[k] = _play_to_the_end(client, app, view, np.random.default_rng(k))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(view, k)) for k, view in enumerate(views)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and len(results) == 4
    for k, final in results.items():
        record = json.loads(client.get(f"/api/games/{final['id']}/record").text)
        assert record["deal_seed"] == [100 + k]
        assert replay(record).scores == [s["score"] for s in final["sides"]]


def test_a_full_store_drops_the_least_recently_used_game():
    app = create_app(RulesConfig(num_players=2), ["greedy"], capacity=2)
    client = TestClient(app, base_url=LOCAL)
    first, second = _start(client, seed=1), _start(client, seed=2)
    client.get(f"/api/games/{first['id']}")  # first is now the more recent
    _start(client, seed=3)
    assert client.get(f"/api/games/{first['id']}").status_code == 200
    gone = client.get(f"/api/games/{second['id']}")
    assert gone.status_code == 404 and "keep the last 2" in gone.json()["error"]


def _record_bytes(tmp_path, players=2, games=2):
    path = tmp_path / "g.jsonl"
    specs = ["greedy", "heuristic", "random"][: 2 if players == 4 else players]
    run_match(RulesConfig(num_players=players, target=60), specs, games, seed=3, records_path=path)
    return path.read_bytes()


def test_an_uploaded_record_replays_and_a_bad_one_is_refused(tmp_path):
    client, _ = _client()
    data = _record_bytes(tmp_path)
    response = client.post("/api/replays?game=2", content=data, headers=RECORD_FILE)
    assert response.status_code == 200, response.text
    replayed = response.json()
    assert replayed["game"] == 2 and replayed["games_in_file"] == 2 and "Record check passed" in replayed["check"]
    tampered = json.loads(data.splitlines()[0])
    tampered["scores"][0] += 5
    cases = [
        ("/api/replays?game=1", json.dumps(tampered).encode(), 400, "Record check failed: the game replays to scores"),
        ("/api/replays?game=3", data, 400, "game 3 is out of range; the uploaded file holds games 1..2"),
        ("/api/replays?game=0", data, 400, "allowed: a game number from 1"),
        ("/api/replays?game=x", data, 400, "allowed: a game number from 1"),
        ("/api/replays?game=" + "9" * 4301, data, 400, "allowed: a game number from 1"),  # was a 500
        ("/api/replays", b'{"scores": [' + b"9" * 5000 + b"]}", 400, "line 1: holds a number too long to read"),
        ("/api/replays", b"hello\n", 400, "line 1: not valid JSON"),
        ("/api/replays", b"\x89PNG\r\n", 400, "line 1: not text"),
        ("/api/replays", b"", 400, "holds no game records"),
        ("/api/replays", b" " * (MAX_RECORD_BYTES + 1), 413, "over the limit"),
        ("/api/replays", json.dumps({**tampered, "seats": 5}).encode(), 400, "'seats' is 5; expected a list of texts"),
        ("/api/replays", json.dumps({**tampered, "seats": None}).encode(), 400, "'seats' is null"),
        ("/api/replays", json.dumps({**tampered, "scores": [10**400, 0]}).encode(), 400, "'scores' is"),
        ("/api/replays", b'{"config": {}, "hands": [], "scores": [NaN], "winners": []}', 400, "'hands' is []"),
    ]
    for url, body, status, words in cases:
        response = client.post(url, content=body, headers=RECORD_FILE)
        assert response.status_code == status and words in response.json()["error"], (url, response.text)
    with_bom = client.post("/api/replays", content=b"\xef\xbb\xbf" + data, headers=RECORD_FILE)  # a Windows editor's file
    assert with_bom.status_code == 200, with_bom.text


# ------------------------------------------------------------------ the commands
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "allfives_env.cli", *args], capture_output=True, text=True, timeout=120)


def test_serve_starts_a_local_server_and_refuses_a_bad_start():
    proc = subprocess.Popen([sys.executable, "-m", "allfives_env.cli", "serve", "--port", "0", "--agents", "greedy",
                             "random"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("All Fives on http://127.0.0.1:"), line + proc.stderr.read()
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/options", timeout=30) as response:
            options = json.load(response)
        assert options["agents"] == ["greedy", "random"] and options["players"] == 2
        with urllib.request.urlopen(url, timeout=30) as response:
            assert b'id="boot"' in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    bad = _cli("serve", "--agents", "os:path")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no class named 'path'" in bad.stderr
    bad = _cli("serve", "--port", "70000")
    assert bad.returncode == 2 and "allowed: a port 0..65535" in bad.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        bad = _cli("serve", "--port", str(port))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert f"cannot listen on --host 127.0.0.1 --port {port}" in bad.stderr
    assert "(0: any free one)" in bad.stderr


def test_replay_html_writes_one_self_contained_page(tmp_path):
    (tmp_path / "g.jsonl").write_bytes(_record_bytes(tmp_path, players=3))
    out = tmp_path / "game.html"
    proc = _cli("replay", str(tmp_path / "g.jsonl"), "--game", "2", "--html", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Record check passed" in proc.stdout and "positions" in proc.stdout
    page = out.read_text()
    assert "<script src=" not in page and 'rel="stylesheet"' not in page  # scripts and styles inlined
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    boot = json.loads(page.split('<script type="application/json" id="boot">')[1].split("</script>")[0])
    games = len((tmp_path / "g.jsonl").read_text().splitlines())  # whole rotations: at least 2
    assert boot["offline"] and boot["replay"]["game"] == 2 and boot["replay"]["games_in_file"] == games
    record_name = _cli("replay", str(tmp_path / "g.jsonl"), "--html", str(tmp_path / "g.jsonl"))
    assert record_name.returncode == 2 and "does not end in .html or .htm" in record_name.stderr
    (tmp_path / "g.html").write_bytes((tmp_path / "g.jsonl").read_bytes())
    same = _cli("replay", str(tmp_path / "g.html"), "--html", str(tmp_path / "g.html"))
    assert same.returncode == 2 and "is the record file itself" in same.stderr
    missing = _cli("replay", str(tmp_path / "g.jsonl"), "--html", str(tmp_path / "no" / "x.html"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["hands"][0]["actions"][0] = 113
    (tmp_path / "bad.jsonl").write_text(json.dumps(record) + "\n")
    bad = _cli("replay", str(tmp_path / "bad.jsonl"), "--html", str(tmp_path / "bad.html"))
    assert bad.returncode == 2 and "Record check failed: hand 1, step 1" in bad.stderr
    assert not (tmp_path / "bad.html").exists()


def test_a_game_to_the_highest_target_replays_as_a_page_and_a_longer_one_is_named_too_long(tmp_path, monkeypatch,
                                                                                           capsys):
    """A game to --target 10,000 (about 5,100 positions) was refused as 'Record check failed' by the 5,000
    positions a page held, though the terminal replay passed it, and so was the server's own game's replay link."""
    from allfives_env.cli import main
    from allfives_env.play.web import replays

    records = tmp_path / "long.jsonl"
    run_match(RulesConfig(num_players=2, target=10_000), ["greedy", "random"], 2, seed=0, records_path=str(records))
    record = parse_records(records.read_bytes().splitlines(), "long.jsonl")[0]
    positions = sum(len(hand["actions"]) + 1 for hand in record["hands"])
    assert positions > 5_000
    assert main(["replay", str(records), "--html", str(tmp_path / "long.html")]) == 0
    assert f"{positions} positions; Record check passed" in capsys.readouterr().out
    monkeypatch.setattr(replays, "MAX_REPLAY_POSITIONS", 1_000)
    assert main(["replay", str(records), "--html", str(tmp_path / "again.html")]) == 2
    err = capsys.readouterr().err
    assert f"the game has {positions:,} positions; a replay page holds at most 1,000" in err
    assert "Record check failed" not in err and not (tmp_path / "again.html").exists()


def test_serve_without_the_web_extra_says_how_to_install_it(monkeypatch, capsys):
    from allfives_env.cli import main

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if the web extra were not installed
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs 'uvicorn'" in err and 'pip install -e ".[web]"' in err


class SeatZeroOnly:
    """An agent that plays seat 0 only: the server's start-up check seats it there and passes."""

    def reset(self, seat, config, rng):
        if seat != 0:
            raise RuntimeError("built for seat 0")

    def act(self, view, legal_actions):
        return legal_actions[0]


def test_an_agent_that_cannot_sit_at_its_seat_is_named_in_one_json_line():
    spec = f"{__name__}:SeatZeroOnly"
    client, app = _client(agents=(spec, "greedy"))
    response = client.post("/api/games", json={"mode": "watch", "agents": ["greedy", spec], "seed": 1})
    assert response.status_code == 500 and response.headers["content-type"] == "application/json"
    message = response.json()["error"]
    assert "(seat 1) failed in reset(): RuntimeError: built for seat 0" in message and "\n" not in message
    assert message.endswith("this game cannot start with it")


def test_the_next_deal_is_a_new_version_and_a_stale_advance_is_refused():
    client, app = _client(target=200)
    view = client.post("/api/games", json={"mode": "watch", "agents": ["greedy", "random"], "seed": 3}).json()
    while view["waiting_for"] != "next_hand":
        assert view["waiting_for"] == "agent"
        view = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]}).json()
    dealt = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]})
    assert dealt.status_code == 200 and dealt.json()["version"] == view["version"] + 1
    assert dealt.json()["waiting_for"] == "agent"
    again = client.post(f"/api/games/{view['id']}/advance", json={"version": view["version"]})
    assert again.status_code == 409 and "moved on" in again.json()["error"]


@pytest.mark.parametrize("body", [
    {"mode": "play", "opponents": ["greedy", "planted_agent2:Agent"]},
    {"mode": "watch", "agents": ["random", "greedy", "planted_agent2:Agent"]},
])
def test_every_spec_of_a_list_must_be_one_of_the_servers_agents(tmp_path, monkeypatch, body):
    marker = tmp_path / "imported"
    (tmp_path / "planted_agent2.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Agent:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    client, app = _client(players=3)
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and "not one of this server's agents" in response.json()["error"]
    assert not marker.exists() and "planted_agent2" not in sys.modules and len(app.state.store) == 0


def test_the_largest_seed_starts_a_game_and_one_more_is_refused():
    """'seed' is "a whole number 0..MAX_SEED" (2**63 - 1), both ends included.
    Catches (app.py _make_game: ``seed <= MAX_SEED`` -> ``seed < MAX_SEED``)."""
    client, _ = _client(agents=("greedy", "random"))
    response = client.post("/api/games", json={"mode": "watch", "seed": MAX_SEED})
    assert response.status_code == 201, response.text
    assert response.json()["seed"] == MAX_SEED
    refused = client.post("/api/games", json={"mode": "watch", "seed": MAX_SEED + 1})
    assert refused.status_code == 400 and f"0..{MAX_SEED}" in refused.json()["error"]


def test_a_game_number_of_eighteen_digits_is_read(tmp_path):
    """``?game=`` takes a whole number of up to 18 ASCII digits (leading zeros included).
    Catches (app.py _is_digits: ``len(text) <= MAX_DIGITS`` -> ``< MAX_DIGITS``)."""
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=60), ["greedy", "random"], 2, seed=3, records_path=path)
    client, _ = _client(agents=("greedy", "random"))
    headers = {"content-type": "application/octet-stream"}
    response = client.post("/api/replays?game=" + "0" * 17 + "2", content=path.read_bytes(), headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["game"] == 2
    too_long = client.post("/api/replays?game=" + "0" * 18 + "2", content=path.read_bytes(), headers=headers)
    assert too_long.status_code == 400 and "allowed: a game number from 1" in too_long.json()["error"]
