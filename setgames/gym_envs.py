"""Gymnasium ids for every game's single-agent view, registered on ``import setgames``.

Each game of :mod:`setgames.registry` gets the id ``setgames/<name>-v0``
(``setgames/tethsi-v0``, ``setgames/bharg-v0``, ``setgames/tusac-v0``: the
registry's names, so the ids follow the ``<name>_v0`` AEC env names). The
entry point is :class:`~setgames.wrappers.SingleAgentEnv` with
``game=<name>``; keywords given to ``gymnasium.make`` are its options and the
game's config. The vector entry point is the batched view,
:class:`~setgames.batch.gym_vector.BatchVectorEnv`, so that
``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``
steps the game's batched engine in C (a game without one refuses there)::

    import gymnasium, setgames
    env = gymnasium.make("setgames/bharg-v0", opponents="greedy", num_players=3)
    obs, info = env.reset(seed=0)
    info["action_mask"]                                 # the learner's legal actions
    env.get_wrapper_attr("action_masks")()              # the same, as MaskablePPO reads it

Without importing setgames first: ``gymnasium.make("setgames:setgames/bharg-v0")``
(Gymnasium imports the module before the ``:``). Gymnasium 1.x loads no
plugin entry points, hence the registration on import.
"""

from __future__ import annotations

import gymnasium

from setgames.registry import GAME_NAMES

__all__ = ["ENTRY_POINT", "ENV_IDS", "VECTOR_ENTRY_POINT", "register_envs"]

ENTRY_POINT = "setgames.wrappers.single_agent:SingleAgentEnv"
VECTOR_ENTRY_POINT = "setgames.batch.gym_vector:BatchVectorEnv"
ENV_IDS = {name: f"setgames/{name}-v0" for name in GAME_NAMES}


def register_envs() -> list[str]:
    """Register every id of :data:`ENV_IDS` not registered yet; the ids.

    >>> import gymnasium
    >>> "setgames/bharg-v0" in register_envs() and "setgames/bharg-v0" in gymnasium.registry
    True
    """
    for name, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                               kwargs={"game": name})
    return list(ENV_IDS.values())
