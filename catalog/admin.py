from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from catalog import versions
from catalog.cards import discount_percent
from catalog.models import Creator, Product, Recommendation, SearchWord, Video, http_url
from kernel.admin_display import (
    ReadOnlyAdmin,
    change_link,
    counted,
    figure,
    grouped,
    intent_link,
    list_link,
    related_filter,
)
from kernel.admin_lists import StringListField, country_codes
from kernel.admin_values import readable

# The figures of a video, grouped in thousands wherever they are read.
GMV = figure("gmv_usd", "GMV (USD)")
ORDERS = figure("orders", "orders")
VIEWS = figure("views", "views")


class VideoInline(admin.TabularInline):
    model = Video
    extra = 0
    fields = ("task_id", "creator", "gmv", "order_count", "view_count", "length", "published_at")
    readonly_fields = fields
    gmv, order_count, view_count = GMV, ORDERS, VIEWS
    length = figure("duration_s", "duration (s)")
    ordering = ("-gmv_usd",)
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class CatalogEditAdmin(admin.ModelAdmin):
    """Edits that reach every process's memory of the catalog (catalog/versions.py) once they
    commit; search itself is the database's, current at once."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        versions.changed(reweigh=False)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        super().delete_model(request, obj)
        versions.changed(reweigh=False)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        super().delete_queryset(request, queryset)
        versions.changed()


class ProductForm(forms.ModelForm):
    """A product's lists as the catalog import takes them (catalog/import_format.py); the
    admin adds the model's other fields."""

    tags = StringListField(max_items=30, max_length=64)
    regions = country_codes(
        help_text="The countries it is sold in (e.g. US, GB), separated by commas; empty: "
        "everywhere."
    )
    # One URL a line only: a URL may hold a comma.
    gallery = StringListField(max_items=20, max_length=1000, separators="\n", item=http_url)


@admin.register(Product)
class ProductAdmin(CatalogEditAdmin):
    form = ProductForm
    list_display = (
        "id",
        "title",
        "brand",
        "category_l2",
        "price",
        "discount",
        "risk_level",
        "video_count",
        "updated_at",
    )
    # From a creator's page: the products their videos sell.
    list_filter = (
        "category_l1",
        "category_l2",
        "risk_level",
        related_filter("creator", "creator", "videos__creator__username"),
    )
    search_fields = ("=id", "title", "brand", "category_l2")
    date_hierarchy = "updated_at"
    readonly_fields = (
        "created_at",
        "updated_at",
        "videos_link",
        "type_read",
        "brand_read",
        "search_document_json",
        "embedding_state",
    )
    inlines = [VideoInline]
    list_per_page = 50
    ordering = ("id",)  # the annotated count below drops the model's own ordering

    def get_queryset(self, request: HttpRequest) -> QuerySet[Product]:
        return super().get_queryset(request).annotate(video_count=Count("videos"))

    @admin.display(description="discount")
    def discount(self, product: Product) -> str:
        percent = discount_percent(product)
        return f"-{percent}%" if percent else "-"

    price = figure("price_usd", "price (USD)")

    @admin.display(description="videos", ordering="video_count")
    def video_count(self, product: Product) -> str:
        return grouped(product.video_count)  # type: ignore[attr-defined]

    @admin.display(description="videos")
    def videos_link(self, product: Product) -> SafeString:
        count = product.videos.count()
        return list_link(Video, counted(count, "video", "videos"), product=product.pk)

    @admin.display(description="type (as search reads it)")
    def type_read(self, product: Product) -> str:
        """What search takes the product for (catalog/types.py): its title's, or the one the
        catalog gives."""
        return product.product_type or "none: `manage.py reindex_catalog` reads it"

    @admin.display(description="brand (as search reads it)")
    def brand_read(self, product: Product) -> str:
        """The key of its brand (catalog/brands.py)."""
        return product.brand_key or "none: `manage.py reindex_catalog` reads it"

    @admin.display(description="search document")
    def search_document_json(self, product: Product) -> SafeString:
        """The words search reads for the product (catalog/documents.py), as saved."""
        return readable(product.search_document)

    @admin.display(description="embedding")
    def embedding_state(self, product: Product) -> str:
        """Whether the semantic signal knows the product (catalog/semantic.py)."""
        if product.embedding:
            return f"{len(bytes(product.embedding))} bytes, written with the text above"
        return "none: `manage.py embed_catalog` writes it while SEMANTIC_SEARCH is on"


@admin.register(SearchWord)
class SearchWordAdmin(ReadOnlyAdmin):
    """The spelling vocabulary of the fuzzy tier: the database adds to it as products are
    written (catalog/spelling.py)."""

    list_display = ("word",)
    search_fields = ("word",)
    list_per_page = 100
    show_full_result_count = False  # a count of a large vocabulary is a scan


@admin.register(Creator)
class CreatorAdmin(admin.ModelAdmin):
    list_display = ("username", "display_name", "follower_count", "video_count", "updated_at")
    search_fields = ("username", "display_name")
    ordering = ("-followers",)
    date_hierarchy = "created_at"
    readonly_fields = ("videos_link", "products_link", "created_at", "updated_at")
    follower_count = figure("followers", "followers")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Creator]:
        return super().get_queryset(request).annotate(video_count=Count("videos"))

    @admin.display(description="videos", ordering="video_count")
    def video_count(self, creator: Creator) -> SafeString:
        """The count, leading to those videos."""
        count = creator.video_count  # type: ignore[attr-defined]
        return list_link(Video, grouped(count), creator=creator.username)

    @admin.display(description="videos")
    def videos_link(self, creator: Creator) -> SafeString:
        count = creator.videos.count()
        return list_link(Video, counted(count, "video", "videos"), creator=creator.username)

    @admin.display(description="products")
    def products_link(self, creator: Creator) -> SafeString:
        """The products the creator's videos sell."""
        count = Product.objects.filter(videos__creator=creator).distinct().count()
        text = counted(count, "product", "products")
        return list_link(Product, text, creator=creator.username)


@admin.register(Video)
class VideoAdmin(CatalogEditAdmin):
    list_display = (
        "task_id",
        "creator_link",
        "product_link",
        "gmv",
        "order_count",
        "view_count",
        "published_at",
    )
    list_select_related = ("creator", "product")
    # From a creator's or a product's page: their videos.
    list_filter = (
        related_filter("creator", "creator", "creator__username"),
        related_filter("product", "product", "product_id"),
    )
    search_fields = ("task_id", "creator__username", "product__title")
    date_hierarchy = "published_at"
    autocomplete_fields = ("product", "creator")
    readonly_fields = ("created_at", "updated_at")
    gmv, order_count, view_count = GMV, ORDERS, VIEWS

    @admin.display(description="creator", ordering="creator__username")
    def creator_link(self, video: Video) -> SafeString:
        return change_link(video.creator)

    @admin.display(description="product", ordering="product")
    def product_link(self, video: Video) -> SafeString:
        return change_link(video.product)


@admin.register(Recommendation)
class RecommendationAdmin(ReadOnlyAdmin):
    list_display = ("rec_id", "product", "channel", "region", "intent", "created_at")
    list_select_related = ("product",)
    list_filter = ("channel", "region")
    search_fields = ("=rec_id", "=intent_id", "product__title")
    date_hierarchy = "created_at"
    fields = ("rec_id", "product", "channel", "region", "intent", "created_at", "card_shown")
    readonly_fields = fields

    @admin.display(description="intent", ordering="intent_id")
    def intent(self, recommendation: Recommendation) -> SafeString | str:
        return intent_link(recommendation.intent_id)

    @admin.display(description="card (as served)")
    def card_shown(self, recommendation: Recommendation) -> SafeString:
        return readable(recommendation.card)
