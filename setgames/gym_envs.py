"""Gymnasium ids for every game's single-agent view, registered on ``import setgames``.

Each game of :mod:`setgames.registry` gets the id ``setgames/<name>-v0``
(the
registry's names, so the ids follow the ``<name>_v0`` AEC env names). The
entry point is :class:`~setgames.wrappers.SingleAgentEnv` with
``game=<name>``; keywords given to ``gymnasium.make`` are its options and the
game's config (``render_mode="rgb_array"`` draws the learner's view, so
``gymnasium.wrappers.RecordVideo`` records games). The vector entry point is
the batched view, :class:`~setgames.batch.gym_vector.BatchVectorEnv`, so that
``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``
steps the game's batched engine in C (a game without one refuses there); its
keywords are that class's options: ``autoreset_mode`` in any spelling of
:mod:`setgames.batch.modes` (default ``SAME_STEP``, with ``final_obs`` and
``final_info`` in the infos), ``illegal_action`` (default ``"terminate"``,
so trainers that cannot mask run), ``short_deals``, ``render_mode``
(``"rgb_array"``: one frame per slot), and the game's config. Both kinds of
env pay what the learner's seat earns before its first move of a game on its
first step, and hand out ``bool`` masks::

    import gymnasium, setgames
    env = gymnasium.make("setgames/<name>-v0", opponents="greedy", num_players=3)
    obs, info = env.reset(seed=0)
    info["action_mask"]                                 # the learner's legal actions (bool)
    env.get_wrapper_attr("action_masks")()              # the same, as MaskablePPO reads it
    envs = gymnasium.make_vec("setgames/<name>-v0", num_envs=64, vectorization_mode="vector_entry_point",
                              opponents="greedy", autoreset_mode="same_step")

Without importing setgames first: ``gymnasium.make("setgames:setgames/<name>-v0")``
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
    >>> from setgames.registry import game_names
    >>> env_id = f"setgames/{game_names()[0]}-v0"
    >>> env_id in register_envs() and env_id in gymnasium.registry
    True
    """
    for name, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                               kwargs={"game": name})
    return list(ENV_IDS.values())
