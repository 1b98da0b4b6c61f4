"""Pommerman's pictures read without guessing: bombs with their timers, flames, power-ups, agents by number, a key."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.pommerman import render
from envs.pommerman.core import AGENT_0, BOMB, EXTRA_BOMB, FLAMES, INCR_RANGE, KICK, PASSAGE, RIGID, WOOD

P = 32  # the default cell size
WHITE = (255, 255, 255)


def _env(mode: str = "team", **options):
    env = envs.make("pommerman", mode=mode, render_mode="rgb_array", **options)
    env.reset(seed=0)
    return env


def _cell(image: np.ndarray, r: int, c: int, p: int = P) -> np.ndarray:
    return image[r * p : (r + 1) * p, c * p : (c + 1) * p]


def _lay_bomb(env, r: int, c: int, life: int, on_board: bool = True) -> None:
    state = env.state
    if on_board:
        state.board[r, c] = BOMB
    state.bombs[0] = (r, c, 0, life, 2, 0)
    state.counts[0] = 1


def _free_cell(env) -> tuple[int, int]:
    rows, cols = np.nonzero(env.state.board == PASSAGE)
    return int(rows[0]), int(cols[0])


def _has(picture: np.ndarray, colour) -> bool:
    return bool((picture.reshape(-1, 3) == np.asarray(colour, np.uint8)).all(axis=1).any())


def test_a_bomb_shows_the_steps_until_it_explodes():
    env = _env()
    r, c = _free_cell(env)
    pictures = {}
    for life in (7, 3):
        _lay_bomb(env, r, c, life)
        pictures[life] = _cell(env.render(), r, c).copy()
        assert _has(pictures[life], render.PALETTE[BOMB]) and _has(pictures[life], WHITE)  # a black bomb, a number
        assert np.array_equal(pictures[life], render.sprite(BOMB, P, life))
    assert not np.array_equal(pictures[7], pictures[3])  # the number is the timer
    assert not np.array_equal(render.sprite(BOMB, P, 7), render.sprite(BOMB, P))  # a bare bomb has no number


def test_an_agent_on_its_bomb_shows_both():
    env = _env()
    alive, r, c = (int(v) for v in env.state.agents[0][:3])
    plain = _cell(env.render(), r, c).copy()
    assert alive and np.array_equal(plain, render.sprite(AGENT_0, P))
    _lay_bomb(env, r, c, 9, on_board=False)  # the agent still stands on the bomb it laid
    drawn = _cell(env.render(), r, c)
    lower_right = drawn[P // 2 :, P // 2 :]
    assert not np.array_equal(drawn, plain) and _has(lower_right, render.PALETTE[BOMB])
    assert np.array_equal(drawn[: P // 2, : P // 2], plain[: P // 2, : P // 2])  # the agent itself unchanged


def test_every_thing_has_a_picture_of_its_own_and_the_board_uses_it():
    codes = [PASSAGE, RIGID, WOOD, BOMB, FLAMES, EXTRA_BOMB, INCR_RANGE, KICK, *range(AGENT_0, AGENT_0 + 4)]
    sprites = {code: render.sprite(code, P) for code in codes}
    for a in codes:
        for b in codes:
            assert a == b or not np.array_equal(sprites[a], sprites[b]), (a, b)
    env = _env()
    cells = list(zip(*np.nonzero(env.state.board == WOOD)))[:4]
    for (r, c), code in zip(cells, (FLAMES, EXTRA_BOMB, INCR_RANGE, KICK)):
        env.state.board[r, c] = code
    image = env.render()
    for (r, c), code in zip(cells, (FLAMES, EXTRA_BOMB, INCR_RANGE, KICK)):
        assert np.array_equal(_cell(image, r, c), sprites[code]), code
    for i in range(4):  # agents by colour and by number
        _, r, c = (int(v) for v in env.state.agents[i][:3])
        assert np.array_equal(_cell(image, r, c), sprites[AGENT_0 + i]) and _has(sprites[AGENT_0 + i], WHITE)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) <= 256  # flat colours: the page packs a palette


def test_the_legend_names_each_picture_and_each_agent():
    env = _env()
    legend = env.render_legend()
    labels = [entry.label for entry in legend]
    for words in ("wooden wall", "rigid wall", "bomb (its number: steps until it explodes)", "flames"):
        assert any(words in label for label in labels), words
    assert [label for label in labels if label.startswith("power-up")] == [
        "power-up: extra bomb",
        "power-up: blast range",
        "power-up: kick",
    ]
    agents = [entry for entry in legend if entry.agent is not None]
    assert [entry.agent for entry in agents] == env.possible_agents
    assert all(entry.picture.shape == (P, P, 3) and entry.picture.dtype == np.uint8 for entry in legend)
    assert np.array_equal(agents[2].picture, _cell(env.render(), *(int(v) for v in env.state.agents[2][1:3])))


@pytest.mark.parametrize("cell_pixels", [2, 4, 9, 10, 128])
def test_any_cell_size_draws(cell_pixels):
    env = _env(mode="ffa", cell_pixels=cell_pixels)
    r, c = _free_cell(env)
    _lay_bomb(env, r, c, 5)
    image = env.render()
    assert image.shape == (11 * cell_pixels, 11 * cell_pixels, 3) and image.dtype == np.uint8
    assert _has(_cell(image, r, c, cell_pixels), WHITE) == (cell_pixels >= 10)  # numbers only where they read


def test_the_text_render_lists_bombs_sides_and_its_key():
    env = envs.make("pommerman", mode="team", render_mode="ansi")
    env.reset(seed=0)
    r, c = _free_cell(env)
    _lay_bomb(env, r, c, 6)
    text = env.render()
    assert f"bombs: ({r},{c}) in 6 blast 2 by agent_0" in text
    assert "agent_0 [team_0]: at (1,1)" in text and "agent_1 [team_1]" in text
    assert "key: . passage, # rigid wall, + wooden wall, o bomb, * flames, b power-up: extra bomb" in text
    ffa = envs.make("pommerman", render_mode="ansi")
    ffa.reset(seed=0)
    assert "agent_0: at" in ffa.render() and "bombs:" not in ffa.render()
