# The kept keys' table under the kernel's name (renamed with its rows, indexes and constraints),
# once the merchants app no longer holds the model.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("kernel", "0001_idempotency_keys"),
        ("merchants", "0013_idempotency_keys_to_kernel"),
    ]

    operations = [
        migrations.AlterModelTable(name="idempotencykey", table=None),
    ]
