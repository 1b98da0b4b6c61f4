"""The compiled half of :class:`~envs.pommerman.batch.PommermanBatch`: a whole batch in one call.

:func:`batch_step` steps every game (the rules of :mod:`envs.pommerman.core`), scores it as
the single env does, resets the games that ended (boards from each game's own stream) and
writes every view's planes or codes (:mod:`envs.pommerman.batch_views`), all into preallocated arrays.
:func:`batch_step_parallel` is the same over ``numba.prange`` chunks of games (both run one
compiled body, :func:`_step_games`; numba's ``parallel`` is an option of a compilation). Both are
compiled without numba's reference counting (:func:`~envs.pommerman._jit.njit_unreferenced`),
so nothing here allocates: a board draw works in a scratch row of ``new_work``.
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit_inline, njit_parallel, njit_unreferenced, prange
from envs.pommerman.batch_views import PADDED, alive_bits, observe_game, observe_game_called
from envs.pommerman.board import BOARD_SCRATCH, START_POSITIONS, draw_board_into
from envs.pommerman.core import BOMB_CAP, SIZE, fill, step_inline
from envs.pommerman.planes import EGO_ACTIONS

__all__ = ["new_work", "batch_step", "batch_step_parallel", "reset_games", "observe_games"]

_STARTS = np.array(START_POSITIONS, dtype=np.int64)
_TEAM_0, _TEAM_1 = 0b0101, 0b1010


def new_work(chunks: int) -> tuple:
    """Working arrays for ``chunks`` games stepped at once: the rules' scratch and the views' scratch each."""
    n = SIZE
    return (
        np.zeros((chunks, 4, 2), np.int64),
        np.zeros((chunks, BOMB_CAP, 2), np.int64),
        np.zeros((chunks, 2 * n * n), np.int16),
        np.zeros((chunks, 2 * n * n), np.bool_),
        np.zeros((chunks, n * n), np.int16),
        np.zeros((chunks, n * n), np.int16),
        np.zeros((chunks, BOMB_CAP), np.int16),
        np.zeros((chunks, 4), np.int16),
        np.zeros((chunks, BOMB_CAP + 4, 4), np.int64),
        np.zeros((chunks, n * n), np.bool_),
        np.zeros((chunks, 4), np.bool_),
        np.zeros((chunks, PADDED), np.uint8),  # a view's cell codes (batch_views)
        np.zeros((chunks, 8), np.int64),  # one view's constant planes
        np.zeros((chunks, BOARD_SCRATCH), np.int64),  # a board draw's
    )


@njit_inline
def _scratch(w, t):
    return (w[0][t], w[1][t], w[2][t], w[3][t], w[4][t], w[5][t], w[6][t], w[7][t], w[8][t], w[9][t], w[10][t])


@njit_inline
def _popcount(bits):
    n = 0
    while bits:
        n += bits & 1
        bits >>= 1
    return n


@njit_inline
def _score(before, after, steps, max_steps, team, rewards, terms):
    """The single env's rewards and terminations for one step (``before``/``after``: alive bits). Returns done."""
    fill(rewards, 4, 0.0)
    fill(terms, 4, False)
    n_alive = _popcount(after)
    over = steps >= max_steps
    if not team:
        done = n_alive <= 1 or over
        for i in range(4):
            if before >> i & 1 and not after >> i & 1:
                rewards[i] = -1.0
                terms[i] = True
            elif after >> i & 1 and done:
                rewards[i] = 1.0 if n_alive == 1 else -1.0
                terms[i] = True
        return done
    done = n_alive <= 1 or after == _TEAM_0 or after == _TEAM_1 or over
    if after != 0 and after & _TEAM_1 == 0:
        winner = 0
    elif after != 0 and after & _TEAM_0 == 0:
        winner = 1
    else:
        winner = -1
    if winner >= 0 or done:
        for i in range(4):
            rewards[i] = 1.0 if i % 2 == winner else -1.0
            terms[i] = done
    return done


@njit_inline
def _reset_game(board, items, flames, agents, counts, radio, rng, scratch):
    """A fresh episode in one game: ``board``, ``items`` and ``flames`` are its rows of 121 cells."""
    draw_board_into(rng, board, items, scratch)
    fill(flames, SIZE * SIZE, 0)
    for a in range(4):
        agents[a, 0] = 1
        agents[a, 1] = _STARTS[a, 0]
        agents[a, 2] = _STARTS[a, 1]
        agents[a, 3] = 1
        agents[a, 4] = 2
        agents[a, 5] = 0
    counts[:] = 0
    radio[:] = 0


@njit_inline
def _step_game(
    g,
    agents,
    bombs,
    counts,
    steps,
    rngs,
    radio,
    last,
    actions,
    words,
    team,
    partial,
    ego,
    max_blast,
    max_steps,
    rewards,
    terms,
    live,
    acted,
    over,
    rows,
    viewed,
    final_rows,
    slot,
    s,
    cells,
    scalars,
    draw,
):
    """One game of :func:`batch_step`: its rules, scores and restart (its views come in a second pass).

    ``rows`` are the batch's boards, items and flames as rows of 121 cells (a tuple: a call of
    more than 30 arguments compiles to one that numba cannot inline), ``viewed`` what the views
    read (see :func:`_viewed`). A game that ends leaves its final views in row ``slot`` of ``final_rows``.
    """
    board_rows, item_rows, flame_rows = rows
    moves = last[g]
    before = alive_bits(agents, g)
    for a in range(4):
        acted[g, a] = live[g, a]
        act = actions[g, a]
        alive_now = before >> a & 1
        moves[a] = 0 if not alive_now else EGO_ACTIONS[a, act] if ego else act  # the dead send stop, 0, 0
        if words.shape[0]:
            radio[g, a, 0] = words[g, a, 0] if alive_now else 0
            radio[g, a, 1] = words[g, a, 1] if alive_now else 0
    after = step_inline(board_rows[g], item_rows[g], flame_rows[g], agents[g], bombs[g], counts[g], moves, max_blast, s)
    steps[g] += 1
    done = _score(before, after, steps[g], max_steps, team, rewards[g], terms[g])
    over[g] = done
    for a in range(4):
        live[g, a] = (after >> a & 1) != 0
    if done:
        observe_game_called(g, slot, viewed, cells, scalars, final_rows)
        _reset_game(board_rows[g], item_rows[g], flame_rows[g], agents[g], counts[g], radio[g], rngs[g], draw)
        steps[g] = 0
        live[g, :] = True


@njit_inline
def _bad_actions(actions, words):
    """0 when every move lies in 0..5 and every word in 0..7; else 1 (a move) or 2 (a word)."""
    for g in range(actions.shape[0]):
        for a in range(4):
            if actions[g, a] < 0 or actions[g, a] > 5:
                return 1
    for g in range(words.shape[0]):
        for a in range(4):
            for w in range(2):
                if words[g, a, w] < 0 or words[g, a, w] > 7:
                    return 2
    return 0


@njit_inline
def _cell_rows(grids):
    """The games' (11, 11) grids as flat rows (one reshape a call, none a game: see batch_views)."""
    return grids.reshape(grids.shape[0], SIZE * SIZE)


@njit_inline
def _viewed(
    board_rows, flame_rows, agents, bombs, counts, radio, steps, live, max_steps, team, partial, ego, seats, fresh
):
    """What :func:`~envs.pommerman.batch_views.observe_game` reads, as the one tuple it takes."""
    return (
        board_rows,
        flame_rows,
        agents,
        bombs,
        counts,
        radio,
        steps,
        live,
        max_steps,
        team,
        partial,
        ego,
        seats,
        fresh,
    )


@njit_unreferenced
def _step_games(first, stop, t, in_order, games, moves, options, outputs):
    """Games ``first`` to ``stop - 1`` of :func:`batch_step` with chunk ``t``'s scratch; returns how many ended.

    ``games``, ``moves``, ``options`` and ``outputs`` are :func:`batch_step`'s arguments in four
    tuples (the games' state, the actions and words, the flags, what it writes), in its order.

    A game that ends leaves its final views in the next row of ``final`` (``in_order``: the
    ``k``-th to end in row ``k``) or in its own row (chunks that run at once). The body of both
    :func:`batch_step` and :func:`batch_step_parallel`, compiled once as a function of its own: inlined
    into both, it compiled twice, and numba's parallel passes over its inlined body took minutes.
    """
    boards, items, flames, agents, bombs, counts, steps, rngs, radio, last = games
    actions, words = moves
    team, partial, ego, seats, max_blast, max_steps, fresh = options
    obs, rewards, terms, live, acted, over, final, work = outputs
    s = _scratch(work, t)
    board_rows, item_rows, flame_rows = _cell_rows(boards), _cell_rows(items), _cell_rows(flames)
    viewed = _viewed(
        board_rows, flame_rows, agents, bombs, counts, radio, steps, live, max_steps, team, partial, ego, seats, fresh
    )
    ended = 0
    for g in range(first, stop):
        _step_game(
            g,
            agents,
            bombs,
            counts,
            steps,
            rngs,
            radio,
            last,
            actions,
            words,
            team,
            partial,
            ego,
            max_blast,
            max_steps,
            rewards,
            terms,
            live,
            acted,
            over,
            (board_rows, item_rows, flame_rows),
            viewed,
            final,
            ended if in_order else g,
            s,
            work[11][t],
            work[12][t],
            work[13][t],
        )
        ended += over[g]
    # the views in a second pass: the rules and the views in one loop body stepped fewer games a
    # CPU-second (docs/performance.md; the two bodies' code together, likely, crowd the
    # instruction cache)
    for g in range(first, stop):
        observe_game(g, g, viewed, work[11][t], work[12][t], obs)
    return ended


@njit_unreferenced
def batch_step(
    boards,
    items,
    flames,
    agents,
    bombs,
    counts,
    steps,
    rngs,
    radio,
    last,
    actions,
    words,
    team,
    partial,
    ego,
    seats,
    max_blast,
    max_steps,
    fresh,
    obs,
    rewards,
    terms,
    live,
    acted,
    over,
    final,
    work,
):
    """Step every game once (ended games restart in the same call); returns how many ended.

    ``obs`` and ``final`` hold the views as flat rows ``(games, 4, view bytes)`` (the caller's
    arrays reshaped: planes ``(games, 4, planes, 11, 11)`` or codes ``(games, 4, 248)``); the row
    length tells the layout (:mod:`envs.pommerman.batch_views`). ``fresh``: ``obs`` is new memory
    (``np.empty``), so every row is written, zeros included, not only those that change. The final
    views of the ``k`` games that ended fill the first ``k`` rows of ``final``, in game order;
    ``acted`` gets ``live`` as it was before the step (who acted in it).

    Returns ``-1`` (a move outside 0..5) or ``-2`` (a word outside 0..7) before stepping anything.
    """
    bad = _bad_actions(actions, words)
    if bad:
        return -bad
    # numba compiles a callee once per argument types, and a literal (0, True) or prange's index is a
    # type of its own: both entries pass int64 and bool, so the body compiles once for both
    return _step_games(
        np.int64(0),
        np.int64(boards.shape[0]),
        np.int64(0),
        np.bool_(True),
        (boards, items, flames, agents, bombs, counts, steps, rngs, radio, last),
        (actions, words),
        (team, partial, ego, seats, max_blast, max_steps, fresh),
        (obs, rewards, terms, live, acted, over, final, work),
    )


# The same arguments as batch_step, spelled out again on purpose: a compiled entry point takes no
# *args, and this hot path's two entry points (serial, threaded) share their body (_step_games).
@njit_parallel
def batch_step_parallel(
    boards,
    items,
    flames,
    agents,
    bombs,
    counts,
    steps,
    rngs,
    radio,
    last,
    actions,
    words,
    team,
    partial,
    ego,
    seats,
    max_blast,
    max_steps,
    fresh,
    obs,
    rewards,
    terms,
    live,
    acted,
    over,
    final,
    work,
):
    """:func:`batch_step` with the games split in ``len(work[0])`` chunks run on numba's threads."""
    bad = _bad_actions(actions, words)
    if bad:
        return -bad
    chunks = work[0].shape[0]
    games = boards.shape[0]
    for t in prange(chunks):
        chunk = np.int64(t)  # the serial entry's argument types (see batch_step)
        _step_games(
            chunk * games // chunks,
            (chunk + 1) * games // chunks,
            chunk,
            np.bool_(False),
            (boards, items, flames, agents, bombs, counts, steps, rngs, radio, last),
            (actions, words),
            (team, partial, ego, seats, max_blast, max_steps, fresh),
            (obs, rewards, terms, live, acted, over, final, work),
        )
    ended = 0
    for g in range(games):  # the final views of the games that ended to the first rows, in order
        if over[g]:
            if ended != g:
                for a in range(4):
                    for i in range(final.shape[2]):
                        final[ended, a, i] = final[g, a, i]
            ended += 1
    return ended


@njit_unreferenced
def reset_games(games, boards, items, flames, agents, counts, steps, rngs, radio, live, work):
    """Start a new episode in each game of ``games`` (its stream's next board)."""
    board_rows, item_rows, flame_rows = _cell_rows(boards), _cell_rows(items), _cell_rows(flames)
    for g in games:
        _reset_game(board_rows[g], item_rows[g], flame_rows[g], agents[g], counts[g], radio[g], rngs[g], work[13][0])
        steps[g] = 0
        live[g, :] = True


@njit_unreferenced
def observe_games(
    games,
    boards,
    flames,
    agents,
    bombs,
    counts,
    steps,
    radio,
    team,
    partial,
    ego,
    seats,
    max_steps,
    live,
    work,
    obs,
    fresh,
):
    """Write the views of ``games`` into ``obs`` (after a reset or a loaded state).

    ``fresh`` is :func:`~envs.pommerman.batch_views.observe_game`'s: whether ``obs`` is new, unwritten memory.
    It is an argument, not the constant ``False``, because numba types a constant as a literal, which would
    compile :func:`~envs.pommerman.batch_views.observe_game_called` a second time (about 10 s).
    """
    board_rows, flame_rows = _cell_rows(boards), _cell_rows(flames)
    viewed = _viewed(
        board_rows, flame_rows, agents, bombs, counts, radio, steps, live, max_steps, team, partial, ego, seats, fresh
    )
    for g in games:
        observe_game_called(g, g, viewed, work[11][0], work[12][0], obs)
