"""Joint steps per second of a 2-player ViZDoom deathmatch: arena vs a plain ViZDoom lockstep loop.

Both sides run the same engines with the same settings (deathmatch map, 160x120 RGB, the env's
7 buttons and 4 game variables, labels on, frame skip 4, random actions) in this one process:

* **arena**: ``envs.make("vizdoom_deathmatch")`` played by two ``RandomAgent`` through
  ``arena.play`` (checks, observation dicts with the enemies table, rewards, infos);
* **plain**: two ``vizdoom.DoomGame`` (host + join on 127.0.0.1) driven by a loop written here:
  each tic both players' ``make_action(action, 1)`` run on a two-thread pool, and after each
  step both read ``get_state()`` (screen, game variables, labels) and the frag count.

Engine start-up and arena's map restart at reset are not timed. Rounds alternate (arena, plain, arena, ...) and the best round
of each side is kept, which filters out other load on a shared machine; the ratio is printed.

Run: ``python bench/vizdoom_steps.py [--seconds 20] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import envs
from arena import RandomAgent, play
from envs.vizdoom.engines import free_port
from envs.vizdoom.env import BUTTONS

FRAME_SKIP = 4


def arena_round(seconds: float, seed: int) -> float:
    env = envs.make("vizdoom_deathmatch", scenario="deathmatch", time_limit=seconds, frame_skip=FRAME_SKIP)
    agents = {agent: RandomAgent(seed=i) for i, agent in enumerate(env.possible_agents)}
    env.reset(seed=seed)  # starts the engines; the timed episode below restarts the map on them
    # The plain loop times steps only (its engines start on a fresh map, untimed): leave out the
    # map restart that play's reset does (the env restarts until no player starts telefragged).
    reset, resetting = env.reset, [0.0]

    def timed_reset(**kwargs):
        began = time.perf_counter()
        try:
            return reset(**kwargs)
        finally:
            resetting[0] += time.perf_counter() - began

    env.reset = timed_reset  # type: ignore[method-assign]
    started = time.perf_counter()
    episode = play(env, agents, seed=seed)
    elapsed = time.perf_counter() - started - resetting[0]
    env.close()
    return episode.length / elapsed


def plain_round(seconds: float, seed: int) -> float:
    import vizdoom

    port = free_port()

    def make(index: int) -> vizdoom.DoomGame:
        game = vizdoom.DoomGame()
        game.set_doom_scenario_path(os.path.join(vizdoom.scenarios_path, "multi_deathmatch.wad"))
        game.set_doom_map("map01")
        game.set_mode(vizdoom.Mode.PLAYER)
        game.set_window_visible(False)
        game.set_screen_resolution(vizdoom.ScreenResolution.RES_160X120)
        game.set_screen_format(vizdoom.ScreenFormat.RGB24)
        game.set_render_hud(False)
        game.set_available_buttons([getattr(vizdoom.Button, name) for name in BUTTONS])
        game.set_available_game_variables(
            [getattr(vizdoom.GameVariable, name) for name in ("HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO")]
        )
        game.set_labels_buffer_enabled(True)
        game.set_episode_timeout(round(seconds * 35))
        game.set_seed(seed + 1)
        if index == 0:
            game.add_game_args(
                f"-host 2 -port {port} -netmode 0 -deathmatch +sv_forcerespawn 1 "
                "+sv_respawnprotect 1 +sv_spawnfarthest 1 +sv_nomonsters 1 +name p0 +colorset 0"
            )
        else:
            game.add_game_args(f"-join 127.0.0.1 -port {port} +name p1 +colorset 1")
        return game

    pool = ThreadPoolExecutor(2)
    games = [make(0), make(1)]
    # As the env does: engines run in a folder of their own (ViZDoom writes _vizdoom/ and its ini
    # into the working directory), and the host's engine starts before the joiner's (two engines
    # started at the same instant race for that folder, and the join can time out).
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="bench-vizdoom-") as folder:
        os.chdir(folder)
        try:
            host = pool.submit(games[0].init)
            time.sleep(0.5)
            games[1].init()
            host.result()
        finally:
            os.chdir(here)
    rng = np.random.default_rng(seed)
    frag = vizdoom.GameVariable.FRAGCOUNT
    steps = 0
    started = time.perf_counter()
    while not games[0].is_episode_finished():
        actions = [rng.integers(0, 2, len(BUTTONS)).astype(float).tolist() for _ in games]
        for _ in range(FRAME_SKIP):
            if games[0].is_episode_finished():
                break
            list(pool.map(lambda pair: pair[0].make_action(pair[1], 1), zip(games, actions)))
        for game in games:
            state = game.get_state()
            if state is not None:
                _ = (state.screen_buffer, state.game_variables, state.labels, game.get_game_variable(frag))
        steps += 1
    elapsed = time.perf_counter() - started
    list(pool.map(lambda game: game.close(), games))
    pool.shutdown()
    return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="game seconds per round (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per side (default 3)")
    args = parser.parse_args()
    results: dict[str, list[float]] = {"arena": [], "plain": []}
    for round_ in range(args.rounds):
        results["arena"].append(arena_round(args.seconds, round_))
        results["plain"].append(plain_round(args.seconds, round_))
        print(
            f"round {round_}: arena {results['arena'][-1]:.1f} steps/s, plain {results['plain'][-1]:.1f} steps/s",
            flush=True,
        )
    best_arena, best_plain = max(results["arena"]), max(results["plain"])
    print(
        f"joint steps/s (2 players, frame skip {FRAME_SKIP}, best of {args.rounds}): "
        f"arena {best_arena:.1f}, plain ViZDoom loop {best_plain:.1f}; "
        f"arena/plain = {best_arena / best_plain:.3f} (overhead {1 - best_arena / best_plain:+.1%})"
    )
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
