"""The product text analyzer (catalog/text.py): what import stores and how search reads it."""

import html

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from catalog import text


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Women&#39;s Shoe", "Women's Shoe"),
        ("Salt &amp;amp; Pepper", "Salt & Pepper"),  # encoded twice
        ("Zero\u200bwidth\u200d join\ufeff", "Zerowidth join"),
        ("Lost \ufffd char", "Lost char"),
        ("  tabs\tand\r\nlines \x07bell ", "tabs and lines bell"),
        ("Plain title", "Plain title"),
    ],
)
def test_clean(raw, stored):
    assert text.clean(raw) == stored


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_is_cleaned_as_any_other_text(raw):
    """ASCII text takes a shorter path (one regular expression); it must store what the
    character-by-character path of any other text stores, once its entities are decoded as
    every text's are ("&gt" is ">")."""
    decoded = html.unescape(html.unescape(raw))
    assume(decoded.isascii())  # an entity may name any character
    assert text.clean(raw) == text._SPACES.sub(" ", text._visible(decoded)).strip()


def test_terms_split_on_word_boundaries_and_stem():
    assert text.terms("Women's Running-Shoes, 64GB 5-in-1 kids'") == [
        "women",
        "run",
        "shoe",
        "64",
        "gb",
        "5",
        "in",
        "1",
        "kid",
    ]
    assert "men" not in text.terms("Women's")


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("Home Theatre System", "home theater systems"),
        ("Multi Colour", "multi colors"),
        ("Multicolour Microfibre Cloths", "multicolor microfiber cloth"),
        ("Watercolour Set", "watercolor set"),
        ("Grey Shirt", "gray shirts"),
        ("Drawer Organisers", "drawer organizers"),
        ("2 Litres Bottle", "2 liters bottle"),
        ("Organising Box", "organizing box"),
        ("Bicycle Tyre", "bicycle tires"),
    ],
)
def test_a_british_spelling_and_the_american_one_are_one_word(british, american):
    assert text.terms(british) == text.terms(american)


@pytest.mark.parametrize(
    ("word", "other"),
    [("exercise", "exercize"), ("cheque", "check"), ("storey", "story")],
)
def test_words_that_are_no_spelling_of_a_listed_word_stay_apart(word, other):
    """Only the listed words are read in the other spelling: "-ise" is no rule ("exercise"),
    and a pair of two words is no pair ("cheque", "check")."""
    assert text.terms(word) != text.terms(other)


@pytest.mark.parametrize("word", ["programmed", "organism", "greyhound", "analysis", "centred"])
def test_a_word_that_only_starts_like_a_listed_spelling_keeps_its_letters(word):
    """ "programmed" is American too, and still meets "program"; "organism" is no organiser."""
    assert text.stem(word) == str(text._stemmer.stemWord(word))


def test_query_terms_leave_stop_words_out():
    assert text.query_terms("mat for the yoga") == ["mat", "yoga"]


@pytest.mark.parametrize(
    ("phrase", "title", "near"),
    [
        ("yoga mat", "Yoga Exercise Mat", True),
        ("yoga mat", "Mat bag for Yoga", False),
        ("5 star", "LG 1.5 Ton 5 Star Inverter", True),
        ("5 star", "Lloyd 1.5 Ton 3 Star Inverter", False),
        ("5 star", "Godrej 3 Star 5-In-1", False),
        ("running shoes", "Trail Running Shoe", True),
    ],
)
def test_near(phrase, title, near):
    assert text.mentions(phrase, text.terms(title)) is near


@pytest.mark.parametrize(
    ("title", "held"),
    [
        ("Lightly Padded Bra", True),
        ("Non Padded Bra", False),
        ("Non-Padded Bra", False),
        ("Padding Free Bra", False),
        ("Bra Without Padding", False),
        ("Non Padded Bra with Padded Straps", True),  # one mention says it has some
    ],
)
def test_a_word_named_as_what_a_product_is_without_is_not_held_plainly(title, held):
    assert text.held_plainly([text.stem("padded")], text.terms(title)) is held


@pytest.mark.parametrize(
    ("heads", "title", "asked", "accessory"),
    [
        (["mat"], "Trendy Yoga Mat Bag", set(), True),
        (["mat"], "Yoga Mat with Carry Bag", set(), False),
        (["bat"], "Padded Cover for Cricket Bat", set(), True),
        (["guitar"], "Acoustic Guitar with Strap", set(), False),
        (["holder"], "Car Phone Holder", {"holder"}, False),
        (["cover"], "Car Body Cover", {"cover"}, False),
    ],
)
def test_accessory_of(heads, title, asked, accessory):
    terms = text.terms(title)
    assert text.accessory_of(heads, terms, {text.stem(word) for word in asked}) is accessory


@pytest.mark.parametrize(
    ("keywords", "kept"),
    [
        (["buy online", "doormat", "best quality"], ["doormat"]),
        (["top rated", "ceiling fan"], ["ceiling fan"]),  # "rated" names no product
        (["highly rated trimmer", "men"], ["trimmer", "men"]),
        (["most popular", "best selling backpack"], ["backpack"]),
        (["crop top"], ["crop top"]),  # "top" is a thing where no praise follows it
        (["top"], ["top"]),
        (["top rated crop top"], ["crop top"]),
        (["hot selling", "kurti"], ["kurti"]),  # "hot" of the sale
        (["hot water bag"], ["hot water bag"]),  # "hot" of the thing
    ],
)
def test_words_of_shopping_and_the_degree_before_them_are_left_out(keywords, kept):
    assert text.without_shopping_words(keywords) == kept


@pytest.mark.parametrize(
    ("keywords", "normalized", "kept"),
    [
        (["top", "wireless earbuds"], "top wireless earbuds", ["wireless earbuds"]),
        (["top", "smartwatch", "women"], "top smartwatch for women", ["smartwatch", "women"]),
        (["top", "black", "women"], "black top for women", ["top", "black", "women"]),
        (["top", "women"], "top women", ["top", "women"]),  # who it is for is no thing
        (["lap", "top", "table"], "lap top table for bed", ["lap", "top", "table"]),
        (["top"], "", ["top"]),
    ],
)
def test_a_word_of_degree_kept_alone_is_praise_where_a_thing_follows_it(keywords, normalized, kept):
    assert text.without_shopping_words(keywords, normalized) == kept


def test_a_word_before_free_size_is_held():
    """ "Free Size" is a size, not a product free of blue."""
    assert text.held_plainly([text.stem("blue")], text.terms("Blue Cotton Cap, Free Size"))
    assert not text.held_plainly([text.stem("sugar")], text.terms("Sugar Free Cookies"))
