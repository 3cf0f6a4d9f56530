"""What a product is and whose (catalog/types.py, catalog/brands.py): read from the title as a
person reads one, stored with the search document, rebuilt when the title changes; a type the
catalog sends wins."""

import pytest

from catalog.brands import brand_key
from catalog.models import Product
from catalog.types import is_kind, stated_names, type_of, wanted_kinds
from tests.factories import ProductFactory


@pytest.mark.parametrize(
    ("title", "category", "kind"),
    [
        ("Cycle Bell for Bicycle", "Cycling", "bell"),  # what it fits comes after "for"
        ("Wildcraft 45 Ltrs Casual Backpack with Rain Cover", "Backpacks", "backpack"),
        ("Rain Cover for Backpack", "Backpacks", "cover"),
        ("Aones Magnetic Watch Strap Compatible for Titan Smart Pro", "Watches", "strap"),
        ("Women's Watch Strap 18mm Leather", "Watches", "strap"),  # a material after it
        ("Fastrack Analog Black Dial Women's Watch-NN6078SL01", "Watches", "watch"),
        ("Nivia Carbonite 5.0 Turf Football Shoes for Mens (Black) UK-11", "Football", "shoe"),
        ("Nivia Storm Football, Size 5 (White/Blue)", "Football", "footbal"),
        ("Mi 138.8 cm (55 inches) 5X Series 4K Smart Android TV L55M6-ES (Grey)", None, "tv"),
        ("Voltas 1.5 Ton 3 Star, Fixed Speed Window AC (Copper)", None, "ac"),
        ("Amazon Brand - Solimo 2-Tier Foldable Cloth Drying Stand", None, "stand"),
        ("Men's Cotton T-Shirt", None, "tshirt"),
        ("Lumora Vitamin C Serum", None, "serum"),  # a single letter beside a word: a word
        ("Nivia", "Running Shoes", "shoe"),  # nothing but a brand: its category's type
        # A brand and a model's name: the next phrase says what it is.
        ("JBL Go 2, Wireless Portable Bluetooth Speaker with Mic", "Speakers", "speaker"),
        # ... its number a measure: still a model's name.
        ("Agaro 33398 Rapid 1000-Watt, 10-Litre Wet & Dry Vacuum Cleaner", None, "cleaner"),
        ("NIVIA Encounter Stockings-Large", None, "stock"),  # a size is no thing
        ("Lunchbox with 3 Compartments for Kids", None, "lunchbox"),  # a word alone is it
        # What it is without comes after "free from", as after "without".
        ("Ajmal Musk Rose Concentrated Floral Perfume Free From Alcohol 12ml", None, "perfum"),
        ("Herbal Shampoo Free of Sulphates", None, "shampoo"),
        # A gift is what a thing is given as, not a thing.
        ("Ajmal Blu EDP 90ML Long Lasting Scent Spray Citrus Perfume Gift For Men", None, "perfum"),
        ("Women's Perfume Gift Set 4x20 ML", None, "perfum"),
        ("Chocolate Gift Hamper", None, "hamper"),
        # "Cream" and "coffee" name a thing; as a colour they stand in brackets.
        ("Himalaya Diaper Rash Cream, 20g", None, "cream"),
        ("Levista Strong Instant Coffee (200 Gram Pouch)", None, "coffe"),
        ("Rangnavi Women Cotton Kurta (Cream)", None, "kurta"),
        # A model's code in capitals after the thing is no thing; capitals say nothing where
        # the title is in capitals, or where the word is a brand's model or a thing's name.
        ("Prestige Electric Kettle PKOSS - 1500watts, Steel (1.5Ltr)", None, "kettl"),
        ("Prestige Sandwich Maker PGMFD 01, Black", None, "maker"),
        ("Vaseline Sun Protection Body Lotion SPF 30 400 ml", None, "lotion"),
        ("Tronica RIDHAM 3 - Bluetooth Home Theater DJ Speaker", None, "speaker"),
        ("Electric Kettle KET KET2", None, "kettl"),  # the code, not its number's letters
        ("Sandisk Extreme SSD", None, "ssd"),
        ("HIMALAYA HERBALS Neem Face WASH", None, "wash"),
        # "Light" ending its phrase names the thing; before another word it is a colour's.
        ("AFPIN USB Rechargeable Waterproof Cycle Light, High 300 Lumens", "Cycling", "light"),
        ("Strauss Bicycle Flash Tail Lights with Laser, (Black)", None, "light"),
        ("Rangnavi Women Cotton Kurta Light Blue", None, "kurta"),
        # "Colour" after a colour says which colour; before nothing else it is the thing.
        ("Hopscotch Boys Synthetic Solid Loafers in Black Color", None, "loafer"),
        ("Garnier Color Naturals Creme Hair Color, Shade 3", None, "color"),
        # What is said of the listing names nothing: renewed, a size's country, a value pack.
        ("(Renewed) Usha FH 3628 CT Fan Heater (Black)", None, "heater"),
        ("BATA mens Black Formal Shoes 7 UK (8216551)", None, "shoe"),
        ("Skybags 10 Ltrs (12 Cms) Backpack(Bprdp10Eblu_Blue)", None, "backpack"),
        ("Happilo Premium International Omani Dates 680g Value Pack", None, "date"),
        ("KATWINGS Fashion Flat Sandal Women And girls", None, "sandal"),
        # "Under" starts a price's phrase only before a figure ("under $50").
        ("Himalaya Herbals Under Eye Cream, 15ml", None, "cream"),
        # A brand alone before a parenthesis, a list or "without" is no thing: the name goes on.
        ("INOVERA (LABEL) Women Handbag", "Handbags & Clutches", "handbag"),
        ("Digitek (DTR 480LW) (57 Inch) Portable Lightweight Aluminum Tripod", None, "tripod"),
        ("Lifelong Without Gear Single Speed 26T MTB Cycle, Mountain Bikes", "Cycling", "cycl"),
        ("JBL C200SI, Premium in Ear Wired Earphones with Mic", "Headphones", "earphon"),
        ("Crystal - CL010 Sleek Serrated Edge Stainless Steel Knife", None, "knife"),
        ("Tygot Gorilla Tripod/Mini 33 CM (13 Inch) Tripod for Mobile Phone", None, "tripod"),
        # "Liquid" says the form it comes in, not the thing.
        ("Bubblenut Wash Laundry Detergent Liquid ( 5 Litres )", None, "deterg"),
        ("Solimo Germ-Protect Handwash Liquid, Refreshing Rose, 5L", None, "handwash"),
        # "Fit" says how it sits, after the thing.
        ("Lee Men's Jeans Regular Fit", None, "jean"),
        # A plural the stemmer cannot bring back is the singular's type (catalog/plurals.py).
        ("Genuine Decor Sheesham Wood Floating Shelves for Wall", None, "shelf"),
        ("Qatalitic Set of 5 Painting Knives", None, "knife"),
        ("River Women's Scarves", None, "scarf"),
        ("Ksp Metal Bookshelves", None, "bookshelf"),
    ],
)
def test_a_titles_type_is_the_thing_it_names_first(title, category, kind):
    assert type_of(title, category) == kind


@pytest.mark.parametrize(
    "title",
    [
        "Redmi 10 Power (Power Black, 8GB RAM, 128GB Storage)",
        "Samsung Galaxy M33 5G (Mystique Green, 6GB, 128GB Storage) | 6000mAh Battery",
        "Redmi A1 (Light Green, 2GB RAM 32GB ROM) | Segment Best AI Dual Cam",
        "realme narzo 50A Prime (4GB RAM+64GB Storage) | 50MP AI Triple Camera",
    ],
)
def test_a_listing_that_states_a_phones_memory_and_storage_is_a_phone(title):
    assert stated_names(title) == ("smartphone", "mobile phone")
    assert type_of(title, "All Electronics") == "smartphon"


@pytest.mark.parametrize(
    "title",
    [
        # Another device stating them names itself; storage alone, or memory alone, is no phone.
        "Android 10 Car Stereo (2GB RAM, 32GB ROM) Double Din Player",
        "Lenovo Tab M10 Tablet (4GB RAM, 64GB Storage), Wi-Fi",
        "SanDisk Ultra microSDXC Card, 64GB, for Smartphones",
        "Kuber Industries Storage Box with Lid",
        "Mobile Phone Holder for Bike with 360 Rotation",
    ],
)
def test_other_listings_state_no_phone(title):
    assert stated_names(title) == ()
    assert type_of(title) != "smartphon"


@pytest.mark.django_db
def test_what_a_listing_states_it_is_is_searched_as_its_tags():
    ProductFactory(title="Redmi 10 Power (Power Black, 8GB RAM, 128GB Storage)", tags=[])
    stored = Product.objects.get(title__startswith="Redmi 10 Power")

    assert stored.product_type == "smartphon"
    assert stored.search_document["tags"] == "smartphon mobil phone"
    assert stored.tags == []  # the catalog's own tags are left as they came


def test_a_type_the_catalog_gives_wins_over_the_title():
    assert type_of("Wildcraft Backpack with Rain Cover", "Backpacks", given="rain cover") == "cover"


@pytest.mark.parametrize(
    ("words", "kind"),
    [
        ("rain cover for my backpack", "cover"),
        ("women's watch with a metal strap", "watch"),
        ("bicycle for kids", "bicycl"),
        ("nivia football for weekend matches", "footbal"),
        ("men's analog watch under $50", "watch"),
        ("hair straightener, not a brush or comb", "straighten"),
        ("night cream for dry skin", "cream"),
        ("", ""),
    ],
)
def test_a_shopper_wants_the_thing_their_words_name_first(words, kind):
    first = next(iter(wanted_kinds([words])), ("",))  # the kind its first phrase names
    assert first[-1] == kind


def test_a_request_wants_a_kind_of_thing_in_any_of_its_names():
    kinds = wanted_kinds(["protein powder for gym", "bicycle"])

    assert kinds == (("protein", "powder"), ("bicycl",), ("cycl",))
    assert is_kind(kinds, "powder", ["myherb", "plant", "protein", "powder"])
    assert not is_kind(kinds, "powder", ["root", "hormon", "powder"])  # a powder of no protein
    assert is_kind(kinds, "cycl", ["hero", "kid", "cycl"])  # a cycle is a bicycle
    assert not is_kind(kinds, "bell", ["cycl", "bell", "for", "bicycl"])


def test_a_thing_read_before_what_it_is_for_gives_way_to_the_same_thing_that_says_which():
    kinds = wanted_kinds(["refill for my mop", "mop refill"])

    assert kinds == (("mop", "refil"),)
    assert not is_kind(kinds, "refil", ["lizol", "floor", "cleaner", "liquid", "refil", "pack"])
    # Read alone, or as a keyword of its own, a thing stays wanted in any of its kinds.
    assert wanted_kinds(["beard trimmer", "trimmer"]) == (("beard", "trimmer"), ("trimmer",))
    assert wanted_kinds(["refill for my mop"]) == (("refil",),)
    # What follows "for" must name a thing: a watch for women is any watch, an analog one too.
    assert ("watch",) in wanted_kinds(["watch for women", "analog watch"])


def test_the_word_that_says_which_kind_may_be_written_as_two():
    kinds = wanted_kinds(["weightlifting belt"])

    assert kinds == (("weightlift", "belt"),)
    assert is_kind(kinds, "belt", ["aurion", "leather", "weight", "lift", "belt"])
    assert is_kind(kinds, "belt", ["kobo", "weightlift", "belt"])
    assert not is_kind(kinds, "belt", ["weight", "loss", "lift", "belt"])  # not side by side
    assert not is_kind(kinds, "belt", ["men", "leather", "belt"])


def test_the_word_that_says_which_kind_may_end_a_word_of_two_parts():
    kinds = wanted_kinds(["micro sd card"])

    assert kinds == (("sd", "card"),)
    assert is_kind(kinds, "card", ["hp", "64gb", "microsd", "memori", "card"])  # an SD card
    assert is_kind(kinds, "card", ["sandisk", "ultra", "sd", "card"])
    assert not is_kind(kinds, "card", ["xsd", "card"])  # no word of three letters before it
    assert not is_kind(kinds, "card", ["gift", "card"])


@pytest.mark.parametrize(
    ("brand", "title", "key"),
    [
        ("boAt", "boAt Rockerz 450 Headphones", "boat"),
        (None, "Levi's Men's Slim Jeans", "levis"),
        ("Amazon Basics", "AmazonBasics HDMI Cable", "amazon"),  # the catalog's brand wins
        (None, "", ""),
    ],
)
def test_a_products_brand_key_is_its_brand_or_its_titles_first_word(brand, title, key):
    assert brand_key(brand, title) == key


@pytest.mark.django_db
def test_the_type_and_brand_are_stored_with_the_document_and_follow_the_title():
    ProductFactory(title="Nivia Storm Football", brand=None)
    product = Product.objects.get(title="Nivia Storm Football")
    stored = Product.objects.values("product_type", "brand_key").get(pk=product.pk)

    product.title = "Nivia Carbonite Football Shoes"
    product.save(update_fields=["title"])
    changed = Product.objects.values("product_type", "brand_key").get(pk=product.pk)

    assert stored == {"product_type": "footbal", "brand_key": "nivia"}
    assert changed == {"product_type": "shoe", "brand_key": "nivia"}
