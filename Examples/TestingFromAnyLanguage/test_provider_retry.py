"""A provider's retry logic tested against Herald from Python (docs/testing-from-any-language.md).

The provider code under test is `send_with_retry`: it sends a push over HTTP/2 and tries again after a
`429`, `500` or `503`, as Apple asks. The tests make Herald fail on purpose with a fault rule, then ask the
inspection API what was delivered, waiting on the server instead of sleeping.

They put back what they change, so that they can run against the server you develop with: each fault rule a test
adds is removed after it (`fault` fixture), and nothing is reset: a test finds its own notifications by the
`apns-unique-id` it was answered with, or by a marker in its payload, so the server's history is kept.

Run it against a running `herald serve` and `herald device --app com.example.app`:

    HERALD_WEB=http://127.0.0.1:2196 HERALD_H2C=127.0.0.1:2195 HERALD_JWT=$(herald keys token) \
        python -m pytest -q Examples/TestingFromAnyLanguage/test_provider_retry.py

Needs `pytest` and `h2` (`pip install pytest h2`); nothing else beyond Python's standard library.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import h2.config
import h2.connection
import h2.events
import pytest

WEB = os.environ.get("HERALD_WEB", "http://127.0.0.1:2196")
H2C = os.environ.get("HERALD_H2C", "127.0.0.1:2195")
JWT = os.environ.get("HERALD_JWT", "")
TOPIC = os.environ.get("HERALD_TOPIC", "com.example.app")


# --- The provider code under test -------------------------------------------------------------


def send(token: str, payload: Dict[str, Any]) -> Tuple[int, Dict[str, str], bytes]:
    """One push over h2c (prior knowledge): the status, the answer's headers and body."""
    host, port = H2C.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        body = json.dumps(payload).encode()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", H2C),
            (":path", f"/3/device/{token}"),
            ("authorization", f"bearer {JWT}"),
            ("apns-topic", TOPIC),
            ("apns-push-type", "alert"),
        ]
        connection.send_headers(1, headers)
        connection.send_data(1, body, end_stream=True)
        sock.sendall(connection.data_to_send())
        status, answer, data = 0, {}, b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection before answering")
            for event in connection.receive_data(chunk):
                if isinstance(event, h2.events.ResponseReceived):
                    answer = {name.decode(): value.decode() for name, value in event.headers}
                    status = int(answer[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    data += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                    return status, answer, data
            sock.sendall(connection.data_to_send())


def send_with_retry(token: str, payload: Dict[str, Any], attempts: int = 4) -> List[Tuple[int, Dict[str, str]]]:
    """Sends until an answer that is not worth retrying; returns every answer, the last one final."""
    answers = []
    for attempt in range(attempts):
        status, headers, _ = send(token, payload)
        answers.append((status, headers))
        if status not in (429, 500, 503):
            break
        time.sleep(0.05 * 2**attempt)
    return answers


# --- Herald's web port: reset, faults, wait -----------------------------------------------------


def api(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Tuple[int, Dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{WEB}/api/v1/{path}", data=data, method=method)
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=40) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.fixture
def fault() -> Iterator[Callable[[Dict[str, Any]], Dict[str, Any]]]:
    """Adds fault rules for one test and removes them after it, whatever the test did."""
    added: List[str] = []

    def add(rule: Dict[str, Any]) -> Dict[str, Any]:
        status, entry = api("POST", "faults", rule)
        assert status == 201, entry
        added.append(entry["id"])
        return entry

    yield add
    for rule_id in added:
        status, _ = api("DELETE", f"faults/{urllib.parse.quote(rule_id, safe='')}")
        assert status in (204, 404)


@pytest.fixture
def marker() -> str:
    """Text only this test's payloads carry: its notifications are found by it, among any others the server has."""
    return uuid.uuid4().hex


@pytest.fixture
def token() -> str:
    """The device token of the connected device's app for TOPIC."""
    status, listed = api("GET", "devices")
    assert status == 200
    tokens = [t["token"] for d in listed["devices"] if d["online"] for t in d["tokens"] if t["bundleID"] == TOPIC]
    assert tokens, f"no connected device has {TOPIC}: run herald device --app {TOPIC}"
    return tokens[0]


# --- The tests ----------------------------------------------------------------------------------


def test_retries_after_service_unavailable_and_is_delivered(token: str, fault: Callable[[Dict[str, Any]], Dict[str, Any]]) -> None:
    rule = fault({"match": {"token": token}, "status": 503, "reason": "ServiceUnavailable", "count": 1})
    assert rule["remaining"] == 1

    answers = send_with_retry(token, {"aps": {"alert": "Your order shipped"}})

    assert [status for status, _ in answers] == [503, 200]
    failed, delivered = answers[0][1], answers[1][1]
    # The failed attempt has a `fault` event naming the rule; nothing of it was stored.
    status, trace = api("GET", f"notifications/{failed['apns-id']}/trace")
    assert status == 200 and [event["kind"] for event in trace["trace"]] == ["fault"]
    assert trace["trace"][0]["detail"]["rule"] == rule["id"]
    # The retry is delivered: wait for it on the server, found by the apns-unique-id it was answered with.
    status, waited = api("GET", f"notifications/wait?uniqueID={delivered['apns-unique-id']}&state=delivered&timeoutMs=10000")
    assert status == 200
    assert waited["notifications"][0]["apnsID"] == delivered["apns-id"]
    assert waited["notifications"][0]["payload"]["aps"]["alert"] == "Your order shipped"


def test_gives_up_after_a_persistent_outage(token: str, fault: Callable[[Dict[str, Any]], Dict[str, Any]], marker: str) -> None:
    fault({"scenario": "apns-outage", "seconds": 60})

    answers = send_with_retry(token, {"aps": {"alert": f"Never arrives {marker}"}}, attempts=3)

    assert [status for status, _ in answers] == [503, 503, 503]
    status, waited = api("GET", f"notifications/wait?token={token}&text={marker}&timeoutMs=300")
    assert status == 408 and waited["matched"] == 0


def test_a_token_that_turns_unregistered_is_not_retried(token: str, fault: Callable[[Dict[str, Any]], Dict[str, Any]]) -> None:
    rule = fault({"scenario": "app-uninstalled", "token": token})

    answers = send_with_retry(token, {"aps": {"alert": "Too late"}})

    assert [status for status, _ in answers] == [410]
    status, headers, body = send(token, {"aps": {"alert": "again"}})
    assert json.loads(body)["reason"] == "Unregistered"
    # Herald names the rule that answered (a header APNs clients ignore).
    assert headers["herald-fault-rule"] == rule["id"]
