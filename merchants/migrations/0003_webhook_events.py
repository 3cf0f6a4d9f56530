"""One WebhookEvent per event, its body stored once (the outbox of Intent.Surge), deliveries
pointing at it; and the merchants' slow lane marker."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F, Min

import kernel.fields


def events_from_deliveries(apps, schema_editor):
    """Each event delivered so far, from its first delivery: body, type, intent, fanned out."""
    Delivery = apps.get_model("merchants", "WebhookDelivery")
    Event = apps.get_model("merchants", "WebhookEvent")
    firsts = Delivery.objects.values("event_ref").annotate(first=Min("id"), at=Min("created_at"))
    for row in firsts.iterator():
        delivery = Delivery.objects.get(pk=row["first"])
        Event.objects.create(
            event_id=row["event_ref"],
            event_type=delivery.event_type,
            intent_id=delivery.intent_id,
            body=delivery.body,
            fanned_out_at=row["at"],
        )
        Event.objects.filter(event_id=row["event_ref"]).update(created_at=row["at"])
    Delivery.objects.update(event_id=F("event_ref"))


class Migration(migrations.Migration):
    dependencies = [("merchants", "0002_deliveries_and_probes")]

    operations = [
        migrations.CreateModel(
            name="WebhookEvent",
            fields=[
                ("event_id", models.CharField(max_length=40, primary_key=True, serialize=False)),
                ("event_type", models.CharField(max_length=32)),
                (
                    "intent_id",
                    models.CharField(blank=True, db_index=True, max_length=40, null=True),
                ),
                ("tags", kernel.fields.JSONField(blank=True, default=list)),
                ("region", models.CharField(blank=True, max_length=2, null=True)),
                (
                    "body",
                    models.TextField(
                        help_text="The exact JSON body signed and sent on every attempt."
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("fanned_out_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["-created_at"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("fanned_out_at__isnull", True)),
                        fields=["created_at"],
                        name="event_fan_out_due",
                    )
                ],
            },
        ),
        migrations.AddField(
            model_name="merchantagent",
            name="slow_since",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RemoveConstraint(model_name="webhookdelivery", name="delivery_once"),
        migrations.RenameField(
            model_name="webhookdelivery", old_name="event_id", new_name="event_ref"
        ),
        migrations.AddField(
            model_name="webhookdelivery",
            name="event",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="merchants.webhookevent",
            ),
        ),
        migrations.RunPython(events_from_deliveries, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="event",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="merchants.webhookevent",
            ),
        ),
        migrations.RemoveField(model_name="webhookdelivery", name="event_ref"),
        migrations.RemoveField(model_name="webhookdelivery", name="event_type"),
        migrations.RemoveField(model_name="webhookdelivery", name="intent_id"),
        migrations.RemoveField(model_name="webhookdelivery", name="body"),
        migrations.AddConstraint(
            model_name="webhookdelivery",
            constraint=models.UniqueConstraint(fields=("event", "merchant"), name="delivery_once"),
        ),
    ]
