"""One word in two spellings: the British and the American ("Home Theatre", "Home Theater").

The catalog writes both, often in one category, and so do shoppers and their models: a keyword
"home theatre" never met "Tronica ... Home Theater" in any tier. The analyzer (catalog/text.py)
reads each British stem below as the American one, in product documents and queries alike, so
every tier, every ranking and the spelling corrections see one word. Synonyms (catalog/
synonyms.py) are for different words of one meaning; these are one word.

A pair is listed only when both spellings are the same word in a shop: "cheque" and "check",
"storey" and "story", "draught" and "draft" are not. Verbs in "-ise" are listed one by one
("organise"): many words end so and have no "-ize" at all ("exercise", "merchandise").
"""

import re

# (British, American); each one's inflections too ("theatres", "organisers"). A word made with
# one is listed whole ("multicolour": a spelling is read where a word starts). Not "programme":
# "programmed" and "programmer" are American too.
PAIRS: tuple[tuple[str, str], ...] = (
    # -re and -er
    ("theatre", "theater"),
    ("centre", "center"),
    ("metre", "meter"),
    ("millimetre", "millimeter"),
    ("centimetre", "centimeter"),
    ("kilometre", "kilometer"),
    ("litre", "liter"),
    ("millilitre", "milliliter"),
    ("fibre", "fiber"),
    ("microfibre", "microfiber"),
    ("calibre", "caliber"),
    ("lustre", "luster"),
    # -our and -or
    ("colour", "color"),
    ("multicolour", "multicolor"),
    ("watercolour", "watercolor"),
    ("flavour", "flavor"),
    ("favourite", "favorite"),
    ("odour", "odor"),
    ("armour", "armor"),
    ("vapour", "vapor"),
    ("humour", "humor"),
    ("parlour", "parlor"),
    ("harbour", "harbor"),
    ("neighbour", "neighbor"),
    # Other letters
    ("grey", "gray"),
    ("jewellery", "jewelry"),
    ("aluminium", "aluminum"),
    ("tyre", "tire"),
    ("mould", "mold"),
    ("moustache", "mustache"),
    ("pyjama", "pajama"),
    ("cosy", "cozy"),
    ("catalogue", "catalog"),
    ("sulphate", "sulfate"),
    ("sulphur", "sulfur"),
    ("aeroplane", "airplane"),
    ("doughnut", "donut"),
    ("yoghurt", "yogurt"),
    ("woollen", "woolen"),
    ("defence", "defense"),
    ("licence", "license"),
    ("tonne", "ton"),
    ("orthopaedic", "orthopedic"),
    ("paediatric", "pediatric"),
    ("encyclopaedia", "encyclopedia"),
    ("plough", "plow"),
    # -ise and -ize, -yse and -yze
    ("organise", "organize"),
    ("moisturise", "moisturize"),
    ("sanitise", "sanitize"),
    ("sterilise", "sterilize"),
    ("personalise", "personalize"),
    ("customise", "customize"),
    ("stabilise", "stabilize"),
    ("vaporise", "vaporize"),
    ("atomise", "atomize"),
    ("deodorise", "deodorize"),
    ("energise", "energize"),
    ("synthesise", "synthesize"),
    ("equalise", "equalize"),
    ("pasteurise", "pasteurize"),
    ("ionise", "ionize"),
    ("magnetise", "magnetize"),
    ("polarise", "polarize"),
    ("optimise", "optimize"),
    ("minimise", "minimize"),
    ("maximise", "maximize"),
    ("standardise", "standardize"),
    ("neutralise", "neutralize"),
    ("summarise", "summarize"),
    ("analyse", "analyze"),
)

# What may follow a British spelling in a word of it, by how the spelling ends: "theatres",
# "flavoured", "colourful", "organisers", "organisation", "greyish". Any other ending is another
# word that starts alike ("programmed", "organism", "greyhound", "analysis"), left as it is.
_ENDINGS = {
    "re": ("", "s"),
    "our": ("", "s", "ed", "ing", "ful", "less"),
    "ise": ("e", "es", "ed", "er", "ers", "ing", "ation", "ations"),
    "": ("", "s", "es", "ed", "ing", "ings", "ish"),
}


def _kind(british: str) -> str:
    if british.endswith(("ise", "yse")):
        return "ise"
    return next((end for end in ("re", "our") if british.endswith(end)), "")


# Each British word's letters as a word starts with them (a verb in "-ise" without its "e"), the
# American letters in their place, and the endings that may follow.
_STARTS = {
    (british[:-1] if _kind(british) == "ise" else british): (
        american[:-1] if _kind(british) == "ise" else american,
        _ENDINGS[_kind(british)],
    )
    for british, american in PAIRS
}
_BRITISH = re.compile("^(?:" + "|".join(sorted(_STARTS, key=len, reverse=True)) + ")")


def american(word: str) -> str:
    """A lower-case word in American spelling where it is a British word of PAIRS or one of its
    inflections ("theatres": theaters, "organisers": organizers), else the word itself."""
    found = _BRITISH.match(word)
    if found is None:
        return word
    letters, endings = _STARTS[found.group()]
    ending = word[found.end() :]
    return letters + ending if ending in endings else word
