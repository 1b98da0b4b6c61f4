"""One ``--env-options`` parser and one splitter for every command."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.specs.options import parse_env_options
from arena.specs.split import split_outside_braces, split_words

COMMANDS = {
    "tournament": ["tournament", "tic_tac_toe", "--agents", "random,random", "--games", "1"],
    "play": ["play", "tic_tac_toe", "--agents", "random,random"],
    "serve": ["serve", "tic_tac_toe", "--port", "0"],
    "train": ["train", "tic_tac_toe", "--timesteps", "8"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("text", ["[1, 2]", "{not json", '{"a": ' * 5000 + "1" + "}" * 5000])
def test_every_command_refuses_bad_env_options_with_the_same_line(command, text, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*COMMANDS[command], "--env-options", text]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"arena {command}: error: --env-options must be a JSON object")
    assert "\n" not in err and len(err) < 400
    with pytest.raises(ValueError) as expected:
        parse_env_options(text)
    assert err == f"arena {command}: error: {expected.value}"


def test_splitter_keeps_braces_and_words_join_repeated_options():
    assert split_outside_braces('a+b{"x": "+", "y": {"z": 1}}+c', "+") == ["a", 'b{"x": "+", "y": {"z": 1}}', "c"]
    assert split_words(['a, b{"k": 1, "j": 2}', " ", "c"]) == ["a", 'b{"k": 1, "j": 2}', "c"]
