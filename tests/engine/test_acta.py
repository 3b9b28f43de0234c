"""The acta's chain (bingo.engine.acta, R58-R61): canonical JSON, the hash formula, and
``chain_fault`` naming the first record changed, deleted, moved or unchained."""

import hashlib
import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine.acta import (
    GENESIS,
    CanonicalError,
    ChainFault,
    Fault,
    Link,
    acta_seal,
    canonical_json,
    chain_fault,
    link_make,
    record_hash,
)


def chain(*bodies: dict) -> list[Link]:
    links: list[Link] = []
    for position, body in enumerate(bodies, start=1):
        links.append(
            link_make(
                position=position, previous_hash=links[-1].content_hash if links else GENESIS, body=body
            )
        )
    return links


def test_canonical_json_sorts_keys_drops_whitespace_and_writes_money_as_strings():
    value = {"b": [1, Decimal("2328.00"), None, True], "a": {"z": "Sé", "y": ()}}
    assert canonical_json(value) == '{"a":{"y":[],"z":"Sé"},"b":[1,"2328.00",null,true]}'


@pytest.mark.parametrize("bad", [1.5, {1: "x"}, Decimal("NaN"), {"when": object()}])
def test_canonical_json_refuses_what_has_no_single_spelling(bad):
    with pytest.raises(CanonicalError):
        canonical_json(bad)


@given(st.dictionaries(st.text(), st.recursive(st.integers() | st.text() | st.none(), st.lists)))
def test_canonical_json_is_the_same_whatever_the_key_order(value):
    reversed_order = dict(reversed(list(value.items())))
    assert canonical_json(value) == canonical_json(reversed_order)
    assert json.loads(canonical_json(value)) == value


def test_a_record_hash_is_sha256_of_the_previous_hash_a_newline_and_the_content():
    (link,) = chain({"game": 1})
    assert link.previous_hash == GENESIS
    assert link.content == '{"game":1,"position":1}'
    assert link.content_hash == hashlib.sha256(f"{GENESIS}\n{link.content}".encode()).hexdigest()
    assert record_hash(previous_hash=GENESIS, content=link.content) == link.content_hash


def test_a_body_may_not_name_its_own_position():
    with pytest.raises(ValueError, match="position"):
        link_make(position=1, previous_hash=GENESIS, body={"position": 2})
    with pytest.raises(ValueError, match="positions start at 1"):
        link_make(position=0, previous_hash=GENESIS, body={})


def test_an_intact_chain_has_no_fault():
    assert chain_fault(chain({"game": 1}, {"game": 2}, {"game": 3})) is None
    assert chain_fault([]) is None


def test_a_changed_record_is_named():
    links = chain({"game": 1}, {"game": 2}, {"game": 3})
    links[1] = Link(
        2, links[1].content.replace('"game":2', '"game":7'), links[1].content_hash, links[1].previous_hash
    )
    assert chain_fault(links) == ChainFault(2, Fault.CHANGED)


def test_a_changed_record_with_its_hash_recomputed_breaks_the_next_link():
    links = chain({"game": 1}, {"game": 2}, {"game": 3})
    forged = link_make(position=2, previous_hash=links[0].content_hash, body={"game": 7})
    assert chain_fault([links[0], forged, links[2]]) == ChainFault(3, Fault.UNCHAINED)


def test_a_deleted_record_is_named_missing():
    links = chain({"game": 1}, {"game": 2}, {"game": 3})
    assert chain_fault([links[0], links[2]]) == ChainFault(2, Fault.MISSING)
    assert chain_fault(links[1:]) == ChainFault(1, Fault.MISSING)


def test_records_moved_to_each_other_s_position_are_named_reordered():
    first, second, third = chain({"game": 1}, {"game": 2}, {"game": 3})
    moved = [
        Link(1, second.content, second.content_hash, second.previous_hash),
        Link(2, first.content, first.content_hash, first.previous_hash),
        third,
    ]
    assert chain_fault(moved) == ChainFault(1, Fault.REORDERED)


@given(st.integers(min_value=1, max_value=6), st.data())
def test_any_single_change_to_a_stored_record_is_caught_at_or_before_it(size, data):
    links = chain(*({"game": n, "text": "x" * n} for n in range(1, size + 1)))
    index = data.draw(st.integers(min_value=0, max_value=size - 1))
    field = data.draw(st.sampled_from(["content", "content_hash", "previous_hash"]))
    original = links[index]
    changed = {
        "content": original.content + " ",
        "content_hash": GENESIS,
        "previous_hash": "f" * 64,
    }[field]
    links[index] = Link(
        original.position,
        changed if field == "content" else original.content,
        changed if field == "content_hash" else original.content_hash,
        changed if field == "previous_hash" else original.previous_hash,
    )
    fault = chain_fault(links)
    assert fault is not None
    assert fault.position == index + 1


def test_the_seal_covers_both_chains() -> None:
    """The seal changes with the last hash of either chain, and only with them."""
    games, notes = "a" * 64, "b" * 64
    seal = acta_seal(entries_hash=games, notes_hash=notes)
    assert len(seal) == 64
    assert seal == acta_seal(entries_hash=games, notes_hash=notes)
    assert seal != acta_seal(entries_hash="c" * 64, notes_hash=notes)
    assert seal != acta_seal(entries_hash=games, notes_hash="c" * 64)
    assert seal != acta_seal(entries_hash=notes, notes_hash=games)
    assert acta_seal(entries_hash=GENESIS, notes_hash=GENESIS) == record_hash(
        previous_hash=GENESIS, content=GENESIS
    )
