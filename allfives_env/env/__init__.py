"""The PettingZoo AEC environment and what it is built from.

* :mod:`.aec`: ``env()`` / ``raw_env`` (the PettingZoo API);
* :mod:`.options`: the options shared with the batched env (:class:`EnvOptions`);
* :mod:`.cores`: the Python and compiled game cores behind the env;
* :mod:`.encoders`: observation encoders and their named layout;
* :mod:`.render`: text and image rendering.
"""

from .aec import IllegalActionError, env, raw_env
from .options import ENV_OPTIONS, EPISODES, REWARDS, EnvOptions

__all__ = ["env", "raw_env", "IllegalActionError", "EnvOptions", "ENV_OPTIONS", "EPISODES", "REWARDS"]
