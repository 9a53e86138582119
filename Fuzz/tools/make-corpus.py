#!/usr/bin/env python3
"""Writes the seed corpora under Fuzz/Corpus/ (docs/fuzzing.md). Run from the repository root:

    python3 -m venv /tmp/corpus-venv && /tmp/corpus-venv/bin/pip install h2 cryptography
    /tmp/corpus-venv/bin/python Fuzz/tools/make-corpus.py

The HTTP/2 and HPACK inputs are what python-h2 (the library under aioapns, one of Herald's interop clients) writes;
the tokens are signed with the fuzz target's fixed key (Fuzz/FuzzJWT). The output is deterministic except for the
ECDSA signatures, which are random: rerun only to change the seeds.
"""
import base64
import json
import os
import shutil

import h2.config
import h2.connection
import hpack
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


def reset(target):
    shutil.rmtree(os.path.join(ROOT, target), ignore_errors=True)


# --- Payloads: JSON and .apns ----------------------------------------------------------------------------------
PAYLOADS = {
    "alert-string": {"aps": {"alert": "Hello"}},
    "alert-dict": {"aps": {"alert": {"title": "Order shipped", "subtitle": "#1234", "body": "Arrives Tuesday"}, "badge": 3, "sound": "default"}},
    "localized": {"aps": {"alert": {"title-loc-key": "GAME_INVITE_TITLE", "loc-key": "GAME_INVITE", "loc-args": ["Jenna", "Frank"]}}},
    "background": {"aps": {"content-available": 1}, "acme": {"sync": True}},
    "mutable": {"aps": {"alert": "Photo", "mutable-content": 1, "category": "PHOTO"}, "media-url": "https://example.com/p.jpg"},
    "critical-sound": {"aps": {"alert": "Fire", "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.75}}},
    "thread": {"aps": {"alert": "Reply", "thread-id": "chat-42", "relevance-score": 0.5, "interruption-level": "time-sensitive"}},
    "live-activity": {"aps": {"timestamp": 1790000000, "event": "update", "content-state": {"score": [2, 1], "period": "2nd"}, "stale-date": 1790003600}},
    "voip": {"caller": "+1 555 0100", "uuid": "7b0e6d6a-3d2a-4bde-9c9e-0d0b1e7f2a11", "video": False},
    "unicode": {"aps": {"alert": "Grüße — 你好 🎉 \u00e9\u0301"}},
    "numbers": {"n": [0, -0.0, 1e-7, 123456789012345, 1.5e300, -2.5, 3.14159]},
    "nested": {"a": {"b": {"c": {"d": [[[[{"e": None}]]]]}}}},
    "empty-aps": {"aps": {}},
    "badge-zero": {"aps": {"badge": 0}},
    "filter-criteria": {"aps": {"alert": "Focus", "filter-criteria": "work"}, "target-content-id": "inbox"},
}
RAW_JSON = {
    "escapes": '{"aps":{"alert":"line\\nbreak \\"quoted\\" \\\\ \\/ \\b\\f\\r\\t \\u00e9 \\ud83d\\ude00"}}',
    "whitespace": ' \t\r\n{ "aps" : { "alert" : "spaced" } } \n',
    "literals": '[true,false,null,0,-1,1.0e+2,1E-2]',
    "string": '"just a string"',
    "number": '-12.5e3',
    "empty-array": '[]',
    "empty-object": '{}',
    "duplicate-keys": '{"aps":{"alert":"a"},"aps":{"alert":"b"}}',
    "deep": '[' * 60 + ']' * 60,
    "big-string": json.dumps({"aps": {"alert": "x" * 2000}}),
}
reset("FuzzJSONPayload")
for name, payload in PAYLOADS.items():
    write("FuzzJSONPayload", name + ".json", json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
for name, text in RAW_JSON.items():
    write("FuzzJSONPayload", name + ".json", text)
write("FuzzJSONPayload", "unicode-escaped.json", json.dumps(PAYLOADS["unicode"], ensure_ascii=True))

reset("FuzzAPNSFile")
BUNDLE = "Simulator Target Bundle"
for index, (name, payload) in enumerate(PAYLOADS.items()):
    if name in ("voip", "numbers"):
        document = payload
    elif index % 3 == 0:
        document = {BUNDLE: "com.example.app", **payload}
    elif index % 3 == 1:
        document = {**payload, BUNDLE: "com.example.app"}
    else:
        items = list(payload.items())
        document = dict(items[:1] + [(BUNDLE, "com.example.app.widget")] + items[1:])
    write("FuzzAPNSFile", name + ".apns", json.dumps(document, indent=4, ensure_ascii=False) + "\n")
write("FuzzAPNSFile", "only-bundle.apns", '{"Simulator Target Bundle":"com.example.app"}')
write("FuzzAPNSFile", "bundle-escaped-key.apns", '{"Simulator\\u0020Target Bundle" : "com.example.app" , "aps":{"alert":"x"}}')
write("FuzzAPNSFile", "bundle-twice.apns", '{"Simulator Target Bundle":"a","aps":{"badge":1},"Simulator Target Bundle":"b"}')
write("FuzzAPNSFile", "bundle-not-string.apns", '{"Simulator Target Bundle":42,"aps":{}}')
write("FuzzAPNSFile", "bundle-nested-braces.apns", '{"aps":{"alert":"} { \\" ]"},"Simulator Target Bundle":"com.x","z":[{"a":"}"}]}')
write("FuzzAPNSFile", "xcode-template.apns", """{
    "Simulator Target Bundle": "com.example.MyApp",
    "aps": {
        "alert": {
            "title": "Push Notification",
            "subtitle": "Test",
            "body": "This is a test"
        },
        "badge": 1
    }
}
""")

# --- Provider tokens (ES256 JWT) ------------------------------------------------------------------------------
# The fixed scalar of Fuzz/FuzzJWT/FuzzJWT.swift's fuzzKey.
KEY = ec.derive_private_key(0x5EEDF0224E7A1D00C0FFEE0123456789ABCDEF, ec.SECP256R1())
OTHER = ec.derive_private_key(0x1234567, ec.SECP256R1())


def b64(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(header, claims, key=KEY, der=False, sign=True):
    signing_input = b64(header) + "." + b64(claims)
    if not sign:
        return signing_input + "." + b64(b"\0" * 64)
    signature = key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    if not der:
        r, s = utils.decode_dss_signature(signature)
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input + "." + b64(signature)


HEADER = '{"alg":"ES256","kid":"FUZZKEY001"}'
CLAIMS = '{"iss":"FUZZTEAM01","iat":1790000000}'
reset("FuzzJWT")
write("FuzzJWT", "valid", token(HEADER, CLAIMS))
write("FuzzJWT", "valid-der", token(HEADER, CLAIMS, der=True))
write("FuzzJWT", "valid-typ", token('{"alg":"ES256","typ":"JWT","kid":"FUZZKEY001"}', CLAIMS))
write("FuzzJWT", "iat-float", token(HEADER, '{"iss":"FUZZTEAM01","iat":1790000000.75}'))
write("FuzzJWT", "iat-string", token(HEADER, '{"iss":"FUZZTEAM01","iat":" 1790000000 "}'))
write("FuzzJWT", "expired", token(HEADER, '{"iss":"FUZZTEAM01","iat":1780000000}'))
write("FuzzJWT", "future", token(HEADER, '{"iss":"FUZZTEAM01","iat":1800000000}'))
write("FuzzJWT", "wrong-team", token(HEADER, '{"iss":"OTHERTEAM1","iat":1790000000}'))
write("FuzzJWT", "unknown-kid", token('{"alg":"ES256","kid":"UNKNOWN001"}', CLAIMS))
write("FuzzJWT", "wrong-key", token(HEADER, CLAIMS, key=OTHER))
write("FuzzJWT", "alg-none", token('{"alg":"none","kid":"FUZZKEY001"}', CLAIMS, sign=False))
write("FuzzJWT", "alg-hs256", token('{"alg":"HS256","kid":"FUZZKEY001"}', CLAIMS, sign=False))
write("FuzzJWT", "no-kid", token('{"alg":"ES256"}', CLAIMS))
write("FuzzJWT", "no-iss", token(HEADER, '{"iat":1790000000}'))
write("FuzzJWT", "no-iat", token(HEADER, '{"iss":"FUZZTEAM01"}'))
write("FuzzJWT", "extra-claims", token(HEADER, '{"iss":"FUZZTEAM01","iat":1790000000,"exp":1790003600,"aud":"apns"}'))
write("FuzzJWT", "padded", token(HEADER, CLAIMS).replace(".", "==.", 1))
write("FuzzJWT", "two-parts", b64(HEADER) + "." + b64(CLAIMS))
write("FuzzJWT", "four-parts", token(HEADER, CLAIMS) + ".AAAA")
write("FuzzJWT", "empty-signature", b64(HEADER) + "." + b64(CLAIMS) + ".")
write("FuzzJWT", "not-json", b64("not json") + "." + b64(CLAIMS) + "." + b64(b"\x30\x06\x02\x01\x01\x02\x01\x01"))
write("FuzzJWT", "header-array", token('["alg","ES256"]', CLAIMS))
write("FuzzJWT", "der-short", b64(HEADER) + "." + b64(CLAIMS) + "." + b64(b"\x30\x06\x02\x01\x01\x02\x01\x01"))
write("FuzzJWT", "unicode-kid", token('{"alg":"ES256","kid":"FUZZ\\u004bEY001"}', CLAIMS))
write("FuzzJWT", "bearer-twice", "bearer " + token(HEADER, CLAIMS))

# --- HPACK header blocks ----------------------------------------------------------------------------------------
# RFC 7541 Appendix C: C.3 (no Huffman) and C.4 (Huffman) request sequences, C.2 single representations.
RFC7541 = {
    "c2-1-literal-indexed": "400a637573746f6d2d6b65790d637573746f6d2d686561646572",
    "c2-2-literal-not-indexed": "040c2f73616d706c652f70617468",
    "c2-3-never-indexed": "100870617373776f726406736563726574",
    "c2-4-indexed": "82",
    "c3-1": "828684410f7777772e6578616d706c652e636f6d",
    "c3-2": "828684be58086e6f2d6361636865",
    "c3-3": "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565",
    "c4-1-huffman": "828684418cf1e3c2e5f23a6ba0ab90f4ff",
    "c4-2-huffman": "828684be5886a8eb10649cbf",
    "c4-3-huffman": "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf",
    "c6-1-response-huffman": "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c78f0b97c8e9ae82ae43d3",
    "size-update-then-field": "3fe11f82",
    "size-update-zero": "2082",
    "two-size-updates": "203fe11f82",
}
reset("FuzzHPACK")
for name, hexa in RFC7541.items():
    write("FuzzHPACK", name, bytes.fromhex(hexa))


def apns_headers(path_token="a" * 64, extra=()):
    return [
        (":method", "POST"),
        (":scheme", "https"),
        (":path", "/3/device/" + path_token),
        (":authority", "api.sandbox.push.apple.com"),
        ("authorization", "bearer " + token(HEADER, CLAIMS)),
        ("apns-topic", "com.example.app"),
        ("apns-push-type", "alert"),
        ("apns-priority", "10"),
        ("apns-expiration", "0"),
        ("content-type", "application/json"),
        ("content-length", "42"),
        *extra,
    ]


encoder = hpack.Encoder()
first = encoder.encode(apns_headers(), huffman=True)
second = encoder.encode(apns_headers(path_token="b" * 64, extra=[("apns-collapse-id", "score"), ("apns-id", "8c1f8a5d-3f52-4a0e-9a6b-0b4a2f1f0c11")]), huffman=True)
write("FuzzHPACK", "apns-request-1-huffman", first)
write("FuzzHPACK", "apns-request-2-huffman-indexed", second)
write("FuzzHPACK", "apns-request-plain", hpack.Encoder().encode(apns_headers(), huffman=False))
never = hpack.Encoder().encode([(":method", "POST"), (":path", "/3/device/" + "c" * 64), hpack.NeverIndexedHeaderTuple("authorization", "bearer x.y.z")], huffman=True)
write("FuzzHPACK", "authorization-never-indexed", never)
small = hpack.Encoder()
small.header_table_size = 256
write("FuzzHPACK", "table-resize-256", small.encode(apns_headers(extra=[("x-long", "v" * 200)]), huffman=True))
write("FuzzHPACK", "huffman-all-bytes", hpack.Encoder().encode([("x-bytes", bytes(range(256)))], huffman=True))
write("FuzzHPACK", "huffman-eos-padding", bytes.fromhex("0086") + b"\xf2\xb2\x4e\x67\x45\xff" + bytes.fromhex("00") )

# --- HTTP/2 connections, as a client writes them ---------------------------------------------------------------
reset("FuzzHTTP2Frames")


def client(settings=None):
    connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    connection.initiate_connection()
    if settings:
        connection.update_settings(settings)
    return connection


def request(connection, stream_id, body=b'{"aps":{"alert":"Hello"}}', end_headers=True, extra=()):
    headers = apns_headers(extra=extra)
    headers = [(k, str(len(body)) if k == "content-length" else v) for k, v in headers]
    connection.send_headers(stream_id, headers, end_stream=not body)
    if body:
        connection.send_data(stream_id, body, end_stream=True)


c = client()
write("FuzzHTTP2Frames", "preface-settings", c.data_to_send())
c = client()
request(c, 1)
write("FuzzHTTP2Frames", "one-request", c.data_to_send())
c = client()
for stream in (1, 3, 5):
    request(c, stream, extra=[("apns-collapse-id", f"c{stream}")])
write("FuzzHTTP2Frames", "three-requests-indexed", c.data_to_send())
c = client()
c.data_to_send()
c = client()
request(c, 1, body=b"")
write("FuzzHTTP2Frames", "headers-end-stream", c.data_to_send())
c = client()
request(c, 1)
c.ping(b"12345678")
c.increment_flow_control_window(65535)
c.reset_stream(1)
c.close_connection()
write("FuzzHTTP2Frames", "ping-window-rst-goaway", c.data_to_send())
c = client({h2.settings.SettingCodes.HEADER_TABLE_SIZE: 0, h2.settings.SettingCodes.ENABLE_PUSH: 0,
            h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20, h2.settings.SettingCodes.MAX_FRAME_SIZE: 1 << 15})
request(c, 1)
write("FuzzHTTP2Frames", "settings-many", c.data_to_send())
c = client()
c.send_headers(1, apns_headers(), end_stream=False)
c.send_data(1, b'{"aps":', end_stream=False)
c.send_data(1, b'{"alert":"x"}}', end_stream=True, pad_length=20)
write("FuzzHTTP2Frames", "data-padded-split", c.data_to_send())

# Hand-made frames: CONTINUATION, PRIORITY, padding and priority on HEADERS, an unknown type, SETTINGS ACK.
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


SETTINGS = frame(4, 0, 0, (3).to_bytes(2, "big") + (100).to_bytes(4, "big"))
block = hpack.Encoder().encode(apns_headers(), huffman=True)
third = len(block) // 3
write("FuzzHTTP2Frames", "headers-continuation",
      PREFACE + SETTINGS + frame(1, 0x1, 1, block[:third]) + frame(9, 0, 1, block[third:2 * third]) + frame(9, 0x4, 1, block[2 * third:]))
write("FuzzHTTP2Frames", "headers-padded-priority",
      PREFACE + SETTINGS + frame(1, 0x4 | 0x8 | 0x20, 1, bytes([4]) + bytes([0, 0, 0, 0, 15]) + block + b"\0" * 4) + frame(0, 1, 1, b"{}"))
write("FuzzHTTP2Frames", "priority-unknown-ack",
      PREFACE + SETTINGS + frame(4, 1, 0) + frame(2, 0, 3, bytes([0, 0, 0, 1, 16])) + frame(0xA, 0, 0, b"origin") + frame(6, 1, 0, b"8bytes!!"))
write("FuzzHTTP2Frames", "window-update-zero", PREFACE + SETTINGS + frame(8, 0, 1, b"\0\0\0\0") + frame(8, 0, 0, b"\0\0\0\1"))
write("FuzzHTTP2Frames", "goaway-debug", PREFACE + SETTINGS + frame(7, 0, 0, b"\0\0\0\0\0\0\0\2debug data"))
write("FuzzHTTP2Frames", "bad-preface", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
write("FuzzHTTP2Frames", "push-promise", PREFACE + SETTINGS + frame(5, 4, 1, b"\0\0\0\2\x82"))
write("FuzzHTTP2Frames", "frame-too-large", PREFACE + SETTINGS + b"\x00\x40\x01\x00\x00\x00\x00\x00\x01")
write("FuzzHTTP2Frames", "settings-invalid", PREFACE + frame(4, 0, 0, (2).to_bytes(2, "big") + (2).to_bytes(4, "big")))
write("FuzzHTTP2Frames", "interleaved-continuation", PREFACE + SETTINGS + frame(1, 0, 1, block[:10]) + frame(0, 0, 1, b"x"))
write("FuzzHTTP2Frames", "rst-stream-short", PREFACE + SETTINGS + frame(3, 0, 1, b"\0\0"))


def literal(name, value):
    """A literal field without indexing, no Huffman (RFC 7541 §6.2.2), for values an encoder would not send."""
    return b"\0" + bytes([len(name)]) + name + bytes([len(value)]) + value


# content-length (RFC 9113 §8.1.1): larger than the body, smaller, across two DATA frames, not a number, twice.
PLAIN = b"".join(literal(k.encode(), v.encode()) for k, v in [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + "a" * 64),
                                                             ("apns-topic", "com.example.app")])
BODY = b'{"aps":{"alert":"content-length says 93!"}}'
for name, lengths, pieces in [("content-length-larger", ["93"], [BODY]), ("content-length-smaller", ["5"], [BODY]),
                              ("content-length-two-data", ["10"], [b"1234", b"5678"]), ("content-length-not-a-number", ["4x"], [BODY]),
                              ("content-length-twice", ["0", "1"], [])]:
    headers = PLAIN + b"".join(literal(b"content-length", length.encode()) for length in lengths)
    data = b"".join(frame(0, 0x1 if index == len(pieces) - 1 else 0, 1, piece) for index, piece in enumerate(pieces))
    write("FuzzHTTP2Frames", name, PREFACE + SETTINGS + frame(1, 0x4 | (0 if pieces else 0x1), 1, headers) + data)
