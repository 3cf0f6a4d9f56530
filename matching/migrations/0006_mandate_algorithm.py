from django.db import migrations, models


class Migration(migrations.Migration):
    """Mandates record the algorithm they were signed with: ES256 beside RS256. Every mandate
    signed before this was RS256, the only algorithm there was."""

    dependencies = [
        ("matching", "0005_demand_credential"),
    ]

    operations = [
        migrations.AddField(
            model_name="intentmandate",
            name="algorithm",
            field=models.CharField(
                default="RS256",
                help_text="ES256 or RS256: the algorithm of the key it was signed with.",
                max_length=8,
            ),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="intentmandate",
            name="signature",
            field=models.TextField(help_text="The JWS signature of canonical_payload, base64url."),
        ),
    ]
