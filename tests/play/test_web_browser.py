"""The browser pages in a real browser: headless Chromium driven by Selenium plays a whole game by clicking
(and by the keyboard), watches one, replays a record from the server and from a self-contained file, and
checks what each page shows against the engine. Screenshots go to ``$ALLFIVES_SCREENSHOTS`` (the docs'
pictures come from there) or to a temporary folder.

Needs Debian's ``chromium`` and ``chromium-driver`` (``scripts/setup.sh`` installs them with apt-get), or
``CHROMIUM`` and ``CHROMEDRIVER`` naming a Chromium and its driver."""

import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait
from support import serve_in_thread

from allfives_env.arena import run_match
from allfives_env.cli import main as allfives
from allfives_env.play.narrate import format_points, narrate_hand_end
from allfives_env.play.web.app import create_app
from allfives_env.play.web.replays import replay_data
from allfives_env.rules.actions import DRAW
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.record import read_records
from allfives_env.rules.scoring import points_for_count
from allfives_env.rules.tiles import mask_to_tiles

WAIT_S = 30
DESKTOP, PHONE = (1280, 1000), (390, 844)


def _chromium_paths():
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not binary or not driver:
        pytest.fail("the browser tests need Chromium and ChromeDriver: scripts/setup.sh installs Debian's chromium "
                    "and chromium-driver with apt-get (as root); elsewhere set CHROMIUM and CHROMEDRIVER")
    return binary, driver


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    binary, driver = _chromium_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-extensions", "--no-first-run",
                 f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        options.add_argument(flag)
    # Chromium leaves a singleton-socket folder in TMPDIR on every run: keep it in pytest's own temporary folders
    chrome_tmp = str(tmp_path_factory.mktemp("chromium"))
    chrome = webdriver.Chrome(service=Service(driver, env={**os.environ, "TMPDIR": chrome_tmp}), options=options)
    yield chrome
    chrome.quit()


@pytest.fixture(scope="module")
def server():
    """A real server (uvicorn in a thread) on a free local port: ``(url, app)``."""
    app = create_app(RulesConfig(num_players=2, target=100), ["greedy", "heuristic", "random"])
    with serve_in_thread(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = Path(os.environ.get("ALLFIVES_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)

    def save(browser, name):
        path = folder / f"{name}.png"
        assert browser.save_screenshot(str(path)), name
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5_000
        return path

    return save


def _wait(browser, condition, what):
    return WebDriverWait(browser, WAIT_S, poll_frequency=0.05).until(lambda _: condition(), message=what)


def _body(browser, key):
    return browser.find_element(By.TAG_NAME, "body").get_attribute(f"data-{key}")


def _settled(browser, web):
    """Wait until the page shows the game's current position and it waits for the person or a deal."""
    def ready():
        with web.lock:
            version, waiting = str(web.version), web.waiting_for()
        shown = _body(browser, "version"), _body(browser, "waiting")
        return waiting if shown == (version, waiting) and waiting != "agent" else None

    return _wait(browser, ready, "the page did not catch up with the game")


def _texts(browser, css, attribute=None):
    found = browser.find_elements(By.CSS_SELECTOR, css)
    return [e.get_attribute(attribute) if attribute else e.text for e in found]


#: everything the checks read off a page, in one round trip
READ_PAGE = """
const all = (css, attr) => Array.from(document.querySelectorAll(css), e => attr ? e.getAttribute(attr) : e.textContent);
const hands = {};
for (const hand of document.querySelectorAll(".hand"))
  hands[hand.dataset.seat] = all(`.hand[data-seat="${hand.dataset.seat}"] .tile`, "data-tile").map(Number);
return {hands, legal: all(".hand.own .tile.legal", "data-tile").map(Number), badges: all(".hand.own .tile.legal .badge"),
        moves: all("#moves button.move", "data-action").map(Number), count: all("#count"), scores: all("#scores .points"),
        boneyard: all("#boneyard"), layout: all("svg.layout g.domino", "data-tile").map(Number), sizes: all(".seat .size")};
"""


def _check_page_against_engine(browser, game, seat, hand_over=False):
    """What the page shows is the engine's position: hands, legal tiles, moves, count, scores, layout."""
    page = browser.execute_script(READ_PAGE)
    seats = range(game.num_players) if hand_over else [seat]
    assert page["hands"] == {str(s): mask_to_tiles(game.hands[s]) for s in seats}  # and no other hand
    legal = [] if hand_over else list(game.legal_actions())
    assert set(page["legal"]) == {a >> 2 for a in legal if a < DRAW}
    assert page["moves"] == legal
    best = {}
    for a in legal:
        if a < DRAW:
            after = game.clone()
            after.step(a)
            best[a >> 2] = max(best.get(a >> 2, 0), points_for_count(after.count, game.divisor))  # R15
    assert page["badges"] == [f"+{format_points(best[t])}" if best[t] else "0" for t in page["legal"]]  # what it would score
    assert page["count"] == [str(game.count)]
    assert page["scores"] == [format_points(x) for x in game.scores]
    assert page["boneyard"] == [str(game.boneyard_left)]
    assert set(page["layout"]) == {t for t in range(28) if game.played_by[t] >= 0}
    assert page["sizes"] == [f"{game.hand_size(s)} tile" + ("" if game.hand_size(s) == 1 else "s")
                             for s in range(game.num_players)]


def _choose(browser, game, rng, turn):
    """Make one legal move through the page: a tile, then an end if it fits more than one; a confirmed draw
    or pass; every third move by the keyboard."""
    legal = list(game.legal_actions())
    action = legal[int(rng.integers(len(legal)))]
    buttons = _texts(browser, "#moves button.move", "data-action")
    if turn % 3 == 2 and len(buttons) <= 9:  # the move's number on the keyboard
        browser.find_element(By.TAG_NAME, "body").send_keys(str(buttons.index(str(action)) + 1))
        return action, "key"
    if action >= DRAW:
        browser.find_element(By.CSS_SELECTOR, f'#moves button[data-action="{action}"]').click()
        return action, "confirm"
    tile, slot = action >> 2, "WENS"[action & 3]
    browser.find_element(By.CSS_SELECTOR, f'.hand.own button.tile[data-tile="{tile}"]').click()
    if sum(1 for a in legal if a >> 2 == tile and a < DRAW) > 1:
        target = _wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, f'.end.target[data-slot="{slot}"]'),
                       "no end to choose")
        assert len(_texts(browser, ".end.target")) == sum(1 for a in legal if a >> 2 == tile)
        target[0].click()
        return action, "end"
    return action, "tile"


def _all_actions(web):
    with web.lock:
        return [a for hand in web.table.recorder.hands for a in hand["actions"]]


def _start_from_home(browser, url, form, fields, seed):
    browser.get(url + "/")
    for select_id, value in fields.items():
        Select(browser.find_element(By.ID, select_id)).select_by_value(value)
    browser.find_element(By.ID, f"{form}-seed").send_keys(str(seed))
    browser.find_element(By.ID, f"start-{form}").click()
    _wait(browser, lambda: "/games/" in browser.current_url and _body(browser, "version"), "no game page")
    return browser.current_url.rsplit("/", 1)[1]


def test_a_person_plays_a_whole_game_by_clicking(browser, server, shots):
    url, app = server
    game_id = _start_from_home(browser, url, "play", {"seat": "1", "opponent-0": "greedy"}, seed=31)
    web = app.state.store.get(game_id)
    Select(browser.find_element(By.ID, "speed")).select_by_index(3)  # agents at the fastest speed
    rng, kinds, turn, hands_seen = np.random.default_rng(5), set(), 0, 0
    while True:
        waiting = _settled(browser, web)
        game = web.game
        if waiting == "over":
            break
        if waiting == "next_hand":
            _check_page_against_engine(browser, game, 1, hand_over=True)
            assert "is over" in browser.find_element(By.ID, "banner").text
            shown = browser.find_element(By.ID, "hand-end").text.splitlines()
            assert shown == narrate_hand_end(game, web.table.names)  # how the hand ended, its pips and bonus
            if hands_seen == 0:
                shots(browser, "web_play_hand_over")
            hands_seen += 1
            button = browser.find_element(By.ID, "next-hand")
            button.send_keys(Keys.ENTER) if hands_seen % 2 else button.click()
            continue
        _check_page_against_engine(browser, game, 1)
        if turn == 4:
            shots(browser, "web_play")
        before, done = web.version, len(_all_actions(web))
        action, how = _choose(browser, game, rng, turn)
        kinds.add(how)
        _wait(browser, lambda: web.version > before, "the move did not reach the server")
        assert _all_actions(web)[done] == action  # the page sent the move it was asked to make
        turn += 1
    game = web.game
    assert game.game_over and turn > 10 and hands_seen >= 1
    assert _texts(browser, "#scores .points") == [format_points(x) for x in game.scores]
    over = browser.find_element(By.ID, "game-over").text
    assert over.startswith("Game over:") and format_points(game.scores[game.winners[0]]) in over
    assert len(_texts(browser, "#sheet tbody tr")) == game.hand_number + 1
    assert {"tile", "end", "key", "confirm"} <= kinds, kinds
    shots(browser, "web_play_game_over")


def test_a_move_from_a_page_that_is_behind_is_refused_in_the_page(browser, server):
    url, app = server
    game_id = _start_from_home(browser, url, "play", {"seat": "0"}, seed=8)
    web = app.state.store.get(game_id)
    _settled(browser, web)
    while web.waiting_for() != "person":  # make it the person's move
        browser.find_element(By.ID, "next-hand").click()
        _settled(browser, web)
    with web.lock:  # another tab plays the move first
        web.move(web.version, web.game.legal_actions()[0])
        version = web.version
    browser.find_element(By.CSS_SELECTOR, "#moves button.move").click()
    _wait(browser, lambda: "stale request" in browser.find_element(By.ID, "message").text, "no stale message")
    assert web.version == version  # the stale click changed nothing
    _wait(browser, lambda: _body(browser, "version") and int(_body(browser, "version")) >= version, "no refresh")


def test_watching_agents_pause_step_and_run_to_the_end(browser, server, shots):
    url, app = server
    game_id = _start_from_home(browser, url, "watch", {"side-0": "heuristic", "side-1": "greedy"}, seed=12)
    web = app.state.store.get(game_id)
    browser.find_element(By.ID, "pause").click()
    time.sleep(0.3)
    paused_at = web.version
    time.sleep(1.5)
    assert web.version == paused_at  # paused: nothing moves
    for _ in range(3):
        before = int(_body(browser, "version"))
        browser.find_element(By.ID, "step").click()
        _wait(browser, lambda: int(_body(browser, "version")) > before, "step did nothing")
        assert _texts(browser, "#count") == [str(web.game.count)]
        assert len(_texts(browser, ".hand")) == 2  # a spectator sees both hands
    shots(browser, "web_watch")
    Select(browser.find_element(By.ID, "speed")).select_by_index(3)
    browser.find_element(By.ID, "pause").click()
    _wait(browser, lambda: _body(browser, "waiting") == "over", "the watched game did not end")
    assert _texts(browser, "#scores .points") == [format_points(x) for x in web.game.scores]


def _record_file(tmp_path, players=4):
    path = tmp_path / "games.jsonl"
    run_match(RulesConfig(num_players=players, target=80), ["heuristic", "greedy"], 2, seed=21, records_path=path)
    return path


def _check_replay_position(browser, positions, index):
    _wait(browser, lambda: _body(browser, "position") == str(index), f"the replay is not at position {index}")
    view = positions[index]
    assert _texts(browser, "#count") == [str(view["count"])]
    assert _texts(browser, "#scores .points") == [format_points(side["score"]) for side in view["sides"]]
    for seat, tiles in view["hands"].items():
        assert [int(t) for t in _texts(browser, f'.hand[data-seat="{seat}"] .tile', "data-tile")] == [t["tile"] for t in tiles]
    row = [cell["tile"] for cell in view["layout"]["row"]]
    assert [int(t) for t in _texts(browser, "svg.layout g.domino", "data-tile")][: len(row)] == row


def _step_through_replay(browser, data):
    positions, starts = data["positions"], data["hand_starts"]
    _check_replay_position(browser, positions, 0)
    for k in range(1, 4):
        browser.find_element(By.ID, "forward").click()
        _check_replay_position(browser, positions, k)
    browser.find_element(By.ID, "back").click()
    _check_replay_position(browser, positions, 2)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    _check_replay_position(browser, positions, len(positions) - 1)
    body.send_keys(Keys.ARROW_LEFT)
    _check_replay_position(browser, positions, len(positions) - 2)
    body.send_keys(Keys.HOME)
    _check_replay_position(browser, positions, 0)
    Select(browser.find_element(By.ID, "hand")).select_by_value("1")
    _check_replay_position(browser, positions, starts[1])
    browser.find_element(By.ID, "next-hand").click()
    _check_replay_position(browser, positions, starts[2] if len(starts) > 2 else len(positions) - 1)


def test_a_self_contained_replay_file_steps_forward_back_and_jumps(browser, tmp_path, shots):
    path = _record_file(tmp_path)
    out = tmp_path / "replay.html"
    assert allfives(["replay", str(path), "--game", "2", "--html", str(out)]) == 0
    data = replay_data(read_records(path)[1], 2, 2)
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(out.as_uri())
    _wait(browser, lambda: browser.find_elements(By.ID, "check"), "the replay file did not draw")
    assert "Record check passed" in browser.find_element(By.ID, "check").text
    _step_through_replay(browser, data)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.PAGE_DOWN)
    shots(browser, "web_replay_file")
    logs = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not logs, logs  # nothing failed to load: the file needs no server and no network


def test_the_servers_replay_page_opens_an_uploaded_record_and_refuses_a_bad_one(browser, server, tmp_path, shots):
    url, _ = server
    path = _record_file(tmp_path, players=2)
    browser.get(url + "/replay")
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    browser.find_element(By.ID, "open-record").click()
    _wait(browser, lambda: browser.find_elements(By.ID, "check"), "the uploaded record did not open")
    _step_through_replay(browser, replay_data(read_records(path)[0], 1, 2))
    shots(browser, "web_replay")
    record = json.loads(path.read_text().splitlines()[0])
    record["scores"][1] += 10
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(record) + "\n")
    browser.get(url + "/replay")
    browser.find_element(By.ID, "record-file").send_keys(str(bad))
    browser.find_element(By.ID, "open-record").click()
    _wait(browser, lambda: "Record check failed" in browser.find_element(By.ID, "message").text, "no error shown")
    assert not browser.find_elements(By.ID, "check")


def test_the_game_page_fits_a_phone_screen(browser, server, shots):
    url, app = server
    browser.set_window_size(*PHONE)
    try:
        game_id = _start_from_home(browser, url, "play", {"seat": "0"}, seed=3)
        _settled(browser, app.state.store.get(game_id))
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"the page is {overflow}px wider than a phone screen"
        shots(browser, "web_play_phone")
    finally:
        browser.set_window_size(*DESKTOP)


def test_a_seed_past_two_to_the_53_reaches_the_server_and_the_page_exactly(browser, server):
    """A JS number would round 9007199254740993 to ...992: another deal than the one asked for."""
    url, app = server
    seed = 2 ** 53 + 1
    game_id = _start_from_home(browser, url, "watch", {"side-0": "greedy", "side-1": "random"}, seed=seed)
    assert app.state.store.get(game_id).table.seed == seed
    _wait(browser, lambda: f"seed {seed}" in browser.find_element(By.TAG_NAME, "body").text,
          "the page does not show the seed as typed")
