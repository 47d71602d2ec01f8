import random

import pytest

DECK = list(range(10))


def test_shuffle_keeps_every_card():
    deck = DECK[:]
    random.shuffle(deck)
    assert sorted(deck) == DECK


def test_sample_is_distinct():
    assert len(set(random.sample(DECK, 5))) == 5


@pytest.mark.parametrize("n", [1, 2, 3])
def test_choice_is_in_deck(n):
    assert all(random.choice(DECK) in DECK for _ in range(n))


def test_draw_from_empty_deck():
    random.choice([])


def test_order_independent():
    assert "the first test" != "a later one"
