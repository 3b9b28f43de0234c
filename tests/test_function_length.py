"""scripts/check_function_length.py: no function of ours over 80 lines without a comment saying
why it must be long (issue 21)."""

from __future__ import annotations

from pathlib import Path

from tests.scripts import load_script, run_script

check_function_length = load_script("check_function_length")


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines, its ``def`` included."""
    body = "".join(f"{indent}    x{n} = {n}\n" for n in range(lines - 2))
    return f"{indent}def {name}() -> None:\n{body}{indent}    return None\n"


def _plant(root: Path, relative: str, source: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return path


def _problems(root: Path) -> list[str]:
    return check_function_length.problems([root], root=root, allowed=set())


def test_a_function_of_81_lines_fails(tmp_path: Path) -> None:
    _plant(tmp_path, "bingo/feature/services.py", _function("thing_do", 81))
    (problem,) = _problems(tmp_path)
    assert problem.startswith("bingo/feature/services.py:1: thing_do is 81 lines (at most 80)")


def test_a_function_of_80_lines_passes(tmp_path: Path) -> None:
    _plant(tmp_path, "bingo/feature/services.py", _function("thing_do", 80))
    assert _problems(tmp_path) == []


def test_a_reason_right_above_the_def_or_its_decorators_lets_it_be_long(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        "bingo/feature/selectors.py",
        "import functools\n\n\n# long: one SQL statement\n"
        + _function("rows_list", 90)
        + "\n\n# long: one table of cases\n@functools.cache\n@functools.wraps(print)\n"
        + _function("cases", 90),
    )
    assert _problems(tmp_path) == []


def test_a_reason_must_say_something_and_sit_right_above(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        "bingo/feature/selectors.py",
        "# long:\n" + _function("no_reason", 81) + "\n# long: too far above\n\n" + _function("far", 81),
    )
    assert [p.split(" is ")[0] for p in _problems(tmp_path)] == [
        "bingo/feature/selectors.py:2: no_reason",
        "bingo/feature/selectors.py:86: far",
    ]


def test_methods_and_nested_functions_count_on_their_own(tmp_path: Path) -> None:
    source = "class Writer:\n" + _function("page", 81, indent="    ")
    source += "\n\ndef outer() -> None:\n" + _function("inner", 81, indent="    ")
    _plant(tmp_path, "cards/printing/pdf.py", source)
    found = _problems(tmp_path)
    assert [p.split(" is ")[0] for p in found] == [
        "cards/printing/pdf.py:2: Writer.page",
        "cards/printing/pdf.py:85: outer",  # the nested function makes outer long too
        "cards/printing/pdf.py:86: outer.inner",
    ]


def test_tests_and_migrations_are_not_checked(tmp_path: Path) -> None:
    _plant(tmp_path, "bingo/tests/test_thing.py", _function("test_long", 200))
    _plant(tmp_path, "bingo/migrations/0001_initial.py", _function("forwards", 200))
    assert _problems(tmp_path) == []


def test_an_allowed_function_passes_until_it_is_short_then_its_entry_must_go(tmp_path: Path) -> None:
    _plant(tmp_path, "bingo/online/selectors.py", _function("player_game_state", 126))
    allowed = {("bingo/online/selectors.py", "player_game_state")}
    assert check_function_length.problems([tmp_path], root=tmp_path, allowed=allowed) == []
    _plant(tmp_path, "bingo/online/selectors.py", _function("player_game_state", 40))
    (problem,) = check_function_length.problems([tmp_path], root=tmp_path, allowed=allowed)
    assert "player_game_state is 40 lines now: take it off ALLOWED" in problem


def test_the_project_passes() -> None:
    done = run_script("check_function_length")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("No function over 80 lines")
