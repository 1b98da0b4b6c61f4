"""Rules, observations and contract of the multi-snake env (envs/snake)."""

from __future__ import annotations

import doctest
import importlib
import re

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena.errors import InvalidActionError, ResetNeeded, UnknownAgentError, WrongAgentsError
from arena.testing import check_env
from envs.snake import CHANNELS, SingleSnake, Snake

WALL, FRUIT, OTHER_HEAD, OTHER_BODY, OTHER_TAIL, OWN_HEAD, OWN_BODY, OWN_TAIL = range(8)
LEFT, STRAIGHT, RIGHT = 0, 1, 2
REWARDS = {"fruit": 1.0, "kill": 2.0, "lose": -1.0, "time": 0.125, "win": 10.0}


def small(num_snakes: int = 2, **options) -> Snake:
    """A 7x7 map (border walls, free cells at rows and columns 1-5), one fruit."""
    options.setdefault("reward_dict", REWARDS)
    options.setdefault("num_fruits", 1)
    return Snake(height=7, width=7, num_snakes=num_snakes, **options)


# ---------------------------------------------------------------- contract
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_snakes": 3, "height": 9, "width": 11, "vision_range": 2, "frame_stack": 3, "render_mode": "ansi"},
        {"num_snakes": 1, "height": 6, "width": 6, "max_steps": 50, "render_mode": "rgb_array"},
        {"walls": ["#######", "#.....#", "#..#..#", "#.....#", "#######"], "num_snakes": 2, "snake_length": 2},
    ],
)
def test_snake_keeps_the_arena_env_contract(options) -> None:
    check_env(envs.make("snake", **options))


def test_spaces_and_action_names() -> None:
    env = Snake()
    assert env.possible_agents == ["snake_0", "snake_1", "snake_2", "snake_3"]
    space = env.observation_space("snake_2")
    assert space == spaces.Box(0, 1, (20, 20, 8), np.uint8)
    assert env.action_space("snake_0") == spaces.Discrete(3)
    assert env.action_names("snake_1") == ["left", "straight", "right"]
    assert CHANNELS == ("wall", "fruit", "other_head", "other_body", "other_tail", "own_head", "own_body", "own_tail")
    assert Snake(vision_range=3, frame_stack=2, on_value=255).observation_space("snake_0") == spaces.Box(
        0, 255, (7, 7, 16), np.uint8
    )
    with pytest.raises(UnknownAgentError, match="unknown agent 'snake_9'"):
        env.action_names("snake_9")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"reward_dict": {"fruit": 1.0}},
            "reward_dict must have exactly the keys ['fruit', 'kill', 'lose', 'time', 'win'], got ['fruit']",
        ),
        ({"reward_dict": {**REWARDS, "win": "lots"}}, "reward_dict['win'] must be a finite number, got 'lots'"),
        ({"num_snakes": 0}, "num_snakes must be an integer of at least 1, got 0"),
        ({"num_snakes": 85}, "num_snakes must be at most 84, got 85"),
        ({"snake_length": 1}, "snake_length must be an integer of at least 2, got 1"),
        ({"height": 2}, "height must be an integer of at least 3, got 2"),
        ({"vision_range": 0}, "vision_range must be an integer of at least 1, got 0"),
        ({"render_mode": "human"}, "render_mode must be None, 'ansi' or 'rgb_array', got 'human'"),
        ({"walls": ["###", "#."]}, "rows of equal length made of '#' (wall) and '.' (free)"),
        ({"walls": np.full((3, 3, 3), 1)}, "walls must be a 2-D array of 0/1"),
        ({"on_value": 256}, "on_value must be at most 255, got 256"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(options, message) -> None:
    with pytest.raises(ValueError, match="^Snake: .*" + re.escape(message)):
        Snake(**options)


def test_a_map_too_small_for_the_snakes_is_refused() -> None:
    with pytest.raises(ValueError, match="3 snakes of length 3 .* need 14 free cells; the 4 x 4 map has 4"):
        Snake(height=4, width=4, num_snakes=3, snake_length=3)


def test_step_errors_name_the_env_and_change_nothing() -> None:
    env = small()
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step({"snake_0": 1, "snake_1": 1})
    env.place([[(3, 2), (4, 2)], [(3, 4), (4, 4)]])
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['snake_0', 'snake_1'\]"):
        env.step({"snake_0": 1})
    with pytest.raises(InvalidActionError, match="action for 'snake_1'"):
        env.step({"snake_0": 1, "snake_1": 3})
    assert env.snake_cells("snake_0") == [(3, 2), (4, 2)]
    env.step({"snake_0": 1, "snake_1": np.int64(1)})
    assert env.snake_cells("snake_0") == [(2, 2), (3, 2)]


def test_place_rejects_bad_positions() -> None:
    env = small()
    with pytest.raises(ValueError, match=r"expected 2 snakes \(or None\), got 1"):
        env.place([[(1, 1), (1, 2)]])
    with pytest.raises(ValueError, match=r"cells \(1, 1\) and \(1, 3\) of snake 0 are not neighbours"):
        env.place([[(1, 1), (1, 3)], None])
    with pytest.raises(ValueError, match=r"cell \(0, 1\) is outside the map, on a wall or taken twice"):
        env.place([[(1, 1), (0, 1)], None])
    with pytest.raises(ValueError, match=r"cell \(1, 2\) is outside the map, on a wall or taken twice"):
        env.place([[(1, 1), (1, 2)], [(1, 2), (1, 3)]])


# ------------------------------------------------------------------ moves
@pytest.mark.parametrize(("action", "head"), [(LEFT, (3, 2)), (STRAIGHT, (2, 3)), (RIGHT, (3, 4))])
def test_actions_turn_relative_to_the_heading(action, head) -> None:
    env = small(num_snakes=1)
    env.place([[(3, 3), (4, 3), (5, 3)]])  # heading up
    env.step({"snake_0": action})
    assert env.snake_cells("snake_0") == [head, (3, 3), (4, 3)]
    assert env.heading("snake_0") == {LEFT: 3, STRAIGHT: 0, RIGHT: 1}[action]


def test_death_by_wall() -> None:
    env = small()
    env.place([[(1, 3), (2, 3), (3, 3)], [(4, 1), (5, 1)]])
    obs, rewards, terms, truncs, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": False} and truncs == {"snake_0": False, "snake_1": False}
    assert rewards["snake_0"] == REWARDS["lose"]
    assert rewards["snake_1"] == REWARDS["time"] + REWARDS["win"]  # the last snake alive
    assert list(obs) == ["snake_1"] and env.agents == ["snake_1"]
    assert env.snake_cells("snake_0") == []  # a dead snake vanishes at once


def test_death_by_own_body_gives_no_kill() -> None:
    env = small(num_snakes=1)
    env.place([[(2, 2), (3, 2), (3, 3), (2, 3), (1, 3)]])  # heading up; its body is to the right
    _, rewards, terms, _, _ = env.step({"snake_0": RIGHT})
    assert terms == {"snake_0": True} and rewards == {"snake_0": REWARDS["lose"]}
    assert env.agents == []


def test_death_by_another_body_credits_a_kill() -> None:
    env = small()
    env.place([[(2, 3), (3, 3), (4, 3)], [(1, 4), (1, 3), (1, 2)]])  # snake_0 runs into snake_1's neck
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": False}
    assert rewards == {"snake_0": REWARDS["lose"], "snake_1": REWARDS["kill"] + REWARDS["win"] + REWARDS["time"]}


def test_a_moving_tail_is_free_but_a_growing_one_kills() -> None:
    env = small(num_fruits=1)
    position = [[(2, 2), (3, 2), (4, 2)], [(1, 4), (1, 3), (1, 2)]]  # snake_0 heads for snake_1's tail
    env.place(position, fruits=[(5, 5)])
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": False, "snake_1": False}
    assert env.snake_cells("snake_0")[0] == (1, 2) and env.snake_cells("snake_1") == [(1, 5), (1, 4), (1, 3)]
    env.place(position, fruits=[(1, 5)])  # now snake_1 eats, so its tail stays
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": False}
    assert rewards["snake_1"] == REWARDS["fruit"] + REWARDS["kill"] + REWARDS["win"] + REWARDS["time"]
    assert env.snake_cells("snake_1") == [(1, 5), (1, 4), (1, 3), (1, 2)]


def test_a_snake_may_follow_its_own_tail() -> None:
    env = small(num_snakes=1)
    env.place([[(2, 2), (3, 2), (3, 3), (2, 3)]])  # a square, heading up
    _, _, terms, _, _ = env.step({"snake_0": RIGHT})
    assert terms == {"snake_0": False}
    assert env.snake_cells("snake_0") == [(2, 3), (2, 2), (3, 2), (3, 3)]


def test_heads_meeting_on_one_cell_kill_both_without_kill_rewards() -> None:
    env = small(num_fruits=1)
    env.place([[(3, 2), (4, 2), (5, 2)], [(2, 3), (2, 4), (2, 5)]], fruits=[(2, 2)])  # both head for the fruit
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": True}
    assert rewards == {"snake_0": REWARDS["lose"], "snake_1": REWARDS["lose"]}
    assert env.fruit_cells() == [(2, 2)]  # the fruit stays, and no second one appears
    assert env.agents == []


def test_heads_swapping_places_kill_both_without_kill_rewards() -> None:
    env = small()
    env.place([[(3, 2), (4, 2), (5, 2)], [(2, 2), (1, 2)]])  # facing each other
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": True}
    assert rewards == {"snake_0": REWARDS["lose"], "snake_1": REWARDS["lose"]}


def test_entering_the_cell_a_head_leaves_is_hitting_its_neck() -> None:
    env = small()
    env.place([[(3, 2), (4, 2), (5, 2)], [(2, 2), (2, 1)]])  # snake_1 moves on to the right
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": False}
    assert rewards["snake_1"] == REWARDS["kill"] + REWARDS["win"] + REWARDS["time"]


def test_win_is_paid_every_step_to_the_last_snake_alive() -> None:
    env = small(num_snakes=3)
    env.place([[(1, 1), (2, 1)], [(1, 5), (2, 5)], [(4, 3), (5, 3)]])
    _, rewards, terms, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT, "snake_2": STRAIGHT})
    assert terms == {"snake_0": True, "snake_1": True, "snake_2": False}
    assert rewards["snake_2"] == REWARDS["win"] + REWARDS["time"]
    _, rewards, _, _, _ = env.step({"snake_2": RIGHT})
    assert rewards == {"snake_2": REWARDS["win"] + REWARDS["time"]}
    _, rewards, terms, _, _ = env.step({"snake_2": STRAIGHT})
    assert rewards == {"snake_2": REWARDS["win"] + REWARDS["time"]} and not terms["snake_2"]
    _, rewards, terms, _, _ = env.step({"snake_2": STRAIGHT})  # into the wall: no win on the last step
    assert rewards == {"snake_2": REWARDS["lose"]} and terms == {"snake_2": True}


def test_time_reward_goes_to_survivors_only_and_defaults_pay_fruit_only() -> None:
    env = small(num_snakes=3)
    env.place([[(1, 1), (2, 1)], [(3, 3), (4, 3)], [(3, 5), (4, 5)]])
    _, rewards, _, _, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT, "snake_2": STRAIGHT})
    assert rewards == {"snake_0": REWARDS["lose"], "snake_1": REWARDS["time"], "snake_2": REWARDS["time"]}
    default = Snake(height=7, width=7, num_snakes=2, num_fruits=1)
    assert default.reward_dict == {"fruit": 1.0, "kill": 0.0, "lose": 0.0, "time": 0.0, "win": 0.0}
    default.place([[(3, 3), (4, 3)], [(1, 1), (2, 1)]], fruits=[(2, 3)])
    _, rewards, _, _, _ = default.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert rewards == {"snake_0": 1.0, "snake_1": 0.0}


def test_eating_grows_the_snake_and_a_new_fruit_appears_on_an_empty_cell() -> None:
    env = small(num_snakes=1, num_fruits=2)
    env.place([[(3, 3), (4, 3), (5, 3)]], fruits=[(2, 3), (1, 1)], seed=4)
    _, rewards, _, _, _ = env.step({"snake_0": STRAIGHT})
    assert rewards == {"snake_0": REWARDS["fruit"] + REWARDS["time"]}
    cells = env.snake_cells("snake_0")
    assert cells == [(2, 3), (3, 3), (4, 3), (5, 3)]
    fruits = env.fruit_cells()
    assert len(fruits) == 2 and (1, 1) in fruits and not set(fruits) & set(cells)
    env.step({"snake_0": LEFT})
    assert len(env.snake_cells("snake_0")) == 4  # no fruit: the tail follows


def test_the_episode_ends_when_all_are_dead_or_at_the_step_limit() -> None:
    env = small()
    env.place([[(1, 1), (2, 1)], [(1, 5), (2, 5)]])
    obs, _, terms, truncs, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert obs == {} and env.agents == [] and all(terms.values()) and not any(truncs.values())
    with pytest.raises(ResetNeeded):
        env.step({})
    env = small(max_steps=2)
    env.place([[(3, 2), (4, 2)], [(3, 4), (4, 4)]])
    env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    obs, _, terms, truncs, _ = env.step({"snake_0": RIGHT, "snake_1": LEFT})  # both into (2, 3)...
    assert terms == {"snake_0": True, "snake_1": True} and truncs == {"snake_0": False, "snake_1": False}
    env.place([[(3, 2), (4, 2)], [(3, 4), (4, 4)]])
    env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    obs, _, terms, truncs, _ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert obs == {} and env.agents == [] and env.steps == 2
    assert truncs == {"snake_0": True, "snake_1": True} and terms == {"snake_0": False, "snake_1": False}


# ----------------------------------------------------------- observations
def test_observation_channels_tell_own_from_other_parts() -> None:
    env = small()
    obs, _ = env.place([[(3, 1), (4, 1), (5, 1)], [(1, 3), (1, 4), (1, 5)]], fruits=[(5, 5)])
    mine, theirs = obs["snake_0"], obs["snake_1"]
    assert mine.dtype == np.uint8 and mine.shape == (7, 7, 8)
    expected = {
        (3, 1): OWN_HEAD,
        (4, 1): OWN_BODY,
        (5, 1): OWN_TAIL,
        (1, 3): OTHER_HEAD,
        (1, 4): OTHER_BODY,
        (1, 5): OTHER_TAIL,
        (5, 5): FRUIT,
        (0, 0): WALL,
        (6, 3): WALL,
    }
    for (r, c), channel in expected.items():
        assert mine[r, c].tolist() == [int(k == channel) for k in range(8)], (r, c)
    mirror = {
        OWN_HEAD: OTHER_HEAD,
        OWN_BODY: OTHER_BODY,
        OWN_TAIL: OTHER_TAIL,
        OTHER_HEAD: OWN_HEAD,
        OTHER_BODY: OWN_BODY,
        OTHER_TAIL: OWN_TAIL,
    }
    for (r, c), channel in expected.items():
        assert theirs[r, c].argmax() == mirror.get(channel, channel)
    assert mine[2, 2].sum() == 0 and mine.sum() == 7 + 24  # 7 snake and fruit cells + the 24 border walls
    assert Snake(height=7, width=7, num_snakes=2, on_value=255).reset(seed=0)[0]["snake_0"].max() == 255


def test_vision_crop_is_centred_on_the_head_and_reads_walls_outside() -> None:
    full, crop = small(), small(vision_range=2)
    position = [[(1, 1), (2, 1), (3, 1)], [(3, 3), (3, 4), (3, 5)]]
    big, _ = full.place(position, fruits=[(1, 3)])
    seen, _ = crop.place(position, fruits=[(1, 3)])
    assert seen["snake_0"].shape == (5, 5, 8)
    padded = np.zeros((11, 11, 8), dtype=np.uint8)
    padded[..., WALL] = 1
    padded[2:9, 2:9] = big["snake_0"]
    assert np.array_equal(seen["snake_0"], padded[1:6, 1:6])  # rows/cols -1..3 around the head (1, 1)
    assert np.array_equal(seen["snake_1"], big["snake_1"][1:6, 1:6])  # head (3, 3): all inside
    assert seen["snake_0"][2, 2, OWN_HEAD] == 1 and seen["snake_0"][0, :, WALL].all()
    obs, *_ = crop.step({"snake_0": RIGHT, "snake_1": LEFT})
    assert obs["snake_0"][2, 2, OWN_HEAD] == 1 and obs["snake_1"][2, 2, OWN_HEAD] == 1


def test_frame_stack_keeps_the_latest_frames_oldest_first() -> None:
    env = small(frame_stack=3)
    first, _ = env.place([[(3, 2), (4, 2)], [(3, 4), (4, 4)]])
    frame0 = first["snake_0"][..., :8]
    assert first["snake_0"].shape == (7, 7, 24)
    assert all(np.array_equal(first["snake_0"][..., 8 * k : 8 * k + 8], frame0) for k in range(3))
    second, *_ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    frame1 = second["snake_0"][..., 16:]
    assert frame1[2, 2, OWN_HEAD] == 1 and frame0[3, 2, OWN_HEAD] == 1
    assert np.array_equal(second["snake_0"][..., :8], frame0) and np.array_equal(second["snake_0"][..., 8:16], frame0)
    third, *_ = env.step({"snake_0": STRAIGHT, "snake_1": STRAIGHT})
    assert np.array_equal(third["snake_0"][..., :8], frame0)
    assert np.array_equal(third["snake_0"][..., 8:16], frame1)
    assert third["snake_0"][1, 2, 16 + OWN_HEAD] == 1


def test_walls_from_a_map() -> None:
    walls = ["#######", "#.....#", "#..#..#", "#.....#", "#######"]
    env = Snake(walls=walls, num_snakes=1, num_fruits=1)
    assert (env.height, env.width) == (5, 7)
    obs, _ = env.place([[(3, 3), (3, 2)]])  # heading right, the inner wall is up-left
    assert obs["snake_0"][2, 3, WALL] == 1
    _, _, terms, _, _ = env.step({"snake_0": LEFT})  # turn up, into (2, 3)
    assert terms == {"snake_0": True}
    open_map = Snake(walls=np.zeros((4, 5), dtype=int), num_snakes=1)  # no border: leaving the map is a wall too
    open_map.place([[(0, 2), (1, 2)]])
    _, _, terms, _, _ = open_map.step({"snake_0": STRAIGHT})
    assert terms == {"snake_0": True}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), num_snakes=st.integers(1, 6), length=st.integers(2, 5))
def test_spawn_places_whole_snakes_on_free_cells_with_room_ahead(seed, num_snakes, length) -> None:
    walls = [
        "##########",
        "#........#",
        "#..##....#",
        "#........#",
        "#....#...#",
        "#........#",
        "#...##...#",
        "#........#",
        "##########",
    ]
    env = Snake(walls=walls, num_snakes=num_snakes, snake_length=length, num_fruits=2)
    env.reset(seed=seed)
    taken = set()
    for agent in env.possible_agents:
        cells = env.snake_cells(agent)
        assert len(cells) == length and not set(cells) & taken
        taken |= set(cells)
        assert all(walls[r][c] == "." for r, c in cells)
        assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(cells, cells[1:]))
        step = [(-1, 0), (0, 1), (1, 0), (0, -1)][env.heading(agent)]
        assert (cells[0][0] - cells[1][0], cells[0][1] - cells[1][1]) == step
        ahead = (cells[0][0] + step[0], cells[0][1] + step[1])
        assert walls[ahead[0]][ahead[1]] == "."
    for agent in env.possible_agents:  # nobody spawned in front of another head either
        cells = env.snake_cells(agent)
        step = [(-1, 0), (0, 1), (1, 0), (0, -1)][env.heading(agent)]
        assert (cells[0][0] + step[0], cells[0][1] + step[1]) not in taken
    fruits = env.fruit_cells()
    assert len(fruits) == 2 and not set(fruits) & taken


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), actions=st.lists(st.integers(0, 2), min_size=60, max_size=60))
def test_random_play_keeps_the_grid_consistent(seed, actions) -> None:
    env = Snake(height=9, width=9, num_snakes=3, num_fruits=2, render_mode="ansi")
    obs, _ = env.reset(seed=seed)
    for step, action in enumerate(actions):
        if not obs:
            break
        obs, *_ = env.step({agent: (action + i + step) % 3 for i, agent in enumerate(obs)})
        text = env.render().splitlines()
        for index, agent in enumerate(env.possible_agents):
            cells = env.snake_cells(agent)
            letter = chr(ord("a") + index)
            assert [text[r][c] for r, c in cells] == ([letter.upper()] + [letter] * (len(cells) - 1))[: len(cells)]
            assert sum(row.count(letter) + row.count(letter.upper()) for row in text) == len(cells)
            if agent in obs:
                head = cells[0]
                assert obs[agent][head[0], head[1], OWN_HEAD] == 1
        assert sum(row.count("*") for row in text) == 2


def test_same_seed_same_episode_and_reset_without_seed_plays_the_next_one() -> None:
    def episode(env: Snake, seed: int | None):
        obs, _ = env.reset(seed=seed)
        trace = [env.render()]
        rng = np.random.default_rng(5)
        while obs:
            obs, rewards, *_ = env.step({agent: int(rng.integers(3)) for agent in obs})
            trace.append((env.render(), rewards))
        return trace

    env = Snake(height=10, width=10, render_mode="ansi")
    first = episode(env, 11)
    second = episode(env, None)
    assert first != second
    assert episode(env, 11) == first and episode(env, None) == second
    assert episode(Snake(height=10, width=10, render_mode="ansi"), 11) == first


def test_render_modes() -> None:
    env = small(render_mode="ansi")
    env.place([[(3, 1), (4, 1)], [(1, 3), (1, 4), (1, 5)]], fruits=[(5, 5)])
    assert env.render() == "#######\n#..Bbb#\n#.....#\n#A....#\n#a....#\n#....*#\n#######\n"
    image = small(render_mode="rgb_array", cell_pixels=4)
    image.reset(seed=0)
    frame = image.render()
    assert frame.shape == (28, 28, 3) and frame.dtype == np.uint8
    assert len({tuple(p) for p in frame.reshape(-1, 3)}) >= 5  # empty, wall, fruit, and snake colours
    assert small().render() is None


# ------------------------------------------------------------ single agent
def test_single_snake_passes_gymnasium_check_env_and_ends_with_a_final_view() -> None:
    env = SingleSnake(height=8, width=8, render_mode="rgb_array")
    gymnasium_check_env(env, skip_render_check=True)
    assert env.action_names() == ["left", "straight", "right"]
    gymnasium_check_env(SingleSnake(height=8, width=8, vision_range=2, frame_stack=2), skip_render_check=True)
    env.game.place([[(1, 3), (2, 3)]])
    obs, reward, terminated, truncated, info = env.step(1)
    assert terminated and not truncated and obs.shape == (8, 8, 8) and obs[..., OWN_HEAD].sum() == 0
    assert env.render().shape == (64, 64, 3)
    with pytest.raises(ValueError, match="SingleSnake: num_snakes must be 1, got 2"):
        SingleSnake(num_snakes=2)


def test_single_snake_truncates_at_the_step_limit() -> None:
    env = SingleSnake(height=12, width=12, max_steps=3)
    env.reset(seed=0)
    env.game.place([[(6, 6), (7, 6)]])
    flags = [env.step(1)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


@pytest.mark.parametrize(
    "module",
    ["envs.snake", "envs.snake.core", "envs.snake.env", "envs.snake.single", "envs.snake.batched", "envs.snake.vector"],
)
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and (result.attempted > 0 or module == "envs.snake.core")


def test_seeded_draws_and_games_are_what_they_always_were():
    # users replay games by seed: episode keys, draws and a seeded game, taken before arena's four
    # SplitMix64s became one (28 Nov 2026; the snake draws hash with arena.seeding.mix64)
    from arena import play
    from arena.agents import RandomAgent
    from envs.snake import core

    assert core.episode_keys([0, 2**40], [0, 5]).tolist() == [12035550249420947055, 9730805509995799369]
    assert core.hash_draws(core.episode_keys([4], [1]), 3, [7]).tolist() == [12245220692650410280]
    env = envs.make("snake", num_snakes=3)
    episode = play(env, {a: RandomAgent(i) for i, a in enumerate(env.possible_agents)}, seed=2)
    assert episode.length == 86 and env.fruit_cells() == [(1, 17), (17, 9)]


def test_the_options_live_in_one_place():
    # Snake passes its options to SnakeRules, which alone names them, sets their defaults and checks them
    import inspect

    from envs.snake.rules import SnakeRules

    env = Snake(height=8, width=9)
    assert (env.height, env.width, env.num_snakes, env.max_steps) == (8, 9, 4, 10_000)
    assert set(inspect.signature(Snake.__init__).parameters) == {"self", "render_mode", "options"}
    assert "height" in inspect.signature(SnakeRules.__init__).parameters
    with pytest.raises(TypeError, match="heigth"):
        Snake(heigth=8)
    batch = env.make_batch(2, num_snakes=2)
    assert (batch.template.height, batch.template.width, batch.template.num_snakes) == (8, 9, 2)
