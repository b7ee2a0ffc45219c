"""Tianshou 2.x: its own ``PettingZooEnv`` around our AEC envs and the
library's ``TurnBasedEnv`` (default options), collected by Tianshou's
``Collector`` into its replay buffer through a multi-agent DQN."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tianshou")

from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net

from setgames.wrappers import TurnBasedEnv
from tests.setgames.wrappers.clients.helpers import GAMES, aec_env


def _collect(make, obs_shape, episodes: int = 4):
    """Episodes of a random-exploring DQN per seat; the replay buffer's sub-buffers."""
    env = make()
    algorithms = []
    for _ in env.agents:
        net = Net(state_shape=obs_shape, action_shape=env.action_space.n, hidden_sizes=[32])
        policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                         observation_space=env.observation_space, eps_training=1.0)
        algorithms.append(DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99,
                              n_step_return_horizon=1, target_update_freq=10))
    marl = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    buffer = VectorReplayBuffer(50_000, 2)
    collector = Collector(marl, envs, buffer, exploration_noise=True)
    collector.reset()
    result = collector.collect(n_episode=episodes)
    assert result.n_collected_episodes >= episodes
    return env.agents, buffer.buffers


def _episodes(sub):
    """``(agent ids, reward rows, final info)`` of each complete episode stored in ``sub``."""
    n = len(sub)
    agent_ids, rew, done = sub.obs.agent_id[:n], sub.rew[:n], sub.done[:n]
    start = 0
    for end in np.flatnonzero(done):
        yield agent_ids[start:end + 1], rew[start:end + 1], sub.info[end]
        start = end + 1


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_pettingzoo_env_stores_every_game_and_its_rewards_sum_to_the_returns(game):
    # The final infos are numbers only, so Tianshou's buffer stores them (ragged
    # lists or None used to crash it on Tet Hsi and Tu Sac).
    env = aec_env(game)
    agents, subs = _collect(lambda: PettingZooEnv(aec_env(game)), env.observation_space("player_0")
                            ["observation"].shape)
    checked = 0
    for sub in subs:
        for _, rew, info in _episodes(sub):
            assert rew.sum(axis=0).tolist() == pytest.approx(info.returns.tolist())
            assert info.returns.shape == (len(agents),)
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize("game", GAMES)
def test_turn_based_view_credits_every_seat_its_return_on_its_own_transitions(game):
    # What Tianshou's multi-agent policy learns from: rew[seat] on the
    # transitions where that seat acted. With the view's closing steps these
    # sum to the game's returns for every seat (with Tianshou's own adapter,
    # the seats that did not move last lose their result).
    agents, subs = _collect(lambda: TurnBasedEnv(game), TurnBasedEnv(game).observation_space.shape)
    checked = 0
    for sub in subs:
        for agent_ids, rew, info in _episodes(sub):
            credited = [float(rew[agent_ids == a, s].sum()) for s, a in enumerate(agents)]
            assert credited == pytest.approx(info.returns.tolist())
            checked += 1
    assert checked >= 4
