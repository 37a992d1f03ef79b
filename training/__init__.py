"""PPO self-play training for All Fives (``python -m training.ppo --config configs/ppo_2p.yaml``).

Modules: :mod:`training.config` (the typed config), :mod:`training.rollout`
(batched collection with per-seat transition chains), :mod:`training.advantages`
(GAE over those chains), :mod:`training.update` (the masked PPO loss),
:mod:`training.evaluate` (arena matches against the baselines),
:mod:`training.checkpoint` (atomic save, validated load), :mod:`training.plot`
(learning curves) and :mod:`training.ppo` (the main loop).
"""
