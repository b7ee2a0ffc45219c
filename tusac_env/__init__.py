"""Tu Sac (four-color cards) as a PettingZoo AEC environment: ``env()``,
``raw_env`` and the rules layer :class:`TuSacGame`. See ``tusac_env/README.md``."""

from tusac_env.env import env, raw_env
from tusac_env.rules import TuSacGame

__all__ = ["TuSacGame", "env", "raw_env"]
