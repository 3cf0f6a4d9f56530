"""Each index once: no foreign key indexed alone where an index it leads already serves it, and
none of PostgreSQL's pattern copies of this app's text keys, which no query reads
(kernel/pattern_indexes.py). Every row written keeps fewer indexes up to date."""

import django.db.models.deletion
from django.db import migrations, models

from kernel.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("matching", "0006_mandate_algorithm"),
        ("merchants", "0011_indexes_each_once"),
    ]

    operations = [
        migrations.AlterField(
            model_name="matchtoken",
            name="session",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tokens",
                to="matching.matchsession",
            ),
        ),
        migrations.AlterField(
            model_name="proposal",
            name="intent",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="proposals",
                to="matching.intent",
            ),
        ),
        migrations.AlterField(
            model_name="proposal",
            name="merchant",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="proposals",
                to="merchants.merchantagent",
            ),
        ),
        drop_pattern_indexes("matching"),
    ]
