"""Deterministic demo-catalog generator used by the ``seed_demo`` management command.

It produces believable product records (titles, prices, descriptions, tags, regions, target
audiences) and the short creator videos that sell them, in the catalog import format. The output
depends only on ``(products, seed, now)``: a private ``random.Random`` is used throughout, so the
same arguments always give identical records. Every brand and creator name is invented.

Pure standard library on purpose: no Django imports, so it can be used and tested anywhere.
"""

from __future__ import annotations

import functools
import math
import random
from bisect import bisect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any, Final, NamedTuple, TypeVar

__all__ = ["generate_catalog"]

_T = TypeVar("_T")

FIRST_PRODUCT_ID: Final = 100001
SHOP_URL: Final = "https://demo-shop.example"
IMAGE_URL: Final = "https://img.demo-shop.example"
VIDEO_URL: Final = "https://video.demo-shop.example"
PLATFORM_URL: Final = "https://platform.demo-shop.example"

REGIONS: Final = ("US", "GB", "DE", "FR", "CA", "AU", "JP", "SG")
# Probability that a product (not sold everywhere) is listed in each region.
REGION_ODDS: Final = (0.9, 0.45, 0.3, 0.25, 0.45, 0.3, 0.12, 0.12)
RISK_LEVELS: Final = ("low", "medium", "high")

MIN_TITLE_WORDS: Final = 3
MAX_TITLE_WORDS: Final = 9
MAX_TAGS: Final = 6
VIDEO_WINDOW_DAYS: Final = 120
RECENT_DAYS: Final = 30
RECENT_SHARE: Final = 0.4
# How many videos a product gets: 0..5, weighted so most have 1-3.
VIDEO_COUNT_WEIGHTS: Final = (0.12, 0.28, 0.27, 0.18, 0.09, 0.06)
GALLERY_SIZE_WEIGHTS: Final = (0.08, 0.17, 0.25, 0.25, 0.25)
_VIDEO_COUNT_CUM: Final = tuple(accumulate(VIDEO_COUNT_WEIGHTS))
_GALLERY_SIZE_CUM: Final = tuple(accumulate(GALLERY_SIZE_WEIGHTS))


@dataclass(frozen=True, slots=True)
class _ProductType:
    """One kind of product in a category, with the words that can describe it.

    A title is ``[brand] [lead] [features...] noun [suffix]``: ``nouns`` are interchangeable
    names for the product (all singular, or all plural when ``plural``); ``lead`` is a model name,
    size or count; each entry of ``features`` is a group of mutually exclusive options (at most
    one option per group, kept in group order); ``suffix`` is a size, count, fit or colour placed
    after the noun. Feature options become tags; lead and suffix words do not.
    """

    nouns: tuple[str, ...]
    price: tuple[float, float]
    tags: tuple[str, ...]
    lead: tuple[str, ...] = ()
    features: tuple[tuple[str, ...], ...] = ()
    suffix: tuple[str, ...] = ()
    plural: bool = False
    risk: tuple[float, float, float] | None = None
    openers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Category:
    """A two-level category with its brands, product vocabulary and copywriting."""

    l1: str
    l2: str
    brands: tuple[str, ...]
    types: tuple[_ProductType, ...]
    personas: tuple[tuple[str, str], ...]
    # Description openers; placeholders: {Subject}, {subject}, {is}.
    openers: tuple[str, ...]
    # One sentence per feature option, used to build truthful descriptions.
    blurbs: Mapping[str, str]
    closers: tuple[str, ...]
    # Words creators in this niche put in their usernames ("milesrun", "glow.with.ana").
    handle_words: tuple[str, ...]
    # Channel-style display names; {first} is the creator's first name.
    channels: tuple[str, ...]
    risk: tuple[float, float, float] = (1.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class _Creator:
    record: dict[str, Any]
    niches: tuple[int, ...]
    followers: int


class _Title(NamedTuple):
    """A generated title and the parts it was built from (descriptions and tags reuse them)."""

    text: str
    lead: str | None
    features: tuple[str, ...]
    noun: str
    suffix: str | None


_RUNNING = _Category(
    l1="Sports & Outdoors",
    l2="Running Shoes",
    brands=("TrailFox", "Stridewell", "Pacemoor", "Kestrun", "Velorun", "Fernstride", "Gritline"),
    types=(
        _ProductType(
            nouns=("Trail Running Shoe",),
            price=(69, 169),
            tags=("trail running", "running shoes"),
            lead=("GTX", "Ultra", "Summit", "Ridge 2", "Apex"),
            features=(("Waterproof", "Breathable"), ("Lightweight", "Cushioned", "Wide-Fit")),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Road Running Shoe",),
            price=(59, 159),
            tags=("road running", "running shoes"),
            lead=("Tempo", "Glide", "Swift 3", "Cruise", "Stride 5"),
            features=(("Neutral", "Stability"), ("Cushioned", "Lightweight", "Responsive")),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Carbon Plate Racing Shoe",),
            price=(139, 199),
            tags=("racing", "carbon plate", "running shoes"),
            lead=("Velo", "Sprint X", "Elite", "Rocket 2", "Pulse"),
            features=(("Lightweight", "Responsive"), ("Breathable",)),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Recovery Slide", "Recovery Sandal"),
            price=(29, 59),
            tags=("recovery", "sandals"),
            lead=("Cloud", "Rest 2", "Lounge", "Recover"),
            features=(("Cushioned", "Contoured", "Arch-Support"), ("Foam",)),
            suffix=("for Men", "for Women", "Unisex"),
        ),
        _ProductType(
            nouns=("Kids' Running Shoe", "Kids' Sneaker"),
            price=(29, 69),
            tags=("kids", "running shoes"),
            lead=("Dash", "Scout", "Zippy"),
            features=(
                ("Lightweight", "Breathable", "Light-Up", "Cushioned"),
                ("Hook-and-Loop", "Slip-On"),
            ),
            suffix=("for Boys", "for Girls"),
        ),
    ),
    personas=(("Trail and road runners", "18-44"), ("Everyday runners and walkers", "25-54")),
    openers=(
        "{Subject} {is} built for runners who want reliable comfort mile after mile.",
        "{Subject} {is} designed for a secure, locked-in fit and a smooth ride.",
        "Made for daily training, {subject} {is} ready for easy jogs and race day alike.",
    ),
    blurbs={
        "Waterproof": "A waterproof membrane keeps feet dry through puddles and wet grass.",
        "Breathable": "The engineered mesh upper lets heat escape on warm runs.",
        "Lightweight": "A lightweight build keeps every stride feeling quick.",
        "Cushioned": "Plush foam cushioning softens impact on long runs.",
        "Wide-Fit": "A roomier toe box gives wider feet space to splay naturally.",
        "Neutral": "A neutral platform suits runners with an efficient, natural gait.",
        "Stability": "A firmer medial post helps guide feet that tend to overpronate.",
        "Responsive": "Springy midsole foam returns energy with every toe-off.",
        "Contoured": "A contoured footbed supports the arch while tired legs recover.",
        "Foam": "Soft, water-friendly foam rinses clean in seconds.",
        "Light-Up": "Lights in the heel flash with every step, a favorite with kids.",
        "Hook-and-Loop": "Hook-and-loop straps let kids put them on by themselves.",
        "Slip-On": "A stretchy slip-on collar means no laces to come undone.",
        "Arch-Support": "Built-in arch support eases tired, achy feet.",
    },
    closers=(
        "Available in whole and half sizes.",
        "Pair with moisture-wicking socks for the best comfort.",
    ),
    handle_words=("run", "runs", "miles", "pace", "strides"),
    channels=("{first} Runs", "Miles with {first}", "Run with {first}"),
)

_SKINCARE = _Category(
    l1="Beauty & Personal Care",
    l2="Skincare",
    brands=("Lumora", "Dewlane", "Petalux", "Clarivelle", "Skinhaven", "Aubrielle", "Veradew"),
    types=(
        _ProductType(
            nouns=("Serum",),
            price=(12, 59),
            tags=("serum", "skincare"),
            features=(
                ("Hydrating", "Brightening", "Firming", "Soothing"),
                ("Vitamin C", "Hyaluronic Acid", "Niacinamide", "Retinol", "Peptide"),
            ),
            suffix=("30 ml", "50 ml", "1 fl oz"),
        ),
        _ProductType(
            nouns=("Face Moisturizer",),
            price=(14, 64),
            tags=("moisturizer", "skincare"),
            features=(
                ("Lightweight", "Rich", "Oil-Free", "Fragrance-Free"),
                ("Ceramide", "Hyaluronic Acid", "Squalane"),
            ),
            suffix=("50 ml", "1.7 oz"),
        ),
        _ProductType(
            nouns=("Facial Cleanser",),
            price=(8, 29),
            tags=("cleanser", "skincare"),
            features=(
                ("Gentle", "Foaming", "Exfoliating"),
                ("Salicylic Acid", "Green Tea", "Ceramide"),
            ),
            suffix=("150 ml", "200 ml", "8 fl oz"),
        ),
        _ProductType(
            nouns=("Face Sunscreen",),
            price=(10, 39),
            tags=("sunscreen", "skincare"),
            features=(
                ("Lightweight", "Tinted", "Water-Resistant"),
                ("Mineral",),
                ("SPF 30", "SPF 50"),
            ),
            suffix=("50 ml", "1.7 oz"),
        ),
        _ProductType(
            nouns=("Eye Cream",),
            price=(14, 54),
            tags=("eye cream", "skincare"),
            features=(("Depuffing", "Firming", "Brightening"), ("Caffeine", "Peptide", "Retinol")),
            suffix=("15 ml", "0.5 oz"),
        ),
        _ProductType(
            nouns=("Sheet Masks",),
            price=(9, 29),
            tags=("sheet mask", "skincare"),
            lead=("5-Pack", "10-Pack"),
            features=(
                ("Hydrating", "Soothing", "Brightening"),
                ("Aloe", "Hyaluronic Acid", "Collagen"),
            ),
            plural=True,
        ),
    ),
    personas=(
        ("Skincare enthusiasts", "18-34"),
        ("Adults building a simple skincare routine", "25-54"),
    ),
    openers=(
        "{Subject} {is} made for a simple, effective daily routine.",
        "{Subject} {is} quick to absorb and easy to layer under makeup.",
        "Dermatologist-tested, {subject} {is} suitable for most skin types.",
    ),
    blurbs={
        "Hydrating": "Helps skin hold on to moisture so it feels plump and comfortable all day.",
        "Brightening": "Targets dullness for a more even-looking, radiant complexion.",
        "Firming": "Helps skin look smoother and firmer with consistent use.",
        "Soothing": "Calms the look of redness and irritation.",
        "Vitamin C": "Stabilized vitamin C helps fade the look of dark spots.",
        "Hyaluronic Acid": "Hyaluronic acid draws water into the skin for lasting hydration.",
        "Niacinamide": "Niacinamide helps refine the look of pores and balance oil.",
        "Retinol": "Encapsulated retinol smooths texture; start with a few nights a week.",
        "Peptide": "Peptides support the look of firmer, bouncier skin.",
        "Oil-Free": "The oil-free formula won't leave a greasy finish.",
        "Fragrance-Free": "Fragrance-free and gentle enough for sensitive skin.",
        "Rich": "A rich, cushiony texture is ideal for dry skin and cold months.",
        "Lightweight": "A lightweight texture sinks in fast with no sticky residue.",
        "Ceramide": "Ceramides help restore and protect the skin barrier.",
        "Squalane": "Plant-derived squalane softens without clogging pores.",
        "Gentle": "Cleans thoroughly without stripping the skin.",
        "Foaming": "A rich lather rinses away makeup, sunscreen and excess oil.",
        "Exfoliating": "Gentle exfoliants lift away dull surface cells.",
        "Salicylic Acid": "Salicylic acid helps keep pores clear.",
        "Green Tea": "Green tea extract adds antioxidant care.",
        "Tinted": "A sheer tint evens out skin tone for a no-makeup look.",
        "Water-Resistant": "Water-resistant for up to 40 minutes of swimming or sweating.",
        "Mineral": "Zinc oxide provides gentle, broad-spectrum mineral protection.",
        "SPF 30": "Broad-spectrum SPF 30 protection for everyday wear.",
        "SPF 50": "Broad-spectrum SPF 50 protection for long days outdoors.",
        "Depuffing": "Helps reduce the look of morning puffiness.",
        "Caffeine": "Caffeine wakes up tired-looking eyes.",
        "Aloe": "Aloe vera soothes and cools.",
        "Collagen": "A collagen-infused essence leaves skin looking bouncy.",
    },
    closers=(
        "Patch test before first use.",
        "Free from parabens and mineral oil.",
        "Never tested on animals.",
    ),
    handle_words=("glow", "skin", "beauty", "dewy"),
    channels=("Glow with {first}", "{first}'s Skin Diary", "Skin by {first}"),
    risk=(0.9, 0.09, 0.01),
)

_COOKWARE = _Category(
    l1="Home & Kitchen",
    l2="Cookware",
    brands=(
        "Kettleby",
        "Copperwick",
        "Hearthly",
        "Panwright",
        "Saltmarsh",
        "Brasslow",
        "Forgewell",
    ),
    types=(
        _ProductType(
            nouns=("Cookware Set", "Pots and Pans Set"),
            price=(59, 249),
            tags=("cookware set", "cookware"),
            lead=("5-Piece", "10-Piece", "12-Piece"),
            features=(
                ("Ceramic", "Stainless Steel", "Hard-Anodized"),
                ("Nonstick", "Induction-Ready"),
            ),
            suffix=("in Black", "in Cream", "in Sage Green", "in Navy"),
        ),
        _ProductType(
            nouns=("Frying Pan",),
            price=(24, 79),
            tags=("frying pan", "cookware"),
            lead=("8-Inch", "10-Inch", "12-Inch"),
            features=(("Ceramic", "Hard-Anodized", "Granite-Coated"), ("Nonstick",)),
            suffix=("with Lid",),
        ),
        _ProductType(
            nouns=("Cast Iron Skillet",),
            price=(29, 69),
            tags=("cast iron", "skillet"),
            lead=("8-Inch", "10-Inch", "12-Inch"),
            features=(("Pre-Seasoned",), ("Dual-Handle",)),
            suffix=("with Lid", "with Silicone Handle Cover"),
        ),
        _ProductType(
            nouns=("Cast Iron Dutch Oven",),
            price=(49, 189),
            tags=("dutch oven", "cast iron"),
            lead=("4.5-Quart", "5.5-Quart", "6-Quart", "7-Quart"),
            features=(("Enameled",), ("Round", "Oval")),
            suffix=("in Cherry Red", "in Cream", "in Sage Green", "in Navy", "in Matte Black"),
        ),
        _ProductType(
            nouns=("Saucepan", "Sauce Pot"),
            price=(29, 89),
            tags=("saucepan", "cookware"),
            lead=("1.5-Quart", "2-Quart", "3-Quart"),
            features=(("Stainless Steel", "Tri-Ply", "Ceramic Nonstick"),),
            suffix=("with Lid", "with Glass Lid"),
        ),
        _ProductType(
            nouns=("Stockpot",),
            price=(39, 99),
            tags=("stockpot", "cookware"),
            lead=("6-Quart", "8-Quart", "12-Quart", "16-Quart"),
            features=(("Stainless Steel", "Tri-Ply", "Enameled"),),
            suffix=("with Lid", "with Glass Lid", "with Pasta Insert"),
        ),
        _ProductType(
            nouns=("Wok", "Stir-Fry Pan"),
            price=(29, 89),
            tags=("wok", "cookware"),
            lead=("12-Inch", "13-Inch", "14-Inch"),
            features=(("Carbon Steel", "Cast Iron"), ("Pre-Seasoned",), ("Flat-Bottom",)),
            suffix=("with Lid", "with Wooden Handle"),
        ),
    ),
    personas=(("Home cooks", "25-54"), ("First-apartment cooks and new homeowners", "22-40")),
    openers=(
        "{Subject} {is} designed for everyday cooking, from weeknight eggs to Sunday sauces.",
        "{Subject} {is} designed to heat evenly and clean up in minutes.",
        "Built to last, {subject} {is} at home on the stovetop and the dinner table.",
    ),
    blurbs={
        "Ceramic": "A PFOA-free ceramic coating releases food easily.",
        "Stainless Steel": "Stainless steel sears beautifully and won't react with acidic foods.",
        "Hard-Anodized": "Hard-anodized aluminum heats quickly and resists warping.",
        "Nonstick": "The nonstick surface lets you cook with less oil.",
        "Induction-Ready": "Works on gas, electric and induction cooktops.",
        "Granite-Coated": "A speckled granite-style coating adds scratch resistance.",
        "Pre-Seasoned": "Arrives pre-seasoned with vegetable oil, ready to cook.",
        "Enameled": "A glossy enameled interior needs no seasoning and resists stains.",
        "Tri-Ply": "Tri-ply construction spreads heat evenly with no hot spots.",
        "Ceramic Nonstick": "A PFOA-free ceramic nonstick coating releases food easily.",
        "Carbon Steel": "Carbon steel develops a natural nonstick patina over time.",
        "Flat-Bottom": "A flat bottom keeps it stable on any burner.",
        "Dual-Handle": "A helper handle makes it easier to lift when full.",
        "Round": "A round shape sits evenly on standard burners.",
        "Oval": "An oval shape fits whole chickens and long roasts.",
        "Cast Iron": "Heavy cast iron holds heat for a proper sear.",
    },
    closers=(
        "Hand washing recommended to extend its life.",
        "Backed by a limited lifetime warranty.",
    ),
    handle_words=("kitchen", "cooks", "eats", "chef", "skillet"),
    channels=("Kitchen with {first}", "{first} Cooks", "{first}'s Table"),
)

_EARBUDS = _Category(
    l1="Electronics",
    l2="Wireless Earbuds",
    brands=("Auralo", "Beatnest", "Quillsound", "Tunefly", "Noxwave", "Echovia", "Pulsebud"),
    types=(
        _ProductType(
            nouns=("Wireless Earbuds",),
            price=(19, 149),
            tags=("wireless earbuds", "earbuds"),
            lead=("Pro", "Air 2", "Lite", "X3", "Max"),
            features=(("Noise Cancelling",), ("Bluetooth 5.3",), ("Waterproof", "Sweatproof")),
            suffix=("with Charging Case",),
            plural=True,
        ),
        _ProductType(
            nouns=("Sport Earbuds", "Workout Earbuds"),
            price=(19, 79),
            tags=("sport earbuds", "workout"),
            lead=("Fit", "Run 2", "Flex", "Sprint", "Active 3"),
            features=(("Ear-Hook", "Secure-Fit"), ("Sweatproof", "Waterproof"), ("Bluetooth 5.3",)),
            suffix=("with Charging Case",),
            plural=True,
        ),
        _ProductType(
            nouns=("Open-Ear Earbuds", "Open-Ear Headphones"),
            price=(39, 129),
            tags=("open-ear", "earbuds"),
            lead=("Air", "Loop", "Breeze", "Free 2"),
            features=(("Lightweight", "Clip-On"), ("Bluetooth 5.3",), ("Sweatproof",)),
            suffix=("with Charging Case",),
            plural=True,
        ),
        _ProductType(
            nouns=("Gaming Earbuds",),
            price=(29, 89),
            tags=("gaming", "earbuds"),
            lead=("Arena", "X3", "Strike"),
            features=(("Low-Latency",), ("Wireless",), ("RGB",)),
            suffix=("with Charging Case", "for PC and Console"),
            plural=True,
        ),
        _ProductType(
            nouns=("Sleep Earbuds",),
            price=(49, 149),
            tags=("sleep", "earbuds"),
            lead=("Dream", "Hush", "Night 2"),
            features=(("Noise-Masking",), ("Ultra-Slim", "Soft Silicone")),
            suffix=("with Charging Case",),
            plural=True,
        ),
    ),
    personas=(("Commuters and music lovers", "18-44"), ("Gym-goers and active listeners", "18-34")),
    openers=(
        "{Subject} {is} tuned for rich, balanced sound in a compact, pocketable design.",
        "{Subject} {is} quick to pair and stay connected from your commute to your workout.",
        "With a snug, comfortable fit, {subject} {is} made for all-day listening.",
    ),
    blurbs={
        "Noise Cancelling": "Active noise cancelling quiets engine hum and office chatter.",
        "Bluetooth 5.3": "Bluetooth 5.3 keeps the connection stable while saving battery.",
        "Waterproof": "IPX7 waterproofing shrugs off rain and sweat.",
        "Sweatproof": "A sweatproof build handles intense workouts.",
        "Ear-Hook": "Flexible ear hooks keep them in place during sprints and burpees.",
        "Secure-Fit": "Soft wing tips lock each bud in place.",
        "Lightweight": "At just a few grams per side, they disappear during long sessions.",
        "Low-Latency": "A low-latency game mode keeps audio in sync with on-screen action.",
        "Wireless": "A dedicated wireless dongle pairs with consoles and PCs.",
        "Noise-Masking": "Built-in soothing sounds help mask snoring and street noise.",
        "Ultra-Slim": "An ultra-slim profile stays comfortable for side sleepers.",
        "Clip-On": "A soft clip design rests on the ear and leaves the ear canal open.",
        "RGB": "Customizable RGB lighting matches your setup.",
        "Soft Silicone": "Soft silicone tips won't press when you lie on your side.",
    },
    closers=(
        "Includes a charging case and USB-C cable.",
        "Up to 30 hours of total playtime with the case.",
        "Three sizes of silicone ear tips included.",
    ),
    handle_words=("tech", "gadget", "audio", "beats"),
    channels=("Tech with {first}", "{first} Unboxes", "{first}'s Gadget Lab"),
    risk=(0.72, 0.25, 0.03),
)

_DOG_TOYS = _Category(
    l1="Pet Supplies",
    l2="Dog Toys",
    brands=("Barkwell", "Wagglet", "Chewbury", "Tugtail", "Snoutly", "Fetchmore"),
    types=(
        _ProductType(
            nouns=("Chew Toy", "Chew Bone", "Chew Ring", "Chew Stick"),
            price=(8, 24),
            tags=("chew toy", "dog toys"),
            features=(("Durable", "Tough"), ("Natural Rubber", "Nylon"), ("Bacon-Flavored",)),
            suffix=("for Small Dogs", "for Medium Dogs", "for Large Dogs"),
        ),
        _ProductType(
            nouns=("Rope Tug Toy",),
            price=(9, 22),
            tags=("rope toy", "tug toy"),
            lead=("3-Pack", "5-Pack"),
            features=(("Braided",), ("Cotton",)),
            suffix=("for Puppies", "for Small Dogs", "for Large Dogs"),
        ),
        _ProductType(
            nouns=(
                "Squeaky Plush Toy",
                "Squeaky Plush Fox",
                "Squeaky Plush Duck",
                "Squeaky Plush Hedgehog",
                "Squeaky Plush Octopus",
            ),
            price=(7, 19),
            tags=("squeaky toy", "plush"),
            features=(("Stuffing-Free",), ("Crinkle",)),
            suffix=("for Puppies", "for Small Dogs", "for Medium Dogs"),
        ),
        _ProductType(
            nouns=("Treat Puzzle", "Snuffle Mat", "Treat Ball", "Lick Mat"),
            price=(12, 34),
            tags=("enrichment", "treat toy"),
            features=(("Interactive",), ("Slow-Feed",), ("Dishwasher-Safe",)),
            suffix=("for Dogs", "for Puppies", "for Large Dogs"),
        ),
        _ProductType(
            nouns=("Ball Launcher", "Ball Thrower"),
            price=(49, 119),
            tags=("fetch", "ball launcher"),
            lead=("Pro", "Mini"),
            features=(("Automatic",), ("Rechargeable",)),
            suffix=("for Small Dogs", "for Medium Dogs", "with 3 Balls"),
            risk=(0.8, 0.18, 0.02),
        ),
        _ProductType(
            nouns=("Dog Tennis Balls",),
            price=(9, 19),
            tags=("fetch", "tennis balls"),
            lead=("3-Pack", "6-Pack", "12-Pack"),
            features=(("High-Bounce",), ("Squeaky",), ("Non-Abrasive",)),
            suffix=("for Small Dogs", "for Large Dogs"),
            plural=True,
        ),
    ),
    personas=(("Dog owners", "25-54"), ("First-time puppy parents", "22-40")),
    openers=(
        "{Subject} {is} made to keep curious dogs busy and happy.",
        "{Subject} {is} built for playtime indoors and out.",
        "Designed with real dogs in mind, {subject} {is} ready for daily play.",
    ),
    blurbs={
        "Durable": "Thick, durable construction stands up to enthusiastic chewers.",
        "Tough": "Built tough for dogs who shred ordinary toys.",
        "Natural Rubber": "Made from non-toxic natural rubber.",
        "Nylon": "Textured nylon helps clean teeth as dogs chew.",
        "Braided": "Tightly braided knots hold up to serious tug-of-war.",
        "Cotton": "Cotton fibers help floss teeth during play.",
        "Stuffing-Free": "Stuffing-free means no mess if a seam ever gives way.",
        "Crinkle": "Crinkle paper inside adds irresistible sound.",
        "Interactive": "Hidden compartments turn treat time into a brain game.",
        "Slow-Feed": "Slows down fast eaters for healthier mealtimes.",
        "Automatic": "Launches balls at adjustable distances so dogs can play fetch solo.",
        "High-Bounce": "High-bounce felt keeps fetch lively.",
        "Squeaky": "A built-in squeaker keeps interest high.",
        "Bacon-Flavored": "A real bacon flavor keeps dogs coming back.",
        "Rechargeable": "A rechargeable battery lasts for hundreds of launches.",
        "Dishwasher-Safe": "Pops in the dishwasher for easy cleanup.",
        "Non-Abrasive": "Non-abrasive felt is gentle on teeth.",
    },
    closers=("Always supervise your dog during play.", "Replace when worn or damaged."),
    handle_words=("pup", "woof", "dogs", "paws"),
    channels=("{first} and the Pups", "Paws with {first}", "{first}'s Dog House"),
    risk=(0.97, 0.03, 0.0),
)

_FITNESS = _Category(
    l1="Sports & Outdoors",
    l2="Yoga & Fitness",
    brands=("Zenfold", "Flexora", "Corevia", "Asanu", "Liftwell", "Balanza"),
    types=(
        _ProductType(
            nouns=("Yoga Mat",),
            price=(19, 89),
            tags=("yoga mat", "yoga"),
            lead=("4mm", "6mm", "8mm"),
            features=(("Non-Slip",), ("TPE", "Natural Rubber", "Cork")),
            suffix=("with Carrying Strap",),
        ),
        _ProductType(
            nouns=("Resistance Loop Bands", "Long Resistance Bands", "Mini Resistance Bands"),
            price=(12, 34),
            tags=("resistance bands", "strength"),
            features=(("Fabric", "Latex-Free"), ("Non-Slip",)),
            suffix=("Set of 3", "Set of 5", "with Carry Bag"),
            plural=True,
        ),
        _ProductType(
            nouns=("Adjustable Dumbbell", "Adjustable Dumbbell Set"),
            price=(89, 199),
            tags=("dumbbell", "strength"),
            lead=("25 lb", "52.5 lb", "90 lb"),
            features=(("Quick-Select",), ("Space-Saving",)),
            suffix=("with Storage Tray",),
        ),
        _ProductType(
            nouns=("Foam Roller", "Massage Roller"),
            price=(15, 49),
            tags=("foam roller", "recovery"),
            lead=("12-Inch", "18-Inch", "36-Inch"),
            features=(("High-Density", "Textured", "Soft"),),
            suffix=("with Carry Strap", "for Deep Tissue Massage"),
        ),
        _ProductType(
            nouns=("Yoga Blocks",),
            price=(12, 29),
            tags=("yoga blocks", "yoga"),
            lead=("2-Pack",),
            features=(("Cork", "EVA Foam", "Bamboo"), ("Non-Slip",)),
            suffix=("with Yoga Strap",),
            plural=True,
        ),
        _ProductType(
            nouns=("Jump Rope", "Speed Rope", "Skipping Rope"),
            price=(9, 29),
            tags=("jump rope", "cardio"),
            features=(("Tangle-Free",), ("Weighted", "Adjustable")),
            suffix=("with Counter", "with Foam Handles"),
        ),
        _ProductType(
            nouns=("Kettlebell",),
            price=(24, 79),
            tags=("kettlebell", "strength"),
            lead=("10 lb", "15 lb", "20 lb", "25 lb", "35 lb", "45 lb"),
            features=(("Cast Iron", "Vinyl-Coated", "Powder-Coated"), ("Wide-Grip",)),
        ),
    ),
    personas=(("Home workout and yoga enthusiasts", "25-44"), ("Fitness beginners", "18-54")),
    openers=(
        "{Subject} {is} the simple way to bring studio-style training to your living room.",
        "Compact and easy to store, {subject} {is} a fit for any home workout space.",
        "{Subject} {is} built for daily practice and sweaty sessions.",
    ),
    blurbs={
        "Non-Slip": "A non-slip texture keeps hands and feet planted in every pose.",
        "TPE": "Lightweight TPE is free of latex and PVC.",
        "Natural Rubber": "Natural rubber gives dense, grippy support.",
        "Cork": "Naturally antimicrobial cork grips better as you sweat.",
        "Fabric": "Soft fabric bands won't roll up or pinch skin.",
        "Latex-Free": "Latex-free material is kind to sensitive skin.",
        "Quick-Select": "Turn the dial to change the weight in seconds.",
        "High-Density": "High-density foam delivers firm, deep pressure.",
        "Textured": "Raised ridges work into knots like a massage therapist's thumbs.",
        "EVA Foam": "Lightweight EVA foam is firm yet comfortable.",
        "Tangle-Free": "Ball-bearing handles keep the cable spinning tangle-free.",
        "Weighted": "Weighted handles add an upper-body challenge.",
        "Cast Iron": "Solid cast iron with a flat base for stable storage.",
        "Vinyl-Coated": "A vinyl coating protects your floors.",
        "Space-Saving": "Replaces a full rack of weights in one compact footprint.",
        "Soft": "Softer foam is ideal for beginners and sensitive muscles.",
        "Bamboo": "Sustainable bamboo is light yet sturdy.",
        "Adjustable": "The cable adjusts to any height in seconds.",
        "Powder-Coated": "A powder-coated finish improves grip for high-rep sets.",
        "Wide-Grip": "A wide handle fits both hands for swings and goblet squats.",
    },
    closers=(
        "Includes a printable starter workout guide.",
        "Wipe clean with a damp cloth after use.",
    ),
    handle_words=("fit", "yoga", "flow", "lifts", "sweat"),
    channels=("Flow with {first}", "{first} Lifts", "Fit with {first}"),
    risk=(0.98, 0.02, 0.0),
)

_BACKPACKS = _Category(
    l1="Fashion",
    l2="Backpacks",
    brands=("Rovepack", "Wanderloom", "Satchelby", "Trekmoor", "Urbanroam", "Ferncarry"),
    types=(
        _ProductType(
            nouns=("Laptop Backpack",),
            price=(29, 99),
            tags=("laptop backpack", "backpack"),
            lead=("20L", "25L", "30L"),
            features=(("Water-Resistant",), ("Anti-Theft", "Slim", "Expandable")),
            suffix=("for 15-Inch Laptops", "for 17-Inch Laptops"),
        ),
        _ProductType(
            nouns=("Travel Backpack",),
            price=(49, 149),
            tags=("travel backpack", "backpack"),
            lead=("35L", "40L", "45L"),
            features=(("Carry-On",), ("Water-Resistant",), ("Expandable",)),
            suffix=("for Women", "for Men", "with Laptop Compartment"),
        ),
        _ProductType(
            nouns=("Hiking Daypack", "Hiking Backpack"),
            price=(29, 89),
            tags=("hiking", "daypack"),
            lead=("18L", "22L", "28L"),
            features=(("Lightweight", "Packable"), ("Ventilated",)),
            suffix=("with Rain Cover", "with Hydration Sleeve"),
        ),
        _ProductType(
            nouns=("Rolltop Backpack",),
            price=(49, 119),
            tags=("rolltop", "backpack"),
            lead=("20L", "28L"),
            features=(("Waterproof",), ("Recycled Nylon", "Waxed Canvas")),
            suffix=("with Laptop Sleeve", "for Cycling"),
        ),
        _ProductType(
            nouns=("Mini Backpack", "Mini Backpack Purse", "Sling Backpack"),
            price=(24, 69),
            tags=("mini backpack", "backpack"),
            features=(("Vegan Leather", "Nylon", "Quilted", "Corduroy"),),
            suffix=("for Women", "in Black", "in Beige", "in Olive"),
        ),
    ),
    personas=(
        ("Commuters, students and travelers", "18-44"),
        ("Weekend hikers and travelers", "25-54"),
    ),
    openers=(
        "{Subject} {is} designed to keep your essentials organized from office to airport.",
        "{Subject} {is} comfortable to carry thanks to padded, adjustable shoulder straps.",
        "Smartly laid out with plenty of pockets, {subject} {is} made for everyday carry.",
    ),
    blurbs={
        "Water-Resistant": "A water-resistant shell protects gear in light rain.",
        "Anti-Theft": "Hidden zippers and a back pocket keep valuables out of reach.",
        "Slim": "A slim profile slides easily under airplane seats.",
        "Expandable": "An expansion zip adds extra room when you need it.",
        "Carry-On": "Sized to meet most airline carry-on limits.",
        "Lightweight": "Lightweight fabric keeps weight off your shoulders.",
        "Packable": "Folds into its own pocket when not in use.",
        "Ventilated": "A ventilated back panel keeps you cooler on climbs.",
        "Waterproof": "A roll-top closure and welded seams keep contents dry in downpours.",
        "Recycled Nylon": "Made from durable recycled nylon.",
        "Waxed Canvas": "Waxed canvas wears in beautifully over time.",
        "Vegan Leather": "Soft vegan leather looks polished for work or weekends.",
        "Nylon": "Durable nylon is easy to wipe clean.",
        "Quilted": "Quilted panels add texture and a little padding.",
        "Corduroy": "Soft corduroy adds a cozy, vintage feel.",
    },
    closers=("Backed by a two-year warranty.", "Spot clean with a damp cloth."),
    handle_words=("travel", "roams", "wanders", "packs"),
    channels=("{first} Wanders", "Packing with {first}", "{first} on the Go"),
)

_COFFEE_TEA = _Category(
    l1="Grocery & Gourmet Food",
    l2="Coffee & Tea",
    brands=("Beanhollow", "Steepwell", "Brewhaven", "Leafridge", "Roastwick", "Mugsley", "Teavale"),
    types=(
        _ProductType(
            nouns=("Whole Bean Coffee",),
            price=(12, 34),
            tags=("whole bean", "coffee"),
            features=(
                ("Organic", "Fair Trade", "Single-Origin"),
                ("Colombian", "Guatemalan", "Ethiopian", "Sumatra", "House Blend"),
                ("Light Roast", "Medium Roast", "Dark Roast"),
            ),
            suffix=("12 oz", "2 lb"),
        ),
        _ProductType(
            nouns=("Ground Coffee",),
            price=(9, 22),
            tags=("ground coffee", "coffee"),
            features=(
                ("Organic",),
                ("Colombian", "Guatemalan", "Sumatra", "House Blend", "Breakfast Blend"),
                ("Medium Roast", "Dark Roast", "Espresso Roast"),
            ),
            suffix=("12 oz", "24 oz"),
        ),
        _ProductType(
            nouns=("Coffee Pods",),
            price=(14, 32),
            tags=("coffee pods", "coffee"),
            features=(
                ("Colombian", "House Blend", "Breakfast Blend"),
                ("Medium Roast", "Dark Roast", "Decaf"),
            ),
            suffix=("24 Count", "48 Count"),
            plural=True,
        ),
        _ProductType(
            nouns=("Loose Leaf Tea",),
            price=(9, 26),
            tags=("loose leaf", "tea"),
            features=(
                ("Organic",),
                ("Earl Grey", "Jasmine Green", "Chamomile", "Breakfast Black", "Peppermint"),
            ),
            suffix=("4 oz", "8 oz"),
        ),
        _ProductType(
            nouns=("Matcha Powder", "Matcha Green Tea Powder"),
            price=(14, 39),
            tags=("matcha", "green tea"),
            features=(("Organic",), ("Ceremonial Grade", "Culinary Grade")),
            suffix=("30 g", "50 g", "100 g"),
        ),
        _ProductType(
            nouns=("Tea Bags",),
            price=(5, 15),
            tags=("tea bags", "tea"),
            features=(("Organic",), ("Chamomile", "Peppermint", "Earl Grey", "Ginger Turmeric")),
            suffix=("20 Count", "50 Count"),
            plural=True,
        ),
        _ProductType(
            nouns=("Cold Brew Coffee Concentrate", "Cold Brew Concentrate"),
            price=(9, 19),
            tags=("cold brew", "coffee"),
            features=(("Organic",), ("Unsweetened", "Vanilla", "Mocha", "Caramel")),
            suffix=("32 fl oz", "48 fl oz"),
        ),
    ),
    personas=(("Coffee and tea lovers", "25-54"), ("Home baristas", "22-44")),
    openers=(
        "{Subject} {is} packed fresh and sealed to lock in flavor.",
        "{Subject} {is} an easy way to turn your daily cup into a small ritual.",
        "Sourced from trusted growers, {subject} {is} café-quality flavor at home.",
    ),
    blurbs={
        "Single-Origin": "Sourced from a single growing region for a distinct, traceable flavor.",
        "Organic": "Certified organic.",
        "Fair Trade": "Fair Trade certified, supporting the farmers who grow it.",
        "Light Roast": "A bright light roast with citrus and floral notes.",
        "Medium Roast": "A balanced medium roast with notes of caramel and milk chocolate.",
        "Dark Roast": "A bold dark roast with smoky, bittersweet cocoa notes.",
        "Espresso Roast": "Roasted for rich, syrupy espresso with thick crema.",
        "Decaf": "Water-process decaf keeps the flavor without the caffeine.",
        "Earl Grey": "Black tea scented with bergamot for a classic citrus aroma.",
        "Jasmine Green": "Green tea layered with fragrant jasmine blossoms.",
        "Chamomile": "Caffeine-free chamomile for a calm evening cup.",
        "Breakfast Black": "A robust black tea blend that stands up to milk.",
        "Peppermint": "Cool, refreshing peppermint, naturally caffeine-free.",
        "Ceremonial Grade": "Stone-ground, vibrant and smooth enough to whisk with just water.",
        "Culinary Grade": "Made for lattes, smoothies and baking.",
        "Ginger Turmeric": "Warming ginger and turmeric with a gentle spice.",
        "Unsweetened": "No added sugar; mix one to one with water or milk.",
        "Vanilla": "Smooth vanilla flavor with no artificial colors.",
        "Mocha": "A chocolatey mocha twist for iced coffee fans.",
        "Colombian": "Grown in the Colombian highlands for a smooth, nutty cup.",
        "Guatemalan": "Guatemalan beans bring notes of cocoa and soft spice.",
        "Ethiopian": "Ethiopian beans bring bright berry and jasmine notes.",
        "Sumatra": "Earthy, full-bodied Sumatra beans with a syrupy finish.",
        "House Blend": "Our house blend is smooth and balanced for everyday drinking.",
        "Breakfast Blend": "A bright, easy-drinking blend made for mornings.",
        "Caramel": "A buttery caramel flavor made for iced lattes.",
    },
    closers=("Store in a cool, dry place.", "Best enjoyed within a few weeks of opening."),
    handle_words=("brews", "coffee", "sips", "cafe", "barista"),
    channels=("Brewing with {first}", "{first}'s Coffee Corner", "Sips with {first}"),
    risk=(0.97, 0.03, 0.0),
)

_PHONE = _Category(
    l1="Electronics",
    l2="Phone Accessories",
    brands=("Chargio", "Gripcase", "Voltlane", "Snapcell", "Cablewise", "Juicepod"),
    types=(
        _ProductType(
            nouns=("Phone Case",),
            price=(9, 34),
            tags=("phone case", "case"),
            features=(("Clear", "Shockproof", "Slim", "Matte", "Vegan Leather"), ("Magnetic",)),
            suffix=(
                "for 6.1-Inch Phones",
                "for 6.7-Inch Phones",
                "with Kickstand",
                "with Card Holder",
            ),
        ),
        _ProductType(
            nouns=("Power Bank", "Portable Charger"),
            price=(19, 69),
            tags=("power bank", "portable charger"),
            lead=("5000mAh", "10000mAh", "20000mAh", "27000mAh"),
            features=(("Slim", "Magnetic"), ("Fast Charging",)),
            suffix=("with Built-In Cable", "with LED Display"),
            risk=(0.4, 0.4, 0.2),
        ),
        _ProductType(
            nouns=("USB-C Cable",),
            price=(8, 24),
            tags=("usb-c", "charging cable"),
            lead=("2-Pack", "3-Pack"),
            features=(("Braided",), ("Fast Charging",)),
            suffix=("6 ft", "10 ft"),
        ),
        _ProductType(
            nouns=("USB-C Wall Charger",),
            price=(14, 49),
            tags=("wall charger", "usb-c"),
            lead=("20W", "35W", "65W"),
            features=(("Dual-Port",), ("GaN", "Compact")),
            risk=(0.75, 0.2, 0.05),
        ),
        _ProductType(
            nouns=("Screen Protector",),
            price=(7, 19),
            tags=("screen protector", "phone"),
            lead=("2-Pack", "3-Pack"),
            features=(("Tempered Glass", "Privacy"),),
            suffix=("for 6.1-Inch Phones", "for 6.7-Inch Phones"),
        ),
        _ProductType(
            nouns=("Car Phone Mount", "Car Phone Holder"),
            price=(12, 34),
            tags=("car mount", "phone mount"),
            features=(("Magnetic", "Wireless Charging"), ("Dashboard", "Air Vent", "Cup Holder")),
            suffix=("with 360-Degree Rotation",),
        ),
        _ProductType(
            nouns=(
                "Wireless Charging Pad",
                "Wireless Charging Stand",
                "3-in-1 Wireless Charging Station",
            ),
            price=(14, 39),
            tags=("wireless charger", "charging"),
            lead=("10W", "15W"),
            features=(("Slim", "Foldable"),),
            risk=(0.8, 0.2, 0.0),
        ),
    ),
    personas=(("Smartphone users", "18-54"), ("Commuters and frequent travelers", "25-44")),
    openers=(
        "{Subject} {is} a simple upgrade for the phone you use all day.",
        "{Subject} {is} tested for everyday reliability and built to last.",
        "Compact and travel-friendly, {subject} {is} sure to earn a spot in your bag.",
    ),
    blurbs={
        "Clear": "A crystal-clear back shows off your phone's color.",
        "Shockproof": "Reinforced corners absorb drops from up to 2 meters.",
        "Slim": "A slim, pocket-friendly profile.",
        "Magnetic": "Built-in magnets snap securely into place.",
        "Fast Charging": "Fast charging tops up a phone to 50% in about 30 minutes.",
        "Braided": "A braided nylon jacket survives thousands of bends.",
        "GaN": "GaN technology packs more power into a smaller charger.",
        "Compact": "A compact, folding-plug design travels easily.",
        "Dual-Port": "Two ports charge a phone and a tablet at the same time.",
        "Tempered Glass": "9H tempered glass resists scratches and installs bubble-free.",
        "Privacy": "A privacy filter darkens the screen for anyone peeking from the side.",
        "Dashboard": "A strong suction base mounts to the dashboard or windshield.",
        "Air Vent": "Clips firmly onto most car air vents.",
        "Matte": "A soft-touch matte finish resists fingerprints.",
        "Vegan Leather": "Vegan leather feels premium and wipes clean.",
        "Wireless Charging": "Charges compatible phones wirelessly while you drive.",
        "Cup Holder": "Sits securely in a cup holder with an adjustable neck.",
        "Foldable": "Folds flat to slip into a travel bag.",
    },
    closers=("Includes an 18-month warranty.", "Compatible with most modern smartphones."),
    handle_words=("tech", "gadgets", "techie", "unbox"),
    channels=("{first} Tech", "Unboxing with {first}", "{first}'s Tech Desk"),
    risk=(0.97, 0.03, 0.0),
)

_SMART_HOME = _Category(
    l1="Electronics",
    l2="Smart Home",
    brands=("Homiq", "Lumivo", "Brightnook", "Switchly", "Glowhaus", "Domora"),
    types=(
        _ProductType(
            nouns=("Smart Plug",),
            price=(12, 39),
            tags=("smart plug", "smart home"),
            lead=("Mini", "2-Pack", "4-Pack"),
            features=(("Wi-Fi",), ("Outdoor",), ("Energy Monitoring",)),
            suffix=("with Timer",),
        ),
        _ProductType(
            nouns=("LED Smart Bulb", "Smart Light Bulb"),
            price=(12, 49),
            tags=("smart bulb", "lighting"),
            lead=("2-Pack", "4-Pack", "6-Pack"),
            features=(("Color-Changing", "Tunable White"), ("Dimmable",)),
            suffix=("A19", "BR30"),
        ),
        _ProductType(
            nouns=("Video Doorbell", "Doorbell Camera"),
            price=(39, 149),
            tags=("video doorbell", "home security"),
            lead=("Pro", "Lite", "Plus"),
            features=(("1080p", "2K"), ("Wireless", "Wired")),
            suffix=("with Chime",),
        ),
        _ProductType(
            nouns=("Indoor Security Camera", "Pet Camera", "Home Security Camera"),
            price=(24, 79),
            tags=("security camera", "home security"),
            lead=("Mini", "Pro"),
            features=(("1080p", "2K"), ("Pan-Tilt",), ("Night Vision",)),
        ),
        _ProductType(
            nouns=("Smart Thermostat",),
            price=(79, 179),
            tags=("thermostat", "smart home"),
            lead=("Pro", "Lite", "E2"),
            features=(("Programmable",), ("Touchscreen",), ("Wi-Fi",)),
            suffix=("with Room Sensor",),
        ),
        _ProductType(
            nouns=("LED Light Strip",),
            price=(15, 45),
            tags=("light strip", "lighting"),
            lead=("16 ft", "32 ft", "65 ft"),
            features=(("Wi-Fi",), ("RGBIC",), ("Music-Sync",)),
            suffix=("with Remote",),
        ),
    ),
    personas=(
        ("Tech-savvy homeowners and renters", "25-54"),
        ("Busy families automating their home", "30-50"),
    ),
    openers=(
        "{Subject} {is} ready in minutes through the free companion app.",
        "{Subject} {is} compatible with popular voice assistants for hands-free control.",
        "Easy to schedule and control from anywhere, {subject} {is} a simple smart upgrade.",
    ),
    blurbs={
        "Wi-Fi": "Connects over 2.4 GHz Wi-Fi with no hub required.",
        "Energy Monitoring": "Tracks energy use so you can spot power-hungry devices.",
        "Color-Changing": "Choose from 16 million colors to set the mood.",
        "Tunable White": "Shift from warm to cool white throughout the day.",
        "Dimmable": "Dims smoothly from 1% to 100%.",
        "1080p": "Full HD 1080p video shows clear detail day and night.",
        "2K": "Sharp 2K resolution lets you zoom in on faces and packages.",
        "Wireless": "A rechargeable battery means no wiring needed.",
        "Wired": "Connects to existing doorbell wiring for always-on power.",
        "Pan-Tilt": "360-degree pan and tilt covers the whole room.",
        "Night Vision": "Infrared night vision sees clearly in the dark.",
        "Programmable": "Learns your schedule to save energy automatically.",
        "Music-Sync": "A built-in mic syncs the colors to your music.",
        "Outdoor": "Weather-resistant for porch lights and holiday displays.",
        "Touchscreen": "A bright touchscreen makes manual adjustments easy.",
        "RGBIC": "RGBIC lets each segment display its own color.",
    },
    closers=("Two-year limited warranty.", "Requires a 2.4 GHz Wi-Fi network."),
    handle_words=("smarthome", "tech", "home", "gadgets"),
    channels=("Smart Home with {first}", "{first}'s Connected Home", "{first} Automates"),
    risk=(0.78, 0.19, 0.03),
)

_HAIRCARE = _Category(
    l1="Beauty & Personal Care",
    l2="Haircare",
    brands=("Tressly", "Maneva", "Curlhaven", "Silkroot", "Lockwell", "Sheenora"),
    types=(
        _ProductType(
            nouns=("Shampoo",),
            price=(8, 29),
            tags=("shampoo", "haircare"),
            features=(
                ("Sulfate-Free", "Clarifying", "Volumizing", "Moisturizing"),
                ("Argan Oil", "Tea Tree", "Biotin", "Rosemary"),
            ),
            suffix=("300 ml", "10 fl oz"),
        ),
        _ProductType(
            nouns=("Conditioner",),
            price=(8, 29),
            tags=("conditioner", "haircare"),
            features=(
                ("Sulfate-Free", "Moisturizing", "Color-Safe", "Detangling"),
                ("Argan Oil", "Coconut", "Shea Butter"),
            ),
            suffix=("300 ml", "10 fl oz"),
        ),
        _ProductType(
            nouns=("Hair Mask",),
            price=(12, 34),
            tags=("hair mask", "haircare"),
            features=(("Repairing", "Deep Conditioning"), ("Argan Oil", "Keratin", "Shea Butter")),
            suffix=("200 ml", "8 oz"),
        ),
        _ProductType(
            nouns=("Hair Oil",),
            price=(10, 32),
            tags=("hair oil", "haircare"),
            features=(("Lightweight", "Frizz-Control"), ("Rosemary", "Argan", "Jojoba")),
            suffix=("50 ml", "2 fl oz"),
        ),
        _ProductType(
            nouns=("Curl Cream", "Curl Defining Cream"),
            price=(9, 26),
            tags=("curl cream", "curly hair"),
            features=(
                ("Defining", "Frizz-Control", "Lightweight"),
                ("Coconut", "Shea Butter", "Flaxseed"),
            ),
            suffix=("8 oz", "12 oz"),
        ),
        _ProductType(
            nouns=("Heat Protectant Spray",),
            price=(9, 24),
            tags=("heat protectant", "styling"),
            features=(("Lightweight", "Frizz-Control"), ("Argan Oil", "Keratin")),
            suffix=("200 ml", "6 fl oz"),
        ),
        _ProductType(
            nouns=("Hair Dryer", "Travel Hair Dryer"),
            price=(39, 149),
            tags=("hair dryer", "styling tools"),
            lead=("1800W", "1875W"),
            features=(("Ionic",), ("Lightweight",)),
            suffix=("with Diffuser",),
            risk=(0.85, 0.15, 0.0),
            openers=(
                "{Subject} {is} designed to dry hair fast while keeping it smooth.",
                "{Subject} {is} salon-level styling power in a travel-friendly body.",
            ),
        ),
    ),
    personas=(
        ("Anyone building a better haircare routine", "18-44"),
        ("Adults with color-treated or damaged hair", "25-54"),
    ),
    openers=(
        "{Subject} {is} made to leave hair soft, shiny and easy to style.",
        "{Subject} {is} salon-quality haircare at an everyday price.",
        "Suitable for all hair types, {subject} {is} an easy add to your wash-day routine.",
    ),
    blurbs={
        "Sulfate-Free": "A sulfate-free formula cleanses gently without stripping color.",
        "Clarifying": "Lifts away product buildup and excess oil.",
        "Volumizing": "Adds lift and body to fine, flat hair.",
        "Moisturizing": "Replenishes moisture for soft, manageable hair.",
        "Color-Safe": "Safe for color-treated hair.",
        "Detangling": "Extra slip helps combs glide through knots.",
        "Argan Oil": "Argan oil tames frizz and adds shine.",
        "Argan": "Argan oil tames frizz and adds shine.",
        "Tea Tree": "Tea tree oil leaves the scalp feeling fresh.",
        "Biotin": "Biotin-infused for fuller-looking strands.",
        "Rosemary": "Rosemary oil invigorates the scalp.",
        "Coconut": "Coconut oil smooths and nourishes dry ends.",
        "Shea Butter": "Shea butter softens coarse, thirsty hair.",
        "Repairing": "Helps repair the look of split ends and breakage.",
        "Deep Conditioning": "A weekly deep-conditioning treatment for dry, damaged hair.",
        "Keratin": "Keratin helps smooth frizz and strengthen strands.",
        "Lightweight": "A lightweight formula won't weigh hair down.",
        "Frizz-Control": "Seals the cuticle to fight humidity frizz.",
        "Jojoba": "Jojoba oil mimics the scalp's natural oils.",
        "Defining": "Defines curls and coils with a soft, touchable hold.",
        "Ionic": "Ionic technology reduces static and frizz.",
        "Flaxseed": "Flaxseed adds soft definition without crunch.",
    },
    closers=("Free from parabens.", "Cruelty-free and made in small batches."),
    handle_words=("hair", "curls", "tresses", "mane"),
    channels=("Curls with {first}", "{first}'s Hair Diary", "Hair by {first}"),
    risk=(0.97, 0.03, 0.0),
)

_CAMPING = _Category(
    l1="Sports & Outdoors",
    l2="Camping Gear",
    brands=(
        "Campwick",
        "Emberpeak",
        "Tentwell",
        "Ridgepine",
        "Bramblecamp",
        "Lanternly",
        "Trailhaus",
    ),
    types=(
        _ProductType(
            nouns=("Camping Tent", "Dome Tent", "Cabin Tent"),
            price=(59, 249),
            tags=("tent", "camping"),
            lead=("2-Person", "4-Person", "6-Person"),
            features=(("Lightweight", "Instant"), ("Waterproof",)),
            suffix=("with Rainfly", "with Screen Room"),
        ),
        _ProductType(
            nouns=("Sleeping Bag",),
            price=(29, 129),
            tags=("sleeping bag", "camping"),
            lead=("20°F", "30°F", "40°F"),
            features=(("Lightweight", "Compact"), ("Mummy", "Rectangular")),
        ),
        _ProductType(
            nouns=("Sleeping Pad", "Camping Mattress"),
            price=(29, 99),
            tags=("sleeping pad", "camping"),
            lead=("Double", "Wide"),
            features=(("Ultralight", "Self-Inflating"), ("Insulated",)),
            suffix=("with Pillow", "with Pump Sack"),
        ),
        _ProductType(
            nouns=("Camping Lantern", "LED Lantern"),
            price=(14, 49),
            tags=("lantern", "camping"),
            lead=("500-Lumen", "1000-Lumen"),
            features=(("Rechargeable", "Solar", "Battery-Powered"), ("Collapsible", "Dimmable")),
            risk=(0.85, 0.15, 0.0),
        ),
        _ProductType(
            nouns=("Backpacking Stove", "Canister Stove"),
            price=(24, 69),
            tags=("camp stove", "backpacking"),
            features=(("Ultralight", "Foldable"), ("Windproof",)),
            suffix=("with Piezo Ignition", "with Carry Case"),
            risk=(0.45, 0.35, 0.2),
        ),
        _ProductType(
            nouns=("Camping Chair", "Camp Chair", "Backpacking Chair"),
            price=(24, 79),
            tags=("camp chair", "camping"),
            features=(("Lightweight", "Padded", "Oversized"), ("Folding",)),
            suffix=("with Cup Holder", "with Side Pocket"),
        ),
        _ProductType(
            nouns=("LED Headlamp", "Headlamp"),
            price=(12, 39),
            tags=("headlamp", "camping"),
            lead=("300-Lumen", "600-Lumen", "1000-Lumen"),
            features=(("Rechargeable",), ("Weatherproof",), ("Motion-Sensor",)),
            risk=(0.85, 0.15, 0.0),
        ),
        _ProductType(
            nouns=("Water Filter Straw", "Squeeze Water Filter", "Filter Water Bottle"),
            price=(15, 39),
            tags=("water filter", "backpacking"),
            lead=("2-Pack",),
            features=(("Portable",), ("BPA-Free",)),
        ),
    ),
    personas=(("Campers and weekend backpackers", "25-54"), ("Families who camp", "all ages")),
    openers=(
        "{Subject} {is} built for weekend campouts and longer backcountry trips.",
        "{Subject} {is} quick to pack and easy to use at camp.",
        "Field-tested in wind and rain, {subject} {is} ready for your next adventure.",
    ),
    blurbs={
        "Lightweight": "Lightweight materials keep your pack weight down.",
        "Instant": "Pre-attached poles let you pitch it in about 60 seconds.",
        "Waterproof": "Taped seams and a waterproof fly keep you dry in storms.",
        "Compact": "Compresses into a small stuff sack.",
        "Mummy": "A tapered mummy shape traps warmth efficiently.",
        "Rectangular": "A roomy rectangular cut gives space to move.",
        "Ultralight": "Ultralight construction saves precious grams on long trails.",
        "Self-Inflating": "Open the valve and it inflates itself in minutes.",
        "Insulated": "Insulation keeps the cold ground from stealing your warmth.",
        "Rechargeable": "Recharges over USB-C, so no disposable batteries are needed.",
        "Solar": "A built-in solar panel tops up the battery during the day.",
        "Collapsible": "Collapses flat for easy packing.",
        "Padded": "A padded seat keeps you comfortable around the fire.",
        "Folding": "Folds down in seconds and fits in the included carry bag.",
        "Weatherproof": "A weatherproof housing handles rain and snow.",
        "Portable": "Small enough to keep in every pack and emergency kit.",
        "Battery-Powered": "Runs on standard AA batteries for days of light.",
        "Dimmable": "Dims to a soft glow for the tent or goes bright for camp chores.",
        "Foldable": "Folds down small enough to fit inside a cook pot.",
        "Windproof": "A built-in windscreen keeps the flame steady in gusts.",
        "Oversized": "An oversized seat gives you room to stretch out.",
        "Motion-Sensor": "Wave a hand to switch it on or off, even with gloves.",
        "BPA-Free": "Made from BPA-free materials.",
    },
    closers=("Backed by a lifetime warranty against defects.", "Tested on real trips by our team."),
    handle_words=("camps", "outdoors", "wild", "basecamp"),
    channels=("Camping with {first}", "{first} Outdoors", "Basecamp {first}"),
    risk=(0.98, 0.02, 0.0),
)

_BUILDING_SETS = _Category(
    l1="Toys & Games",
    l2="Kids' Building Sets",
    brands=("Brickaroo", "Blockwise", "Snapstack", "Tinkerloo", "Cubbly", "Pegbury"),
    types=(
        _ProductType(
            nouns=("Building Set",),
            price=(14, 79),
            tags=("building set", "building blocks"),
            lead=("250-Piece", "500-Piece", "1,000-Piece"),
            features=(
                ("Castle", "Space Station", "Race Car", "Dinosaur Park", "City Fire Station"),
            ),
            suffix=("for Kids 6+", "for Kids 8+"),
        ),
        _ProductType(
            nouns=("Magnetic Tiles Set", "Magnetic Building Tiles Set"),
            price=(29, 89),
            tags=("magnetic tiles", "stem toys"),
            lead=("32-Piece", "60-Piece", "100-Piece"),
            features=(("Clear Color", "Rainbow", "Pastel"),),
            suffix=("for Kids 3+", "with Storage Bag"),
        ),
        _ProductType(
            nouns=("STEM Building Kit", "Engineering Kit"),
            price=(24, 79),
            tags=("stem toys", "building kit"),
            lead=("120-Piece", "200-Piece"),
            features=(("Robotics", "Marble Run", "Gear Machine", "Solar Robot"),),
            suffix=("for Kids 8+", "for Kids 10+"),
        ),
        _ProductType(
            nouns=("Toddler Building Blocks", "Baby Stacking Blocks"),
            price=(15, 39),
            tags=("toddler", "blocks"),
            lead=("40-Piece", "80-Piece"),
            features=(("Soft", "Wooden"), ("Stacking",)),
            suffix=("with Storage Bag",),
            plural=True,
        ),
        _ProductType(
            nouns=(
                "Take-Apart Dump Truck",
                "Take-Apart Fire Truck",
                "Take-Apart Excavator",
                "Take-Apart Race Car",
            ),
            price=(19, 39),
            tags=("take-apart toy", "construction toy"),
            features=(("STEM",),),
            suffix=("with Toy Drill", "for Kids 3+"),
            openers=(
                "{Subject} {is} made for little builders who love to see how things work.",
                "{Subject} {is} a hands-on way to build fine motor skills.",
            ),
        ),
    ),
    personas=(
        ("Parents of kids 3-12", "parents 25-45"),
        ("Parents and grandparents shopping for gifts", "parents 25-45"),
    ),
    openers=(
        "{Subject} {is} made for hours of screen-free, creative play.",
        "{Subject} {is} a fun way to build problem-solving and fine motor skills.",
        "A great gift for birthdays and holidays, {subject} {is} easy to start with.",
    ),
    blurbs={
        "Castle": "Build a towering castle with a working drawbridge.",
        "Space Station": "Includes a launch pad, a rover and astronaut figures.",
        "Race Car": "Build a sleek race car with rolling wheels.",
        "Dinosaur Park": "Comes with buildable dinosaurs and a jungle gate.",
        "City Fire Station": "Features a fire truck, a ladder and firefighter figures.",
        "Clear Color": "Translucent tiles glow when held up to the light.",
        "Rainbow": "Bright rainbow colors help little ones learn shapes and colors.",
        "Robotics": "Motorized parts bring creations to life.",
        "Marble Run": "Twist, stack and race marbles down custom tracks.",
        "Gear Machine": "Interlocking gears teach cause and effect.",
        "Soft": "Soft, squishy blocks are safe for the youngest builders.",
        "Wooden": "Smooth, sustainably sourced wood with child-safe paint.",
        "Stacking": "Stacking play builds hand-eye coordination.",
        "Pastel": "Soft pastel colors look great on any playroom shelf.",
        "Solar Robot": "Solar-powered robots move in sunlight, no batteries needed.",
        "STEM": "Teaches early engineering ideas like gears, screws and balance.",
    },
    closers=(
        "Meets ASTM F963 toy safety standards.",
        "Picture instructions make it easy to get started.",
    ),
    handle_words=("kids", "mama", "dad", "play", "toys"),
    channels=("Playtime with {first}", "{first}'s Toy Box", "Mama {first}"),
    risk=(0.93, 0.05, 0.02),
)

_WATCHES = _Category(
    l1="Fashion",
    l2="Watches",
    brands=("Tickwell", "Horavia", "Chronel", "Dialmoor", "Orvalle", "Lunetta"),
    types=(
        _ProductType(
            nouns=("Analog Watch",),
            price=(39, 189),
            tags=("analog watch", "watch"),
            lead=("36mm", "40mm", "42mm"),
            features=(("Minimalist", "Classic"), ("Stainless Steel", "Leather Strap", "Mesh Band")),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Automatic Watch",),
            price=(129, 299),
            tags=("automatic watch", "mechanical"),
            lead=("40mm", "42mm"),
            features=(("Skeleton Dial",), ("Stainless Steel", "Leather Strap")),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Dive Watch",),
            price=(99, 259),
            tags=("dive watch", "watch"),
            lead=("40mm", "42mm"),
            features=(("Stainless Steel",), ("Ceramic Bezel",)),
            suffix=("for Men",),
        ),
        _ProductType(
            nouns=("Chronograph Watch",),
            price=(79, 229),
            tags=("chronograph", "watch"),
            lead=("42mm", "44mm"),
            features=(("Stainless Steel", "Leather Strap"),),
            suffix=("for Men", "for Women"),
        ),
        _ProductType(
            nouns=("Fitness Smartwatch", "Smartwatch"),
            price=(49, 199),
            tags=("smartwatch", "fitness tracker"),
            lead=("Active 2", "Pulse", "Sport S"),
            features=(("GPS",), ("AMOLED",), ("Waterproof",)),
            suffix=("with Heart Rate Monitor", "for Men", "for Women"),
            risk=(0.8, 0.2, 0.0),
        ),
        _ProductType(
            nouns=("Digital Sports Watch",),
            price=(19, 59),
            tags=("sports watch", "digital watch"),
            features=(("Shock-Resistant",), ("Waterproof",), ("Backlit",)),
            suffix=("for Men", "for Women", "for Kids"),
        ),
    ),
    personas=(
        ("Style-conscious professionals", "25-54"),
        ("Watch enthusiasts and gift shoppers", "30-65"),
    ),
    openers=(
        "{Subject} {is} the finishing touch that adds polish to any outfit.",
        "{Subject} {is} built for daily wear, from the office to the weekend.",
        "Finished down to the last detail, {subject} {is} delivered in a gift box.",
    ),
    blurbs={
        "Minimalist": "A clean, minimalist dial keeps the focus on the time.",
        "Classic": "A classic design that never goes out of style.",
        "Stainless Steel": "A brushed stainless steel case resists scratches and tarnish.",
        "Leather Strap": "A genuine leather strap softens with wear.",
        "Mesh Band": "An adjustable mesh band fits any wrist without tools.",
        "Skeleton Dial": "An open skeleton dial shows off the self-winding movement.",
        "Ceramic Bezel": "A scratch-resistant ceramic bezel tracks dive time.",
        "GPS": "Built-in GPS tracks runs and rides without your phone.",
        "AMOLED": "A bright AMOLED display stays readable in sunlight.",
        "Shock-Resistant": "A shock-resistant case takes knocks in stride.",
        "Waterproof": "Waterproof to 50 meters, so it can go swimming with you.",
        "Backlit": "A backlit display is easy to read at night.",
    },
    closers=("Water-resistant for everyday splashes.", "Includes a two-year warranty."),
    handle_words=("watches", "style", "timepiece", "dapper"),
    channels=("{first} on Watches", "Wrist Check with {first}", "{first}'s Style Notes"),
)

_SUPPLEMENTS = _Category(
    l1="Health",
    l2="Vitamins & Supplements",
    brands=("Vitalune", "Nutrivo", "Purebloom", "Wellroot", "Sunvessel", "Vigorly"),
    types=(
        _ProductType(
            nouns=("Multivitamin",),
            price=(9, 34),
            tags=("multivitamin", "vitamins"),
            features=(("Women's", "Men's", "Kids'"), ("Daily",), ("Gummy",)),
            suffix=("60 Count", "90 Count", "120 Count"),
        ),
        _ProductType(
            nouns=("Vitamin D3 Softgels",),
            price=(8, 22),
            tags=("vitamin d3", "immune support"),
            lead=("2000 IU", "5000 IU"),
            features=(("Vegan",),),
            suffix=("120 Count", "240 Count"),
            plural=True,
        ),
        _ProductType(
            nouns=(
                "Magnesium Glycinate Capsules",
                "Magnesium Citrate Capsules",
                "Magnesium Glycinate Gummies",
            ),
            price=(12, 29),
            tags=("magnesium", "sleep support"),
            lead=("400 mg", "500 mg"),
            features=(("High-Absorption",), ("Vegan",)),
            suffix=("90 Count", "180 Count"),
            plural=True,
        ),
        _ProductType(
            nouns=("Protein Powder",),
            price=(24, 64),
            tags=("protein powder", "protein"),
            features=(("Chocolate", "Vanilla", "Cookies & Cream"), ("Whey", "Plant-Based")),
            suffix=("2 lb", "5 lb"),
        ),
        _ProductType(
            nouns=("Collagen Peptides Powder", "Collagen Powder"),
            price=(19, 44),
            tags=("collagen", "beauty supplement"),
            features=(("Grass-Fed",), ("Unflavored", "Vanilla", "Chocolate")),
            suffix=("10 oz", "20 oz"),
        ),
        _ProductType(
            nouns=("Pre-Workout Powder", "Pre-Workout"),
            price=(24, 49),
            tags=("pre-workout", "energy"),
            features=(
                ("Stim-Free",),
                ("Fruit Punch", "Blue Raspberry", "Watermelon", "Sour Apple"),
            ),
            suffix=("30 Servings", "20 Servings"),
            risk=(0.35, 0.35, 0.3),
        ),
        _ProductType(
            nouns=("Melatonin Gummies",),
            price=(7, 19),
            tags=("melatonin", "sleep support"),
            lead=("3 mg", "5 mg"),
            features=(("Sugar-Free",),),
            suffix=("60 Count", "120 Count"),
            plural=True,
        ),
        _ProductType(
            nouns=("Probiotic Capsules",),
            price=(14, 39),
            tags=("probiotic", "gut health"),
            lead=("10 Billion CFU", "50 Billion CFU"),
            features=(("Women's", "Men's"), ("Shelf-Stable",)),
            suffix=("30 Count", "60 Count"),
            plural=True,
        ),
    ),
    personas=(("Health-conscious adults", "25-65"), ("Active adults and athletes", "18-44")),
    openers=(
        "{Subject} {is} an easy way to support your daily wellness routine.",
        "{Subject} {is} third-party tested for purity and potency.",
        "Made in a GMP-certified facility, {subject} {is} free of artificial colors.",
    ),
    blurbs={
        "Women's": "Formulated for women's daily nutritional needs.",
        "Men's": "Formulated for men's daily nutritional needs.",
        "Kids'": "A kid-friendly formula in an easy chewable form.",
        "Daily": "One serving a day covers the essentials.",
        "Gummy": "Tasty gummies make it easy to stay consistent.",
        "Vegan": "Vegan and gluten-free.",
        "High-Absorption": "Chelated for high absorption and gentle on the stomach.",
        "Whey": "Fast-digesting whey delivers 24 g of protein per scoop.",
        "Plant-Based": "Pea and brown rice protein provide 20 g of complete protein per scoop.",
        "Chocolate": "Mixes smoothly with a rich chocolate taste.",
        "Vanilla": "A smooth vanilla flavor that works in shakes and oatmeal.",
        "Cookies & Cream": "Tastes like a milkshake, without the sugar crash.",
        "Unflavored": "Unflavored and dissolves easily in coffee or smoothies.",
        "Grass-Fed": "Sourced from grass-fed, pasture-raised cattle.",
        "Fruit Punch": "A bright fruit punch flavor with no gritty aftertaste.",
        "Blue Raspberry": "A tangy blue raspberry flavor that mixes clear.",
        "Watermelon": "A refreshing watermelon flavor that is never too sweet.",
        "Sugar-Free": "Sugar-free with a natural berry flavor.",
        "Shelf-Stable": "Shelf-stable, so no refrigeration is needed.",
        "Stim-Free": "Caffeine-free, so it works for evening workouts.",
        "Sour Apple": "A tart sour apple flavor that mixes easily.",
    },
    closers=(
        "These statements have not been evaluated by the Food and Drug Administration.",
        "Consult your healthcare provider before use if pregnant or nursing.",
    ),
    handle_words=("wellness", "vital", "healthy", "nourish"),
    channels=("Wellness with {first}", "{first} Eats Clean", "{first}'s Wellness Lab"),
    risk=(0.5, 0.38, 0.12),
)

CATEGORIES: Final[tuple[_Category, ...]] = (
    _RUNNING,
    _SKINCARE,
    _COOKWARE,
    _EARBUDS,
    _DOG_TOYS,
    _FITNESS,
    _BACKPACKS,
    _COFFEE_TEA,
    _PHONE,
    _SMART_HOME,
    _HAIRCARE,
    _CAMPING,
    _BUILDING_SETS,
    _WATCHES,
    _SUPPLEMENTS,
)

FIRST_NAMES: Final = (
    "Miles", "Ana", "Kai", "Priya", "Jordan", "Maya", "Leo", "Sofia", "Mateo", "Chloe",
    "Noah", "Aisha", "Ethan", "Zoe", "Ravi", "Lena", "Omar", "Grace", "Diego", "Hana",
    "Lucas", "Nina", "Elijah", "Mia", "Jonah", "Ivy", "Theo", "Amara", "Felix", "Rosa",
    "Sam", "Tessa", "Ben", "Yuki", "Marcus", "Elena", "Caleb", "Nora", "Isaac", "Layla",
    "Owen", "Camila", "Adrian", "Jade", "Hugo", "Leah", "Tariq", "Freya", "Dante", "Mei",
    "Julian", "Ines", "Rowan", "Sana", "Emmett", "Clara", "Kofi", "Elise", "Nico", "Bea",
)  # fmt: skip

LAST_NAMES: Final = (
    "Carter", "Nguyen", "Patel", "Brooks", "Rivera", "Kim", "Hughes", "Morales", "Bennett",
    "Ortiz", "Foster", "Shah", "Walsh", "Reyes", "Coleman", "Tanaka", "Price", "Silva", "Hayes",
    "Mendez", "Fischer", "Okafor", "Ward", "Castillo", "Lin", "Porter", "Dubois", "Greene",
    "Haddad", "Sullivan", "Moreau", "Jensen", "Park", "Alvarez", "Quinn", "Rossi", "Bishop",
    "Chen", "Murphy", "Santos", "Fletcher", "Novak", "Ellis", "Romero", "Kapoor", "Barnes",
    "Lowe", "Ibarra", "Holt", "Weber", "Sato", "Keller", "Abbott", "Chandler", "Mendes", "Vance",
    "Dalton", "Ferreira", "Osei", "Blake",
)  # fmt: skip

# Words whose capitalization must survive when a title is quoted inside a sentence.
_KEEP_CASE: Final = frozenset({"Bluetooth", "Wi-Fi", "Earl", "Grey", "Dutch", "ASTM"})


# --------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------


def generate_catalog(*, products: int, seed: int = 7, now: datetime) -> Iterator[dict[str, Any]]:
    """Yield `products` product records in the import format.

    Deterministic for ``(products, seed, now)``; ``now`` must be timezone-aware (it is converted
    to UTC) and video ``published_at`` values fall within the 120 days before it.
    """
    if products < 0:
        raise ValueError("products must be >= 0")
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    # Internally `now` is naive UTC without microseconds: cheap to format as "...Z".
    return _generate(products, seed, now.astimezone(UTC).replace(microsecond=0, tzinfo=None))


def _generate(products: int, seed: int, now: datetime) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    creators = _make_creators(rng, max(40, products // 8))
    by_category: list[list[_Creator]] = [[] for _ in CATEGORIES]
    for creator in creators:
        for niche in creator.niches:
            by_category[niche].append(creator)
    # Larger brands sell more: a gentle power-law over each category's brand list.
    brand_cum_weights = [
        tuple(accumulate(1.0 / math.sqrt(rank + 1) for rank in range(len(cat.brands))))
        for cat in CATEGORIES
    ]
    used_titles: set[str] = set()
    for offset in range(products):
        cat_index = rng.randrange(len(CATEGORIES))
        yield _make_product(
            rng,
            product_id=FIRST_PRODUCT_ID + offset,
            cat_index=cat_index,
            brand_cum_weights=brand_cum_weights[cat_index],
            creators=creators,
            niche_creators=by_category[cat_index],
            used_titles=used_titles,
            now=now,
        )


# --------------------------------------------------------------------------------------------
# Products
# --------------------------------------------------------------------------------------------


def _make_product(
    rng: random.Random,
    *,
    product_id: int,
    cat_index: int,
    brand_cum_weights: Sequence[float],
    creators: Sequence[_Creator],
    niche_creators: Sequence[_Creator],
    used_titles: set[str],
    now: datetime,
) -> dict[str, Any]:
    cat = CATEGORIES[cat_index]
    ptype = _choice(rng, cat.types)
    brand: str | None = None
    if rng.random() >= 0.03:
        brand = cat.brands[bisect(brand_cum_weights, rng.random() * brand_cum_weights[-1])]
    title = _make_title(rng, ptype, brand)
    for _ in range(8):  # (brand, title) pairs should be mostly unique
        if title.text not in used_titles:
            break
        title = _make_title(rng, ptype, brand)
    used_titles.add(title.text)

    price, original = _make_prices(rng, ptype)
    persona, age = _choice(rng, cat.personas)
    page = f"{IMAGE_URL}/p/{product_id}"
    gallery_size = bisect(_GALLERY_SIZE_CUM, rng.random() * _GALLERY_SIZE_CUM[-1])
    return {
        "id": product_id,
        "title": title.text,
        "brand": brand,
        "price_usd": price,
        "original_price_usd": original,
        "main_image": None if rng.random() < 0.02 else f"{page}/main.jpg",
        "gallery": [f"{page}/{n}.jpg" for n in range(1, gallery_size + 1)],
        "category_l1": cat.l1,
        "category_l2": cat.l2,
        "url": f"{SHOP_URL}/p/{product_id}",
        "description": _make_description(rng, cat, ptype, title, brand),
        "tags": _make_tags(ptype, title),
        "regions": _make_regions(rng),
        "risk_level": _pick_risk(rng, ptype.risk or cat.risk),
        "target_audience": {"persona": persona, "age": age},
        "videos": _make_videos(
            rng,
            product_id=product_id,
            price=price,
            creators=creators,
            niche_creators=niche_creators,
            now=now,
        ),
    }


def _choice(rng: random.Random, options: Sequence[_T]) -> _T:
    """Like ``rng.choice`` but cheaper; the catalog is generated in a hot loop."""
    return options[int(rng.random() * len(options))]


def _lognormal(rng: random.Random, median: float, sigma: float) -> float:
    return median * math.exp(rng.gauss(0.0, sigma))


@functools.cache
def _word_count(part: str | None) -> int:
    return len(part.split()) if part else 0


def _make_title(rng: random.Random, ptype: _ProductType, brand: str | None) -> _Title:
    """Build ``[brand] [lead] [features] noun [suffix]`` with 3-9 words."""
    noun = _choice(rng, ptype.nouns)
    lead = _choice(rng, ptype.lead) if ptype.lead and rng.random() < 0.55 else None
    picks: list[str | None] = [
        _choice(rng, group) if rng.random() < 0.6 else None for group in ptype.features
    ]
    suffix = _choice(rng, ptype.suffix) if ptype.suffix and rng.random() < 0.4 else None

    def words() -> int:
        return sum(map(_word_count, (brand, lead, *picks, noun, suffix)))

    count = words()
    if count < MIN_TITLE_WORDS:  # e.g. "Kettleby Wok": add a feature, then a lead, then a suffix
        for index, group in enumerate(ptype.features):
            if picks[index] is None and words() < MIN_TITLE_WORDS:
                picks[index] = _choice(rng, group)
        if lead is None and ptype.lead and words() < MIN_TITLE_WORDS:
            lead = _choice(rng, ptype.lead)
        if suffix is None and ptype.suffix and words() < MIN_TITLE_WORDS:
            suffix = _choice(rng, ptype.suffix)
    elif count > MAX_TITLE_WORDS:  # drop the suffix, then the lead, then trailing features
        suffix = None
        if words() > MAX_TITLE_WORDS:
            lead = None
        for index in reversed(range(len(picks))):
            if words() <= MAX_TITLE_WORDS:
                break
            picks[index] = None

    features = tuple(filter(None, picks))
    text = " ".join(filter(None, (brand, lead, *features, noun, suffix)))
    return _Title(text, lead, features, noun, suffix)


def _retail_cents(raw: float, rng: random.Random) -> int:
    """Round a raw price to a shelf price such as 7.99, 24.49, 89.99, 129.99 or 40.00."""
    whole = max(1, int(raw))
    if whole >= 100:
        whole = whole // 10 * 10 + 9  # 134 -> 139
    elif whole >= 20:
        whole = whole // 5 * 5 + 4  # 82 -> 84, 87 -> 89
    roll = rng.random()
    if roll < 0.12:
        return (whole + 1) * 100  # a round 40.00
    if roll < 0.26 and whole < 100:
        return whole * 100 + 49
    if roll < 0.33:
        return whole * 100 + 95
    return whole * 100 + 99


def _make_prices(rng: random.Random, ptype: _ProductType) -> tuple[float, float | None]:
    low, high = ptype.price
    price_cents = _retail_cents(math.exp(rng.uniform(math.log(low), math.log(high))), rng)
    if rng.random() >= 0.45:
        return price_cents / 100, None
    original_cents = 0
    for _ in range(6):
        discount = rng.uniform(0.10, 0.50)
        original_cents = _retail_cents(price_cents / 100 / (1.0 - discount), rng)
        if 0.09 <= 1.0 - price_cents / original_cents <= 0.52:
            break
    else:  # rounding kept missing the band: fall back to a plain 20% markdown
        original_cents = math.ceil(price_cents / 0.8 / 100) * 100 - 1
    return price_cents / 100, original_cents / 100


@functools.cache
def _sentence_case(phrase: str) -> str:
    """Lower-case title words for use inside a sentence, keeping acronyms and proper nouns."""

    def lower(word: str) -> str:
        if word in _KEEP_CASE:
            return word
        parts = word.split("-")
        return "-".join(
            p.lower() if len(p) > 1 and p[0].isupper() and p[1:].islower() else p for p in parts
        )

    return " ".join(lower(word) for word in phrase.split())


def _make_description(
    rng: random.Random, cat: _Category, ptype: _ProductType, title: _Title, brand: str | None
) -> str:
    lead = title.lead
    if lead and lead.endswith(("-Pack", " IU", " CFU")):
        lead = None  # pack sizes and doses read oddly inside a sentence
    elif lead and lead[0].isdigit():
        lead = _sentence_case(lead)  # "10-Piece" -> "10-piece"; model names keep their case
    phrase = " ".join(filter(None, (lead, _sentence_case(" ".join((*title.features, title.noun))))))
    if brand:
        subject = f"the {brand} {phrase}"
    else:
        subject = f"{'these' if ptype.plural else 'this'} {phrase}"
    opener = _choice(rng, ptype.openers or cat.openers)
    sentences = [
        opener.format(
            Subject=subject[0].upper() + subject[1:],
            subject=subject,
            **{"is": "are" if ptype.plural else "is"},
        )
    ]
    blurbs = [cat.blurbs[f] for f in title.features if f in cat.blurbs]
    rng.shuffle(blurbs)
    sentences.extend(blurbs[:2])
    if len(sentences) == 1 or (len(sentences) == 2 and rng.random() < 0.35):
        sentences.append(_choice(rng, cat.closers))
    return " ".join(sentences)


def _make_tags(ptype: _ProductType, title: _Title) -> list[str]:
    """Type keywords first, then the title's feature words; 2-6 unique lowercase tags."""
    tags: list[str] = []
    for word in (*ptype.tags, *title.features):
        tag = word.lower()
        if tag not in tags and not tag[0].isdigit():
            tags.append(tag)
    return tags[:MAX_TAGS]


def _pick_risk(rng: random.Random, weights: tuple[float, float, float]) -> str:
    """Pick "low"/"medium"/"high" with the given (normalised) probabilities."""
    roll = rng.random() * sum(weights)
    if roll < weights[0]:
        return RISK_LEVELS[0]
    return RISK_LEVELS[1] if roll < weights[0] + weights[1] else RISK_LEVELS[2]


def _make_regions(rng: random.Random) -> list[str]:
    if rng.random() < 0.08:
        return []  # sold everywhere
    regions = [code for code, odds in zip(REGIONS, REGION_ODDS, strict=True) if rng.random() < odds]
    if not regions:
        regions = ["US"]
    while len(regions) > 6:
        regions.remove(rng.choice([code for code in regions if code != "US"]))
    return regions


# --------------------------------------------------------------------------------------------
# Creators
# --------------------------------------------------------------------------------------------


def _slug_words(text: str) -> list[str]:
    return [
        "".join(ch for ch in word.lower() if ch.isascii() and ch.isalnum())
        for word in text.split()
        if any(ch.isalnum() for ch in word)
    ]


def _username_base(
    rng: random.Random, first: str, last: str, channel: str | None, cat: _Category
) -> str:
    f, l_ = first.lower(), last.lower()
    if channel is not None:
        words = _slug_words(channel)
        return rng.choice((".", "_", "")).join(words)
    word = rng.choice(cat.handle_words)
    return rng.choice(
        (
            f"{f}{l_}",
            f"{f}.{l_}",
            f"{f}_{l_}",
            f"{f}{word}",
            f"{f}.{word}",
            f"{word}with{f}",
            f"{word}_{f}",
            f"the{f}{l_}",
            f"{f}{l_[0]}.{word}",
        )
    )


def _make_username(rng: random.Random, base: str, taken: set[str]) -> str:
    name = base[:20].strip("._")
    if len(name) < 4:
        name = f"{name}{rng.randrange(100, 1000)}"
    candidate = name
    while candidate in taken:
        candidate = f"{name}{rng.randrange(10, 10000)}"
    taken.add(candidate)
    return candidate


def _make_followers(rng: random.Random) -> int:
    """Heavy-tailed: most creators have 2k-200k followers, about 1.5% have 1M-5M."""
    if rng.random() < 0.015:
        return int(math.exp(rng.uniform(math.log(1_000_000), math.log(5_000_000))))
    return int(min(950_000, max(800, _lognormal(rng, 22_000.0, 1.1))))


def _make_niches(rng: random.Random, primary: int) -> tuple[int, ...]:
    count = rng.choices((1, 2, 3), weights=(0.5, 0.35, 0.15))[0]
    niches = [primary]
    while len(niches) < count:
        same_l1 = [
            i
            for i, cat in enumerate(CATEGORIES)
            if cat.l1 == CATEGORIES[primary].l1 and i not in niches
        ]
        pool = same_l1 if same_l1 and rng.random() < 0.5 else range(len(CATEGORIES))
        pick = rng.choice(pool)
        if pick not in niches:
            niches.append(pick)
    return tuple(niches)


def _make_creators(rng: random.Random, count: int) -> list[_Creator]:
    """Generate the creator pool once; every category is some creators' primary niche."""
    creators: list[_Creator] = []
    taken: set[str] = set()
    for index in range(count):
        primary = index % len(CATEGORIES)
        cat = CATEGORIES[primary]
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        channel = rng.choice(cat.channels).format(first=first) if rng.random() < 0.3 else None
        display_name = channel or f"{first} {last}"
        username = _make_username(rng, _username_base(rng, first, last, channel, cat), taken)
        followers = _make_followers(rng)
        avatar = None if rng.random() < 0.1 else f"{IMAGE_URL}/c/{username}.jpg"
        record: dict[str, Any] = {
            "username": username,
            "display_name": display_name,
            "avatar": avatar,
            "followers": followers,
        }
        creators.append(_Creator(record, _make_niches(rng, primary), followers))
    return creators


# --------------------------------------------------------------------------------------------
# Videos
# --------------------------------------------------------------------------------------------


def _pick_creator(
    rng: random.Random,
    creators: Sequence[_Creator],
    niche_creators: Sequence[_Creator],
    already: set[str],
) -> _Creator:
    creator = creators[0]
    for _ in range(5):  # prefer a creator not yet on this product
        pool = niche_creators if niche_creators and rng.random() < 0.8 else creators
        creator = _choice(rng, pool)
        if creator.record["username"] not in already:
            break
    return creator


def _video_age_seconds(rng: random.Random) -> int:
    """~40% of videos are from the last 30 days, the rest from 30-120 days back."""
    if rng.random() < RECENT_SHARE:
        low, high = 1, RECENT_DAYS * 86_400
    else:
        low, high = RECENT_DAYS * 86_400, VIDEO_WINDOW_DAYS * 86_400 - 1
    return low + int(rng.random() * (high - low + 1))


def _make_videos(
    rng: random.Random,
    *,
    product_id: int,
    price: float,
    creators: Sequence[_Creator],
    niche_creators: Sequence[_Creator],
    now: datetime,
) -> list[dict[str, Any]]:
    """0-5 videos whose stats are consistent: orders <= views, gmv <= orders * price."""
    count = bisect(_VIDEO_COUNT_CUM, rng.random() * _VIDEO_COUNT_CUM[-1])
    price_cents = round(price * 100)
    # Cheaper items convert better: ~3% at $8, ~0.3% at $250.
    base_rate = 0.03 * (price / 8.0) ** -0.67
    gauss, uniform, roll = rng.gauss, rng.uniform, rng.random  # hot loop
    videos: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n in range(1, count + 1):
        creator = _pick_creator(rng, creators, niche_creators, seen)
        username: str = creator.record["username"]
        seen.add(username)
        task_id = f"v-{product_id}-{n}"
        reach = min(3.0, max(0.05, 0.3 * math.exp(gauss(0.0, 0.9))))  # views per follower
        views = max(200, round(creator.followers * reach))
        rate = min(0.04, max(0.0005, base_rate * math.exp(gauss(0.0, 0.45))))
        orders = round(views * rate)
        # Discount codes: revenue is 85-99.5% of list price, floored to the cent.
        gmv_cents = math.floor(orders * price_cents * uniform(0.85, 0.995))
        published = now - timedelta(seconds=_video_age_seconds(rng))
        videos.append(
            {
                "task_id": task_id,
                "creator": dict(creator.record),
                "thumbnail": None if roll() < 0.05 else f"{IMAGE_URL}/v/{task_id}.jpg",
                "video_url": None if roll() < 0.03 else f"{VIDEO_URL}/v/{task_id}.mp4",
                "platform_video_url": (
                    None if roll() < 0.05 else f"{PLATFORM_URL}/@{username}/video/{task_id}"
                ),
                "duration_s": int(min(180, max(8, 30.0 * math.exp(gauss(0.0, 0.55))))),
                "gmv_usd": gmv_cents / 100,
                "orders": orders,
                "views": views,
                # `now` is naive UTC without microseconds, so this is "YYYY-MM-DDTHH:MM:SSZ".
                "published_at": published.isoformat() + "Z",
            }
        )
    return videos
