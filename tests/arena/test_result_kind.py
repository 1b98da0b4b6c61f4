"""MultiAgentEnv.result_kind: declared by every bundled env, passed on by wrappers, checked by check_env."""

from __future__ import annotations

import pytest

import envs
from arena import EnvItfWrapper
from arena.env import factory_result_kind
from arena.errors import ContractViolation
from arena.evaluation.results import RESULT_KINDS
from arena.registry import env_names, resolve
from arena.testing import check_env
from tests.arena.scripted_envs import SidesEnv

#: What a game's result is in each bundled env (poker counts chips; battles are won or lost).
EXPECTED = {
    "kuhn_poker": "return",
    "leduc_poker": "return",
    "liars_dice": "ranks",
    "magent_battle": "outcome",
    "magent_combined_arms": "outcome",
    "pommerman": "outcome",
    "tic_tac_toe": "outcome",
    "connect_four": "outcome",
}


@pytest.mark.parametrize("name", env_names())
def test_every_bundled_env_declares_a_result_kind(name):
    kind = factory_result_kind(resolve("env", name))
    assert kind in RESULT_KINDS
    assert kind == EXPECTED.get(name, kind)


def test_wrappers_pass_the_result_kind_on():
    from interfaces import Flatten

    env = EnvItfWrapper(envs.make("leduc_poker"), {agent: Flatten() for agent in ("player_0", "player_1")})
    assert env.result_kind == "return"


def test_check_env_refuses_an_undeclared_kind():
    env = SidesEnv((2, 2))
    env.result_kind = "chips"
    with pytest.raises(
        ContractViolation, match=r"result_kind must be one of 'outcome', 'ranks', 'return' .*got 'chips'"
    ):
        check_env(env, episodes=1)


def test_check_env_refuses_a_return_env_whose_sides_are_ranked_by_scores():
    class Scored(SidesEnv):
        result_kind = "return"

        def team_scores(self):
            return {team: 1.0 for team in self.teams}

    with pytest.raises(ContractViolation, match=r"result_kind is 'return' .* but team_scores\(\) ranks the sides"):
        check_env(Scored((2, 2)), episodes=1)
    plain = Scored((2, 2))
    plain.result_kind = "outcome"
    check_env(plain, episodes=1)
