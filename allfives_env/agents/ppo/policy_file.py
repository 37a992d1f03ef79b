"""The policy file: what ``training/`` writes and ``ppo:PATH`` reads.

Record (``torch.save`` of a dict, read back with ``weights_only=True``)::

    {"format": "allfives-ppo", "version": 1,
     "policy": {"net": {"obs_dim", "hidden_sizes", "activation", "skip"[, "action_width", "action_inputs"[, "action_depth"]]},
                "state_dict": {...}, "num_players": n, "rules": RulesConfig.to_dict(),
                "encoder": "default", "features": one of :data:`~.features.FEATURES`},
     ...}   # training checkpoints add optimizer, RNG and trainer state

A bad file raises :class:`CheckpointError` naming the path and the problem.
Loading needs torch but none of the training code.
"""

import os

from ...rules.config import RulesConfig, is_int
from .features import FEATURES

FORMAT = "allfives-ppo"
#: Version 2 files carry ``sha256``, a digest of their content (:func:`content_digest`) checked at
#: every load; version 1 files (before the digest) still load, their weights checked for NaN.
VERSION = 2
READABLE_VERSIONS = (1, 2)
DIGEST_KEY = "sha256"
#: The observation encoder every policy is trained and played with (:class:`~allfives_env.env.encoders.DefaultEncoder`).
ENCODER = "default"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or does not fit what it is used for."""


def check_policy_file(path, hint=""):
    """Refuse (:class:`CheckpointError`) a ``path`` that is not a file, saying what it is instead; ``hint``
    ends the message (what to give instead)."""
    if os.path.isfile(path):
        return
    if os.path.isdir(path):
        raise CheckpointError(f"checkpoint {path!r} is a folder, not a file{hint}")
    if os.path.exists(path):
        raise CheckpointError(f"checkpoint {path!r} is not a regular file{hint}")
    raise CheckpointError(f"checkpoint not found: {path!r}{hint}")


def check_player_count(path, trained_for: int, players: int) -> None:
    """A ``ValueError`` in one line unless the policy file ``path``, trained for ``trained_for`` players, is
    used where ``players`` play."""
    if trained_for != players:
        raise ValueError(f"{path!r} was trained for {trained_for} players; this game has {players}; allowed: a policy "
                         f"file for {players} players (shipped: checkpoints/ppo_{players}p.pt)")


#: The rule options that change what a move is worth (the hand size as the tiles it deals: with 4 players
#: every hand size deals 5); a policy trained under other values of them plays only when asked to
#: (``any_rules=true``). The target only sets a game's length, so it may differ.
SCORING_RULES = ("tiles_per_hand", "hand_scoring", "divisor")


def check_rules(path, trained, game, allowed_instead: str) -> None:
    """A ``ValueError`` in one line unless the policy file ``path``, trained under the rules ``trained``
    (a :class:`RulesConfig`), was trained for this game's player count and :data:`SCORING_RULES`;
    ``allowed_instead`` names the option that plays it anyway."""
    check_player_count(path, trained.num_players, game.num_players)
    differ = [name for name in SCORING_RULES if getattr(trained, name) != getattr(game, name)]
    if differ:
        def named(config):
            return ", ".join(f"hand_size={config.hand_size!r} ({config.tiles_per_hand} tiles a hand)"
                             if name == "tiles_per_hand" else f"{name}={getattr(config, name)!r}" for name in differ)
        raise ValueError(f"{path!r} was trained with {named(trained)}; this game has {named(game)}; allowed: a "
                         f"policy file trained for these rules, or {allowed_instead} to play it anyway")


def content_digest(record: dict) -> str:
    """A SHA-256 of everything in ``record`` but its digest: every key, number and string, and
    every tensor's dtype, shape and bytes, in a fixed order. A flipped byte anywhere changes it."""
    import hashlib

    digest = hashlib.sha256()
    _feed(digest, {k: v for k, v in record.items() if k != DIGEST_KEY})
    return digest.hexdigest()


def _feed(digest, value):
    import torch

    if isinstance(value, dict):
        digest.update(b"{")
        for key in sorted(value, key=repr):
            _feed(digest, key)
            _feed(digest, value[key])
        digest.update(b"}")
    elif isinstance(value, (list, tuple)):
        digest.update(b"[" if isinstance(value, list) else b"(")
        for item in value:
            _feed(digest, item)
        digest.update(b"]")
    elif isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        digest.update(f"T{t.dtype}{tuple(t.shape)}".encode())
        digest.update(t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    else:
        digest.update(f"{type(value).__name__}:{value!r};".encode())


def read_checkpoint(path) -> dict:
    """The checkpoint dict at ``path``, checked: a torch file of this format and a readable version,
    its digest matching its content (version 2), a complete policy record with finite weights.

    It is read with ``weights_only=True``: tensors and plain data only, so a file from someone
    else cannot run code; a file holding anything else is refused. Every problem is one
    :class:`CheckpointError` naming the file."""
    ckpt = _load_plain(path)
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not an All Fives PPO checkpoint (no format={FORMAT!r} record)")
    version = ckpt.get("version")
    if version not in READABLE_VERSIONS:
        raise CheckpointError(f"{path!r} has checkpoint version {version!r}; this code reads versions "
                              f"{', '.join(map(str, READABLE_VERSIONS))}")
    if version >= 2 and ckpt.get(DIGEST_KEY) != content_digest(ckpt):
        raise CheckpointError(f"{path!r} is damaged: its content does not match the digest stored with it "
                              "(the file was changed or corrupted after it was written)")
    policy = ckpt.get("policy")
    if not isinstance(policy, dict) or not {"net", "state_dict", "num_players", "rules"} <= set(policy):
        raise CheckpointError(f"{path!r} has no complete 'policy' record (net, state_dict, num_players, rules)")
    _check_policy(policy, path)
    return ckpt


def _load_plain(path):
    """``torch.load(path, weights_only=True)``, its failures as one line."""
    import pickle

    try:
        import torch
    except ImportError:
        raise CheckpointError(f"reading the policy file {path!r} needs torch, which is not installed; install it "
                              'with: pip install -e ".[train]"') from None
    check_policy_file(path)
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for truncated or foreign files
        if isinstance(exc, pickle.UnpicklingError) and "GLOBAL" in str(exc):  # an object, not a damaged byte
            raise CheckpointError(f"{path!r} is refused: it holds Python objects beyond tensors and plain data, "
                                  "which no policy file or checkpoint written here contains (loading them could "
                                  "run code)") from None
        first = str(exc).splitlines()[0] if str(exc) else ""
        if "weights_only" in first:  # torch's advice to load unsafely: not what a user should do here
            first = "not a file of tensors and plain data"
        raise CheckpointError(f"cannot read checkpoint {path!r}: it is damaged or not a torch file "
                              f"({type(exc).__name__}: {first})") from None


def _check_policy(policy, path):
    """Every part of a policy record as its writer (:func:`policy_record`) makes it. The digest proves only that
    a file is as it was written, not by whom: a hand-made record that passes it must still be refused in one
    line, not fail deep in a loader (``rules`` not a mapping) or, worse, load and play (a player count or an
    encoder that nothing reads, integer weights that torch converts silently)."""
    if not isinstance(policy["net"], dict):
        raise CheckpointError(f"{path!r}: the policy's net is {policy['net']!r}; allowed: a mapping of the "
                              "network's shape (obs_dim, hidden_sizes, ...)")
    rules = policy_rules(policy, path)
    players = policy["num_players"]
    if not is_int(players) or players != rules.num_players:
        raise CheckpointError(f"{path!r}: the policy's num_players is {players!r}; allowed: the player count of its "
                              f"rules, {rules.num_players}")
    encoder = policy.get("encoder", ENCODER)  # files from before the key have the one encoder there is
    if encoder != ENCODER:
        raise CheckpointError(f"{path!r}: the policy's encoder is {encoder!r}; allowed: {ENCODER!r} (the only "
                              "encoder a policy is played with)")
    policy_features(policy, path)
    _check_weights(policy["state_dict"], path)


def policy_rules(policy: dict, path="<memory>") -> RulesConfig:
    """The :class:`RulesConfig` a policy record was trained under, or a :class:`CheckpointError` in one line."""
    rules = policy["rules"]
    if not isinstance(rules, dict):
        raise CheckpointError(f"{path!r}: the policy's rules are {rules!r}; allowed: a mapping of rule options "
                              "(RulesConfig.to_dict())")
    try:
        return RulesConfig.from_options(**rules)
    except (TypeError, ValueError) as exc:  # an option name that is not a string is a TypeError
        raise CheckpointError(f"{path!r}: the policy's rules are not valid ({exc})") from None


def _check_weights(state_dict, path):
    """Named floating-point tensors, every value finite."""
    import torch

    if not isinstance(state_dict, dict):
        raise CheckpointError(f"{path!r}: the policy's state_dict is not a mapping of tensors")
    for name, value in state_dict.items():
        if not isinstance(name, str):
            raise CheckpointError(f"{path!r}: the policy's state_dict has the key {name!r}; allowed: weight names "
                                  "(strings such as 'trunk.0.weight')")
        if not isinstance(value, torch.Tensor):
            raise CheckpointError(f"{path!r}: the policy's weight {name!r} is not a tensor")
        if not value.is_floating_point():  # load_state_dict would convert it silently
            raise CheckpointError(f"{path!r}: the policy's weight {name!r} holds {value.dtype} values; allowed: "
                                  "floating-point weights")
        if not torch.isfinite(value).all():
            raise CheckpointError(f"{path!r} is damaged: the policy's weight {name!r} holds NaN or infinite values")


def with_digest(record: dict) -> dict:
    """``record`` (a checkpoint dict) with its :func:`content_digest` stored under ``sha256``."""
    return {**record, DIGEST_KEY: content_digest(record)}


def policy_record(net, rules: RulesConfig, features: str = "none") -> dict:
    """The ``"policy"`` record of a checkpoint for ``net`` trained under ``rules`` on ``features``."""
    return {"net": net.spec(), "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
            "num_players": rules.num_players, "rules": rules.to_dict(), "encoder": ENCODER,
            "features": features}


def policy_features(policy: dict, path="<memory>") -> str:
    """The derived features a policy record was trained on ("none" for files older than features)."""
    features = policy.get("features", "none")
    if not isinstance(features, str) or features not in FEATURES:
        raise CheckpointError(f"{path!r} needs features={features!r}, unknown here; known: {list(FEATURES)}")
    return features


def build_policy(policy: dict, path="<memory>"):
    """A :class:`~allfives_env.agents.ppo.network.PolicyNet` with the record's weights."""
    import torch

    from .network import PolicyNet

    try:
        # the stored weights replace the initial ones: build under a forked RNG, so that loading a policy
        # never moves torch's global generator (a trainer that loads an opponent stays reproducible)
        with torch.random.fork_rng(devices=[]):
            net = PolicyNet(**policy["net"])
        net.load_state_dict(policy["state_dict"])
    except (RuntimeError, TypeError, KeyError, ValueError) as exc:
        raise CheckpointError(f"{path!r}: the network does not match its stored shape ({exc})") from None
    net.eval()
    return net


def load_policy(path):
    """``(net, rules, features)`` from a checkpoint file."""
    ckpt = read_checkpoint(path)
    policy = ckpt["policy"]
    return build_policy(policy, path), policy_rules(policy, path), policy_features(policy, path)
