"""Each index once: no foreign key indexed alone where an index it leads already serves it, and
none of PostgreSQL's pattern copies of this app's text keys, which no query reads
(kernel/pattern_indexes.py). Every row written keeps fewer indexes up to date."""

import django.db.models.deletion
from django.db import migrations, models

from kernel.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0006_search_in_the_database"),
    ]

    operations = [
        migrations.AlterField(
            model_name="recommendation",
            name="product",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="recommendations",
                to="catalog.product",
            ),
        ),
        migrations.AlterField(
            model_name="video",
            name="creator",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="videos",
                to="catalog.creator",
            ),
        ),
        drop_pattern_indexes("catalog"),
    ]
