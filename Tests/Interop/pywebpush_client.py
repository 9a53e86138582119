#!/usr/bin/env python3
"""Send one web push through pywebpush, a real third-party web push library, unmodified.

Herald's interop tests run this against an endpoint they serve, then hand the
request it sent to Herald's web push protocol layer: a site's server written with
pywebpush must be read by Herald exactly as it is by a push service.

The script calls `pywebpush.webpush(...)` as a site's server does: the
subscription JSON its page sent, the VAPID private key (a PEM file), the claims,
the data, the TTL and extra headers, content encoding `aes128gcm`. It changes
nothing in the library.

Usage:
  pywebpush_client.py --subscription JSON --vapid-key KEY.pem --sub SUBJECT \
      [--aud ORIGIN] [--exp SECONDS] (--data TEXT | --data-length N) [--ttl SECONDS] \
      [--header Name:Value ...] [--timeout S]

Output: one JSON line:
  {"status": int, "body": str, "location": str|null}
Exit 0 when the endpoint answered (whatever its status); otherwise exit 1 with
one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, NoReturn


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Send one web push through pywebpush.")
    parser.add_argument("--subscription", required=True, help='PushSubscription JSON: {"endpoint":…,"keys":{"p256dh":…,"auth":…}}')
    parser.add_argument("--vapid-key", required=True, help="the VAPID private key, a PEM file")
    parser.add_argument("--sub", required=True, help="the VAPID sub claim (mailto: or https:)")
    parser.add_argument("--aud", help="the VAPID aud claim (default: pywebpush's, the endpoint's origin)")
    parser.add_argument("--exp", type=int, help="the VAPID exp claim (default: pywebpush's, 12 hours ahead)")
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--data", help="the message, as text")
    data.add_argument("--data-length", type=int, help="a message of this many bytes ('x' repeated)")
    parser.add_argument("--ttl", type=int, default=0, help="TTL in seconds (pywebpush's default: 0)")
    parser.add_argument("--header", action="append", default=[], help="an extra header, Name:Value (repeatable)")
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for the answer")
    args = parser.parse_args(argv)
    try:
        args.subscription = json.loads(args.subscription)
    except json.JSONDecodeError as error:
        parser.error(f"--subscription is not JSON: {error}")
    headers: Dict[str, str] = {}
    for header in args.header:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            parser.error(f"--header {header!r} is not Name:Value")
        headers[name.strip()] = value.strip()
    args.headers = headers
    if args.data_length is not None:
        if args.data_length < 1:
            parser.error("--data-length must be at least 1")
        args.data = "x" * args.data_length
    return args


def fail(message: str) -> NoReturn:
    print(f"pywebpush_client: {message}", file=sys.stderr)
    sys.exit(1)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    try:
        from pywebpush import WebPushException, webpush
    except ImportError as error:
        fail(f"pywebpush is not installed in {sys.executable}: {error}")

    claims: Dict[str, Any] = {"sub": args.sub}
    if args.aud is not None:
        claims["aud"] = args.aud
    if args.exp is not None:
        claims["exp"] = args.exp

    try:
        response = webpush(
            subscription_info=args.subscription,
            data=args.data,
            vapid_private_key=args.vapid_key,
            vapid_claims=claims,
            content_encoding="aes128gcm",
            ttl=args.ttl,
            headers=args.headers,
            timeout=args.timeout,
        )
    except WebPushException as error:
        # pywebpush raises on any status above 202 and keeps the answer on the exception.
        response = error.response
        if response is None:
            fail(f"no answer: {str(error).splitlines()[0]}")
    except Exception as error:  # a connection refused, a timeout, a key pywebpush cannot read
        fail(f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")

    answer = {"status": response.status_code, "body": response.text, "location": response.headers.get("Location")}
    print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
