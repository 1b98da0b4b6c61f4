"""The house rules of the code itself: short functions, imports that point down, no circles, docs that name real files.

These hold the renovation in place: a later change that grows a 300-line function or an
import cycle fails here, with the place named.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "interfaces", "envs")
#: The longest function a newcomer is asked to hold in mind.
MAX_FUNCTION_LINES = 120
#: The four layers, lowest first: a module imports modules of its own layer and of lower ones, never higher
#: (so no circle runs between layers). docs/architecture.md, "The map", gives the reasons.
LAYERS = ("arena", "envs", "interfaces", "recipes and shipped agents")
#: The top layer lives beside its game in ``envs/``, so one game's pieces are found in one place: its
#: recipes (``recipe.py``, ``recipes.py``, ``rllib_recipe.py``: what to train, stacks named by spec string) ...
TOP_LAYER_NAME = re.compile(r"(?:\w+_)?recipes?")
#: ... and the shipped agents' loaders (their folders, ``envs/<game>_trained/``, are data).
SHIPPED_AGENTS = ("envs.shipped",)
#: The pieces of a game that its package's docstring (``envs/<game>/__init__.py``) names, with the game's
#: ``interfaces`` modules and its shipped agents: one game is found from one place.
GAME_PIECES = re.compile(r"batch(?:ed)?|agents|(?:\w+_)?recipes?")
#: Inside ``arena``, the runtime plays one game under guard and the tournament schedules many on it.
LOWER_LAYERS = {"arena.runtime": ("arena.tournament",)}


def _modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _is_package(name: str, modules: dict[str, Path] = MODULES) -> bool:
    return modules[name].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom, modules: dict[str, Path] = MODULES) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if _is_package(module, modules) else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _import_lines(module: str, modules: dict[str, Path] = MODULES) -> list[tuple[str, int]]:
    """``(project module, line)`` for each import in ``module``, anywhere (inside functions too: a deferred
    import is still a dependency), and each ``import_module("a.literal.name")`` (an import by name is one)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(modules[module].read_text(encoding="utf-8"))):
        if (by_name := _imported_by_name(node)) is not None:
            found.append((by_name, node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node, modules)
            found.append((base, node.lineno))
            found.extend((f"{base}.{alias.name}", node.lineno) for alias in node.names)
    return sorted({(name, line) for name, line in found if name in modules and name != module})


def _imported_by_name(node: ast.AST) -> str | None:
    """The module ``import_module("name")`` or ``importlib.import_module("name")`` imports, written out."""
    if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Constant):
        return None
    function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    name = node.args[0].value
    return name if function in ("import_module", "__import__") and isinstance(name, str) else None


def _imports(module: str) -> set[str]:
    """Project modules that ``module`` imports anywhere."""
    return {name for name, _ in _import_lines(module)}


def _function_lengths() -> list[tuple[str, int]]:
    found = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                found.append((f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", node.end_lineno - first + 1))
    return found


def test_no_function_is_longer_than_a_newcomer_can_hold() -> None:
    too_long = sorted(
        (f"{where} ({lines} lines)" for where, lines in _function_lengths() if lines > MAX_FUNCTION_LINES)
    )
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines: {too_long}"


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


@pytest.mark.parametrize("lower, higher", [(low, high) for low, highs in LOWER_LAYERS.items() for high in highs])
def test_no_import_runs_upward_inside_arena(lower: str, higher: str) -> None:
    assert [m for m in MODULES if _inside(m, lower)] and [m for m in MODULES if _inside(m, higher)]
    upward = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if _inside(module, lower)
        for target in _imports(module)
        if _inside(target, higher)
    )
    assert not upward, f"{lower} must not import {higher}: {upward}"


def _layer(module: str) -> int:
    """The index in :data:`LAYERS` of ``module``'s layer."""
    if module in SHIPPED_AGENTS:
        return 3
    package = module.split(".")[0]
    if package == "envs" and TOP_LAYER_NAME.fullmatch(module.split(".")[-1]):
        return 3
    return {"arena": 0, "envs": 1, "interfaces": 2}[package]


def _own_game(module: str, modules: dict[str, Path] = MODULES) -> str | None:
    """The game an ``interfaces`` module is named for: ``interfaces.pong_aim`` plays ``pong`` when
    ``envs/pong.py`` or ``envs/pong/`` is there; ``None`` for a generic module (``interfaces.board``)."""
    name = module.split(".")[1] if module.count(".") else ""
    games = {m.split(".")[1] for m in modules if m.startswith("envs.")}
    named = [game for game in games if name == game or name.startswith(f"{game}_")]
    return max(named, key=len, default=None)


def _of_game(module: str, game: str) -> bool:
    """``envs.<game>``, a module under it, or a sibling ``envs.<game>_<what>`` (as ``envs.pong_batch``)."""
    root = module.split(".")[1] if module.startswith("envs.") else ""
    return root == game or root.startswith(f"{game}_")


def _layer_breaches(root: Path = ROOT) -> list[str]:
    """``file:line: module imports target (why)`` for each import that breaks the four layers."""
    modules = _modules(root)
    breaches = []
    for module, path in modules.items():
        for target, line in _import_lines(module, modules):
            where = f"{path.relative_to(root)}:{line}"
            if _layer(target) > _layer(module):
                breaches.append(
                    f"{where}: {module} imports {target} ({LAYERS[_layer(module)]} is under {LAYERS[_layer(target)]})"
                )
            elif _layer(module) == 2 and _layer(target) == 1:
                game = _own_game(module, modules)
                if game is None or not _of_game(target, game):
                    breaches.append(
                        f"{where}: {module} imports {target} (an interface imports only its own game's env)"
                    )
    return sorted(breaches)


def test_every_layer_has_modules_and_every_named_top_module_is_there() -> None:
    assert sorted({_layer(m) for m in MODULES}) == [0, 1, 2, 3]
    gone = [name for name in SHIPPED_AGENTS if name not in MODULES]
    assert not gone, f"named as top-layer modules but not there (delete the names): {gone}"


def test_no_import_runs_up_the_four_layers() -> None:
    """arena < envs < interfaces (a game's own levels may import that game) < recipes and shipped agents."""
    assert _layer_breaches() == []


def test_the_layer_rule_sees_the_shapes_it_names() -> None:
    assert [_layer(m) for m in ("arena.training.recipe", "envs.pommerman.batch", "interfaces.board")] == [0, 1, 2]
    assert {_layer(m) for m in ("envs.recipes", "envs.snake.recipe", "envs.pommerman.rllib_recipe")} == {3}
    assert _layer("envs.shipped") == 3 and _layer("envs.recipe_cards") == 1
    assert _own_game("interfaces.pong_aim") == "pong" and _own_game("interfaces.pommerman_safety") == "pommerman"
    assert _own_game("interfaces.board") is None and _own_game("interfaces.observation") is None
    assert _of_game("envs.pong_batch", "pong") and _of_game("envs.magent.layout", "magent")
    assert not _of_game("envs.pommerman.batch", "pong")


def test_the_layer_check_finds_an_upward_import_inside_a_function(tmp_path: Path) -> None:
    for folder in ("arena", "envs/pong", "envs/snake", "interfaces"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "envs" / "pong" / "rules.py").write_text(
        "import arena\n\n\ndef f():\n    from interfaces.pong import x\n"
    )
    (tmp_path / "envs" / "snake" / "recipe.py").write_text("from interfaces.pong import x\n")
    (tmp_path / "interfaces" / "pong.py").write_text("from envs.pong import rules\nfrom envs.snake.recipe import y\n")
    (tmp_path / "interfaces" / "board.py").write_text("import envs.snake\n")
    (tmp_path / "arena" / "registry.py").write_text('import importlib\n\nimportlib.import_module("envs.snake")\n')
    assert _layer_breaches(tmp_path) == [
        "arena/registry.py:3: arena.registry imports envs.snake (arena is under envs)",
        "envs/pong/rules.py:5: envs.pong.rules imports interfaces.pong (envs is under interfaces)",
        "interfaces/board.py:1: interfaces.board imports envs.snake (an interface imports only its own game's env)",
        "interfaces/pong.py:2: interfaces.pong imports envs.snake.recipe (interfaces is under recipes and shipped agents)",
    ]


def _unnamed_game_pieces(root: Path = ROOT) -> list[str]:
    """``envs/<game>/__init__.py: piece`` for each piece of a game package that its docstring does not name."""
    modules = _modules(root)
    unnamed = []
    for package in sorted(
        m for m in modules if m.count(".") == 1 and m.startswith("envs.") and _is_package(m, modules)
    ):
        game = package.split(".")[1]
        pieces = [m for m in modules if m.startswith(f"{package}.") and GAME_PIECES.fullmatch(m.split(".")[-1])]
        pieces += [m for m in modules if m.startswith("interfaces.") and _own_game(m, modules) == game]
        pieces += sorted(folder.name for folder in (root / "envs" / f"{game}_trained").glob("*") if folder.is_dir())
        docstring = ast.get_docstring(ast.parse(modules[package].read_text(encoding="utf-8"))) or ""
        for piece in pieces:
            if not re.search(rf"(?<![\w.]){re.escape(piece)}(?!\w)", docstring):
                unnamed.append(f"{modules[package].relative_to(root)}: {piece}")
    return unnamed


def test_each_game_package_names_its_batch_agents_interfaces_recipes_and_shipped_agents() -> None:
    assert _unnamed_game_pieces() == []


def test_the_game_map_check_finds_an_unnamed_piece(tmp_path: Path) -> None:
    for folder in ("arena", "envs/pong", "interfaces", "envs/pong_trained/pong_ppo"):
        (tmp_path / folder).mkdir(parents=True)
    for module in ("arena/__init__", "envs/__init__", "envs/pong/rules", "envs/pong/batch", "interfaces/pong_aim"):
        (tmp_path / f"{module}.py").write_text("")
    (tmp_path / "envs" / "pong" / "recipe.py").write_text("")
    (tmp_path / "envs" / "pong" / "__init__.py").write_text('"""Pong: :mod:`envs.pong.batch`, ``pong_ppo_2``."""\n')
    assert _unnamed_game_pieces(tmp_path) == [
        "envs/pong/__init__.py: envs.pong.recipe",
        "envs/pong/__init__.py: interfaces.pong_aim",
        "envs/pong/__init__.py: pong_ppo",
    ]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return components


def test_no_import_circles_between_modules() -> None:
    # A package's __init__ re-exporting its modules is not a circle of meaning: leave packages out.
    graph = {
        module: {t for t in _imports(module) if not _is_package(t)} for module in MODULES if not _is_package(module)
    }
    assert not _cycles(graph), f"modules that import each other: {_cycles(graph)}"


def _runs_on_import(module: str, target: str, modules: dict[str, Path] = MODULES) -> set[str]:
    """What ``module`` importing ``target`` runs: ``target`` and each package above it, since Python runs
    a package's ``__init__`` before its modules, but for the packages ``module`` is inside (already running)."""
    parts = target.split(".")
    above = {".".join(parts[:end]) for end in range(1, len(parts) + 1)}
    return {name for name in above if name in modules and not _inside(module, name)}


def _import_graph(modules: dict[str, Path] = MODULES) -> dict[str, set[str]]:
    """Module or package -> what importing it runs, package ``__init__``s included."""
    return {
        module: {
            ran for target, _ in _import_lines(module, modules) for ran in _runs_on_import(module, target, modules)
        }
        for module in modules
    }


def test_no_import_circles_through_package_inits() -> None:
    # A circle that runs through a package's __init__ is one too: arena.specs.agents importing
    # arena.training.trained ran arena/training/__init__.py, whose modules import arena.specs.interfaces,
    # which runs arena/specs/__init__.py, which imports arena.specs.agents.
    circles = _cycles(_import_graph())
    assert not circles, f"modules that import each other through their packages: {circles}"


def test_the_circle_check_sees_a_circle_through_a_package_init(tmp_path: Path) -> None:
    for folder in ("arena", "arena/specs", "arena/training"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "arena" / "__init__.py").write_text("")
    (tmp_path / "arena" / "errors.py").write_text("")
    (tmp_path / "arena" / "specs" / "__init__.py").write_text("from arena.specs.agents import parse\n")
    (tmp_path / "arena" / "specs" / "agents.py").write_text("def f():\n    from arena.training.trained import g\n")
    (tmp_path / "arena" / "specs" / "interfaces.py").write_text("from arena.specs import split\nimport arena.errors\n")
    (tmp_path / "arena" / "training" / "__init__.py").write_text("from arena.training.trained import g\n")
    (tmp_path / "arena" / "training" / "trained.py").write_text("from arena.specs.interfaces import build\n")
    graph = _import_graph(_modules(tmp_path))
    assert graph["arena.specs.interfaces"] == {"arena.errors"}  # its own package is already running
    assert _cycles(graph) == [["arena.specs", "arena.specs.agents", "arena.training", "arena.training.trained"]]
    (tmp_path / "arena" / "specs" / "agents.py").write_text("def f():\n    from arena.errors import g\n")
    assert _cycles(_import_graph(_modules(tmp_path))) == []


def _repeats_its_package(module: str) -> bool:
    """``a/b/b.py``, ``a/b/b_x.py`` or ``a/b/x_b.py``: the import path says the package twice."""
    *packages, name = module.split(".")
    if not packages:
        return False
    package = packages[-1]
    return name == package or name.startswith(f"{package}_") or name.endswith(f"_{package}")


def test_no_module_repeats_its_package_s_name() -> None:
    repeated = {module for module in MODULES if not _is_package(module) and _repeats_its_package(module)}
    assert not repeated, f"name the module for what it holds: {sorted(repeated)}"


def test_the_repeated_name_rule_sees_the_shapes_it_names() -> None:
    assert _repeats_its_package("arena.tournament.tournament")
    assert _repeats_its_package("envs.snake.snake_rules") and _repeats_its_package("envs.snake.batched_snake")
    assert not _repeats_its_package("envs.snake.rules") and not _repeats_its_package("arena")


def test_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_linter_and_type_checker_run_before_the_suite_with_nothing_ignored_wholesale() -> None:
    """The README's test command (CI runs exactly it) lints, checks the layout and type-checks first, with the
    tools pinned in the test extra; mypy ignores only named third-party packages' missing types."""
    import configparser
    import re
    import tomllib

    command = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)[1]
    assert "&& ruff check . && ruff format --check . && mypy && python -m pytest -q" in command
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    pins = config["options.extras_require"]["test"].split()
    assert any(p.startswith("ruff==") for p in pins) and any(p.startswith("mypy==") for p in pins)
    # every tool reads pyproject.toml; a second place (ruff.toml, setup.cfg's sections) would be read instead
    tools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert not [s for s in config.sections() if s == "mypy" or s.startswith(("mypy-", "tool:"))]
    assert not [
        name for name in ("ruff.toml", ".ruff.toml", "mypy.ini", ".mypy.ini", "pytest.ini") if (ROOT / name).exists()
    ]
    mypy = tools["mypy"]
    assert mypy["files"] == [*PACKAGES, "tests", "bench", "tools"]  # the scripts too: they call the packages
    assert "ignore_missing_imports" not in mypy and "ignore_errors" not in mypy
    for override in mypy.get("overrides", []):
        if override["module"] == ["tests.*"]:  # relaxed, never switched off
            assert "ignore_errors" not in override and "ignore_missing_imports" not in override, override
        elif "follow_imports" in override:  # two typed packages whose sources are not read (pyproject.toml)
            assert override == {"module": ["ray.*", "torch.*"], "follow_imports": "skip"}, override
        else:
            assert set(override) - {"module"} == {"ignore_missing_imports"}, override
    assert {"F", "B", "I"} <= set(tools["ruff"]["lint"]["select"])
    assert "--doctest-modules" in tools["pytest"]["ini_options"]["addopts"]


def test_the_pre_commit_hooks_run_the_readme_s_checks() -> None:
    """`.pre-commit-config.yaml` runs ruff check, ruff format and mypy, with pyproject.toml's settings."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"].split()[:2] for repo in config["repos"] for hook in repo["hooks"]]
    assert entries == [["ruff", "check"], ["ruff", "format"], ["mypy"]]
    mypy = [hook for repo in config["repos"] for hook in repo["hooks"] if hook["id"] == "mypy"][0]
    assert mypy["pass_filenames"] is False  # the configured files, not one file out of its context


# A backticked path in the docs that starts at a top-level folder of the repository, such as
# `arena/runtime/store.py` or `envs/magent/`; placeholders (`envs/<name>/`) and globs do not match.
_DOC_PATH = re.compile(r"`((?:arena|envs|interfaces|bench|tests|docs|examples)/[A-Za-z0-9_./-]*)`")


def _missing_doc_paths(root: Path) -> list[str]:
    """``file:line: path`` for each backticked path in README.md and docs/**/*.md that is not there."""
    missing = []
    for doc in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for match in _DOC_PATH.finditer(line):
                if not (root / match.group(1)).exists():
                    missing.append(f"{doc.relative_to(root)}:{number}: {match.group(1)}")
    return missing


def test_the_docs_name_only_files_that_exist() -> None:
    """A path the README or a page of docs/ (tutorials included) names in backticks is a file or folder of
    the repository."""
    assert _missing_doc_paths(ROOT) == []


def test_the_doc_path_check_finds_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "here.py").write_text("")
    (tmp_path / "README.md").write_text("See `arena/here.py`, `envs/<name>/` and `arena/gone.py`.\n")
    (tmp_path / "docs" / "a.md").write_text("text\n`tests/test_gone.py` and `arena/`\n")
    (tmp_path / "docs" / "tutorials").mkdir()
    (tmp_path / "docs" / "tutorials" / "b.md").write_text("`envs/gone/`\n")
    assert _missing_doc_paths(tmp_path) == [
        "README.md:1: arena/gone.py",
        "docs/a.md:2: tests/test_gone.py",
        "docs/tutorials/b.md:1: envs/gone/",
    ]
