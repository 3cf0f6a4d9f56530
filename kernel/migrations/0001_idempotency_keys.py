# The Idempotency-Key table, moved from the merchants app to the kernel with its rows: the model
# is taken over here as it stands (the table merchants' migrations made and keep), and the next
# migration gives the table the kernel's name.

import kernel.fields
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("merchants", "0012_idempotency_owner"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyKey",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("key_hash", models.CharField(max_length=64, unique=True)),
                        ("request_hash", models.CharField(max_length=64)),
                        ("caller", models.CharField(max_length=64)),
                        ("owner", models.CharField(default="", max_length=64)),
                        ("method", models.CharField(max_length=8)),
                        ("path", models.CharField(max_length=300)),
                        ("created_at", models.DateTimeField()),
                        ("expires_at", models.DateTimeField(db_index=True)),
                        ("run", models.PositiveIntegerField(default=1)),
                        ("locked_until", models.DateTimeField(blank=True, null=True)),
                        ("status_code", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("stored_answer", kernel.fields.EncryptedTextField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "merchants_idempotencykey",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["owner", "expires_at"], name="idempotency_owner_live"
                            )
                        ],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(
                                        ("status_code__isnull", True),
                                        ("stored_answer__isnull", True),
                                    ),
                                    models.Q(
                                        ("locked_until", None),
                                        ("status_code__isnull", False),
                                        ("stored_answer__isnull", False),
                                    ),
                                    _connector="OR",
                                ),
                                name="idempotency_answer_whole",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
