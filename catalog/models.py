"""The catalog: products, the creators who sell them in short videos, and issued cards."""

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator, URLValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from catalog import semantic
from catalog.documents import readings
from kernel.fields import JSONField

# Creator usernames: what the import accepts and what lookups check before they query.
USERNAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
REGION = re.compile(r"[A-Z]{2}")
# Product ids are positive integers that fit a signed 64-bit column.
MAX_PRODUCT_ID = 2**63 - 1
_PRODUCT_ID = re.compile(r"[0-9]{1,19}")


def product_id_from(text: str) -> int | None:
    """The product id a string of ASCII digits names, or None when no product can have it."""
    if not _PRODUCT_ID.fullmatch(text) or int(text) > MAX_PRODUCT_ID:
        return None
    return int(text)


http_url = URLValidator(schemes=["http", "https"])


def validate_strings(value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValidationError("Enter a JSON list of strings.")


def validate_regions(value: Any) -> None:
    validate_strings(value)
    if not all(REGION.fullmatch(item) for item in value):
        raise ValidationError('Enter ISO 3166-1 alpha-2 country codes, e.g. ["US", "GB"].')


def validate_urls(value: Any) -> None:
    validate_strings(value)
    for item in value:
        http_url(item)


class RiskLevel(models.TextChoices):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class Product(models.Model):
    """A sellable product; its id is the catalog's own integer id."""

    id = models.PositiveBigIntegerField(primary_key=True)
    title = models.CharField(max_length=300)
    brand = models.CharField(max_length=120, null=True, blank=True)
    price_usd = models.DecimalField(
        verbose_name="price (USD)",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    original_price_usd = models.DecimalField(
        verbose_name="original price (USD)",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
    )
    main_image = models.URLField(
        verbose_name="main image URL", max_length=1000, null=True, blank=True, validators=[http_url]
    )
    gallery = JSONField(default=list, blank=True, validators=[validate_urls])
    category_l1 = models.CharField(
        verbose_name="category (level 1)", max_length=120, null=True, blank=True
    )
    category_l2 = models.CharField(
        verbose_name="category (level 2)", max_length=120, null=True, blank=True
    )
    url = models.URLField(
        max_length=1000, validators=[http_url], help_text="The shop page the buy link leads to."
    )
    description = models.TextField(blank=True, default="")
    tags = JSONField(default=list, blank=True, validators=[validate_strings])
    regions = JSONField(
        default=list,
        blank=True,
        validators=[validate_regions],
        help_text="ISO country codes it is sold in; empty = everywhere.",
    )
    risk_level = models.CharField(max_length=8, choices=RiskLevel.choices, default=RiskLevel.LOW)
    target_persona = models.CharField(max_length=200, blank=True, default="")
    target_age = models.CharField(max_length=40, blank=True, default="")
    # Nullable, with no default, as the columns added after the search index: SQLite adds such a
    # column in place, where a default would make Django copy the table, and lose the triggers
    # that keep the index (catalog/fulltext.py). Empty and None mean the same: not given.
    declared_type = models.CharField(
        verbose_name="type (as the catalog gives it)",
        max_length=64,
        null=True,
        blank=True,
        help_text="What the product is, when the catalog says so: it wins over its title.",
    )
    # The text as search reads it (catalog/documents.py), written with the text it follows; what
    # the product is and whose (catalog/types.py, catalog/brands.py) are read with it.
    search_document = JSONField(default=dict, blank=True, editable=False)
    product_type = models.CharField(max_length=64, null=True, blank=True, editable=False)
    brand_key = models.CharField(max_length=64, null=True, blank=True, editable=False)
    # What the product's text means (catalog/semantic.py): written with the search document,
    # empty while SEMANTIC_SEARCH is off.
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # The columns the search document is made of, and those written with it.
    TEXT_FIELDS = (
        "title",
        "tags",
        "brand",
        "category_l1",
        "category_l2",
        "description",
        "declared_type",
    )
    READ_FIELDS = ("search_document", "product_type", "brand_key")

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["category_l1"], name="product_category_l1"),
            models.Index(fields=["category_l2"], name="product_category_l2"),
            # Search compares category names without case (catalog/search.py).
            models.Index(Lower("category_l1"), name="product_category_l1_folded"),
            models.Index(Lower("category_l2"), name="product_category_l2_folded"),
            # Whether a word is a brand: how many products it leads (catalog/brands.py).
            models.Index(fields=["brand_key"], name="product_brand_key"),
            # Whether the resolved categories hold what the shopper wants (catalog/search.py).
            models.Index(fields=["product_type"], name="product_type"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(price_usd__isnull=True) | Q(price_usd__gte=0),
                name="product_price_gte_0",
                violation_error_message="A price cannot be negative.",
            ),
            models.CheckConstraint(
                condition=Q(original_price_usd__isnull=True) | Q(original_price_usd__gte=0),
                name="product_original_price_gte_0",
                violation_error_message="An original price cannot be negative.",
            ),
            models.CheckConstraint(
                condition=Q(risk_level__in=RiskLevel.values),
                name="product_risk_level_valid",
                violation_error_message="The risk level is one of low, medium, high.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.title}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, with the search document, the type and brand and the embedding of the text
        as it is now."""
        fields = {name: getattr(self, name) for name in self.TEXT_FIELDS}
        # Off, a stale vector is dropped: `manage.py embed_catalog` writes it once it is on.
        for name, value in readings([fields], semantic.enabled())[0].items():
            setattr(self, name, value)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and set(update_fields) & set(self.TEXT_FIELDS):
            kwargs["update_fields"] = {*update_fields, *self.READ_FIELDS, "embedding"}
        super().save(*args, **kwargs)


class Creator(models.Model):
    """A content creator who publishes short videos that sell products."""

    username = models.CharField(
        max_length=64, unique=True, validators=[RegexValidator(USERNAME, "Use A-Z a-z 0-9 . _ -")]
    )
    display_name = models.CharField(max_length=200)
    avatar = models.URLField(verbose_name="avatar URL", max_length=1000, null=True, blank=True)
    followers = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return f"@{self.username}"


class Video(models.Model):
    """One creator's short video for one product, with its sales statistics."""

    task_id = models.CharField(verbose_name="task ID", max_length=128, unique=True)
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="videos")
    creator = models.ForeignKey(
        Creator, on_delete=models.CASCADE, related_name="videos", db_index=False
    )  # indexed by video_creator_gmv, which it leads
    thumbnail = models.URLField(
        verbose_name="thumbnail URL", max_length=1000, null=True, blank=True
    )
    video_url = models.URLField(verbose_name="video URL", max_length=1000, null=True, blank=True)
    platform_video_url = models.URLField(
        verbose_name="platform video URL", max_length=1000, null=True, blank=True
    )
    duration_s = models.PositiveIntegerField(verbose_name="duration (s)", default=0)
    gmv_usd = models.DecimalField(
        verbose_name="GMV (USD)",
        max_digits=14,
        decimal_places=2,
        default=0,
        validators=[MinValueValidator(0)],
    )
    orders = models.PositiveIntegerField(default=0)
    views = models.PositiveBigIntegerField(default=0)
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-gmv_usd", "task_id"]
        indexes = [
            models.Index(fields=["creator", "-gmv_usd"], name="video_creator_gmv"),
            models.Index(fields=["published_at"], name="video_published_at"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(gmv_usd__gte=0),
                name="video_gmv_gte_0",
                violation_error_message="A video's GMV cannot be negative.",
            ),
        ]

    def __str__(self) -> str:
        return self.task_id


class Recommendation(models.Model):
    """One issued card: the rec_id is the attribution key that the buy link carries."""

    rec_id = models.CharField(verbose_name="recommendation ID", max_length=40, primary_key=True)
    product = models.ForeignKey(
        Product, on_delete=models.PROTECT, related_name="recommendations", db_index=False
    )  # indexed by recommendation_product, which it leads
    card = JSONField(help_text="The card (PCD) exactly as it was served.")
    channel = models.CharField(max_length=64, null=True, blank=True)
    region = models.CharField(max_length=8, null=True, blank=True)
    intent_id = models.CharField(
        verbose_name="intent ID",
        max_length=40,
        null=True,
        blank=True,
        help_text="The intent it answered, when any.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["created_at"], name="recommendation_created_at"),
            models.Index(fields=["product", "created_at"], name="recommendation_product"),
            models.Index(fields=["intent_id"], name="recommendation_intent"),
        ]

    def __str__(self) -> str:
        return self.rec_id


class SearchWord(models.Model):
    """A clean whole word of the catalog's titles, tags or brands: what the fuzzy tier's
    spelling corrections choose from (catalog/spelling.py). The database adds the words of
    every product it writes (the triggers of migration 0006); a word no product holds any more
    stays, and is never chosen, since corrections need products that hold them."""

    word = models.CharField(max_length=64, primary_key=True)

    class Meta:
        ordering = ["word"]

    def __str__(self) -> str:
        return self.word
