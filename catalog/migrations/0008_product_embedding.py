"""Each product's embedding (catalog/semantic.py), beside its search document; the products
already stored are embedded here (`manage.py embed_catalog` does the same later, for products
written while SEMANTIC_SEARCH was off).

Not atomic: the new column is committed first, then the products are embedded a thousand at a
time, each batch its own transaction, so the catalog is never locked for the whole run; an
interrupted run is finished by `embed_catalog`."""

from typing import Any

from django.db import migrations, models


def embed_existing(apps: Any, schema_editor: Any) -> None:
    from catalog.semantic import embed_missing

    embed_missing(apps.get_model("catalog", "Product"))


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("catalog", "0007_indexes_each_once")]

    operations = [
        migrations.AddField(
            model_name="product",
            name="embedding",
            field=models.BinaryField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(embed_existing, migrations.RunPython.noop, elidable=True),
    ]
