"""PPO self-play training for All Fives (``python -m training --config configs/ppo_2p.yaml``).

Modules, in the order one update uses them: :mod:`training.config` (the typed
config), :mod:`training.rollout` (batched collection with per-seat transition
chains), :mod:`training.advantages` (GAE over those chains),
:mod:`training.update` (the masked PPO update), :mod:`training.evaluate` (the
live network against the baselines, in memory), :mod:`training.trainer` (one
run's state), :mod:`training.loop` (updates, evaluations, logs, checkpoints),
:mod:`training.checkpoint` (atomic save, validated load),
:mod:`training.metrics` and :mod:`training.run_folder` (what a run writes),
:mod:`training.cli` (the command). Tools: :mod:`training.export`,
:mod:`training.plot`, :mod:`training.summary`, :mod:`training.value_fit`
(the champion's 4-player value file), :mod:`training.distill` (the champion
distilled into a policy: the shipped 3-player file's recipe).
"""
