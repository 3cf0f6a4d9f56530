"""The staff console's fixtures."""

import pytest


@pytest.fixture
def staff(client, django_user_model):
    """A superuser, logged in on the test client."""
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-not-used")
    client.force_login(user)
    return client
