import pytest

from textutil import reverse_words, truncate, word_count


def test_word_count_simple():
    assert word_count("one two three") == 3


@pytest.mark.xfail(reason="word_count does not collapse repeated spaces (issue #12)")
def test_word_count_double_space():
    assert word_count("one  two") == 2


@pytest.mark.xfail(reason="reverse_words was thought to drop punctuation")
def test_reverse_words_punctuation():
    assert reverse_words("hello, world!") == "world! hello,"


@pytest.mark.xfail(strict=True, reason="truncate should not add an ellipsis at exact width")
def test_truncate_exact_width():
    assert truncate("abcde", 5) == "abcde"


def test_truncate_unicode_width():
    pytest.xfail("truncate counts code points, not display width")
    assert truncate("日本語テキスト", 4) == "日本…"


@pytest.mark.xfail(raises=TypeError, reason="truncate rejects non-int width with TypeError")
def test_truncate_negative_width():
    # Raises ValueError, not the expected TypeError: a real failure.
    assert truncate("abc", -1) == ""
