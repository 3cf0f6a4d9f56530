"""Input validation of the catalog endpoints, and the Card (PCD) schema for the contract.

Cards are rendered as plain dicts (catalog/cards.py); the output serializers below only describe
them to drf-spectacular, and the tests check served cards against that description.
"""

from rest_framework import serializers

from kernel.serializer_fields import channel_field, limit_field


class CardQuerySerializer(serializers.Serializer):
    channel = channel_field()


class ShowcaseQuerySerializer(serializers.Serializer):
    limit = limit_field(default=6)
    channel = channel_field()


class CardProductSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    brand = serializers.CharField(allow_null=True)
    price_usd = serializers.FloatField(allow_null=True)
    original_price_usd = serializers.FloatField(allow_null=True)
    discount_label = serializers.CharField(allow_null=True)
    main_image = serializers.CharField(allow_null=True)
    gallery = serializers.ListField(child=serializers.CharField())
    category_l1 = serializers.CharField(allow_null=True)
    category_l2 = serializers.CharField(allow_null=True)


class KeyBenefitSerializer(serializers.Serializer):
    icon = serializers.CharField()
    title = serializers.CharField()
    desc = serializers.CharField()


class TargetAudienceSerializer(serializers.Serializer):
    persona = serializers.CharField()
    age = serializers.CharField()
    region = serializers.ListField(child=serializers.CharField())


class HeroPitchSerializer(serializers.Serializer):
    one_liner = serializers.CharField()
    why_it_wins_on_platform = serializers.CharField()
    key_benefits = KeyBenefitSerializer(many=True)
    target_audience = TargetAudienceSerializer()


class SelectionStorySerializer(serializers.Serializer):
    headline = serializers.CharField()
    bullets = serializers.ListField(child=serializers.CharField())
    service_score = serializers.FloatField(help_text="0-100; formula in the README.")


class VideoCreatorSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    avatar = serializers.CharField(allow_null=True)
    followers = serializers.IntegerField()


class CardVideoSerializer(serializers.Serializer):
    task_id = serializers.CharField()
    creator = VideoCreatorSerializer()
    thumbnail = serializers.CharField(allow_null=True)
    video_url = serializers.CharField(allow_null=True)
    duration_s = serializers.IntegerField()
    gmv_usd = serializers.FloatField()
    orders = serializers.IntegerField()
    views = serializers.IntegerField()
    conversion_score = serializers.FloatField(help_text="Percent of viewers who ordered.")
    platform_video_url = serializers.CharField(allow_null=True)


class LinkSerializer(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    url = serializers.CharField()


class CtaSerializer(serializers.Serializer):
    primary = LinkSerializer(help_text="Hand this URL to the user verbatim: it carries the rec_id.")
    secondary = LinkSerializer()


class ComplianceSerializer(serializers.Serializer):
    region_allow = serializers.ListField(child=serializers.CharField())
    risk_level = serializers.ChoiceField(choices=["low", "medium", "high"])


class CardSerializer(serializers.Serializer):
    rec_id = serializers.CharField(help_text="Globally unique recommendation id (attribution key).")
    product = CardProductSerializer()
    hero_pitch = HeroPitchSerializer()
    selection_story = SelectionStorySerializer()
    videos = CardVideoSerializer(many=True)
    cta = CtaSerializer()
    compliance = ComplianceSerializer(required=False)
    generated_at = serializers.DateTimeField()
    channel = serializers.CharField(allow_null=True)


class ShowcaseSerializer(serializers.Serializer):
    username = serializers.CharField()
    count = serializers.IntegerField()
    items = CardSerializer(many=True)
