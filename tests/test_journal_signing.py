"""controller/journal/signing.py: the record contract of docs/journal.md, Signed checkpoints, byte
for byte (the floor's checks build the same messages), and the checks' answers to what is not a key
or a signature."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.journal import signing

PREV = "ab" * 32


@pytest.mark.fast
def test_the_messages_are_the_contracts() -> None:
    assert signing.checkpoint_message(42, PREV) == b"tablectl checkpoint v1\n42\n" + PREV.encode()
    assert (
        signing.rotation_message("0123456789abcdef", "cd" * 32)
        == b"tablectl key rotation v1\n0123456789abcdef\n" + ("cd" * 32).encode()
    )


@pytest.mark.fast
def test_a_checkpoint_signature_holds_only_for_its_own_seq_prev_and_key() -> None:
    key = Ed25519PrivateKey.generate()
    public = signing.public_hex(key)
    assert signing.key_id(public) == hashlib.sha256(bytes.fromhex(public)).hexdigest()[:16]
    signature = signing.sign_checkpoint(key, 7, PREV)
    assert len(signature) == 128
    assert signing.verify_checkpoint(public, 7, PREV, signature)
    assert not signing.verify_checkpoint(public, 8, PREV, signature)
    assert not signing.verify_checkpoint(public, 7, "cd" * 32, signature)
    other = signing.public_hex(Ed25519PrivateKey.generate())
    assert not signing.verify_checkpoint(other, 7, PREV, signature)
    assert not signing.verify_checkpoint(public, 7, PREV, "zz")
    assert not signing.verify_checkpoint(public, 7, PREV, signature.upper())


@pytest.mark.fast
def test_a_rotation_holds_only_signed_by_the_previous_key_under_its_own_id() -> None:
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    old_public, new_public = signing.public_hex(old), signing.public_hex(new)
    old_id = signing.key_id(old_public)
    signature = signing.sign(old, signing.rotation_message(old_id, new_public))
    assert signing.verify_rotation(old_public, old_id, new_public, signature)
    by_new = signing.sign(new, signing.rotation_message(old_id, new_public))
    assert not signing.verify_rotation(old_public, old_id, new_public, by_new)
    assert not signing.verify_rotation(old_public, "0" * 16, new_public, signature)


@pytest.mark.fast
def test_what_is_not_a_key_is_named() -> None:
    with pytest.raises(signing.SigningError, match="not 64 lowercase hex digits"):
        signing.key_id("AB" * 32)
    with pytest.raises(signing.SigningError, match=r"table\.pub: expected an Ed25519 public key"):
        signing.parse_public_text("nope\n", source="table.pub")
    assert signing.parse_public_text(" " + "ab" * 32 + "\n", source="x") == "ab" * 32
    with pytest.raises(signing.SigningError, match=r"k\.pem: not an unencrypted PEM PKCS8"):
        signing.private_key_from_pem(b"junk", source="k.pem")
    key = Ed25519PrivateKey.generate()
    again = signing.private_key_from_pem(signing.private_key_pem(key), source="k.pem")
    assert signing.public_hex(again) == signing.public_hex(key)
