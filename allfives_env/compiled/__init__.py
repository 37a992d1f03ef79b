"""The compiled twin of :mod:`allfives_env.rules`: numba kernels over arrays.

* :mod:`.state`: the array layout, config indices, jit options;
* :mod:`.rng`: one SplitMix64 stream per game;
* :mod:`.rules`: counts, deals and transitions (the rules of ``rules/game.py``);
* :mod:`.encode`: the default observation and the legal-action mask;
* :mod:`.step`: the batched episode layer (auto-forced steps, rewards, episode ends);
* :mod:`.aec`: the single-game protocol behind the AEC env's compiled core.

The pure-Python engine stays the readable reference; parity tests
(``tests/compiled/``) play thousands of games through both and compare every step.
"""
