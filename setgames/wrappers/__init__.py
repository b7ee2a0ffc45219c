"""Views of our games for the trainers people use.

- :class:`SingleAgentEnv` (``single_agent``): a Gymnasium ``Env`` where the
  learner plays one seat and bots or policies play the others inside ``step``
  (Stable-Baselines3, sb3-contrib's MaskablePPO, CleanRL-style scripts).
- :class:`TurnBasedEnv` (``turn_based``): one env, every seat a learner, the
  observation naming the agent to act and its mask, every seat told its final
  reward (Tianshou's multi-agent collector).
- :mod:`setgames.wrappers.rllib`: the ``observations`` / ``action_mask``
  mapping RLlib's action-masking module reads, a ``MultiAgentEnv`` built
  on demand (ray is imported only when asked for), ``rllib_keys`` for RLlib's
  own ``PettingZooEnv``, and an arena bot for a trained ``RLModule``.

Every view's infos hold numbers and fixed-shape arrays only (trainers' buffers
store them); the detailed outcome is the view's ``outcome``.
"""

from setgames.wrappers.single_agent import PolicyBot, SingleAgentEnv
from setgames.wrappers.turn_based import TurnBasedEnv

__all__ = ["PolicyBot", "SingleAgentEnv", "TurnBasedEnv"]
