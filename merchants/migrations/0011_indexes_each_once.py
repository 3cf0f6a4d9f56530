"""Each index once: no foreign key indexed alone where an index it leads already serves it, and
none of PostgreSQL's pattern copies of this app's text keys, which no query reads
(kernel/pattern_indexes.py). Every row written keeps fewer indexes up to date."""

import django.db.models.deletion
from django.db import migrations, models

from kernel.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    dependencies = [
        ("merchants", "0010_verification_attempts"),
    ]

    operations = [
        migrations.AlterField(
            model_name="deliveryattempt",
            name="delivery",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="attempts",
                to="merchants.webhookdelivery",
            ),
        ),
        migrations.AlterField(
            model_name="healthprobe",
            name="merchant",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="probes",
                to="merchants.merchantagent",
            ),
        ),
        migrations.AlterField(
            model_name="verificationattempt",
            name="merchant",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="verification_attempts_made",
                to="merchants.merchantagent",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="event",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="merchants.webhookevent",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="merchant",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="merchants.merchantagent",
            ),
        ),
        drop_pattern_indexes("merchants"),
    ]
