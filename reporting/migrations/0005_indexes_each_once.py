"""Each index once: no foreign key indexed alone where an index it leads already serves it, and
none of PostgreSQL's pattern copies of this app's text keys, which no query reads
(kernel/pattern_indexes.py). Every row written keeps fewer indexes up to date."""

import django.db.models.deletion
from django.db import migrations, models

from kernel.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_indexes_each_once"),
        ("merchants", "0011_indexes_each_once"),
        ("reporting", "0004_conversion_flags"),
    ]

    operations = [
        migrations.AlterField(
            model_name="click",
            name="recommendation",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="clicks",
                to="catalog.recommendation",
            ),
        ),
        migrations.AlterField(
            model_name="conversion",
            name="merchant",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="conversions",
                to="merchants.merchantagent",
            ),
        ),
        migrations.AlterField(
            model_name="conversion",
            name="product",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="conversions",
                to="catalog.product",
            ),
        ),
        drop_pattern_indexes("reporting"),
    ]
