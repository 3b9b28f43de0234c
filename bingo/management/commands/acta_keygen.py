"""``manage.py acta_keygen --output PATH``: a new Ed25519 key to sign the acta's receipts.

Writes the private key as PEM (PKCS8), readable by its owner only, and prints its public half
(base64 of its 32 bytes) and key id, which the regulator registers, and what to set. It never
overwrites a key file unless told to (``--force``): the processes would sign, at their next
start, with a key the regulator has not registered. Rotating the key: docs/acta.md, «Signed
receipts».
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from actas.signing import private_key_file_write
from bingo.engine.acta import key_id, public_key_text


class Command(BaseCommand):
    help = "Create the operator's Ed25519 key that signs the acta's receipts, and print its public key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", required=True, help="the PEM file to write (mode 0600)")
        parser.add_argument("--force", action="store_true", help="replace the file if it exists")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["output"]).expanduser().absolute()
        if not path.parent.is_dir():
            raise CommandError(_("There is no folder %(folder)s.") % {"folder": path.parent})
        key = Ed25519PrivateKey.generate()
        try:
            private_key_file_write(path, key, replace=options["force"])
        except FileExistsError:
            raise CommandError(
                _("%(file)s exists: no key was written. Use --force to replace it.") % {"file": path}
            ) from None
        public = key.public_key()
        self.stdout.write(_("Signing key written to %(file)s (readable by its owner only).") % {"file": path})
        self.stdout.write(_("Public key (Ed25519, base64): %(key)s") % {"key": public_key_text(public)})
        self.stdout.write(_("Key id: %(id)s") % {"id": key_id(public)})
        self.stdout.write(
            _(
                "Register the public key with the regulator, then set ACTA_SIGNING_KEY_FILE=%(file)s "
                "in the environment of every web and Celery process and restart them."
            )
            % {"file": path}
        )
