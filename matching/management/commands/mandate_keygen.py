"""`manage.py mandate_keygen`: write a new private key for signing intent mandates and the agent
card: EC P-256 (ES256) by default, RSA (RS256) on request."""

import os
import secrets
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kernel.signing import ES256, RS256, PrivateKey, SigningKey

DEFAULT_RSA_BITS = 3072


def _write_private(path: Path, data: bytes, *, force: bool) -> None:
    """Write `data` to a new file only its owner can read; replace an existing one only when
    forced, and then atomically, so no reader ever sees half a key."""
    target = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp") if force else path
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise CommandError(f"{path} exists; pass --force to replace it") from None
    with os.fdopen(descriptor, "wb") as handle:
        os.fchmod(handle.fileno(), 0o600)  # whatever the umask
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    if force:
        os.replace(target, path)


def _shown(path: Path) -> str:
    """The path as MANDATE_SIGNING_KEY_FILE takes it: relative to the project when inside it."""
    try:
        return str(path.relative_to(settings.BASE_DIR))
    except ValueError:
        return str(path)


class Command(BaseCommand):
    help = (
        "Write a new private key (PEM, mode 0600) for signing intent mandates and the agent "
        "card: EC P-256 for ES256 (the default), or RSA for RS256."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--algorithm",
            choices=[ES256, RS256],
            default=ES256,
            help="ES256 (EC P-256, the default) or RS256 (RSA)",
        )
        parser.add_argument(
            "--bits",
            type=int,
            choices=[2048, 3072, 4096],
            default=None,
            help=f"RS256 only: the RSA key's size, default {DEFAULT_RSA_BITS}",
        )
        parser.add_argument(
            "--output", default=None, help="where to write it (default var/mandate-signing-key.pem)"
        )
        parser.add_argument("--force", action="store_true", help="replace an existing file")
        parser.add_argument(
            "--configured",
            action="store_true",
            help="MANDATE_SIGNING_KEY_FILE already names the file (as make's targets do before "
            "the gateway starts): say so instead of how to configure it",
        )

    def handle(
        self,
        *args: Any,
        algorithm: str,
        bits: int | None,
        output: str | None,
        force: bool,
        configured: bool,
        **_: Any,
    ) -> None:
        path = (
            Path(output).expanduser().resolve()
            if output
            else settings.VAR_DIR / ("mandate-signing-key.pem")
        )
        if bits is not None and algorithm != RS256:
            raise CommandError("--bits sizes RSA keys: add --algorithm RS256, or leave --bits out")
        if path.is_dir():
            raise CommandError(f"{path} is a directory; give a file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        private_key: PrivateKey
        if algorithm == RS256:
            bits = bits or DEFAULT_RSA_BITS
            private_key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
            kind = f"a {bits}-bit RSA (RS256)"
        else:
            private_key = ec.generate_private_key(ec.SECP256R1())
            kind = "an EC P-256 (ES256)"
        pem = private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write_private(path, pem, force=force)
        shown = _shown(path)
        self.stdout.write(f"Wrote {kind} signing key to {shown} (mode 0600).")
        self.stdout.write(f"kid: {SigningKey.of(private_key).kid}")
        if configured:  # written before the gateway starts: nothing to restart
            self.stdout.write(
                f"MANDATE_SIGNING_KEY_FILE={shown} names it: the gateway signs intent mandates "
                "with it from its start."
            )
            return
        self.stdout.write(
            f"To sign with it: MANDATE_SIGNING_KEY_FILE={shown} (environment or .env), then "
            "restart the gateway.\n"
            "To rotate: list it first and keep the old key after it until the mandates it "
            "signed have expired, e.g. MANDATE_SIGNING_KEY_FILE=new.pem,old.pem"
        )
