"""The game cores behind the AEC env: one episode of All Fives, advanced one decision at a time.

The env (:mod:`allfives_env.env`) is a thin adapter: it checks actions, keeps
PettingZoo's dictionaries (rewards, terminations, infos) and turns the points a
step scored into rewards. A *core* does the rest, behind one small contract:

* ``start(rng, position)``: a new episode (``position``: the reset options
  ``hands``/``boneyard``/``leader``/``scores``, validated before anything
  changes); returns the points each side scored while settling (a list).
* ``step(action)``: apply a legal action of the seat to move, resolve forced
  draws and passes when ``auto_forced``, deal the next hand in game episodes
  (hands are dealt with the env's ``numpy.random.Generator``); returns each
  side's points from this step.
* ``running``, ``to_move``; ``masks`` (n_players x 114 int8, only the mover's
  row non-zero, over the bytes of ``mask_bytes``); ``observe(seat)`` (a fresh
  float32 vector); ``scores``, ``game_over``, ``winners``,
  ``hand_start_scores``; ``game``: the :class:`~allfives_env.rules.game.Game`
  as it stands (for rendering, ``state()`` and custom encoders).

Two cores, same games for the same seed (both deal through
:func:`~allfives_env.rules.game.draw_deal`):

* :class:`PythonCore`: the pure-Python engine and any encoder: the reference.
* :class:`CompiledCore`: the numba kernels of :mod:`allfives_env.vector` for one
  game, with the default encoder. Its ``game`` is a mirror brought up to date
  only when asked for (replaying the logged actions and deals), so the hot path
  never runs Python rules code. ``tests/env/test_env_backends.py`` plays both
  side by side and compares every observation, mask, reward and score.
"""

import numpy as np

from ..compiled.aec import AEC_DEAL, AEC_I_CFG, AEC_I_OFF, AEC_I_SIZE, aec_deal, aec_observe, aec_step
from ..compiled.state import GAME_OVER, HAND_OVER, LEAD_TILE, NEXT_LEADER, NUM_FIELDS, TO_MOVE, WINNERS, kernel_config
from ..rules.actions import DRAW, NUM_ACTIONS, PASS
from ..rules.game import Game, draw_deal
from ..rules.tiles import mask_to_tiles
from .encoders import DefaultEncoder

BACKENDS = ("auto", "numba", "python")


def make_core(backend, config, encoder, episode, auto_forced):
    """The core for ``backend``: ``"auto"`` takes the compiled one when the encoder
    is the default one, else the Python one."""
    compiled_ok = type(encoder) is DefaultEncoder
    if backend == "python" or (backend == "auto" and not compiled_ok):
        return PythonCore(config, encoder, episode, auto_forced)
    if not compiled_ok:
        raise ValueError(f"backend='numba' builds only the default encoder's observations, not "
                         f"{type(encoder).__name__}; use backend='python' or 'auto' with this encoder")
    return CompiledCore(config, encoder, episode, auto_forced)


def play_forced(game, gains=None):
    """Play the draws and passes that are the only legal action (C1, C3) until a real decision
    or the hand's end, adding what they score to ``gains`` (per side); the Python twin of
    :func:`allfives_env.compiled.step.play_forced`, and the one auto-forced loop of both cores."""
    while not game.hand_over:
        actions = game.legal_actions()
        if len(actions) != 1 or actions[0] not in (DRAW, PASS):
            return
        game.step(actions[0])
        if gains is not None:
            for side, gained in enumerate(game.step_gain):
                gains[side] += gained


def encoded(encoder, game, seat) -> np.ndarray:
    """``encoder.encode(game, seat)`` as float32, or ValueError when its shape is not ``(encoder.size,)``
    (a custom encoder whose ``size`` is wrong would give observations outside the observation space)."""
    obs = encoder.encode(game, seat)
    if getattr(obs, "shape", None) != (encoder.size,):
        raise ValueError(f"encoder {type(encoder).__name__}.encode returned shape "
                         f"{getattr(obs, 'shape', type(obs).__name__)}; allowed: shape (size,) = ({encoder.size},), "
                         "as its size says")
    return np.asarray(obs, np.float32)


def _mask_buffers(num_players):
    raw = bytearray(num_players * NUM_ACTIONS)
    return raw, _mask_rows(raw, num_players)


def _mask_rows(raw, num_players):
    """The (num_players, 114) int8 view over the mask bytes."""
    return np.frombuffer(raw, np.int8).reshape(num_players, NUM_ACTIONS)


class PythonCore:
    """The pure-Python engine (:class:`~allfives_env.rules.game.Game`) with any encoder."""

    name = "python"

    def __init__(self, config, encoder, episode, auto_forced):
        self.config, self.encoder = config, encoder
        self.hand_episodes = episode == "hand"
        self.auto_forced = bool(auto_forced)
        self.game = Game(config)
        self.mask_bytes, self.masks = _mask_buffers(config.num_players)
        self.rng = None
        self.running = False
        self.to_move = 0
        self._mask_row = -1  # the seat whose mask row is filled

    def __getstate__(self):  # copy.deepcopy and pickle: the masks are a view of mask_bytes, rebuilt
        return {k: v for k, v in self.__dict__.items() if k != "masks"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.masks = _mask_rows(self.mask_bytes, self.config.num_players)

    def start(self, rng, position) -> list:
        self.game.start_game(rng, **position)  # raises on a bad position before changing anything
        self.rng = rng
        gains = [0.0] * self.config.num_sides
        if self.auto_forced:
            gains = self._resolve_forced(gains)
        self._settle()
        return gains

    def step(self, action) -> list:
        game = self.game
        game.step(action)
        gains = game.step_gain
        if self.auto_forced:
            gains = self._resolve_forced(list(gains))
        self._settle()
        return gains

    def observe(self, seat) -> np.ndarray:
        return encoded(self.encoder, self.game, seat)

    @property
    def scores(self) -> tuple:
        return tuple(self.game.scores)

    @property
    def game_over(self) -> bool:
        return self.game.game_over

    @property
    def winners(self) -> tuple:
        return tuple(self.game.winners)

    @property
    def hand_start_scores(self) -> list:
        return list(self.game.hand_start_scores)

    # ---------------------------------------------------------------- inside
    def _episode_over(self) -> bool:
        game = self.game
        return game.game_over or (game.hand_over and self.hand_episodes)

    def _resolve_forced(self, gains):
        """Play single-choice draws and passes (dealing new hands) until a real decision."""
        game = self.game
        while not self._episode_over():
            if game.hand_over:
                game.start_next_hand(self.rng)
            play_forced(game, gains)
            if not game.hand_over:
                break
        return gains

    def _settle(self):
        """Deal on (game episodes), mark the episode's end, move the turn, refresh the mask."""
        game = self.game
        self.running = not self._episode_over()
        if self.running and game.hand_over:  # only without auto_forced: that path deals on itself
            game.start_next_hand(self.rng)
        raw = self.mask_bytes
        if self._mask_row >= 0:
            start = self._mask_row * NUM_ACTIONS
            raw[start:start + NUM_ACTIONS] = bytes(NUM_ACTIONS)
            self._mask_row = -1
        self.to_move = game.to_move
        if self.running:
            start = game.to_move * NUM_ACTIONS
            for action in game.legal_actions():
                raw[start + action] = 1
            self._mask_row = game.to_move


class CompiledCore:
    """One game on the numba kernels (default encoder), with a lazily replayed ``game`` mirror."""

    name = "numba"

    def __init__(self, config, encoder, episode, auto_forced):
        self.config, self.encoder = config, encoder
        self.auto_forced = bool(auto_forced)
        n, sides = config.num_players, config.num_sides
        cfg, fcfg, off = kernel_config(config, encoder.layout, episode, "points", auto_forced)
        # three packed buffers (see compiled.aec.aec_views) and named numpy views into them
        self._ibuf = np.zeros(AEC_I_SIZE, np.int64)
        self._fbuf = np.zeros(3 * sides + 3, np.float64)
        self._bbuf = np.zeros(NUM_FIELDS + n * NUM_ACTIONS, np.int8)
        self._obs = np.zeros((1, encoder.size), np.float32)
        self._link_views()
        self._cfg[:], self._off[:] = cfg, off
        self._fcfg[:] = fcfg
        self._no_gains = [0.0] * sides
        self._scratch = np.zeros((1, encoder.size), np.float32)
        self._no_scores = np.zeros(sides, np.float64)
        self._mirror = Game(config)
        self._log = []  # actions and deals since the mirror was last brought up to date
        self.rng = None
        self.running = False
        self.to_move = 0

    def _link_views(self):
        """The named views into the packed buffers (made again after a copy, which copies the buffers)."""
        n, sides = self.config.num_players, self.config.num_sides
        self._hands = self._ibuf[:8].reshape(1, 8)
        self._cfg = self._ibuf[AEC_I_CFG:AEC_I_OFF]
        self._off = self._ibuf[AEC_I_OFF:]
        self._scores = self._fbuf[:sides].reshape(1, sides)
        self._hstart = self._fbuf[sides:2 * sides].reshape(1, sides)
        self._gains = self._fbuf[2 * sides:3 * sides].reshape(1, sides)
        self._fcfg = self._fbuf[3 * sides:]
        self._st = self._bbuf[:NUM_FIELDS].reshape(1, NUM_FIELDS)
        self.masks = self._bbuf[NUM_FIELDS:].reshape(n, NUM_ACTIONS)
        self.mask_bytes = memoryview(self._bbuf)[NUM_FIELDS:].cast("B")
        self._gains_row = self._gains[0]
        self._obs_row = self._obs[0]

    _VIEWS = ("_hands", "_cfg", "_off", "_scores", "_hstart", "_gains", "_fcfg", "_st", "masks", "mask_bytes",
              "_gains_row", "_obs_row")

    def __getstate__(self):  # copy.deepcopy and pickle: the buffers travel, their views are made again
        return {k: v for k, v in self.__dict__.items() if k not in self._VIEWS}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._link_views()

    def start(self, rng, position) -> list:
        mirror = self._mirror
        mirror.start_game(rng, **position)  # validation and the deal: the same stream as PythonCore
        self.rng = rng
        self._log = []
        order = [t for seat in range(self.config.num_players) for t in mask_to_tiles(mirror.hands[seat])]
        order += mirror.boneyard
        self._settle(self._deal(order, mirror.leader, np.array(mirror.scores, np.float64)))
        return self._gains_row.tolist()

    def step(self, action) -> list:
        self._log.append(action)
        result = aec_step(action, self._ibuf, self._fbuf, self._bbuf, self._obs)
        if 0 <= result < 8:  # the common case: nobody scored, a seat to move
            self.to_move = result
            return self._no_gains
        if result >= 8 or result <= -9:  # somebody scored
            result = result - 8 if result >= 8 else result + 8
        if result == AEC_DEAL:
            result = self._deal_next()
        self._settle(result)
        return self._gains_row.tolist()

    def observe(self, seat) -> np.ndarray:
        if seat == self.to_move and self.running:
            return self._obs_row.copy()
        st = self._st
        if st[0, LEAD_TILE] < 0 and st[0, HAND_OVER]:  # no hand in progress (as DefaultEncoder)
            return np.zeros(self.encoder.size, np.float32)
        aec_observe(seat, st, self._hands, self._scores, self._cfg, self._fcfg, self._off, self._scratch,
                      self.masks)
        return self._scratch[0].copy()

    @property
    def scores(self) -> tuple:
        return tuple(self._scores[0].tolist())

    @property
    def game_over(self) -> bool:
        return bool(self._st[0, GAME_OVER])

    @property
    def winners(self) -> tuple:
        bits = int(self._st[0, WINNERS])
        return tuple(side for side in range(self.config.num_sides) if bits >> side & 1)

    @property
    def hand_start_scores(self) -> list:
        return self._hstart[0].tolist()

    @property
    def game(self) -> Game:
        """The engine's :class:`Game` in the same state (replays what happened since the last call)."""
        mirror = self._mirror
        for entry in self._log:
            if type(entry) is tuple:
                mirror.start_next_hand(None, deal=entry)
                continue
            mirror.step(entry)
            if self.auto_forced:  # what the kernels resolved inside the step
                play_forced(mirror)
        self._log.clear()
        return mirror

    # ---------------------------------------------------------------- inside
    def _deal(self, order, leader, start_scores=None):
        """Load a deal into the kernels: a new game at ``start_scores`` or the next hand."""
        new_game = start_scores is not None
        return aec_deal(np.asarray(order, np.int64), leader, new_game,
                          start_scores if new_game else self._no_scores, self._ibuf, self._fbuf, self._bbuf, self._obs)

    def _deal_next(self):
        """The next hand of the running game, dealt in Python (the same draws as PythonCore)."""
        result = AEC_DEAL
        while result == AEC_DEAL:  # a dealt hand never ends before a decision; the loop is a guard
            next_leader = int(self._st[0, NEXT_LEADER])
            deal = draw_deal(self.config, self.rng, None if next_leader < 0 else next_leader)
            self._log.append(deal)
            result = self._deal(deal[1], deal[0])
        return result

    def _settle(self, result):
        if result >= 0:
            self.running, self.to_move = True, result
        else:
            self.running, self.to_move = False, int(self._st[0, TO_MOVE])
