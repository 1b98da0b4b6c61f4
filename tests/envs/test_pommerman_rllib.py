"""Pommerman's team recipe on RLlib (envs/pommerman/rllib_recipe.py): one tiny PPO iteration, masks obeyed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from envs.pommerman.rllib_recipe import team_env, team_rllib_config  # noqa: E402


def test_one_iteration_trains_the_side_policy_and_never_takes_a_masked_move(ray_cluster) -> None:
    """No remote env runners, 30-step games, a 64-step batch and a tiny CNN: the whole recipe, in seconds."""
    config = team_rllib_config(
        0,
        max_steps=30,
        train_batch_size=64,
        minibatch_size=32,
        num_epochs=1,
        model_config={"features_dim": 16, "hidden": 8},
        seed=0,
    ).env_runners(rollout_fragment_length=64)
    algo = config.build_algo()
    try:
        result = algo.train()
        episodes = algo.env_runner.sample(num_timesteps=128, explore=True)
    finally:
        algo.stop()
    assert result["training_iteration"] == 1
    assert "team_0" in result["learners"] and "team_1" not in result["learners"]  # pommerman_simple plays inside
    runners = result["env_runners"]
    assert runners["num_module_steps_sampled"]["team_0"] >= 64  # both seats of the side sampled into one policy
    assert set(runners["num_agent_steps_sampled"]) == {"agent_0", "agent_2"}
    masks, actions = [], []
    for episode in episodes:
        for agent_episode in episode.agent_episodes.values():
            steps = len(agent_episode)
            masks.append(agent_episode.get_observations(slice(0, steps))["action_mask"])
            actions.append(agent_episode.get_actions(slice(0, steps)))
            assert not any(info.get("forfeit") for info in agent_episode.get_infos())
    mask, action = np.concatenate(masks), np.concatenate(actions)
    assert len(action) >= 100 and (mask == 0).any()  # the action filter did forbid moves
    assert (mask[np.arange(len(action)), action] == 1).all()  # and none was taken


def test_self_play_gives_each_side_its_policy_and_bad_opponents_are_refused() -> None:
    config = team_rllib_config(opponent="self_play", max_steps=50)
    assert {config.policy_mapping_fn(a, None) for a in ("agent_0", "agent_2")} == {"team_0"}
    assert {config.policy_mapping_fn(a, None) for a in ("agent_1", "agent_3")} == {"team_1"}
    assert sorted(config.policies_to_train) == ["team_0", "team_1"]
    env = team_env({"opponent": "self_play", "max_steps": 50})
    assert env.possible_agents == ["agent_0", "agent_1", "agent_2", "agent_3"]
    stacks = env.env.env.interfaces  # under the masks: one stack for every seat
    assert str(stacks["agent_1"]) == str(stacks["agent_0"]) and stacks["agent_1"] is not stacks["agent_0"]
    with pytest.raises(ValueError, match=r"opponent must be one of \['pommerman_simple', 'self_play'\], got 'random'"):
        team_rllib_config(opponent="random")
    with pytest.raises(ValueError, match=r"team_env: opponent must be one of .*, got 'nobody'"):
        team_env({"opponent": "nobody"})
