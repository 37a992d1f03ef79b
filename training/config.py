"""The training config: one typed dataclass, filled from a YAML file and ``key=value`` overrides.

Every field carries a one-line docstring (shown by ``python -m training --help``).
A config file holds only what differs from the file it ``extends`` (the
shipped ones build on ``configs/base.yaml``), which holds only what differs
from these defaults.
An unknown key or a value of the wrong type raises :class:`ConfigError`
naming the key (and, for a typo, the closest known key).
"""

import ast
import difflib
import inspect
import math
import os
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields

import yaml

from allfives_env.agents.batched import check_batched_spec
from allfives_env.agents.ppo.features import FEATURES
from allfives_env.agents.registry import check_spec
from allfives_env.arena.match import check_agents
from allfives_env.arena.schedule import MAX_WORKERS
from allfives_env.rules.config import MAX_TARGET, RulesConfig, is_valid_target
from allfives_env.vector.batched import MAX_NUM_ENVS


class ConfigError(ValueError):
    """A config key that does not exist or a value of the wrong type."""


#: The most threads or worker processes a run may ask for (torch_threads, eval_workers): the arena's cap.
#: Far beyond any machine's cores, but a count such as 100000 makes torch crash (a segmentation fault).
MAX_THREADS = MAX_WORKERS
#: The widest layer (hidden_sizes, action_width): a 16384-wide layer already holds 268 M weights (1 GiB, 4 with
#: Adam's state); a wider one is a typo that would fail allocating, or exhaust the memory, after the start.
MAX_WIDTH = 16384
#: The most passes over a rollout in one update: the time budget and a stop are looked at between updates.
MAX_UPDATE_EPOCHS = 1000
#: The largest loss weight or reward scale: far larger ones overflow the float32 losses to NaN.
MAX_COEF = 1000.0
#: The largest seed: torch's generator takes 64 bits.
MAX_SEED = 2 ** 64 - 1


@dataclass
class TrainConfig:
    # ---- run
    run_name: str = "ppo"
    """name of the run folder (under runs_dir), a timestamp and the seed are appended"""
    runs_dir: str = "runs"
    """where run folders are created"""
    seed: int = 1
    """seed of the games, the network initialisation and every sampled choice"""
    device: str = "cpu"
    """torch device for the network: cpu or cuda"""
    torch_threads: typing.Optional[int] = None
    """torch.set_num_threads for the learner, 1 to 256 (None: chosen from the cores free at the start, printed; on a busy machine 1 is far faster than 2)"""
    total_timesteps: int = 20_000_000
    """stop after this many environment decisions (all seats)"""
    max_minutes: float = 0.0
    """also stop after this many minutes of wall time (0: no limit)"""
    # ---- game
    num_players: int = 2
    """2, 3 or 4 (4 = two partnerships, seats 0+2 against 1+3)"""
    target: typing.Optional[float] = None
    """points to win a game (None: the R3 default, 250 / 200 / 200)"""
    # ---- rewards
    reward_points: float = 0.02
    """per-step shaping: this times the zero-sum points (own side's gain minus the mean of the other sides')"""
    reward_win: float = 1.0
    """at a game's end: +this to the winning side, -this to the others, 0 in a drawn game"""
    # ---- collection
    num_envs: int = 512
    """games stepped together in the batched environment"""
    num_steps: int = 64
    """environment steps per rollout (each step is one decision in each game)"""
    auto_forced: bool = True
    """let the environment play single-choice draws and passes itself"""
    # ---- opponents (shares of games; normalised to sum to 1)
    opp_self: float = 0.6
    """share of games where every seat is the current policy (the opp_* shares are weights, normalised to sum 1)"""
    opp_pool: float = 0.2
    """share of games against a past snapshot of the policy (one drawn per rollout)"""
    opp_greedy: float = 0.15
    """share of games against the greedy baseline (vectorised, exact)"""
    opp_random: float = 0.05
    """share of games against the uniform random baseline"""
    opp_fixed: float = 0.0
    """share of games against ``fixed_opponent`` (``allfives exploit`` trains with 1.0)"""
    fixed_opponent: typing.Optional[str] = None
    """the agent of the ``opp_fixed`` games: a spec with a batched twin (random, greedy, heuristic, ppo:PATH, search:engine=compiled)"""
    snapshot_every: int = 10
    """add the current policy to the snapshot pool every this many updates"""
    pool_size: int = 10
    """the most snapshots kept (the oldest is dropped)"""
    # ---- network and PPO
    hidden_sizes: typing.List[int] = field(default_factory=lambda: [128, 128])
    """widths of the shared MLP trunk (each at most 16384)"""
    features: str = "none"
    """derived inputs after the observation (agents/ppo/features.py): none, reply_control (per placement the next seat's best reply and the own tiles still fitting), lookahead (also the next seat's expected greedy reply and the following seat's expected best play) or lookahead_infer (lookahead with the tiles the opponents' greedy placements rule out; the collector tracks them per game)"""
    action_width: int = 0
    """width of the shared action scorer that adds a score to every placement's logit from the state, the placement's tile and slot and its own action-aligned inputs (0: none; at most 16384; agents/ppo/network.py)"""
    action_depth: int = 1
    """hidden layers of the action scorer: 1, or 2 (a second layer as wide, its output added to the first's; it starts at zero)"""
    init_from: typing.Optional[str] = None
    """start the network from this policy file: same players, as many layers each at least as wide, an action scorer at least as wide and as deep, or none (wider layers, wider scorers and new feature inputs start at zero outgoing weight, so the start computes exactly that policy)"""
    activation: str = "relu"
    """relu or tanh"""
    learning_rate: float = 2e-3
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the budget: total_timesteps, or max_minutes when the time runs out first"""
    gamma: float = 0.99
    """discount per decision of the same seat"""
    gae_lambda: float = 0.8
    """GAE lambda"""
    update_epochs: int = 3
    """passes over each batch"""
    minibatch_size: int = 2048
    """transitions per gradient step, about: each batch is split into round(batch / minibatch_size) equal parts, at least one (the whole batch)"""
    clip_coef: float = 0.2
    """PPO ratio clip"""
    clip_vloss: bool = False
    """clip the value loss as in the original PPO code"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    ent_coef: float = 0.005
    """entropy bonus (entropy over legal actions only)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: typing.Optional[float] = None
    """stop an update's epochs early when the approximate KL exceeds this (None: never)"""
    # ---- evaluation, logging, checkpoints
    eval_every: int = 20
    """evaluate after the first update, every this many updates and after the last (0: never, nor at the end; no best.pt)"""
    eval_games: int = 200
    """games per baseline at each evaluation (duplicate deals, rounded to whole rotations)"""
    eval_opponents: typing.List[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """agent specs evaluated against (every other side plays this spec)"""
    eval_seed: int = 12345
    """seed of the fixed evaluation deals"""
    eval_workers: int = 1
    """worker processes for evaluation matches (1 to 256)"""
    best_metric: str = "greedy"
    """the evaluation opponent whose win rate selects best.pt"""
    checkpoint_minutes: float = 10.0
    """write latest.pt every this many minutes (and at the end)"""
    tensorboard: bool = True
    """also write TensorBoard event files"""
    progress: bool = True
    """show a live progress bar"""


def rules_of(cfg: TrainConfig) -> RulesConfig:
    """The rules a run plays under (its ``num_players`` and ``target``; the other variants are the defaults)."""
    return RulesConfig(num_players=cfg.num_players, target=cfg.target)


def field_docs() -> dict:
    """``{field name: its docstring}`` read from this module's source."""
    tree = ast.parse(inspect.getsource(TrainConfig))
    docs, body = {}, tree.body[0].body
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)
    return docs


def _type_name(tp) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


#: What a key=value override or a config file may write for None (YAML itself reads only null and ~).
NONE_WORDS = ("none", "null")


def _check_value(key, value, tp):
    """``value`` converted to the field type ``tp``, or :class:`ConfigError`."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Union:  # Optional[X]
        if value is None or (isinstance(value, str) and value.strip().lower() in NONE_WORDS):
            return None
        inner = [a for a in args if a is not type(None)][0]
        return _check_value(key, value, inner)
    if origin in (list, typing.List):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config key {key!r} needs a list of {_type_name(args[0])}; got {value!r}")
        return [_check_value(f"{key}[{i}]", v, args[0]) for i, v in enumerate(value)]
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads "1e-3" (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"config key {key!r} needs a number; got {value!r} ({type(value).__name__})")
        if not math.isfinite(value):  # nan passes every comparison of _validate's checks
            raise ConfigError(f"config key {key!r} needs a finite number; got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ConfigError(f"config key {key!r} needs an integer; got {value!r} ({type(value).__name__})")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"config key {key!r} needs true or false; got {value!r} ({type(value).__name__})")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"config key {key!r} needs a string; got {value!r} ({type(value).__name__})")
        return value
    raise ConfigError(f"config key {key!r} has an unsupported type {tp}")  # pragma: no cover


def _unknown(key):
    names = [f.name for f in fields(TrainConfig)]
    close = difflib.get_close_matches(key, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(names)}"
    return ConfigError(f"unknown config key {key!r}{hint}")


def _is_folder_name(name) -> bool:
    """A single folder name: a run named ``../x`` or ``a/b`` would be made outside ``runs_dir`` or nested."""
    return bool(name) and name not in (".", "..") and "/" not in name and os.sep not in name


def _most_eval_games(cfg: TrainConfig) -> int:
    """The most games an evaluation may play: it plays every rotation of its deals in one batched env."""
    sides = 3 if cfg.num_players == 3 else 2
    return MAX_NUM_ENVS // sides * sides


#: Each config key's type, read once (config_value converts every key of every config with it).
_FIELD_TYPES = typing.get_type_hints(TrainConfig)


def _validate(cfg: TrainConfig) -> TrainConfig:
    checks = [
        ("run_name", _is_folder_name(cfg.run_name), "a non-empty name without '/', not '.' or '..' (the folder made "
                                                   "in runs_dir)"),
        ("num_players", cfg.num_players in (2, 3, 4), "2, 3 or 4"),
        ("device", cfg.device == "cpu" or cfg.device.startswith("cuda"), "cpu or cuda[:N]"),
        ("activation", cfg.activation in ("relu", "tanh"), "relu or tanh"),
        ("features", cfg.features in FEATURES, " or ".join(FEATURES)),
        ("num_envs", 1 <= cfg.num_envs <= MAX_NUM_ENVS, f"a whole number from 1 to {MAX_NUM_ENVS:,}"),
        ("torch_threads", cfg.torch_threads is None or 1 <= cfg.torch_threads <= MAX_THREADS,
         f"None (chosen from the free cores) or a positive integer up to {MAX_THREADS}"),
        ("total_timesteps", cfg.total_timesteps >= 1, "a positive integer"),
        ("max_minutes", cfg.max_minutes >= 0, "0 (no limit) or a positive number of minutes"),
        ("eval_every", cfg.eval_every >= 0, "0 (no evaluation) or a positive number of updates"),
        ("num_steps", cfg.num_steps >= 1, "a positive integer"),
        ("minibatch_size", cfg.minibatch_size >= 1, "a positive integer"),
        ("update_epochs", 1 <= cfg.update_epochs <= MAX_UPDATE_EPOCHS,
         f"a whole number from 1 to {MAX_UPDATE_EPOCHS:,} (the time budget is looked at between updates)"),
        ("gamma", 0.0 <= cfg.gamma <= 1.0, "between 0 and 1"),
        ("gae_lambda", 0.0 <= cfg.gae_lambda <= 1.0, "between 0 and 1"),
        ("action_width", 0 <= cfg.action_width <= MAX_WIDTH, f"0 (no action scorer) or a positive width up to {MAX_WIDTH:,}"),
        ("action_depth", cfg.action_depth in (1, 2) and (cfg.action_depth == 1 or cfg.action_width > 0),
         "1 or 2 (hidden layers of the action scorer), and 2 only with action_width > 0"),
        ("hidden_sizes", len(cfg.hidden_sizes) >= 1 and 1 <= min(cfg.hidden_sizes) and max(cfg.hidden_sizes) <= MAX_WIDTH,
         f"a non-empty list of positive widths up to {MAX_WIDTH:,}"),
        ("snapshot_every", cfg.snapshot_every >= 1, "a positive integer"),
        ("pool_size", cfg.pool_size >= 1, "a positive integer"),
        ("eval_games", 1 <= cfg.eval_games <= _most_eval_games(cfg),
         f"a positive integer up to {_most_eval_games(cfg):,} (an evaluation plays all its games at once)"),
        ("eval_workers", 1 <= cfg.eval_workers <= MAX_THREADS, f"a positive integer up to {MAX_THREADS}"),
        ("seed", 0 <= cfg.seed <= MAX_SEED, "a whole number from 0 to 2**64 - 1"),
        ("eval_seed", 0 <= cfg.eval_seed <= MAX_SEED, "a whole number from 0 to 2**64 - 1"),
        ("learning_rate", 0 < cfg.learning_rate <= 1, "a positive number up to 1"),
        ("clip_coef", 0 < cfg.clip_coef <= MAX_COEF, f"a positive number up to {MAX_COEF:,g}"),
        ("max_grad_norm", cfg.max_grad_norm > 0, "a positive number"),
        ("target_kl", cfg.target_kl is None or cfg.target_kl > 0, "None (no early stop) or a positive number"),
        ("ent_coef", 0 <= cfg.ent_coef <= MAX_COEF, f"a number from 0 to {MAX_COEF:,g}"),
        ("vf_coef", 0 <= cfg.vf_coef <= MAX_COEF, f"a number from 0 to {MAX_COEF:,g}"),
        ("reward_points", 0 <= cfg.reward_points <= MAX_COEF, f"a number from 0 to {MAX_COEF:,g}"),
        ("reward_win", 0 <= cfg.reward_win <= MAX_COEF, f"a number from 0 to {MAX_COEF:,g}"),
        ("checkpoint_minutes", cfg.checkpoint_minutes >= 0, "a number of minutes >= 0"),
        ("target", cfg.target is None or is_valid_target(cfg.target),
         f"null (the R3 default) or a positive number of points up to {MAX_TARGET:,}"),
    ]
    for key, ok, allowed in checks:
        if not ok:
            raise ConfigError(f"config key {key!r} has the value {getattr(cfg, key)!r}; allowed: {allowed}")
    shares = [cfg.opp_self, cfg.opp_pool, cfg.opp_greedy, cfg.opp_random, cfg.opp_fixed]
    if min(shares) < 0 or not 0 < sum(shares) < math.inf:
        raise ConfigError("opponent shares opp_self, opp_pool, opp_greedy, opp_random, opp_fixed must be >= 0 "
                          "with a positive sum")
    _check_fixed_opponent(cfg)
    repeated = sorted({spec for spec in cfg.eval_opponents if cfg.eval_opponents.count(spec) > 1})
    if repeated:  # two columns of one name in metrics.csv
        raise ConfigError(f"config key 'eval_opponents' holds {repeated[0]!r} twice; give each opponent once")
    for spec in cfg.eval_opponents:
        try:
            check_spec(spec)
        except ValueError as exc:
            raise ConfigError(f"config key 'eval_opponents' holds {spec!r}: {exc}") from None
    if not cfg.eval_opponents:
        raise ConfigError("config key 'eval_opponents' is []; allowed: a non-empty list of agent specs (best_metric "
                          "names the one that picks best.pt; eval_every=0 turns the evaluations off)")
    if cfg.best_metric not in cfg.eval_opponents:
        raise ConfigError(f"config key 'best_metric' is {cfg.best_metric!r}; allowed: one of eval_opponents {cfg.eval_opponents}")
    return cfg


def _check_fixed_opponent(cfg: TrainConfig):
    """``fixed_opponent`` must have a batched twin when ``opp_fixed`` games are played, and a spec given with no
    such games is checked all the same: a typo would otherwise wait for the run that raises the share."""
    if cfg.opp_fixed == 0 and cfg.fixed_opponent is None:
        return
    try:
        check_batched_spec(cfg.fixed_opponent)
    except ValueError as exc:
        share = " with opp_fixed > 0" if cfg.opp_fixed > 0 else ""
        raise ConfigError(f"config key 'fixed_opponent' is {cfg.fixed_opponent!r}{share}: {exc}") from None
    try:  # its file and player count too, whatever its share
        check_agents(RulesConfig(num_players=cfg.num_players, target=cfg.target), [cfg.fixed_opponent])
    except ValueError as exc:
        raise ConfigError(f"config key 'fixed_opponent' is {cfg.fixed_opponent!r}: {exc}") from None


def make_config(values: dict) -> TrainConfig:
    """A validated :class:`TrainConfig` from a dict (unknown keys and wrong types are errors)."""
    return _validate(TrainConfig(**{key: config_value(key, value) for key, value in values.items()}))


def config_value(key: str, value):
    """``value`` as config key ``key`` holds it: converted to its field's type (``none``/``null`` is None
    only where the key takes None), or :class:`ConfigError`."""
    if key not in _FIELD_TYPES:
        raise _unknown(key)
    return _check_value(key, value, _FIELD_TYPES[key])


def parse_override(text: str):
    """``"key=value"`` -> ``(key, value)``; the value is read as YAML (``1e-3``, ``true``, ``[64, 64]``)."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"cannot read override {text!r}; write key=value")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    return key.strip(), value


#: The key of a config file that names the file it builds on (resolved beside it).
EXTENDS = "extends"


#: This package's folder: the shipped configs live in its ``configs/``, so a wheel carries them; a source
#: checkout's root ``configs`` links to it.
_TRAINING = os.path.dirname(os.path.abspath(__file__))


def shipped_config(path) -> str:
    """Where the package keeps the shipped ``path`` (relative, e.g. ``configs/ppo_2p.yaml``), whether or
    not such a file exists; the working directory plays no part."""
    return os.path.join(_TRAINING, path)


def find_config(path) -> str:
    """``path`` as given when it exists, else its shipped copy (:func:`shipped_config`) when there is one,
    so the shipped configs are found from any directory, installed or not."""
    if os.path.isfile(path) or os.path.isabs(path):
        return path
    shipped = shipped_config(path)
    return shipped if os.path.isfile(shipped) else path


class _RepeatedKey(yaml.constructor.ConstructorError):
    pass


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key twice in one mapping: YAML keeps the last without a word, so a
    value meant to change a run could be silently overridden further down the file."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<:` merges a mapping in: its keys may be replaced
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:  # a list as a key: the safe loader's own one-line error follows
                continue
            if key in seen:
                raise _RepeatedKey(None, None, f"key {key!r} is given twice; give it once", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def read_config_file(path, _seen=()) -> dict:
    """The values of a YAML config file (:func:`find_config`), after those of the file it ``extends``
    (recursively, beside it: never a shipped one in its place); a malformed or missing file is a
    :class:`ConfigError` naming it."""
    path = os.path.normpath(path if _seen else find_config(path))
    if path in _seen:
        raise ConfigError(f"{path}: 'extends' loops back to it ({' -> '.join(_seen + (path,))})")
    try:
        with open(path) as f:
            loaded = yaml.load(f, Loader=_UniqueKeyLoader)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (a config is YAML: key: value lines)") from None
    except _RepeatedKey as exc:
        raise ConfigError(f"{path} (line {exc.problem_mark.line + 1}): {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys to values")
    values = {}
    parent = loaded.pop(EXTENDS, None)
    if parent is not None:
        if not isinstance(parent, str) or not parent.strip():  # '' named the file's own folder
            raise ConfigError(f"{path}: '{EXTENDS}' must name a config file, e.g. extends: base.yaml")
        values.update(read_config_file(os.path.join(os.path.dirname(path), parent), _seen + (path,)))
    values.update(loaded)
    return values


def load_config(path=None, overrides=()) -> TrainConfig:
    """The config from a YAML file (optional; see :func:`read_config_file`) with ``key=value`` overrides on top."""
    values = {} if path is None else read_config_file(path)
    values.update((key, value) for key, value, _ in parse_overrides(overrides))
    return make_config(values)


def parse_overrides(texts) -> list:
    """``(key, value, text)`` of each ``key=value`` of ``texts`` (:func:`parse_override`); a key given twice is
    a :class:`ConfigError` (the last would win without a word)."""
    given, parsed = {}, []
    for text in texts:
        key, value = parse_override(text)
        if key in given:
            raise ConfigError(f"override {key!r} is given twice ({given[key]} and {text}); give it once")
        given[key] = text
        parsed.append((key, value, text))
    return parsed


def to_dict(cfg: TrainConfig) -> dict:
    return asdict(cfg)


def defaults() -> dict:
    return {f.name: (f.default if f.default is not MISSING else f.default_factory()) for f in fields(TrainConfig)}
