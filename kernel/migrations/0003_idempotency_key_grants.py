# Staff who could see the Idempotency-Keys when the merchants app held them see them still: each
# group's and user's grants on merchants' model are given on the kernel's too.

from django.db import migrations


def carry_grants(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    permissions = apps.get_model("auth", "Permission")
    old = content_types.objects.filter(app_label="merchants", model="idempotencykey").first()
    if old is None:  # a fresh database: nothing was granted
        return
    new, _ = content_types.objects.get_or_create(app_label="kernel", model="idempotencykey")
    for before in permissions.objects.filter(content_type=old):
        after, _ = permissions.objects.get_or_create(
            content_type=new, codename=before.codename, defaults={"name": before.name}
        )
        after.group_set.add(*before.group_set.all())
        after.user_set.add(*before.user_set.all())


class Migration(migrations.Migration):
    dependencies = [
        ("kernel", "0002_idempotency_keys_table"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(carry_grants, migrations.RunPython.noop)]
