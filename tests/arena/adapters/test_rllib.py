"""Arena envs as RLlib MultiAgentEnvs: RLlib's env checker, RLlib's episode bookkeeping, one PPO iteration."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

from ray.rllib.env.multi_agent_env import MultiAgentEnv as RLlibMultiAgentEnv  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

import envs  # noqa: E402
from arena import RandomAgent  # noqa: E402
from arena.adapters.gymnasium import from_gymnasium  # noqa: E402
from arena.adapters.rllib import ArenaToRLlib, OpponentsInside, to_rllib  # noqa: E402
from arena.agents.base import Agent  # noqa: E402
from arena.errors import ResetNeeded, UnknownAgentError, UnknownNameError  # noqa: E402
from arena.seeding import derive_seed  # noqa: E402
from tests.arena.scripted_envs import DoubleMoveEnv, LeavingEnv  # noqa: E402


@pytest.mark.parametrize("mask_in_observation", [False, True])
@pytest.mark.parametrize("name", ["tic_tac_toe", "rock_paper_scissors", "liars_dice"])
def test_rllib_env_checker_accepts_turn_based_and_simultaneous_envs(name: str, mask_in_observation: bool) -> None:
    env = to_rllib(name, mask_in_observation=mask_in_observation)
    assert isinstance(env, RLlibMultiAgentEnv)
    # RLlib's checker steps one unmasked sample; seeded spaces keep it legal (liar's dice
    # forbids a challenge before the first bid) instead of failing one run in 37.
    for agent in env.possible_agents:
        env.get_action_space(agent).seed(1)
    check_multiagent_environments(env)


def test_rllib_env_checker_accepts_an_episode_that_ends_at_the_first_step() -> None:
    # RLlib's checker wants every key of the step's dicts in env.agents: finished agents stay listed.
    env = to_rllib("rock_paper_scissors", rounds=1)
    check_multiagent_environments(env)
    assert env.agents == ["player_0", "player_1"] and env.env.agents == []


def _play_into_rllib_episode(env: ArenaToRLlib, seed: int) -> tuple[MultiAgentEpisode, dict[str, float]]:
    """Play random legal moves, recording every step into RLlib's own MultiAgentEpisode."""
    agents = {agent: RandomAgent(seed=seed + i) for i, agent in enumerate(env.possible_agents)}
    for agent, player in agents.items():
        player.setup(env.env.observation_space(agent), env.env.action_space(agent))
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    observations, infos = env.reset(seed=seed)
    episode.add_env_reset(observations=observations, infos=infos)
    totals: dict[str, float] = {}
    while not episode.is_done:
        for agent, observation in observations.items():
            assert env.get_observation_space(agent).contains(observation)
        actions = {a: agents[a].act(None, infos[a].get("action_mask")) for a in observations}
        observations, rewards, terminateds, truncateds, infos = env.step(actions)
        assert "__all__" in terminateds and "__all__" in truncateds
        for agent, reward in rewards.items():
            totals[agent] = totals.get(agent, 0.0) + reward
        episode.add_env_step(
            observations=observations,
            actions=actions,
            rewards=rewards,
            infos=infos,
            terminateds=terminateds,
            truncateds=truncateds,
        )
    return episode, totals


@pytest.mark.parametrize(
    "case", ["tic_tac_toe", "double_move", "leaving", "truncated_cartpole", "liars_dice", "opponent_inside"]
)
def test_rllib_episode_bookkeeping_accepts_every_step_and_keeps_returns(case: str) -> None:
    env = {
        "tic_tac_toe": lambda: to_rllib("tic_tac_toe"),
        # the first mover played inside: its moves happen in reset and step, its wins arrive as rewards
        "opponent_inside": lambda: to_rllib(OpponentsInside(envs.make("tic_tac_toe"), {"player_0": "random"})),
        "double_move": lambda: to_rllib(DoubleMoveEnv()),  # an agent acting twice in a row, rewards to idle agents
        "leaving": lambda: to_rllib(LeavingEnv()),  # an agent that leaves early
        # truncation: RLlib raises unless the truncated agent gets a last observation
        "truncated_cartpole": lambda: to_rllib(from_gymnasium(gymnasium.make("CartPole-v1", max_episode_steps=3))),
        "liars_dice": lambda: to_rllib("liars_dice"),
    }[case]()
    for seed in range(3):
        episode, totals = _play_into_rllib_episode(env, seed)
        assert {a: e.get_return() for a, e in episode.agent_episodes.items()} == totals
    if case == "truncated_cartpole":
        assert episode.is_truncated and episode.agent_episodes["agent_0"].is_truncated


def test_all_flags_and_final_observation_on_truncation() -> None:
    env = to_rllib(from_gymnasium(gymnasium.make("CartPole-v1", max_episode_steps=2)))
    first, _ = env.reset(seed=0)
    env.step({"agent_0": 0})
    observations, rewards, terminateds, truncateds, infos = env.step({"agent_0": 0})
    assert truncateds == {"agent_0": True, "__all__": True}
    assert terminateds == {"agent_0": False, "__all__": False}
    assert set(observations) == {"agent_0"}  # the observation it last acted on
    env = to_rllib("tic_tac_toe")
    observations, _ = env.reset(seed=0)
    for action in (0, 3, 1, 4, 2):  # player_0 completes the top row
        (mover,) = observations
        observations, rewards, terminateds, truncateds, infos = env.step({mover: action})
    assert observations == {} and rewards == {"player_0": 1.0, "player_1": -1.0}
    assert terminateds == {"player_0": True, "player_1": True, "__all__": True}


def test_mask_in_observation_uses_rllibs_action_masking_layout() -> None:
    env = to_rllib("tic_tac_toe", mask_in_observation=True)
    space = env.get_observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict) and set(space.spaces) == {"action_mask", "observations"}
    env.reset(seed=0)
    observations, *_ = env.step({"player_0": 4})
    mask = observations["player_1"]["action_mask"]
    assert mask.dtype == np.float32 and mask.tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert space.contains(observations["player_1"])


def test_to_rllib_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match=r"options \['rounds'\] need a name or factory to build the env with"):
        to_rllib(envs.make("rock_paper_scissors"), rounds=2)
    with pytest.raises(UnknownNameError, match=r"unknown env 'no_such_env'"):
        to_rllib("no_such_env")
    with pytest.raises(
        TypeError, match=r"to_rllib: expected an arena.MultiAgentEnv \(or a name or factory of one\), got CartPoleEnv"
    ):
        to_rllib(lambda: gymnasium.make("CartPole-v1").unwrapped)


def test_ppo_trains_one_iteration_on_a_simultaneous_env_with_two_policies(ray_cluster) -> None:
    """The smallest PPO run: no remote env runners, a 64-step batch, a 16-unit network, on the CPU."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations
    from ray.tune.registry import register_env

    register_env("arena_rock_paper_scissors", lambda config: to_rllib("rock_paper_scissors", **config))
    config = (
        PPOConfig()
        .environment("arena_rock_paper_scissors", env_config={"rounds": 4})
        .env_runners(
            num_env_runners=0,
            rollout_fragment_length=64,
            env_to_module_connector=lambda env, spaces=None, device=None: FlattenObservations(multi_agent=True),
        )
        .multi_agent(
            policies={"first", "second"},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: "first" if agent_id == "player_0" else "second",
        )
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
        .rl_module(model_config={"fcnet_hiddens": [16]})
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["training_iteration"] == 1
    assert {"first", "second"} <= set(result["learners"])
    returns = result["env_runners"]["agent_episode_returns_mean"]
    assert set(returns) == {"player_0", "player_1"}
    assert returns["player_0"] == pytest.approx(-returns["player_1"])  # zero-sum, nothing lost on the way


def test_multi_agent_config_maps_n_agents_to_m_policies() -> None:
    from ray.rllib.algorithms.ppo import PPOConfig

    from arena.adapters.rllib import multi_agent_config

    env = to_rllib("team_rock_paper_scissors", team_sizes=(2, 1))
    config = multi_agent_config(env, "teams")
    assert config["policies"] == {"team_0", "team_1"}
    assert [config["policy_mapping_fn"](a, None) for a in env.possible_agents] == ["team_0", "team_1", "team_0"]
    shared = multi_agent_config(env, lambda agent_id: "shared")
    assert shared["policies"] == {"shared"}
    ppo = PPOConfig().multi_agent(**config)
    assert set(ppo.policies) == {"team_0", "team_1"}
    with pytest.raises(ValueError, match=r"policy_mapping='teams' needs an env with sides; .* has teams = None"):
        multi_agent_config(envs.make("tic_tac_toe"), "teams")
    with pytest.raises(ValueError, match=r"the policy mapping gives no policy for agent 'player_2'"):
        multi_agent_config(env, {"player_0": "a", "player_1": "b"})


def _play_outside(env: OpponentsInside, players: dict[str, Agent], seed: int) -> dict[str, float]:
    """Play the outside seats by arena.play's rules (seeds by seat index); their returns."""
    for agent, player in players.items():
        player.setup(env.observation_space(agent), env.action_space(agent))
        player.reset(seed=derive_seed(seed, env.env.possible_agents.index(agent)))
    observations, infos = env.reset(seed=seed)
    totals = dict.fromkeys(players, 0.0)
    while env.agents:
        actions = {a: players[a].act(o, infos[a].get("action_mask")) for a, o in observations.items()}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
    return totals


@pytest.mark.parametrize(
    ("name", "options", "inside"),
    [
        ("tic_tac_toe", {}, ("player_0",)),  # the opponent moves first: in reset
        ("liars_dice", {}, ("player_1",)),
        ("pommerman", {"mode": "team", "max_steps": 40}, ("agent_1", "agent_3")),  # a side inside, simultaneous moves
    ],
)
def test_opponents_inside_play_the_games_arena_play_plays(name: str, options: dict, inside: tuple[str, ...]) -> None:
    """Same seed, same agents: the outside seats earn what they earn in arena.play, game after game."""
    from arena import make_agent, play

    opponent = "pommerman_simple" if name == "pommerman" else "random"
    outside = [a for a in envs.make(name, **options).possible_agents if a not in inside]
    for seed in range(3):
        env = OpponentsInside(envs.make(name, **options), {seat: make_agent(opponent) for seat in inside})
        assert env.possible_agents == outside and env.agents == []
        totals = _play_outside(env, {a: RandomAgent() for a in outside}, seed)
        lineup = {a: make_agent(opponent) if a in inside else RandomAgent() for a in env.env.possible_agents}
        episode = play(envs.make(name, **options), lineup, seed=seed)
        assert totals == pytest.approx({a: episode.returns[a] for a in outside})
    if name == "pommerman":
        assert env.teams == {"team_0": ("agent_0", "agent_2")}


def test_opponents_inside_rejects_bad_seats_and_steps_after_the_end() -> None:
    env = envs.make("tic_tac_toe")
    with pytest.raises(
        UnknownAgentError, match=r"opponents name unknown agent 'player_9'; .* has \['player_0', 'player_1'\]"
    ):
        OpponentsInside(env, {"player_9": "random"})
    with pytest.raises(ValueError, match=r"every seat of .* is an opponent; leave at least one outside"):
        OpponentsInside(env, {"player_0": "random", "player_1": "random"})
    with pytest.raises(
        TypeError, match=r"the opponent for 'player_1' must be an arena.Agent or a registered agent name, got int"
    ):
        OpponentsInside(env, {"player_1": 3})  # type: ignore[dict-item]
    shared = RandomAgent(seed=0)
    sides = OpponentsInside(
        envs.make("team_rock_paper_scissors", team_sizes=(1, 2)), {"player_1": shared, "player_2": shared}
    )
    assert sides.opponents["player_1"] is shared and sides.opponents["player_2"] is not shared  # state per seat
    inside = OpponentsInside(env, {"player_1": "random"})
    with pytest.raises(ResetNeeded, match=r"step on .* after the episode's end; call reset first"):
        inside.step({"player_0": 0})
    observations, infos = inside.reset(seed=0)
    while inside.agents:
        observations, _, _, _, infos = inside.step(
            {"player_0": int(np.flatnonzero(infos["player_0"]["action_mask"])[0])}
        )
    with pytest.raises(ResetNeeded):
        inside.step({"player_0": 0})


def test_rllib_env_checker_accepts_opponents_inside_under_interfaces_with_masks_in_the_observation() -> None:
    from arena import EnvItfWrapper, Interface

    inside = OpponentsInside(envs.make("tic_tac_toe"), {"player_1": "random"})
    env = to_rllib(EnvItfWrapper(inside, Interface()), mask_in_observation=True)
    assert (
        env.possible_agents == ["player_0"] and str(env.env) == "<MultiAgentEnvItfWrapper<OpponentsInside<TicTacToe>>>"
    )
    env.get_action_space("player_0").seed(1)
    check_multiagent_environments(env)
