# The Idempotency-Key table now belongs to the kernel (kernel/migrations/0001): the merchants app
# lets go of the model, and nothing of the database changes here.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("merchants", "0012_idempotency_owner"),
        ("kernel", "0001_idempotency_keys"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyKey")],
            database_operations=[],
        ),
    ]
