"""`manage.py mandate_keygen`: a new private key, readable by its owner only, never overwritten
by accident."""

import stat
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from kernel.signing import SigningKey, load_signing_keys


def keygen(*args: str) -> str:
    out = StringIO()
    call_command("mandate_keygen", *args, stdout=out)
    return out.getvalue()


def key_of(path) -> SigningKey:
    (key,) = load_signing_keys(key_text=path.read_text(), key_files="", base_dir=path.parent)
    return key


def kid_of(path) -> str:
    return key_of(path).kid


def test_writes_a_key_only_its_owner_can_read_and_prints_its_kid(tmp_path):
    path = tmp_path / "keys" / "signing.pem"

    output = keygen("--output", str(path))

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().startswith("-----BEGIN PRIVATE KEY-----\n")
    kid = kid_of(path)
    assert f"kid: {kid}\n" in output
    assert f"MANDATE_SIGNING_KEY_FILE={path} " in output
    assert "Wrote an EC P-256 (ES256) signing key" in output
    assert "then restart the gateway" in output  # written by hand: the gateway may be running


def test_new_keys_are_es256_by_default(tmp_path):
    """New deployments sign with ECDSA P-256, which AP2 asks for and UCP verifiers accept."""
    path = tmp_path / "signing.pem"

    keygen("--output", str(path))

    key = key_of(path)
    assert key.algorithm == "ES256"
    assert {name: key.public_jwk()[name] for name in ("kty", "crv", "alg")} == {
        "kty": "EC",
        "crv": "P-256",
        "alg": "ES256",
    }


def test_an_rs256_key_of_the_size_asked_for(tmp_path):
    path = tmp_path / "signing.pem"

    output = keygen("--algorithm", "RS256", "--bits", "2048", "--output", str(path))

    key = key_of(path)
    assert (key.algorithm, key.public_jwk()["kty"]) == ("RS256", "RSA")
    assert key.private_key.key_size == 2048
    assert "Wrote a 2048-bit RSA (RS256) signing key" in output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_rs256_key_is_3072_bits_by_default(tmp_path):
    path = tmp_path / "signing.pem"

    keygen("--algorithm", "RS256", "--output", str(path))

    assert key_of(path).private_key.key_size == 3072


def test_bits_without_rs256_is_refused_and_writes_nothing(tmp_path):
    with pytest.raises(CommandError, match="--bits sizes RSA keys: add --algorithm RS256"):
        keygen("--bits", "2048", "--output", str(tmp_path / "k.pem"))

    assert not (tmp_path / "k.pem").exists()


def test_other_algorithms_are_not_offered(tmp_path):
    with pytest.raises(CommandError, match="invalid choice: 'HS256'"):
        keygen("--algorithm", "HS256", "--output", str(tmp_path / "k.pem"))

    assert not (tmp_path / "k.pem").exists()


def test_written_for_a_configuration_that_names_it_it_asks_for_no_restart(tmp_path):
    """What `make run` (and `make test`) print: the key is written before anything starts."""
    path = tmp_path / "signing.pem"

    output = keygen("--output", str(path), "--configured")

    assert f"kid: {kid_of(path)}\n" in output
    assert output.endswith(
        f"MANDATE_SIGNING_KEY_FILE={path} names it: the gateway signs intent mandates with it "
        "from its start.\n"
    )
    assert "restart" not in output
    assert "rotate" not in output


def test_by_default_it_writes_under_var_and_names_the_path_relative_to_the_project(
    tmp_path, settings
):
    settings.BASE_DIR, settings.VAR_DIR = tmp_path, tmp_path / "var"

    output = keygen()

    assert (tmp_path / "var" / "mandate-signing-key.pem").is_file()
    assert "MANDATE_SIGNING_KEY_FILE=var/mandate-signing-key.pem " in output


def test_refuses_to_overwrite_without_force(tmp_path):
    path = tmp_path / "signing.pem"
    keygen("--output", str(path))
    before = path.read_text()

    with pytest.raises(CommandError, match="exists; pass --force to replace it"):
        keygen("--output", str(path))

    assert path.read_text() == before


def test_force_replaces_the_key_atomically_and_keeps_it_private(tmp_path):
    path = tmp_path / "signing.pem"
    keygen("--output", str(path))
    path.chmod(0o644)
    old_kid = kid_of(path)

    keygen("--output", str(path), "--force")

    assert kid_of(path) != old_kid
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(item.name for item in tmp_path.iterdir()) == ["signing.pem"]


def test_only_strong_key_sizes_are_offered(tmp_path):
    with pytest.raises(CommandError, match="invalid choice: 1024"):
        keygen("--algorithm", "RS256", "--bits", "1024", "--output", str(tmp_path / "k.pem"))

    assert not (tmp_path / "k.pem").exists()
