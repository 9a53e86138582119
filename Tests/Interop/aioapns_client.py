#!/usr/bin/env python3
"""Send one alert per device token through aioapns, a real third-party APNs client.

Herald's interop tests run this against a live `herald serve` to prove that an
unmodified PyPI client works once only its host, port and trust root change.

The package itself is not modified. It hard-codes Apple's host and port as class
attributes of its connection protocol (`APNS_SERVER`, `APNS_PORT`) and picks the
class in the pool's constructor, so after building the client we swap in a
subclass with our host and port. The trust root goes in through the
`ssl_context` argument that aioapns already accepts.

Usage:
  aioapns_client.py --host H --port P --ca CA.pem --topic T \
      (--p8 KEY.p8 --key-id K --team-id T | --cert C.pem --key C-key.pem) \
      --token HEX [--token HEX ...] [--payload JSON] [--push-type T] [--timeout S] [--alpn h2]

Output: one JSON line per token:
  {"token": ..., "status": int, "reason": str|null, "apns_id": str|null, "timestamp": int|null,
   "connection": int}
`connection` numbers the TCP connections this run opened (1, 2, …): a server that keeps
the connection open across answers, as APNs does, shows 1 on every line.
Exit 0 when every send got an HTTP answer (whatever its status); otherwise exit 1
with one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import ssl
import sys
import tempfile
from typing import Any, Dict, List, NoReturn, Optional

DEFAULT_PAYLOAD = {"aps": {"alert": {"title": "Herald interop", "body": "Hello from aioapns"}}}


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Send alerts through aioapns to an APNs-compatible server.")
    parser.add_argument("--host", required=True, help="server host or IP (must match the server certificate)")
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--ca", required=True, help="PEM file with the CA that signed the server certificate")
    parser.add_argument("--topic", required=True, help="apns-topic (bundle ID)")
    parser.add_argument("--p8", help="token auth: the .p8 signing key")
    parser.add_argument("--key-id", help="token auth: the key ID (JWT kid)")
    parser.add_argument("--team-id", help="token auth: the team ID (JWT iss)")
    parser.add_argument("--cert", help="certificate auth: the client certificate (PEM)")
    parser.add_argument("--key", help="certificate auth: the client private key (PEM)")
    parser.add_argument("--token", action="append", required=True, help="device token (hex); repeatable")
    parser.add_argument("--payload", help="JSON payload (default: a small alert)")
    parser.add_argument(
        "--push-type",
        default="alert",
        choices=["alert", "background", "voip", "liveactivity"],
        help="apns-push-type, through aioapns' PushType (default: alert)",
    )
    parser.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for each answer")
    parser.add_argument(
        "--alpn",
        action="append",
        default=[],
        help="offer this ALPN protocol (repeatable). Default none: aioapns itself offers no ALPN",
    )
    parser.add_argument("--sandbox", action="store_true", help="use aioapns' sandbox pool (only changes the default host)")
    parser.add_argument("--verbose", action="store_true", help="show aioapns' own log lines on stderr")
    args = parser.parse_args(argv)

    token_auth = any(v is not None for v in (args.p8, args.key_id, args.team_id))
    cert_auth = any(v is not None for v in (args.cert, args.key))
    if token_auth == cert_auth:
        parser.error("give either --p8/--key-id/--team-id (token auth) or --cert/--key (certificate auth)")
    if token_auth and None in (args.p8, args.key_id, args.team_id):
        parser.error("token auth needs all of --p8, --key-id and --team-id")
    if cert_auth and args.cert is None:
        parser.error("certificate auth needs --cert (and --key unless the key is in the same file)")
    if args.payload is not None:
        try:
            args.payload = json.loads(args.payload)
        except json.JSONDecodeError as error:
            parser.error(f"--payload is not JSON: {error}")
    else:
        args.payload = DEFAULT_PAYLOAD
    return args


def fail(message: str) -> NoReturn:
    print(f"aioapns_client: {message}", file=sys.stderr)
    sys.exit(1)


def point_at(client: Any, host: str, port: int, carried_by: Dict[str, int]) -> None:
    """Redirect an aioapns client's pool to host:port, leaving the package untouched.

    The subclass also numbers the TCP connections (1, 2, …) and records in
    `carried_by` which one carried each notification, so a caller can see a server
    that drops the connection after an answer (aioapns then silently reconnects).
    """
    base = client.pool.protocol_class
    opened = [0]

    class Redirected(base):  # type: ignore[misc, valid-type]
        APNS_SERVER = host
        APNS_PORT = port

        def connection_made(self, transport: Any) -> None:
            opened[0] += 1
            self.herald_connection_number = opened[0]
            super().connection_made(transport)

        async def send_notification(self, request: Any) -> Any:
            carried_by[request.notification_id] = self.herald_connection_number
            return await super().send_notification(request)

    client.pool.protocol_class = Redirected


class LastError(logging.Handler):
    """Keeps the last error aioapns (or asyncio, on its behalf) logged, for the one-line failure."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.message: Optional[str] = None

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage().splitlines()[0]
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        if "Failed to send after" not in text:
            self.message = text


LAST_ERROR = LastError()


def make_ssl_context(ca: str, alpn: List[str]) -> ssl.SSLContext:
    # The same defaults aioapns uses (ssl.create_default_context), trusting only our CA.
    context = ssl.create_default_context(cafile=ca)
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


async def send_all(args: argparse.Namespace) -> int:
    from aioapns import APNs, NotificationRequest, PushType

    context = make_ssl_context(args.ca, args.alpn)
    combined: Optional[str] = None
    if args.p8 is not None:
        with open(args.p8, "r", encoding="utf-8") as f:
            key_pem = f.read()
        client = APNs(
            key=key_pem,
            key_id=args.key_id,
            team_id=args.team_id,
            topic=args.topic,
            use_sandbox=args.sandbox,
            ssl_context=context,
            max_connection_attempts=2,
        )
    else:
        # aioapns loads the client identity with load_cert_chain(cert_file): one file holding
        # both certificate and key. Join them into a private temporary file.
        cert_file = args.cert
        if args.key is not None:
            fd, combined = tempfile.mkstemp(prefix="aioapns-identity-", suffix=".pem")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                for part in (args.cert, args.key):
                    with open(part, "r", encoding="utf-8") as f:
                        text = f.read()
                    out.write(text if text.endswith("\n") else text + "\n")
            cert_file = combined
        try:
            client = APNs(
                client_cert=cert_file,
                topic=args.topic,
                use_sandbox=args.sandbox,
                ssl_context=context,
                max_connection_attempts=2,
            )
        finally:
            if combined is not None:
                os.unlink(combined)

    async def quiet_errors(request: Any, result: Any) -> None:
        # Non-200 answers are data here, printed on stdout; aioapns would otherwise log them.
        return None

    client.err_func = quiet_errors
    carried_by: Dict[str, int] = {}
    point_at(client, args.host, args.port, carried_by)

    failures: List[str] = []
    try:
        # One at a time, in order: deterministic output, and no reliance on how many
        # streams the server allows before the first authenticated request (A.1).
        for token in args.token:
            request = NotificationRequest(
                device_token=token,
                message=args.payload,
                push_type=PushType(args.push_type),
            )
            try:
                result = await asyncio.wait_for(client.send_notification(request), timeout=args.timeout)
            except asyncio.TimeoutError:
                failures.append(f"{token[:16]}…: no answer within {args.timeout:g}s")
                continue
            except Exception as error:  # aioapns raises ConnectionError / MaxAttemptsExceeded / ssl errors
                detail = f"{type(error).__name__}: {error}".rstrip(": ")
                if LAST_ERROR.message:
                    detail += f" (last error: {LAST_ERROR.message})"
                failures.append(f"{token[:16]}…: {detail}")
                continue
            line: Dict[str, Any] = {
                "token": token,
                "status": int(result.status),
                "reason": result.description or None,
                "apns_id": result.notification_id or None,
                "timestamp": int(result.timestamp) if result.timestamp is not None else None,
                "connection": carried_by.get(request.notification_id),
            }
            print(json.dumps(line), flush=True)
    finally:
        client.pool.close()
        await asyncio.sleep(0)  # let the transports close before the loop ends

    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        fail(f"{len(failures)} of {len(args.token)} sends got no HTTP answer: {failures[0]}{more}")
    return 0


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.CRITICAL, stream=sys.stderr)
    for name in ("aioapns", "asyncio"):
        logging.getLogger(name).addHandler(LAST_ERROR)
        if not args.verbose:
            logging.getLogger(name).setLevel(logging.ERROR)
            logging.getLogger(name).propagate = False
    try:
        import aioapns  # noqa: F401
    except ImportError as error:
        fail(f"cannot import aioapns ({error}); install it: pip install aioapns==4.0")
    for path in [args.ca, args.p8, args.cert, args.key]:
        if path is not None and not os.path.isfile(path):
            fail(f"no such file: {path}")
    try:
        return asyncio.run(send_all(args))
    except ssl.SSLError as error:
        fail(f"TLS: {error}")
    except (OSError, ValueError) as error:
        fail(f"{type(error).__name__}: {error}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
