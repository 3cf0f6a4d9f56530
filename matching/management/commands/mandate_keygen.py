"""`manage.py mandate_keygen`: write a new RSA private key for signing intent mandates."""

import os
import secrets
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kernel.signing import SigningKey


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
    help = "Write a new RSA private key (PEM, mode 0600) for signing intent mandates."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--bits", type=int, choices=[2048, 3072, 4096], default=3072, help="default 3072"
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
        bits: int,
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
        if path.is_dir():
            raise CommandError(f"{path} is a directory; give a file name")
        path.parent.mkdir(parents=True, exist_ok=True)
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
        pem = private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write_private(path, pem, force=force)
        shown = _shown(path)
        self.stdout.write(f"Wrote a {bits}-bit RSA signing key to {shown} (mode 0600).")
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
