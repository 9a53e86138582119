#!/usr/bin/env python3
"""A site's server that sends web pushes with pywebpush (PyPI), unmodified — pointed at Herald.

Nothing here knows about Herald: the server sends to the endpoint of the subscription its page gave it, as it would to
Apple's web.push.apple.com. The walk-through is in docs/web-push.md, "A worked example".

  python3 server.py keys vapid.pem
      Makes the site's VAPID key pair, keeps the private key in vapid.pem and prints the public key (base64url): the
      page's applicationServerKey, and `herald device --web-app ORIGIN --vapid-public-key KEY`'s.

  python3 server.py send --subscription sub.json --vapid-key vapid.pem --subject mailto:ops@example.com \
      --title "Order shipped" [--body TEXT] [--url /orders/42] [--tag order-42] [--ttl 3600] [--topic order-42] \
      [--urgency normal]
      Sends one push: the JSON message Examples/WebPush/sw.js shows. sub.json is the subscription's toJSON(), what
      `herald device --web-app` prints. Prints the push service's answer as one line: the status, then the Location
      (201) or the reason and Herald's explanation. Exit 0 on 201, 1 otherwise.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys


def make_keys(path: str) -> int:
    from cryptography.hazmat.primitives import serialization
    from py_vapid import Vapid

    vapid = Vapid()
    vapid.generate_keys()
    vapid.save_key(path)
    public = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    print(base64.urlsafe_b64encode(public).rstrip(b"=").decode())
    return 0


def send(args: argparse.Namespace) -> int:
    from pywebpush import WebPushException, webpush

    try:
        with open(args.subscription, encoding="utf-8") as file:
            subscription = json.load(file)
    except (OSError, ValueError) as error:
        print(f"server.py: cannot read the subscription {args.subscription}: {error}", file=sys.stderr)
        return 1
    message = {"title": args.title, "body": args.body, "url": args.url}
    if args.tag:
        message["tag"] = args.tag
    headers = {"Urgency": args.urgency}
    if args.topic:
        headers["Topic"] = args.topic
    try:
        response = webpush(
            subscription_info=subscription,
            data=json.dumps(message),
            vapid_private_key=args.vapid_key,
            vapid_claims={"sub": args.subject},
            content_encoding="aes128gcm",
            ttl=args.ttl,
            headers=headers,
            timeout=15,
        )
    except WebPushException as error:
        response = error.response
        if response is None:
            print(f"no answer: {str(error).splitlines()[0]}", file=sys.stderr)
            return 1
    if response.status_code == 201:
        print(f"201 {response.headers.get('Location', '')}")
        return 0
    try:
        reason = response.json().get("reason", "")
    except ValueError:
        reason = response.text.strip()
    explanation = response.headers.get("herald-explanation", "")
    print(f"{response.status_code} {reason} {explanation}".rstrip())
    return 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="A site's server: VAPID keys and web pushes with pywebpush.")
    commands = parser.add_subparsers(dest="command", required=True)
    keys = commands.add_parser("keys", help="make the VAPID key pair; print the public key")
    keys.add_argument("path", help="where to keep the private key (PEM)")
    push = commands.add_parser("send", help="send one push")
    push.add_argument("--subscription", required=True, help="the subscription's toJSON(), a file")
    push.add_argument("--vapid-key", required=True, help="the VAPID private key (PEM)")
    push.add_argument("--subject", required=True, help="the VAPID sub: mailto:you@yourdomain or https://yourdomain")
    push.add_argument("--title", required=True)
    push.add_argument("--body", default="")
    push.add_argument("--url", default="/")
    push.add_argument("--tag")
    push.add_argument("--ttl", type=int, default=3600, help="seconds the push service keeps it (pywebpush's default is 0)")
    push.add_argument("--topic", help="a newer push with the same topic replaces this one while it waits")
    push.add_argument("--urgency", default="normal", choices=["very-low", "low", "normal", "high"])
    args = parser.parse_args(argv)
    if args.command == "keys":
        return make_keys(args.path)
    return send(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
