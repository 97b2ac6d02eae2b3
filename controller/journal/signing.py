"""The table's Ed25519 signatures over its journal: the messages signed, signing, checking.

Pure (no file, clock or thread): the controller's checkpoint hook, ``journal verify
--public-key`` and the floor's checks all build the signed bytes here, so the three cannot
drift apart. The formats are the record contract of docs/journal.md, Signed
checkpoints:

- a checkpoint's signature is over ``b"tablectl checkpoint v1\\n" + seq + b"\\n" + prev``:
  the checkpoint record's own seq and its link to the chain's head before it, so one
  signature covers every record before the checkpoint;
- a rotation's signature, by the PREVIOUS key, is over ``b"tablectl key rotation v1\\n" +
  previous key id + b"\\n" + new public key hex``.

Public keys travel as 64 lowercase hex digits (the 32 raw bytes), signatures as 128.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

_PUBLIC_HEX: Final = re.compile(r"[0-9a-f]{64}")
_SIGNATURE_HEX: Final = re.compile(r"[0-9a-f]{128}")
KEY_ID_LENGTH: Final = 16  #: hex digits of a key id: the first 8 bytes of SHA-256 of the key


class SigningError(ValueError):
    """A key or signature that is not in the expected form; the message names what was
    expected."""


def checkpoint_message(seq: int, prev: str) -> bytes:
    """The bytes a checkpoint's signature covers: its own seq and its link ``prev``."""
    return b"tablectl checkpoint v1\n%d\n%s" % (seq, prev.encode())


def rotation_message(previous: str, public_key: str) -> bytes:
    """The bytes the previous key signs to hand over to ``public_key`` (hex)."""
    return b"tablectl key rotation v1\n" + previous.encode() + b"\n" + public_key.encode()


def key_id(public_key_hex: str) -> str:
    """The key's short name: the first 16 hex digits of SHA-256 of its 32 raw bytes."""
    return hashlib.sha256(_public_bytes(public_key_hex)).hexdigest()[:KEY_ID_LENGTH]


def verify_signature(public_key_hex: str, message: bytes, signature_hex: str) -> bool:
    """True when ``signature_hex`` is the key's Ed25519 signature over ``message``.

    A signature that is not 128 lowercase hex digits is simply not valid (False); a
    public key that is not 64 lowercase hex digits of a valid point raises SigningError.
    """
    public = public_key_from_hex(public_key_hex)
    if not _SIGNATURE_HEX.fullmatch(signature_hex):
        return False
    try:
        public.verify(bytes.fromhex(signature_hex), message)
    except InvalidSignature:
        return False
    return True


def verify_checkpoint(public_key_hex: str, seq: int, prev: str, signature_hex: str) -> bool:
    """True when ``signature_hex`` signs the checkpoint of ``seq`` linked to ``prev``."""
    return verify_signature(public_key_hex, checkpoint_message(seq, prev), signature_hex)


def verify_rotation(
    previous_public_hex: str, previous: str, public_key_hex: str, signature_hex: str
) -> bool:
    """True when the previous key (hex ``previous_public_hex``, id ``previous``) signed the
    hand-over to ``public_key_hex``."""
    if key_id(previous_public_hex) != previous:
        return False
    message = rotation_message(previous, public_key_hex)
    return verify_signature(previous_public_hex, message, signature_hex)


def sign(private_key: Ed25519PrivateKey, message: bytes) -> str:
    """The key's signature over ``message``, as 128 lowercase hex digits."""
    return private_key.sign(message).hex()


def sign_checkpoint(private_key: Ed25519PrivateKey, seq: int, prev: str) -> str:
    """The signature a checkpoint record of ``seq`` linked to ``prev`` carries."""
    return sign(private_key, checkpoint_message(seq, prev))


def public_hex(private_key: Ed25519PrivateKey) -> str:
    """The private key's public half as 64 lowercase hex digits."""
    return private_key.public_key().public_bytes_raw().hex()


def public_key_from_hex(public_key_hex: str) -> Ed25519PublicKey:
    """The public key of 64 lowercase hex digits; SigningError naming the input otherwise."""
    try:
        return Ed25519PublicKey.from_public_bytes(_public_bytes(public_key_hex))
    except ValueError as error:
        if isinstance(error, SigningError):
            raise
        raise SigningError(
            f"public key {_shown(public_key_hex)} is not an Ed25519 public key ({error})"
        ) from error


def private_key_from_pem(pem: bytes, *, source: str) -> Ed25519PrivateKey:
    """The Ed25519 private key of an unencrypted PEM PKCS8 text; SigningError naming ``source``
    (the file) and what was expected otherwise."""
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as error:
        raise SigningError(
            f"{source}: not an unencrypted PEM PKCS8 private key ({error}); "
            "make one with `tablectl keys init`"
        ) from error
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(
            f"{source}: a {type(key).__name__}, expected an Ed25519 private key; "
            "make one with `tablectl keys init`"
        )
    return key


def private_key_pem(private_key: Ed25519PrivateKey) -> bytes:
    """The key as unencrypted PEM PKCS8, as ``tablectl keys init`` writes it."""
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def parse_public_text(text: str, *, source: str) -> str:
    """The public key hex of a ``table.pub`` text (64 hex digits, surrounding blanks
    allowed); SigningError naming ``source`` otherwise."""
    value = text.strip().lower()
    if not _PUBLIC_HEX.fullmatch(value):
        raise SigningError(
            f"{source}: expected an Ed25519 public key as 64 hex digits (as `tablectl keys "
            f"init` writes table.pub), found {_shown(text)}"
        )
    public_key_from_hex(value)
    return value


def _public_bytes(public_key_hex: str) -> bytes:
    if not _PUBLIC_HEX.fullmatch(public_key_hex):
        raise SigningError(
            f"public key {_shown(public_key_hex)} is not 64 lowercase hex digits "
            "(an Ed25519 public key's 32 bytes)"
        )
    return bytes.fromhex(public_key_hex)


def _shown(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 80 else text[:77] + "...")
