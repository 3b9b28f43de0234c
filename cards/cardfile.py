"""The card-set JSON file: what ``cards_generate`` writes and ``cards_verify`` reads.

Format (docs/cards.md)::

    {"variant": "90", "size": 1680, "seed": "123", "algorithm": "cards/1",
     "fingerprint": "<sha-256 hex>", "repeated_lines": 0,
     "cards": [{"number": 1, "grid": [[1, null, 23, ...], ...]}, ...]}

``grid`` is the card's rows; ``null`` marks a blank cell or the 75-ball free centre.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bingo.engine import ALGORITHMS, CardSet, Variant, cells_from_grids, grid_of, parse_seed, parse_variant
from bingo.engine.cardset import Cells


class CardFileError(ValueError):
    """A card file that cannot be read; the message says what is wrong in one line."""


@dataclass(frozen=True)
class CardFile:
    """A card file as read: what it declares, and its cards."""

    variant: Variant
    size: int
    seed: int
    algorithm: str
    fingerprint: str
    repeated_lines: int
    cells: Cells


def to_json(card_set: CardSet) -> dict[str, Any]:
    """The file's content for ``card_set`` (what ``to_text`` writes, as Python objects)."""
    return {
        **_header(card_set),
        "cards": [{"number": i + 1, "grid": grid_of(card)} for i, card in enumerate(card_set.cells)],
    }


def _header(card_set: CardSet) -> dict[str, Any]:
    return {
        "variant": card_set.variant.value,
        "size": card_set.size,
        "seed": str(card_set.seed),
        "algorithm": card_set.algorithm,
        "fingerprint": card_set.fingerprint,
        "repeated_lines": card_set.repeated_lines,
    }


#: How each cell value is written: ``null`` for a blank or free cell, else the number.
_CELL_TEXT = np.array(["null", *(str(v) for v in range(1, 256))], dtype=object)


def to_text(card_set: CardSet) -> str:
    """The file's text for ``card_set``: ``json.dumps(to_json(card_set), separators=(",", ":"))``,
    character for character (the tests hold it to that), without building a dict per card.

    Python objects for 100,000 cards cost more than the cards (about a second, most of it the
    garbage collector walking the new lists); here the cards are pieces of text laid out with
    numpy and joined once.
    """
    cells = card_set.cells
    n, rows, cols = cells.shape
    header = json.dumps(_header(card_set), separators=(",", ":"))
    # Per card: '{"number":N,"grid":[[' then each cell followed by ',' or '],[' or ']]},'.
    after = np.full((rows, cols), ",", dtype=object)
    after[:-1, -1] = "],["
    after[-1, -1] = "]]},"
    pieces = np.empty((n, 1 + 2 * rows * cols), dtype=object)
    pieces[:, 0] = [f'{{"number":{i},"grid":[[' for i in range(1, n + 1)]
    pieces[:, 1::2] = _CELL_TEXT[cells.reshape(n, rows * cols)]
    pieces[:, 2::2] = after.reshape(-1)
    pieces[-1, -1] = "]]}"
    return header[:-1] + ',"cards":[' + "".join(pieces.ravel().tolist()) + "]}"


def check_writable(path: Path) -> None:
    """Raise CardFileError unless a file can be created at ``path`` (checked before any work)."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise CardFileError(f"cannot write {path}: it is a directory")
    if not folder.is_dir():
        raise CardFileError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CardFileError(f"cannot write {path}: permission denied")


def write(card_set: CardSet, path: Path) -> None:
    """Write ``card_set`` to ``path`` atomically: a reader never sees half a file."""
    check_writable(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with tmp.open("x", encoding="utf-8") as out:  # created with the usual umask permissions
            out.write(to_text(card_set))
            out.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CardFileError(f"cannot write {path}: {exc.strerror}") from exc


def read(path: Path) -> CardFile:
    """Read and structurally check a card file; CardFileError says what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CardFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CardFileError(f"{path}: cannot read it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise CardFileError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # huge integers, absurd nesting
        raise CardFileError(f"{path}: not a card file ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise CardFileError(f"{path}: expected a JSON object")
    missing = [
        k
        for k in ("variant", "size", "seed", "algorithm", "fingerprint", "repeated_lines", "cards")
        if k not in data
    ]
    if missing:
        raise CardFileError(f"{path}: missing {', '.join(missing)}")
    try:
        variant = parse_variant(data["variant"])
        seed = parse_seed(data["seed"])
    except ValueError as exc:
        raise CardFileError(f"{path}: {exc}") from None
    if data["algorithm"] not in ALGORITHMS:
        raise CardFileError(f"{path}: unknown algorithm {data['algorithm']!r}")
    size, repeated = data["size"], data["repeated_lines"]
    if not _whole(size) or size <= 0 or not _whole(repeated) or repeated < 0:
        raise CardFileError(f"{path}: size and repeated_lines must be whole numbers")
    cards = data["cards"]
    if not isinstance(cards, list) or len(cards) != size:
        raise CardFileError(
            f"{path}: declares {size} cards but holds {len(cards) if isinstance(cards, list) else 0}"
        )
    grids = []
    for i, card in enumerate(cards, start=1):
        if not isinstance(card, dict) or type(card.get("number")) is not int or card["number"] != i:
            raise CardFileError(
                f"{path}: card {i}: expected {{'number': {i}, 'grid': [...]}} in number order"
            )
        if not isinstance(card.get("grid"), list):
            raise CardFileError(
                f"{path}: card {i}: expected {{'number': {i}, 'grid': [...]}} in number order"
            )
        grids.append(card["grid"])
    try:
        cells = cells_from_grids(variant, grids)
    except ValueError as exc:
        raise CardFileError(f"{path}: {exc}") from None
    return CardFile(
        variant=variant,
        size=size,
        seed=seed,
        algorithm=data["algorithm"],
        fingerprint=str(data["fingerprint"]),
        repeated_lines=repeated,
        cells=cells,
    )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
