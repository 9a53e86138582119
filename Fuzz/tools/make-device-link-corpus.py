#!/usr/bin/env python3
"""Writes the seed corpus of FuzzDeviceLinkFrames under Fuzz/Corpus/ (docs/fuzzing.md). Run from the repository root:

    python3 Fuzz/tools/make-device-link-corpus.py

One file per frame type of docs/device-link.md, both directions, as the docs show them (with some optional members
left out or set), a few frames that test the reader's edges, and a few WebSocket frame scripts for the assembler
(a 0xFF byte, the limits, then frames: Fuzz/FuzzDeviceLinkFrames/WebSocketFragments.swift). Standard library only;
the output is deterministic.
"""
import json
import os
import shutil

TARGET = "FuzzDeviceLinkFrames"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus", TARGET)

DEVICE = "0d7f6c1e-5a0b-4d8e-9f43-7c2a1b3e4d5f"
SECRET = "9c1f" + "0123456789abcdef" * 3 + "a1b2c3d4e5f6"
TOKEN = "5f1c" + "00112233445566778899aabbccddeeff" + "0a1b2c3d4e5f6a7b8c9d0e1f2a3b"
ACTIVITY_TOKEN = "9a0c" + "ffeeddccbbaa99887766554433221100" + "f0e1d2c3b4a5968778695a4b3c2d"
APNS_ID = "8f0e2c2a-1b4e-4d2a-9c53-2f1a0f6b7e01"

CLIENT = {
    "hello-device": {"type": "hello", "device": DEVICE, "secret": SECRET},
    "hello-enrol": {"type": "hello", "enrol": "Kitchen iPad"},
    "register": {"type": "register", "id": "r1", "bundleID": "com.example.app", "environment": "sandbox"},
    "register-default-environment": {"type": "register", "bundleID": "com.example.app"},
    "unregister": {"type": "unregister", "id": "r2", "bundleID": "com.example.app", "environment": "production"},
    "activity-token": {"type": "activity-token", "id": "a1", "bundleID": "com.example.app", "environment": "sandbox",
                       "kind": "push-to-start", "activityType": "DeliveryAttributes", "token": ACTIVITY_TOKEN},
    "activity-token-activity": {"type": "activity-token", "bundleID": "com.example.app", "kind": "activity",
                                "activityType": "ScoreAttributes", "token": ACTIVITY_TOKEN.upper()},
    "retire-activity-token": {"type": "retire-activity-token", "id": "a2", "token": ACTIVITY_TOKEN},
    "retire-activity-token-no-id": {"type": "retire-activity-token", "token": ACTIVITY_TOKEN[:16]},
    "subscribe-channel": {"type": "subscribe-channel", "id": "c1", "bundleID": "com.example.app", "environment": "sandbox",
                          "channel": "dHN0LXNyY2gtY2hubA=="},
    "unsubscribe-channel": {"type": "unsubscribe-channel", "bundleID": "com.example.app", "channel": "dHN0LXNyY2gtY2hubA=="},
    "ack": {"type": "ack", "apnsID": APNS_ID},
    "report": {"type": "report", "apnsID": APNS_ID, "event": "action", "detail": {"action": "REPLY", "text": "on my way"}},
    "report-displayed": {"type": "report", "apnsID": APNS_ID.upper(), "event": "displayed"},
    "screen": {"type": "screen", "screen": {"name": "Kitchen iPad", "capturedAt": 1700000000.123, "apps": [
        {"bundleID": "com.example.app", "state": "foreground", "badge": 3, "deviceToken": TOKEN,
         "delivered": [{"identifier": APNS_ID, "title": "Hi", "thread": "chat-42"}]}]}},
    "interacted": {"type": "interacted", "id": "console-7"},
    "interacted-error": {"type": "interacted", "id": "console-8", "error": "no delivered notification with identifier 'x'"},
}

SERVER = {
    "welcome": {"type": "welcome", "device": DEVICE, "name": "Kitchen iPad"},
    "welcome-enrolled": {"type": "welcome", "device": DEVICE, "name": "Kitchen iPad", "secret": SECRET},
    "registered": {"type": "registered", "id": "r1", "bundleID": "com.example.app", "environment": "sandbox",
                   "token": TOKEN, "new": True},
    "unregistered": {"type": "unregistered", "id": None, "bundleID": "com.example.app", "environment": "sandbox",
                     "token": TOKEN, "at": 1700000000123},
    "activity-token-registered": {"type": "activity-token-registered", "id": "a1", "token": ACTIVITY_TOKEN, "new": False},
    "activity-token-retired": {"type": "activity-token-retired", "id": "a2", "token": ACTIVITY_TOKEN, "at": 1700000000123},
    "channel-subscribed": {"type": "channel-subscribed", "id": "c1", "channel": "dHN0LXNyY2gtY2hubA==", "new": True},
    "channel-unsubscribed": {"type": "channel-unsubscribed", "id": None, "channel": "dHN0LXNyY2gtY2hubA=="},
    "broadcast": {"type": "broadcast", "channel": "dHN0LXNyY2gtY2hubA==", "bundleID": "com.example.app", "environment": "sandbox",
                  "requestID": APNS_ID, "priority": 10, "expiration": 0, "acceptedAt": 1700000000123,
                  "payload": {"aps": {"event": "update", "timestamp": 1700000000, "content-state": {"minutes": 5}}}},
    "notification": {"type": "notification", "apnsID": APNS_ID, "token": TOKEN, "bundleID": "com.example.app",
                     "topic": "com.example.app", "pushType": "alert", "priority": 10, "expiration": None,
                     "collapseID": None, "acceptedAt": 1700000000123, "attempt": 1,
                     "payload": {"aps": {"alert": {"title": "Hi", "body": "Hello"}}}},
    "notification-voip-retry": {"type": "notification", "apnsID": APNS_ID.upper(), "token": TOKEN,
                                "bundleID": "com.example.app", "topic": "com.example.app.voip", "pushType": "voip",
                                "priority": 5, "expiration": 0, "collapseID": "call", "acceptedAt": 1700000000123,
                                "attempt": 3, "extensionTimeout": True, "payload": {"caller": "+1 555 0100"}},
    "interact": {"type": "interact", "id": "console-7", "bundleID": "com.example.app", "kind": "action",
                 "identifier": APNS_ID, "action": "REPLY", "text": "on my way"},
    "interact-set-state": {"type": "interact", "id": "console-9", "bundleID": "com.example.app", "kind": "setState",
                           "state": "background"},
    "error": {"type": "error", "code": "malformed-frame", "message": "the frame is not valid JSON", "id": "r1",
              "apnsID": None},
    "error-device-offline": {"type": "error", "code": "device-offline", "message": "offline until 12:00", "id": None,
                             "apnsID": None, "retryAfterMs": 30000},
}

# Frames at the reader's edges, as text: escaped member names, duplicates (the last counts), whitespace, unknown
# members and types, numbers written as doubles.
EDGES = {
    "edge-escaped-names": '{"type":"repor\\u0074","apnsID":"' + APNS_ID + '","event":"dropped","det\\u0061il":{"why":"duplicate"}}',
    "edge-duplicate-payload": '{"type":"notification","apnsID":"' + APNS_ID + '","token":"' + TOKEN + '","bundleID":"a",'
    '"topic":"a","pushType":"alert","priority":10,"acceptedAt":1.7e12,"attempt":1,"payload":[],"payload":{"aps":{}}}',
    "edge-whitespace": ' \r\n{ "type" : "screen" ,\t"screen" : { "apps" : [ ] } }\n',
    "edge-unknown-members": '{"type":"ack","apnsID":"' + APNS_ID + '","later":{"x":[1,2,3]},"flag":true}',
    "edge-unknown-type": '{"type":"goodbye","id":"x1","apnsID":"' + APNS_ID + '"}',
    "edge-unicode": '{"type":"hello","enrol":"K\\u00fcche \xf0\x9f\x8d\xb3 \\ud83d\\ude00"}',
    "edge-error-limits": '{"type":"error","code":"internal","retryAfterMs":-8999999999999999,"message":null}',
    # Found by reading JSONObjectReader and confirmed with the target: Int.min trapped in abs() (fixed; a unit test keeps it).
    "edge-integer-min": '{"type":"activity-token-retired","id":"a2","token":"9a0cffeeddccbbaa99887766554433221100","at":-9223372036854775808}',
}

# Assembler scripts: 0xFF, the size limit (0-255), the fragment limit (1 + byte % 8), then frames (header: opcode
# in the low 4 bits, 0x80 fin, 0x40 masked; a length byte; the data).
TEXT, CONTINUATION, BINARY, CLOSE, PING, PONG, FIN, MASKED = 0x1, 0x0, 0x2, 0x8, 0x9, 0xA, 0x80, 0x40


def frame(header, data=b""):
    return bytes([header, len(data)]) + data


SCRIPTS = {
    "ws-fragments": bytes([0xFF, 200, 7]) + frame(TEXT | MASKED, b'{"type":') + frame(PING | FIN, b"p")
    + frame(CONTINUATION, b'"ack","apnsID":') + frame(CONTINUATION | FIN | MASKED, ('"' + APNS_ID + '"}').encode()),
    "ws-too-large": bytes([0xFF, 16, 7]) + frame(TEXT, b'{"type":"screen",') + frame(CONTINUATION | FIN, b'"screen":{}}')
    + frame(TEXT | FIN, b"{}"),
    "ws-violations": bytes([0xFF, 64, 1]) + frame(CONTINUATION | FIN, b"x") + frame(TEXT, b"a") + frame(TEXT, b"b")
    + frame(CONTINUATION, b"") + frame(BINARY | FIN, b"\x00\x01") + frame(0x3 | FIN) + frame(PONG | FIN)
    + frame(CLOSE | FIN, b"\x03\xe8bye"),
}


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)

    def write(name, data):
        with open(os.path.join(ROOT, name), "wb") as f:
            f.write(data.encode("latin-1" if name.startswith("edge-") else "utf-8") if isinstance(data, str) else data)

    for prefix, frames in (("client-", CLIENT), ("server-", SERVER)):
        for name, message in frames.items():
            write(prefix + name + ".json", json.dumps(message, ensure_ascii=False, separators=(",", ":")))
    for name, text in EDGES.items():
        write(name + ".json", text)
    for name, script in SCRIPTS.items():
        write(name, script)


main()
