"""Trainers that do not mask, on the batched views: plain SB3 ``PPO``, CleanRL's
``ppo.py`` loop as it is written, TorchRL's ``GymWrapper`` (its spec probe sends
random actions), and ``RecordVideo`` on the single-agent env's ``rgb_array``.

Illegal actions end the slot's game with the penalty (``illegal_action=
"terminate"``, the views' default), so these clients run unchanged."""

# ruff: noqa: RUF005  (CleanRL's lines are kept as ppo.py writes them: `(n, m) + space.shape`)
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from setgames.gym_envs import ENV_IDS
from tests.setgames.wrappers.clients.helpers import GAMES

torch = pytest.importorskip("torch")


def _make_vec(game: str, n: int, **kwargs):
    pytest.importorskip(f"{game}_env._batch", reason=f"{game}_env._batch is not built")
    return gym.make_vec(ENV_IDS[game], num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


@pytest.mark.parametrize("game", GAMES)
def test_plain_sb3_ppo_learns_on_the_batch_without_masks(game):
    sb3 = pytest.importorskip("stable_baselines3")
    pytest.importorskip(f"{game}_env._batch", reason=f"{game}_env._batch is not built")
    from setgames.batch.sb3_vec import BatchVecEnv

    venv = BatchVecEnv(game, num_envs=8, seed=0)
    model = sb3.PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                    policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(total_timesteps=300)
    assert model.num_timesteps >= 300
    # unmasked, most of its actions were illegal: each ended a game with the penalty
    actions, _ = model.predict(venv.reset(), deterministic=False)
    _, rewards, dones, infos = venv.step(actions)
    illegal = [i for i in np.flatnonzero(dones) if infos[i]["illegal_action"]]
    assert illegal and all(rewards[i] == -1.0 for i in illegal)


class _Agent(torch.nn.Module):
    """CleanRL ppo.py's ``Agent`` (its sizes reduced)."""

    def __init__(self, envs):
        super().__init__()
        n_obs = int(np.array(envs.single_observation_space.shape).prod())
        self.critic = torch.nn.Sequential(torch.nn.Linear(n_obs, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
        self.actor = torch.nn.Sequential(torch.nn.Linear(n_obs, 32), torch.nn.Tanh(),
                                         torch.nn.Linear(32, envs.single_action_space.n))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = torch.distributions.Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


@pytest.mark.parametrize("game", GAMES)
def test_cleanrl_ppo_loop_runs_unchanged_on_make_vec(game):
    num_envs, num_steps, num_iterations, gamma, gae_lambda = 4, 16, 3, 0.99, 0.95
    envs = gym.wrappers.vector.RecordEpisodeStatistics(_make_vec(game, num_envs))
    assert isinstance(envs.single_action_space, gym.spaces.Discrete)
    device = torch.device("cpu")
    agent = _Agent(envs).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    obs = torch.zeros((num_steps, num_envs) + envs.single_observation_space.shape).to(device)
    actions = torch.zeros((num_steps, num_envs) + envs.single_action_space.shape).to(device)
    logprobs = torch.zeros((num_steps, num_envs)).to(device)
    rewards = torch.zeros((num_steps, num_envs)).to(device)
    dones = torch.zeros((num_steps, num_envs)).to(device)
    values = torch.zeros((num_steps, num_envs)).to(device)
    global_step, episodes = 0, []
    next_obs, _ = envs.reset(seed=1)
    next_obs = torch.Tensor(next_obs).to(device)
    next_done = torch.zeros(num_envs).to(device)
    for _iteration in range(1, num_iterations + 1):
        for step in range(0, num_steps):
            global_step += num_envs
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, terminations, truncations, infos = envs.step(action.cpu().numpy())
            next_done = np.logical_or(terminations, truncations)
            rewards[step] = torch.tensor(reward).to(device).view(-1)
            next_obs, next_done = torch.Tensor(next_obs).to(device), torch.Tensor(next_done).to(device)
            if "episode" in infos:  # Gymnasium 1.x's RecordEpisodeStatistics: arrays and a mask
                episodes += infos["episode"]["r"][infos["_episode"]].tolist()
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards).to(device)
            lastgaelam = 0
            for t in reversed(range(num_steps)):
                if t == num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + gamma * gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values
        b_obs = obs.reshape((-1,) + envs.single_observation_space.shape)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1,) + envs.single_action_space.shape)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs, b_actions.long())
        ratio = (newlogprob - b_logprobs).exp()
        pg_loss = torch.max(-b_advantages * ratio, -b_advantages * torch.clamp(ratio, 0.8, 1.2)).mean()
        v_loss = 0.5 * ((newvalue.view(-1) - b_returns) ** 2).mean()
        loss = pg_loss - 0.01 * entropy.mean() + 0.5 * v_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        assert torch.isfinite(loss)
    assert global_step == num_envs * num_steps * num_iterations
    # an untrained, unmasked policy mostly plays illegal moves: episodes end and are counted
    assert episodes
    envs.close()


@pytest.mark.parametrize("game", GAMES)
def test_torchrl_gym_wrapper_passes_check_env_specs_on_make_vec(game):
    pytest.importorskip("torchrl")
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    env = GymWrapper(_make_vec(game, 3))
    assert tuple(env.batch_size) == (3,)
    check_env_specs(env)  # a rollout of random (unmasked) actions, compared with the specs
    td = env.rollout(40, break_when_any_done=False)
    assert td["next", "done"].any() and td["next", "illegal_action"].any()


def test_record_video_writes_an_episode_of_the_learners_view(tmp_path):
    pytest.importorskip("moviepy")
    pytest.importorskip("resvg_py")
    env = gym.wrappers.RecordVideo(gym.make(ENV_IDS["tethsi"], render_mode="rgb_array", opponents="greedy"),
                                   str(tmp_path / "videos"), episode_trigger=lambda episode: True)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        done = term or trunc
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0
    from moviepy import VideoFileClip

    with VideoFileClip(str(videos[0])) as clip:
        frames = sum(1 for _ in clip.iter_frames())
    assert frames >= steps  # one frame per step and the reset's (a frame rate rounding aside)
