#!/usr/bin/env python3
"""Writes the seed corpus of FuzzVAPID under Fuzz/Corpus/FuzzVAPID/ (docs/fuzzing.md). Run from the repository root:

    python3 -m venv /tmp/corpus-venv && /tmp/corpus-venv/bin/pip install cryptography
    /tmp/corpus-venv/bin/python Fuzz/tools/make-vapid-corpus.py

Each seed is an `Authorization` value on its first line, then `Name: value` headers (Fuzz/FuzzVAPID/FuzzVAPID.swift).
The JWTs are signed with the target's fixed key for its origin, 12 hours after its "now", so that mutations of the
valid ones reach the signature and the claims; each other seed breaks one rule of docs/web-push.md. The output is
deterministic except for the ECDSA signatures, which are random: rerun only to change the seeds.
"""
import base64
import json
import os
import shutil

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

TARGET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus", "FuzzVAPID")
NOW = 1_790_000_000
ORIGIN = "https://web.push.apple.com"


def key(scalar):
    return ec.derive_private_key(int.from_bytes(scalar.rjust(32, b"\0"), "big"), ec.SECP256R1())


FUZZ_KEY = key(b"herald-fuzz-vapid")
OTHER_KEY = key(b"another-server")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public(private_key, compressed=False):
    form = serialization.PublicFormat.CompressedPoint if compressed else serialization.PublicFormat.UncompressedPoint
    return private_key.public_key().public_bytes(serialization.Encoding.X962, form)


def token(claims=None, header=None, signer=FUZZ_KEY, der=False, **overrides):
    header = header or {"typ": "JWT", "alg": "ES256"}
    if claims is None:
        claims = {"aud": ORIGIN, "exp": NOW + 12 * 3600, "sub": "mailto:ops@example.com"}
        claims.update(overrides)
    text = lambda value: value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    signing_input = b64(text(header).encode()) + "." + b64(text(claims).encode())
    signature = signer.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    if not der:
        r, s = utils.decode_dss_signature(signature)
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input + "." + b64(signature)


K = b64(public(FUZZ_KEY))


def vapid(t=None, k=K):
    return f"vapid t={t or token()}, k={k}"


SEEDS = {
    # Accepted, in the forms libraries write.
    "valid": vapid(),
    "valid-py-vapid": f"vapid t={token()},k={K}",
    "valid-quoted-reversed": f'VAPID k="{K}", t="{token()}"',
    "valid-headers": vapid() + "\nTTL: 3600\nUrgency: high\nTopic: scores\nContent-Encoding: aes128gcm",
    "valid-exp-float": vapid(token(exp=NOW + 3600.5)),
    "valid-https-subject": vapid(token(sub="https://example.com/contact")),
    "legacy-webpush": f"WebPush {token()}\nCrypto-Key: dh={b64(public(OTHER_KEY))};p256ecdsa={K}",
    # Apple's rules.
    "sub-localhost": vapid(token(sub="mailto:dev@localhost")),
    "sub-space": vapid(token(sub="mailto: ops@example.com")),
    "sub-angle-brackets": vapid(token(sub="mailto:<ops@example.com>")),
    "sub-not-url": vapid(token(sub="ops@example.com")),
    "sub-mailto-slashes": vapid(token(sub="mailto://ops@example.com")),
    "aud-other": vapid(token(aud="https://fcm.googleapis.com")),
    "aud-slash": vapid(token(aud=ORIGIN + "/")),
    "exp-past": vapid(token(exp=NOW - 3600)),
    "exp-too-far": vapid(token(exp=NOW + 2 * 86400)),
    "exp-string": vapid(token(exp=str(NOW + 3600))),
    "no-sub": vapid(token(claims={"aud": ORIGIN, "exp": NOW + 3600})),
    "wrong-private-key": vapid(token(signer=OTHER_KEY)),
    "other-k": vapid(token(signer=OTHER_KEY), b64(public(OTHER_KEY))),
    "der-signature": vapid(token(der=True)),
    "alg-hs256": vapid(token(header={"typ": "JWT", "alg": "HS256"})),
    "alg-none": vapid(token(header={"alg": "none"})),
    # The header's form.
    "k-compressed": vapid(k=b64(public(FUZZ_KEY, compressed=True))),
    "k-off-curve": vapid(k=b64(b"\x04" + b"\x01" * 64)),
    "t-twice": f"vapid t={token()}, t={token()}, k={K}",
    "no-k": f"vapid t={token()}",
    "bearer": f"Bearer {token()}",
    "claims-not-json": vapid(token(claims="not json")),
    # The request's headers.
    "request-bad-headers": vapid() + "\nTTL: -1\nUrgency: urgent\nTopic: a b\nContent-Encoding: aesgcm",
    "request-duplicate-ttl": vapid() + "\nTTL: 60\nttl: 60",
}


def main():
    shutil.rmtree(TARGET, ignore_errors=True)
    os.makedirs(TARGET)
    for name, text in SEEDS.items():
        with open(os.path.join(TARGET, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
