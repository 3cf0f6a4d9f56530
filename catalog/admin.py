from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.safestring import SafeString

from catalog import versions
from catalog.cards import discount_percent
from catalog.models import Creator, Product, Recommendation, SearchWord, Video, http_url
from kernel.admin_display import ReadOnlyAdmin, pretty_json
from kernel.admin_lists import StringListField, country_codes


class VideoInline(admin.TabularInline):
    model = Video
    extra = 0
    fields = ("task_id", "creator", "gmv_usd", "orders", "views", "duration_s", "published_at")
    readonly_fields = fields
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
        versions.changed()

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        super().delete_model(request, obj)
        versions.changed()

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
        "price_usd",
        "discount",
        "risk_level",
        "video_count",
        "updated_at",
    )
    list_filter = ("category_l1", "category_l2", "risk_level")
    search_fields = ("=id", "title", "brand", "category_l2")
    date_hierarchy = "updated_at"
    readonly_fields = ("created_at", "updated_at", "search_document_json")
    inlines = [VideoInline]
    list_per_page = 50
    ordering = ("id",)  # the annotated count below drops the model's own ordering

    def get_queryset(self, request: HttpRequest) -> QuerySet[Product]:
        return super().get_queryset(request).annotate(video_count=Count("videos"))

    @admin.display(description="discount")
    def discount(self, product: Product) -> str:
        percent = discount_percent(product)
        return f"-{percent}%" if percent else "-"

    @admin.display(description="videos", ordering="video_count")
    def video_count(self, product: Product) -> int:
        return product.video_count  # type: ignore[attr-defined]

    @admin.display(description="search document")
    def search_document_json(self, product: Product) -> SafeString:
        """The words search reads for the product (catalog/documents.py), as saved."""
        return pretty_json(product.search_document)


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
    list_display = ("username", "display_name", "followers", "video_count", "updated_at")
    search_fields = ("username", "display_name")
    ordering = ("-followers",)
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "updated_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Creator]:
        return super().get_queryset(request).annotate(video_count=Count("videos"))

    @admin.display(description="videos", ordering="video_count")
    def video_count(self, creator: Creator) -> int:
        return creator.video_count  # type: ignore[attr-defined]


@admin.register(Video)
class VideoAdmin(CatalogEditAdmin):
    list_display = ("task_id", "creator", "product", "gmv_usd", "orders", "views", "published_at")
    list_select_related = ("creator", "product")
    search_fields = ("task_id", "creator__username", "product__title")
    date_hierarchy = "published_at"
    autocomplete_fields = ("product", "creator")
    readonly_fields = ("created_at", "updated_at")


@admin.register(Recommendation)
class RecommendationAdmin(ReadOnlyAdmin):
    list_display = ("rec_id", "product", "channel", "region", "intent_id", "created_at")
    list_select_related = ("product",)
    list_filter = ("channel", "region")
    search_fields = ("=rec_id", "=intent_id", "product__title")
    date_hierarchy = "created_at"
    fields = ("rec_id", "product", "channel", "region", "intent_id", "created_at", "card_json")
    readonly_fields = fields

    @admin.display(description="card")
    def card_json(self, recommendation: Recommendation) -> SafeString:
        return pretty_json(recommendation.card)
