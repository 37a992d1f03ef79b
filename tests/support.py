"""Helpers shared by test modules (tests/ is on sys.path through conftest.py)."""

import importlib.util
import sys
from pathlib import Path

import numpy as np

from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.actions import DRAW
from allfives_env.rules.tiles import mask_to_tiles, tile_index

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative_path):
    """A script of ``examples/`` or ``benchmarks/`` (``relative_path`` from the checkout's root) as a module,
    its folder on the path as when it is run (vector_speed imports aec_speed)."""
    path = ROOT / relative_path
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"script_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def deal_with(num_players, first_hands, leader=0, boneyard=None, **rules):
    """Hands for the first seats as given (tile names like "1|4"), the rest filled
    in ascending tile order; returns (hands, boneyard) as tile-id lists."""
    config = RulesConfig(num_players=num_players, **rules)
    size = config.tiles_per_hand
    hands = [[tile_index(*map(int, name.split("|"))) for name in hand] for hand in first_hands]
    used = {t for hand in hands for t in hand}
    if boneyard is not None:
        boneyard = [tile_index(*map(int, name.split("|"))) for name in boneyard]
        used |= set(boneyard)
    rest = [t for t in range(28) if t not in used]
    while len(hands) < num_players:
        hand = [t for t in rest if t not in {x for h in hands for x in h}][: size]
        hands.append(hand)
    for hand in hands:
        while len(hand) < size:
            hand.append(next(t for t in rest if t not in {x for h in hands for x in h}))
    if boneyard is None:
        dealt = {t for h in hands for t in h}
        boneyard = [t for t in range(28) if t not in dealt]
    return hands, boneyard


def random_states(num_players, games, seed, **rules):
    """Yield (game, rng) at every decision of seeded random games."""
    config = RulesConfig(num_players=num_players, **rules)
    rng = np.random.default_rng(seed)
    game = Game(config)
    for _ in range(games):
        game.start_game(rng)
        while not game.game_over:
            if game.hand_over:
                game.start_next_hand(rng)
                continue
            yield game, rng
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])


def paired_positions(options, seed, hands_to_play):
    """Yield ``(game, venv)`` at every decision of random play over a few hands: a Python game and a
    one-game batched env with the same deals, the same moves and scores drawn below the target."""
    rng = np.random.default_rng(seed)
    from allfives_env.vector import VectorAllFives

    venv = VectorAllFives(num_envs=1, **options)
    venv.reset(seed=seed)
    config = venv.config
    game = Game(config)
    for _ in range(hands_to_play):
        target = config.target_points
        scores = [float(x) for x in rng.integers(0, int(0.9 * target), size=config.num_sides) // 5 * 5]
        game.start_game(rng, scores=scores)
        hands = [mask_to_tiles(h) for h in game.hands]
        venv.set_position([0], [hands], [list(game.boneyard)], [game.leader], [scores])
        while not game.hand_over:
            yield game, venv
            legal = game.legal_actions()
            action = int(legal[int(rng.integers(len(legal)))])
            game.step(action)
            venv.step(np.array([action]))


def placements(game):
    """The legal placements (no draw or pass) of the seat to move."""
    return [a for a in game.legal_actions() if a < DRAW]


def serve_in_thread(app, wait_s=30.0):
    """Run ``app`` on a real local server (uvicorn in a thread, a free port) as a context manager
    that yields its URL: for tests that need real concurrent requests or a real browser."""
    import contextlib
    import socket
    import threading
    import time

    import uvicorn

    @contextlib.contextmanager
    def running():
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + wait_s
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started, "the test server did not start"
        try:
            yield f"http://127.0.0.1:{sock.getsockname()[1]}"
        finally:
            server.should_exit = True
            thread.join(timeout=wait_s)

    return running()


def plus_look_ahead(search_values, leaf_result, legal, points_per_return):
    """The champion's sum: each action's search value plus the look-ahead's value of it in points."""
    placements_, values = leaf_result
    by_action = dict(zip(placements_.tolist(), values.tolist()))
    return [w + points_per_return * by_action[a] for w, a in zip(search_values, legal)]


def assert_refused_in_one_line(main, args, tmp_path, capsys, message):
    """``main(args)`` (``{tmp}`` in an argument is ``tmp_path``) exits 2 with one stderr line holding
    ``message``, and writes nothing into ``tmp_path``."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def run_cli(capsys, *argv):
    """``(status, stdout, stderr)`` of ``allfives argv`` run in this process."""
    from allfives_env.cli import main

    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err
