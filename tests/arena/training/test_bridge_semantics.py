"""The rules both training bridges keep, run on each: SingleAgentEnv (in SB3's DummyVecEnv) and BatchVecEnv.

Seats (shuffled or in turn), the learner's own view only, rewards summed up to the final
one, masks for MaskablePPO, the opponent pool sampled per episode, and opponents that
change only from the next episode on.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from stable_baselines3.common.vec_env import DummyVecEnv

from arena import Agent, AgtItfWrapper, RandomAgent
from arena.training import OpponentPool, SB3Agent, SingleAgentEnv
from arena.training.batched import BatchVecEnv
from envs.connect_four_agents import ConnectFourHeuristicAgent
from interfaces.board import EgoBoard

BRIDGES = ("single", "batched")
torch.set_num_threads(1)  # small nets on a busy machine: more threads only wait for each other


class EdgeAgent(Agent):
    """Always the first (or last) legal action: which one played shows on the board."""

    def __init__(self, last: bool = False) -> None:
        self.last = last

    def act(self, observation, action_mask=None, reward=0.0):
        legal = np.flatnonzero(action_mask)
        return int(legal[-1] if self.last else legal[0])

    def act_batch(self, observations, action_masks=None):
        masks = np.asarray(action_masks, dtype=bool)
        if self.last:
            return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
        return np.argmax(masks, axis=1)

    def __str__(self) -> str:
        return f"EdgeAgent(last={self.last})"


def make(bridge: str, game: str, n: int, opponents, seed: int = 0, **kwargs):
    if bridge == "single":
        venv = DummyVecEnv([lambda: SingleAgentEnv(game, opponents, **kwargs) for _ in range(n)])
    else:
        venv = BatchVecEnv(game, n, opponents, **kwargs)
    venv.seed(seed)
    return venv


def masks_of(venv) -> np.ndarray:
    return np.stack(venv.env_method("action_masks"))


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def seats_of(infos) -> list[str]:
    return [info["seat"] for info in infos]


@pytest.mark.parametrize("bridge", BRIDGES)
@pytest.mark.parametrize("game", ["tic_tac_toe", "connect_four"])
def test_learner_sees_only_its_own_turns_and_rewards_add_up(bridge, game):
    venv = make(bridge, game, 4, "random", shuffle_seats=True)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    outcomes, seats_seen = [], set()
    returns = np.zeros(4)
    for _ in range(120):
        masks = masks_of(venv)
        for board, mask in zip(obs, masks):
            # the board of the player to move: parity says whose turn, empty cells/free columns are the mask
            free = (board == 0) if game == "tic_tac_toe" else (board[0] == 0)
            assert np.array_equal(mask, free.reshape(-1))
        obs, rewards, dones, infos = venv.step(random_actions(masks, rng))
        returns += rewards
        for i, (info, done) in enumerate(zip(infos, dones)):
            seats_seen.add(info["seat"])
            parity = int(np.count_nonzero(obs[i])) % 2
            assert parity == ("player_0", "player_1").index(info["seat"]) or done
            if done:
                assert returns[i] in (-1.0, 0.0, 1.0)
                outcomes.append(returns[i])
                returns[i] = 0.0
            else:
                assert rewards[i] == 0.0  # board games pay at the end only
    assert seats_seen == {"player_0", "player_1"}
    assert -1.0 in outcomes and 1.0 in outcomes  # losses by the opponent's last move reach the learner too


@pytest.mark.parametrize("bridge", BRIDGES)
def test_seats_rotate_without_shuffle_and_restart_on_seed(bridge):
    venv = make(bridge, "tic_tac_toe", 2, EdgeAgent())
    sequences = []
    for _ in range(2):
        venv.seed(3)
        venv.reset()
        seats = [seats_of(venv.step(np.argmax(masks_of(venv), axis=1))[3])]
        for _ in range(30):
            _, _, dones, infos = venv.step(np.argmax(masks_of(venv), axis=1))
            seats.append([s for s, d in zip(seats_of(infos), dones) if d])
        sequences.append(seats)
    assert sequences[0] == sequences[1]
    flat = [s for step in sequences[0][1:] for s in step]
    assert flat[:2] and set(flat) == {"player_0", "player_1"}


@pytest.mark.parametrize("bridge", BRIDGES)
def test_shuffled_seats_are_reproducible_and_balanced(bridge):
    runs = []
    for _ in range(2):
        venv = make(bridge, "connect_four", 4, "random", seed=7, shuffle_seats=True)
        venv.reset()
        rng = np.random.default_rng(1)
        seats = []
        for _ in range(150):
            _, _, dones, infos = venv.step(random_actions(masks_of(venv), rng))
            seats += [s for s, d in zip(seats_of(infos), dones) if d]
        runs.append(seats)
    assert runs[0] == runs[1]
    assert 0.25 < runs[0].count("player_0") / len(runs[0]) < 0.75


@pytest.mark.parametrize("bridge", BRIDGES)
def test_pool_is_sampled_per_episode_and_new_opponents_wait_for_the_next_one(bridge):
    first, last = EdgeAgent(), EdgeAgent(last=True)
    pool = OpponentPool([first, last], strategy="uniform")
    venv = make(bridge, "tic_tac_toe", 3, pool, seats="player_1")
    obs = venv.reset()
    openers = []
    for _ in range(40):
        openers += [int(np.flatnonzero(board.reshape(-1))[0]) for board in obs if np.count_nonzero(board) == 1]
        obs, _, _, _ = venv.step(np.argmax(masks_of(venv), axis=1))
    assert set(openers) == {0, 8}  # both members opened games (cell 0 or cell 8)
    venv.env_method("set_opponents", EdgeAgent(last=True))
    # games under way finish against whoever started them; then every game opens in cell 8
    for _ in range(5):
        obs, _, _, _ = venv.step(np.argmax(masks_of(venv), axis=1))
    for _ in range(6):
        for board in obs:
            if np.count_nonzero(board) == 1:
                assert board.reshape(-1)[8] == 1
        obs, _, _, _ = venv.step(np.argmax(masks_of(venv), axis=1))


@pytest.mark.parametrize("bridge", BRIDGES)
def test_maskable_ppo_trains_on_the_bridge_with_an_interface_and_snapshot_opponents(bridge):
    from sb3_contrib import MaskablePPO

    pool = OpponentPool([RandomAgent(seed=0), ConnectFourHeuristicAgent(seed=1)], strategy="uniform")
    venv = make(bridge, "connect_four", 4, pool, shuffle_seats=True, interface=EgoBoard())
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    snapshot = AgtItfWrapper(SB3Agent(model.policy, deterministic=False, seed=3), EgoBoard())
    pool.add(snapshot, name="snapshot")
    venv.env_method("set_opponents", pool)
    model.learn(128, reset_num_timesteps=False)
    assert model.num_timesteps >= 192


def test_batch_vec_env_error_texts():
    with pytest.raises(
        TypeError,
        match=r"BatchVecEnv: <RockPaperScissors> has no batched version \(no make_batch\(num_games\) method\); "
        r"give num_workers to play its games as a worker batch \(arena.worker_batch\), or train it through "
        r"arena.training.SingleAgentEnv",
    ):
        BatchVecEnv("rock_paper_scissors", 2)

    class Plain(Agent):
        def act(self, observation, action_mask=None, reward=0.0):
            return 0

    with pytest.raises(TypeError, match=r"opponent Plain cannot act for many games at once"):
        BatchVecEnv("tic_tac_toe", 2, Plain())
    with pytest.raises(TypeError, match=r"opponent Plain cannot act for many games at once"):
        BatchVecEnv("tic_tac_toe", 2, OpponentPool([RandomAgent(), Plain()]))
    with pytest.raises(ValueError, match=r"num_envs must be a positive integer, got 0"):
        BatchVecEnv("tic_tac_toe", 0)
    venv = BatchVecEnv("tic_tac_toe", 2)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        venv.get_attr("nope")
    assert venv.get_attr("seats", indices=[0]) == [["player_0", "player_1"]]


# ------------------------------------------------------- act_batch == act
boards = st.lists(st.integers(0, 6), min_size=0, max_size=30).map(lambda moves: _connect_four_after(moves))


def _connect_four_after(moves):
    import envs

    env = envs.make("connect_four")
    obs, infos = env.reset()
    for move in moves:
        (agent,) = obs
        legal = np.flatnonzero(infos[agent]["action_mask"])
        obs, _, _, _, infos = env.step({agent: int(legal[move % len(legal)])})
        if not env.agents:
            return None
    (agent,) = obs
    return obs[agent], infos[agent]["action_mask"]


@settings(max_examples=40, deadline=None)
@given(positions=st.lists(boards, min_size=1, max_size=6))
def test_heuristic_act_batch_wins_and_blocks_as_act_does(positions):
    positions = [p for p in positions if p is not None]
    if not positions:
        return
    agent = ConnectFourHeuristicAgent(seed=0)
    board_stack = np.stack([p[0] for p in positions])
    mask_stack = np.stack([p[1] for p in positions])
    batch = agent.act_batch(board_stack, mask_stack)
    for (board, mask), action in zip(positions, batch):
        assert mask[action]
        single = ConnectFourHeuristicAgent(seed=0).act(board, mask)
        forced = [ConnectFourHeuristicAgent(seed=s).act(board, mask) for s in range(1, 6)]
        if len(set(forced + [single])) == 1 and mask.sum() > 1:  # a winning or blocking move: no chance in it
            assert action == single


@settings(max_examples=30, deadline=None)
@given(positions=st.lists(boards, min_size=1, max_size=5), planes=st.booleans())
def test_ego_board_batch_equals_one_by_one(positions, planes):
    from gymnasium import spaces

    positions = [p for p in positions if p is not None]
    if not positions:
        return
    itf = EgoBoard(planes=planes)
    itf.setup(spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7))
    stack = np.stack([p[0] for p in positions])
    batch = itf.transform_observation_batch(stack)
    assert batch.shape == (len(positions), *itf.observation_space.shape)
    for board, view in zip(stack, batch):
        assert np.array_equal(view, itf.transform_observation(board))
        assert itf.observation_space.contains(view)


def test_random_and_policy_act_batch_pick_legal_actions_like_act():
    from sb3_contrib import MaskablePPO

    masks = np.array([[0, 0, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 0, 1]], dtype=np.int8)
    agent = RandomAgent(seed=0)
    from gymnasium import spaces

    agent.setup(spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7))
    draws = np.stack([agent.act_batch(np.zeros((3, 6, 7)), masks) for _ in range(100)])
    assert set(draws[:, 0]) == {2} and set(draws[:, 2]) == {0, 6} and len(set(draws[:, 1])) == 7
    venv = BatchVecEnv("connect_four", 2, interface=EgoBoard())
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, seed=0, device="cpu")
    policy_agent = AgtItfWrapper(SB3Agent(model.policy), EgoBoard())
    policy_agent.setup(spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7))
    boards = np.zeros((3, 6, 7), dtype=np.int8)
    boards[1, 5, 3] = 1
    assert policy_agent.act_batch(boards, masks).tolist() == [policy_agent.act(b, m) for b, m in zip(boards, masks)]
    with pytest.raises(ValueError, match="the action mask of game 0 allows no action"):
        agent.act_batch(np.zeros((1, 6, 7)), np.zeros((1, 7), dtype=np.int8))


# ------------------------------------------------------- simultaneous moves (snake)
SNAKE = {"height": 8, "width": 8, "num_snakes": 3, "max_steps": 40}


def make_snake(bridge: str, n: int, opponents, seed: int = 0, **kwargs):
    if bridge == "single":
        venv = DummyVecEnv([lambda: SingleAgentEnv("snake", opponents, env_kwargs=SNAKE, **kwargs) for _ in range(n)])
    else:
        from arena.training.vectorised import batch_vec_env

        venv = batch_vec_env("snake", n, opponents, env_kwargs=SNAKE, **kwargs)
    venv.seed(seed)
    return venv


@pytest.mark.parametrize("bridge", BRIDGES)
def test_snake_learner_episodes_end_when_it_is_out_and_seats_shuffle(bridge):
    runs = []
    for _ in range(2):
        venv = make_snake(bridge, 3, "random", shuffle_seats=True)
        obs = venv.reset()
        assert obs.shape[1:] == venv.observation_space.shape
        rng = np.random.default_rng(0)
        seats, ends, returns = [], 0, []
        total = np.zeros(3)
        for _ in range(60):
            assert np.stack(venv.env_method("action_masks")).all()  # snake has no masks: everything is legal
            obs, rewards, dones, infos = venv.step(rng.integers(0, 3, size=3))
            total += rewards
            for i, info in enumerate(infos):
                if dones[i]:
                    ends += 1
                    seats.append(info["seat"])
                    assert info["terminal_observation"].shape == venv.observation_space.shape
                    returns.append(total[i])
                    total[i] = 0.0
                    assert venv.observation_space.contains(obs[i])
        runs.append((seats, returns))
        assert ends >= 3 and len(set(seats)) >= 2
    assert runs[0] == runs[1]  # a seed replays the run


def test_snake_trains_on_the_batched_path_by_default():
    from sb3_contrib import MaskablePPO

    import envs
    from arena.training.vectorised import choose_path

    assert choose_path(envs.make("snake", **SNAKE), "maskable-ppo", RandomAgent(), None) == "batched"
    venv = make_snake("batched", 4, OpponentPool([RandomAgent(seed=0)]), shuffle_seats=True)
    assert isinstance(venv, BatchVecEnv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(32)
    venv.env_method("set_opponents", OpponentPool([RandomAgent(seed=1), SB3Agent(model.policy, deterministic=False)]))
    model.learn(32, reset_num_timesteps=False)
    assert model.num_timesteps >= 64
