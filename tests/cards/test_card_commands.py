"""cards_generate and cards_verify: round trips, bad input, tampered files."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bingo.engine import Variant, fingerprint, generate_card_set
from cards import cardfile

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    """The command as a user runs it: its exit code, stdout and stderr."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("variant", "extra"), [("90", []), ("90", ["--strips"]), ("80", []), ("75", []), ("30", [])]
)
def test_generate_then_verify_round_trips(tmp_path, capsys, variant, extra):
    out = tmp_path / "set.json"
    call_command(
        "cards_generate",
        "--variant",
        variant,
        "--size",
        "K",
        "--seed",
        "20170109",
        *extra,
        "--output",
        str(out),
    )
    data = json.loads(out.read_text())
    assert data["variant"] == variant
    assert data["size"] == 1680
    assert data["seed"] == "20170109"
    assert data["algorithm"] == ("strips/1" if extra else "cards/2")  # what new sets use (issue 23)
    assert len(data["cards"]) == 1680
    assert data["cards"][0]["number"] == 1
    assert (
        data["fingerprint"]
        == generate_card_set(Variant(variant), 1680, 20170109, algorithm=data["algorithm"]).fingerprint
    )
    call_command("cards_verify", str(out), "--regenerate")
    assert "valid" in capsys.readouterr().out


def test_the_file_format(tmp_path):
    out = tmp_path / "set.json"
    call_command("cards_generate", "--variant", "75", "--size", "2", "--seed", "1", "--output", str(out))
    data = json.loads(out.read_text())
    assert list(data) == ["variant", "size", "seed", "algorithm", "fingerprint", "repeated_lines", "cards"]
    grid = data["cards"][1]["grid"]
    assert data["cards"][1]["number"] == 2
    assert len(grid) == 5
    assert all(len(row) == 5 for row in grid)
    assert grid[2][2] is None  # the free centre
    assert all(isinstance(v, int) for row in grid for v in row if v is not None)


def test_a_seed_is_drawn_and_written_when_left_out(tmp_path):
    out = tmp_path / "set.json"
    code, stdout, _ = run("cards_generate", "--variant", "30", "--size", "10", "--output", str(out))
    assert code == 0
    seed = json.loads(out.read_text())["seed"]
    assert seed.isdigit()
    assert f"seed {seed}" in stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "91", "--size", "10"], "unknown variant '91': choose one of 90, 80, 75, 30"),
        (["--variant", "90", "--size", "0"], "size must be a whole number of cards above 0"),
        (["--variant", "90", "--size", "-4"], "size must be a whole number of cards above 0"),
        (["--variant", "90", "--size", "ten"], "size must be a whole number of cards above 0"),
        (["--variant", "90", "--size", "10", "--seed", "1.5"], "seed must be a non-negative whole number"),
        (["--variant", "90", "--size", "10", "--seed", "x"], "seed must be a non-negative whole number"),
        (["--variant", "90", "--size", "10", "--strips"], "strips need a size that is a multiple of 6"),
        (["--variant", "80", "--size", "12", "--strips"], "strips of six exist only for 90-ball cards"),
    ],
)
def test_bad_input_gives_one_clear_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "set.json"
    code, stdout, stderr = run("cards_generate", *args, "--output", str(out))
    assert code != 0
    assert stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("CommandError: ")
    assert message in lines[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["missing-folder/set.json", "."])
def test_an_unwritable_path_is_refused_before_any_work(tmp_path, where):
    target = tmp_path / where
    with pytest.raises(CommandError, match="cannot write"):
        call_command("cards_generate", "--variant", "90", "--size", "6", "--output", str(target))
    assert not (tmp_path / "missing-folder").exists()


def tamper(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.fixture
def ninety_file(tmp_path):
    out = tmp_path / "set.json"
    call_command("cards_generate", "--variant", "90", "--size", "A", "--seed", "3", "--output", str(out))
    return out


def test_verify_names_the_card_and_rule_of_a_damaged_card(ninety_file):
    def empty_a_cell(data):
        row = data["cards"][9]["grid"][0]
        row[next(i for i, v in enumerate(row) if v is not None)] = None

    tamper(ninety_file, empty_a_cell)
    code, _, stderr = run("cards_verify", str(ninety_file))
    assert code != 0
    assert "card 10: row 1 holds 4 numbers; every row holds 5 (R14)" in stderr
    assert "fingerprint" in stderr
    assert "INVALID" in stderr


def test_verify_catches_a_copied_card_even_with_a_recomputed_fingerprint(ninety_file):
    def copy_card(data):
        data["cards"][20]["grid"] = data["cards"][4]["grid"]

    tamper(ninety_file, copy_card)
    forged = cardfile.read(ninety_file)
    tamper(ninety_file, lambda data: data.update(fingerprint=fingerprint(forged.cells)))
    with pytest.raises(CommandError, match="INVALID"):
        call_command("cards_verify", str(ninety_file))


@pytest.mark.parametrize(("variant", "size"), [("90", 90), ("75", 1680), ("30", 150)])
def test_a_cards_1_file_still_verifies_and_regenerates(tmp_path, capsys, variant, size):
    """Files written before cards/2 (issue 23) name cards/1, and regenerate to the same cards."""
    path = tmp_path / "old.json"
    cardfile.write(generate_card_set(Variant(variant), size, seed=20170109, algorithm="cards/1"), path)
    assert json.loads(path.read_text())["algorithm"] == "cards/1"
    call_command("cards_verify", str(path), "--regenerate")
    assert "valid" in capsys.readouterr().out
    tamper(path, lambda data: data.update(algorithm="cards/2"))  # the same seed, the other algorithm
    code, _, stderr = run("cards_verify", str(path), "--regenerate")
    assert code != 0
    assert "regenerating from seed 20170109 gives fingerprint" in stderr


def test_regenerate_catches_valid_cards_that_are_not_the_seeds(tmp_path, ninety_file):
    """A well-formed set whose cards were swapped for another seed's is caught only by regenerating."""
    other = generate_card_set(Variant.B90, 90, seed=4)
    cardfile.write(other, tmp_path / "other.json")
    tamper(tmp_path / "other.json", lambda data: data.update(seed="3"))
    call_command("cards_verify", str(tmp_path / "other.json"))  # internally consistent
    code, _, stderr = run("cards_verify", str(tmp_path / "other.json"), "--regenerate")
    assert code != 0
    assert "regenerating from seed 3 gives fingerprint" in stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ("[]", "expected a JSON object"),
        ('{"variant": "90"}', "missing size, seed, algorithm"),
    ],
)
def test_verify_rejects_files_that_are_not_card_sets(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError, match=message):
        call_command("cards_verify", str(path))


def test_verify_rejects_a_card_count_that_does_not_match(ninety_file):
    tamper(ninety_file, lambda data: data["cards"].pop())
    with pytest.raises(CommandError, match="declares 90 cards but holds 89"):
        call_command("cards_verify", str(ninety_file))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"variant":"90","size":1,"seed":"1","algorithm":"cards/1","fingerprint":"x","repeated_lines":0,'
         '"cards":[{"number":1,"grid":[1,2,3]}]}', "rows of"),
        ('{"variant":"90","size":1,"seed":"1","algorithm":"cards/1","fingerprint":"x","repeated_lines":0,'
         '"cards":[{"number":true,"grid":[]}]}', "in number order"),
        ('{"size": ' + "9" * 5000 + "}", "not a card file"),
        ("[" * 200_000 + "]" * 200_000, "not a card file"),
    ],
)  # fmt: skip
def test_malformed_card_files_get_a_clear_error_not_a_traceback(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _stdout, stderr = run("cards_verify", str(path))
    assert code != 0
    assert "Traceback" not in stderr
    assert message in stderr


def test_regenerate_reports_a_file_whose_inputs_cannot_be_regenerated(tmp_path):
    out = tmp_path / "set.json"
    call_command("cards_generate", "--variant", "80", "--size", "12", "--seed", "1", "--output", str(out))
    tamper(out, lambda data: data.update(algorithm="strips/1"))
    code, _stdout, stderr = run("cards_verify", str(out), "--regenerate")
    assert code != 0
    assert "Traceback" not in stderr
    assert "strips of six exist only for 90-ball cards" in stderr


def test_sizes_in_other_scripts_are_refused(tmp_path):
    with pytest.raises(CommandError, match="size must be a whole number"):
        call_command("cards_generate", "--variant", "90", "--size", "²", "--output", str(tmp_path / "x.json"))


def test_manage_py_generates_without_loading_the_apps(tmp_path):
    """manage.py runs cards_generate without starting Django's apps (WITHOUT_APPS): no app's
    models, tasks or views, nor DRF or ReportLab, is even imported."""
    out, modules = tmp_path / "set.json", tmp_path / "modules.json"
    args = [
        "manage.py",
        "cards_generate",
        "--variant",
        "75",
        "--size",
        "40",
        "--seed",
        "9",
        "--output",
        str(out),
    ]
    script = (
        "import json, runpy, sys\n"
        f"sys.argv = {args!r}\n"
        "runpy.run_path('manage.py', run_name='__main__')\n"
        f"open({str(modules)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    imported = json.loads(modules.read_text())
    assert "cards.management.commands.cards_generate" in imported
    roots = ("bingo.models", "bingo.apps", "cards.models", "cards.printing", "halls", "actas")
    assert not [name for name in imported if name.startswith((*roots, "rest_framework", "reportlab"))]
    assert json.loads(out.read_text())["fingerprint"] == generate_card_set(Variant.B75, 40, 9).fingerprint


@pytest.mark.parametrize(
    ("variant", "size", "algorithm"),
    [
        ("90", 60, "cards/1"),
        ("90", 60, "cards/2"),
        ("90", 60, "strips/1"),
        ("80", 7, "cards/1"),
        ("80", 7, "cards/2"),
        ("75", 31, "cards/1"),
        ("75", 31, "cards/2"),
        ("30", 1, "cards/1"),
        ("30", 1, "cards/2"),
    ],
)
def test_the_file_is_the_card_sets_json_character_for_character(variant, size, algorithm):
    """cardfile writes its text without a dict per card; it is json.dumps of those dicts."""
    card_set = generate_card_set(Variant(variant), size, 424242, algorithm=algorithm)
    assert cardfile.to_text(card_set) == json.dumps(cardfile.to_json(card_set), separators=(",", ":"))
