"""Trax notation: parsing, printing, round trips and bad input."""

import pytest
from hypothesis import given, settings, strategies as st

from traxfpga.host.reference.trax import Illegal, Move, column_name, format_move, parse_move, row_name


@pytest.mark.parametrize("text, move", [
    ("@0/", Move(-1, -1, "/")),
    ("@0+", Move(-1, -1, "+")),
    ("A1\\", Move(0, 0, "\\")),
    ("B3\\", Move(1, 2, "\\")),
    ("Z9+", Move(25, 8, "+")),
    ("AA1/", Move(26, 0, "/")),
    ("AZ10+", Move(51, 9, "+")),
    ("BA12\\", Move(52, 11, "\\")),
    ("ZZ100/", Move(701, 99, "/")),
    ("AAA7+", Move(702, 6, "+")),
    ("C123456+", Move(2, 123455, "+")),
])
def test_parse_and_format(text, move):
    assert parse_move(text) == move
    assert format_move(move) == text


@pytest.mark.parametrize("col, name", [(-1, "@"), (0, "A"), (25, "Z"), (26, "AA"), (51, "AZ"),
                                       (52, "BA"), (701, "ZZ"), (702, "AAA")])
def test_column_names(col, name):
    assert column_name(col) == name


def test_row_names():
    assert [row_name(r) for r in (-1, 0, 8, 9, 99)] == ["0", "1", "9", "10", "100"]


@pytest.mark.parametrize("text", [
    "", "a1/", "A1", "@@1/", "A01/", "@00+", "1A/", "A1x", "A1//", "A/1", "+", "A", "1/",
    " A1/", "A1/ ", "A 1/", "@A1/", "A@1/", "a0+", "A-1/", "A1-", "Ä1/", "A１/", "A1/\n", "@0|",
])
def test_bad_input_is_syntax(text):
    with pytest.raises(Illegal) as info:
        parse_move(text)
    e = info.value
    assert e.code == "syntax"
    assert str(e) == f"syntax: {e.sentence}"
    assert e.sentence.endswith(".")


def test_non_string_is_syntax():
    with pytest.raises(Illegal) as info:
        parse_move(None)
    assert info.value.code == "syntax"


def test_format_rejects_impossible_moves():
    for bad in (Move(-2, 0, "+"), Move(0, -2, "+"), Move(0, 0, "x")):
        with pytest.raises(ValueError):
            format_move(bad)


@settings(max_examples=300, derandomize=True)
@given(st.integers(-1, 5000), st.integers(-1, 10**6), st.sampled_from("+/\\"))
def test_round_trip_property(col, row, tile):
    m = Move(col, row, tile)
    assert parse_move(format_move(m)) == m


@settings(max_examples=300, derandomize=True)
@given(st.text(alphabet="@AZ019+/\\ab x", max_size=7))
def test_parse_is_total(text):
    """Any string either parses to a move that prints back as itself, or is a syntax error."""
    try:
        m = parse_move(text)
    except Illegal as e:
        assert e.code == "syntax"
    else:
        assert format_move(m) == text


def test_absurdly_long_coordinates_are_syntax_errors():
    for text in ("A" + "1" * 5000 + "/", "A" * 5000 + "1/"):
        with pytest.raises(Illegal) as info:
            parse_move(text)
        assert info.value.code == "syntax" and len(str(info.value)) < 200
    assert parse_move("A" + "9" * 64 + "+").row == 10 ** 64 - 2
