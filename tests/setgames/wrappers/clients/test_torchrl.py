"""TorchRL's ``PettingZooWrapper(use_mask=True)`` around our AEC envs: random
legal rollouts (the masked action spec) whose rewards sum to the returns."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("torchrl")

from torchrl.envs.libs.pettingzoo import PettingZooWrapper

from tests.setgames.wrappers.clients.helpers import GAMES, aec_env


@pytest.mark.parametrize("game", GAMES)
def test_torchrl_masked_rollouts_sum_to_the_game_returns(game):
    pz = aec_env(game)
    env = PettingZooWrapper(env=pz, use_mask=True, categorical_actions=True, seed=0)
    base = pz.unwrapped
    for _ in range(3):
        # No policy: rollout samples the action spec, which use_mask restricts to legal actions.
        td = env.rollout(max_steps=20_000)
        assert bool(td["next", "done"][-1])
        totals = [float(td["next", agent, "reward"].sum()) for agent in base.possible_agents]
        assert totals == pytest.approx(list(base.game.returns(base.game_state)))
