from django.db import migrations

from kernel.toast_compression import compress_with_lz4


class Migration(migrations.Migration):
    dependencies = [
        ("matching", "0008_labels_in_words"),
    ]

    operations = [
        compress_with_lz4("matching", {"matchsession": ["ranked_proposals", "summary"]}),
    ]
