"""Algorithm ``cards/2`` (issue 23): its stream is the standard AES-256-CTR key stream, what a seed
gives is pinned on every path of the 80/75/30-ball search, it does not depend on how the search
chunks its work, and it repeats no more lines than ``cards/1`` on the same sizes."""

import hashlib

import numpy as np
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from bingo.engine import ALGORITHM_CARDS_1, ALGORITHM_CARDS_2, Variant, generate_card_set, gengrid
from bingo.engine.gengrid import lower_bound
from bingo.engine.stream import CounterStream
from tests.engine.test_generate import assert_valid

DOMAIN = "bingo-cards|cards/2|75|1680|1"


def test_a_block_is_aes_256_of_its_counter_under_the_sha_256_of_its_name():
    """FIPS 197 / SP 800-38A counter mode written out: block i of the key stream is
    AES-256(key, i as a 128-bit big-endian integer), key = SHA-256("{domain}|{label}")."""
    key = hashlib.sha256(f"{DOMAIN}|cards/order/0".encode()).digest()
    ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    expected = b"".join(ecb.update(i.to_bytes(16, "big")) for i in range(8))
    assert CounterStream(DOMAIN).read("cards/order/0", 0, 128) == expected


def test_the_key_stream_is_pinned():
    """A known answer, so that no library update can change cards/2 unnoticed."""
    block = CounterStream(DOMAIN).read("cards/order/0", 0, 32)
    assert block.hex() == "4244affef0c3257c270ede13f0c213376c18c5a84adea904fc116c290e23124a"


@pytest.mark.parametrize("start", [0, 1, 15, 16, 17, 5120, 70_001])
def test_any_window_of_a_block_is_the_same_bytes_as_reading_from_its_start(start):
    stream = CounterStream(DOMAIN)
    whole = stream.read("search/0/orders", 0, start + 100)
    assert stream.read("search/0/orders", start, 100) == whole[start:]
    if start % 4 == 0:
        words = np.frombuffer(whole, dtype="<u4")
        assert np.array_equal(stream.u32("search/0/orders", 25, start // 4), words[start // 4 :])


def test_integers_are_read_little_endian_and_blocks_differ_by_name():
    stream = CounterStream(DOMAIN)
    raw = stream.read("x", 0, 16)
    assert stream.u64("x", 2).tolist() == [
        int.from_bytes(raw[:8], "little"),
        int.from_bytes(raw[8:], "little"),
    ]
    assert stream.u32("x", 1).tolist() == [int.from_bytes(raw[:4], "little")]
    assert stream.read("y", 0, 16) != raw
    assert CounterStream(DOMAIN + "0").read("x", 0, 16) != raw


def test_an_order_is_its_32_bit_draw_modulo_the_count_of_orders():
    draws = np.array([0, 1, 119, 120, 2**32 - 1], dtype=np.uint32)
    assert gengrid._order_draws(draws, 120).tolist() == [0, 1, 119, 0, (2**32 - 1) % 120]
    assert gengrid._order_draws(draws, 24).tolist() == [0, 1, 119 % 24, 0, (2**32 - 1) % 24]


def test_larger_sets_keep_their_fingerprint():
    """Pinned where the search runs: to its lower bound (75/80-ball), over every order (30-ball)."""
    pinned = {
        (Variant.B75, 6000): ("7514e38ff7cbbf1849753a240a524b0c522cff83832903b28462378cc4eb901f", 16_623),
        (Variant.B80, 10000): ("9ebecbb4ac5fb293b38dc8cc846dae65b636fb86981a312e6c9487f17bbb26d8", 20_620),
        (Variant.B30, 1000): ("03b5ce7e2a3459f98ce5ab7f8f527e8f5fa8cc071a0d4a5f22b942577955d32c", 6_640),
    }
    for (variant, size), (fingerprint, repeated) in pinned.items():
        card_set = generate_card_set(variant, size, seed=1, algorithm=ALGORITHM_CARDS_2)
        assert (card_set.fingerprint, card_set.repeated_lines) == (fingerprint, repeated)
        assert repeated == lower_bound(variant, size)


def test_the_cards_do_not_depend_on_how_the_search_chunks_its_work(monkeypatch):
    """Each card the search takes reads its own window of the pass's block, and the search stops
    at the lower bound card by card, not chunk by chunk."""
    cases = [(Variant.B75, 6000, 1), (Variant.B80, 10000, 1), (Variant.B30, 180, 2)]
    before = [generate_card_set(v, n, s, algorithm=ALGORITHM_CARDS_2).fingerprint for v, n, s in cases]
    monkeypatch.setattr(gengrid, "_CHUNK", 7)
    after = [generate_card_set(v, n, s, algorithm=ALGORITHM_CARDS_2).fingerprint for v, n, s in cases]
    assert after == before


def test_a_missed_unique_set_is_retried_deterministically(monkeypatch):
    """30-ball, 120 cards, seed 1856: the first search leaves one row repeated; a retry does not."""
    repeats = []
    search = gengrid.cards

    def spy(*args, **kwargs):
        cells, repeated = search(*args, **kwargs)
        repeats.append(repeated)
        return cells, repeated

    monkeypatch.setattr(gengrid, "cards", spy)
    card_set = generate_card_set(Variant.B30, 120, seed=1856, algorithm=ALGORITHM_CARDS_2)
    assert repeats == [1, 0]
    assert card_set.repeated_lines == 0
    assert generate_card_set(Variant.B30, 120, seed=1856, algorithm=ALGORITHM_CARDS_2).fingerprint == (
        card_set.fingerprint
    )
    assert_valid(card_set)


# Sizes where the search is best-effort (30-ball 150-250) or must reach a lower bound above 0
# (75-ball K and beyond, 80-ball past 4,845 cards); seeds 0 to n-1.
QUALITY = [
    (Variant.B30, 150, 8),
    (Variant.B30, 180, 8),
    (Variant.B30, 199, 8),
    (Variant.B30, 250, 8),
    (Variant.B75, 1680, 4),
    (Variant.B75, 6000, 2),
    (Variant.B80, 6000, 2),
]


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "size", "seeds"), QUALITY, ids=[f"{v}-{n}" for v, n, _ in QUALITY])
def test_cards_2_repeats_no_more_lines_than_cards_1(variant, size, seeds):
    """R14 adapted (R62, R68, R78): wherever cards/1 reaches the lower bound, cards/2 does too;
    where the search is best-effort, cards/2 leaves as few repeats on average. The two draw
    different orders, so one seed's set may hold a line more or less under either: over 40
    seeds (issue 23) the means were 195.6 and 195.3 at 180 cards, 282.4 and 282.5 at 199, 641.0
    and 640.6 at 250; here, on fewer seeds, within half a line a set."""
    found = {
        algorithm: [
            generate_card_set(variant, size, seed, algorithm=algorithm).repeated_lines
            for seed in range(seeds)
        ]
        for algorithm in (ALGORITHM_CARDS_1, ALGORITHM_CARDS_2)
    }
    one, two = found[ALGORITHM_CARDS_1], found[ALGORITHM_CARDS_2]
    floor = lower_bound(variant, size)
    assert min(two) >= floor
    if max(one) == floor:
        assert max(two) == floor, found
    assert sum(two) <= sum(one) + seeds / 2, found


def test_where_no_line_space_has_room_the_random_rounds_are_left_out(monkeypatch):
    """30-ball, 1,000 cards: 5,000 rows and diagonals among 1,000 possible, so every card repeats
    one and a random round would redraw them all; cards/2 goes straight to the search."""
    rounds = []
    split = gengrid._split

    def spy(variant, cells):
        rounds.append(cells.shape[0])
        return split(variant, cells)

    monkeypatch.setattr(gengrid, "_split", spy)
    generate_card_set(Variant.B30, 1000, seed=1, algorithm=ALGORITHM_CARDS_2)
    assert rounds == []
    generate_card_set(Variant.B30, 1000, seed=1, algorithm=ALGORITHM_CARDS_1)
    assert rounds  # cards/1 redraws the offenders at random first
