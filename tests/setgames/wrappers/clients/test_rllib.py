"""RLlib (current API stack), both routes, with its env check on: the
library's view (``register_rllib_env``) and RLlib's own ``PettingZooEnv``
around ``rllib_keys(env(illegal_action="terminate"))``; PPO with the
action-masking module trains one iteration on every game, and the episodes
RLlib's env runner records credit each seat its return."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from ray.tune.registry import register_env  # noqa: E402

from setgames.wrappers.rllib import register_rllib_env, rllib_env_class, rllib_keys  # noqa: E402
from tests.setgames.wrappers.clients.helpers import GAMES, aec_env  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _ray():
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _pettingzoo_route(config):
    return PettingZooEnv(rllib_keys(aec_env(config["game"], illegal_action="terminate")))


ROUTES = {"view": register_rllib_env("setgames_test_view"),
          "pettingzoo": "setgames_test_pettingzoo"}
register_env(ROUTES["pettingzoo"], _pettingzoo_route)


def _make(route, game):
    if route == "view":
        return rllib_env_class()({"game": game})
    return _pettingzoo_route({"game": game})


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("game", GAMES)
def test_rllib_env_check_passes_as_the_env_is(route, game):
    # The check steps an unmasked random action: the illegal action ends the game.
    for _ in range(3):
        check_multiagent_environments(_make(route, game))


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("game", GAMES)
def test_ppo_trains_one_iteration_and_episodes_credit_each_seat_its_return(route, game):
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": [32], "head_fcnet_activation": "relu"})
    config = (
        PPOConfig()
        .environment(ROUTES[route], env_config={"game": game})  # env checking left on
        .env_runners(num_env_runners=0)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 128
        episodes = algo.env_runner.sample(num_episodes=2, random_actions=False)
        checked = 0
        for ep in episodes:
            assert ep.is_done
            for agent, sa in ep.agent_episodes.items():
                returns = np.asarray(sa.get_infos(-1)["returns"])
                assert sa.get_return() == pytest.approx(float(returns[int(agent.split("_")[1])]))
                checked += 1
        assert checked >= 2
    finally:
        algo.stop()
