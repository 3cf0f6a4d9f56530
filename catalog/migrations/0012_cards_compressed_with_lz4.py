from django.db import migrations

from kernel.toast_compression import compress_with_lz4


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0011_product_type_index"),
    ]

    operations = [
        compress_with_lz4("catalog", {"recommendation": ["card"]}),
    ]
