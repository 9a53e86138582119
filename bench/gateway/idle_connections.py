#!/usr/bin/env python3
"""Hold N idle HTTP/2 provider connections open and report a server's memory while they are held.

Each connection does what a provider does before its first push: TCP (or TLS with ALPN h2),
the client preface, an empty SETTINGS frame, and a SETTINGS ACK / PING ACK for whatever the
server sends. Then it sits idle for --hold seconds. While they are all held, the script reads
VmRSS and VmHWM of --pid from /proc and prints one JSON line:

  {"requested": 1000, "open": 1000, "closed_early": 0, "rss_before_kib": …, "rss_held_kib": …,
   "hwm_held_kib": …, "open_seconds": …}

Standard library only. Used by bench/gateway/run.sh; it only connects to the address it is given.
"""

import argparse
import asyncio
import json
import ssl
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SETTINGS, PING = 0x4, 0x6
ACK = 0x1


def frame(kind: int, flags: int, payload: bytes = b"", stream: int = 0) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def memory(pid: int) -> dict:
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])  # kB
    return values


class Idle:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.open = 0
        self.closed_early = 0
        self.errors: dict = {}
        self.release = asyncio.Event()

    async def one(self, gate: asyncio.Semaphore, context) -> None:
        async with gate:
            for attempt in range(3):
                try:
                    reader, writer = await asyncio.wait_for(
                        asyncio.open_connection(self.args.host, self.args.port, ssl=context),
                        timeout=10,
                    )
                    break
                except (OSError, asyncio.TimeoutError) as error:
                    if attempt == 2:
                        name = type(error).__name__
                        self.errors[name] = self.errors.get(name, 0) + 1
                        return
                    await asyncio.sleep(0.2)
            writer.write(PREFACE + frame(SETTINGS, 0))
            await writer.drain()
            self.open += 1
        reader_task = asyncio.ensure_future(self.serve_frames(reader, writer))
        await self.release.wait()
        reader_task.cancel()
        writer.close()

    async def serve_frames(self, reader, writer) -> None:
        try:
            while True:
                header = await reader.readexactly(9)
                length = int.from_bytes(header[:3], "big")
                kind, flags = header[3], header[4]
                payload = await reader.readexactly(length) if length else b""
                if kind == SETTINGS and not flags & ACK:
                    writer.write(frame(SETTINGS, ACK))
                elif kind == PING and not flags & ACK:
                    writer.write(frame(PING, ACK, payload))
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            self.open -= 1
            self.closed_early += 1
        except asyncio.CancelledError:
            pass

    async def run(self) -> dict:
        context = None
        if self.args.tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE  # load test only: the peer is our own server on loopback
            context.set_alpn_protocols(["h2"])
        before = memory(self.args.pid)
        gate = asyncio.Semaphore(64)  # stay under listen backlogs
        start = time.monotonic()
        tasks = [asyncio.ensure_future(self.one(gate, context)) for _ in range(self.args.count)]
        while self.open + self.closed_early + sum(self.errors.values()) < self.args.count:
            await asyncio.sleep(0.05)
            if time.monotonic() - start > 60:
                break
        opened_in = time.monotonic() - start
        await asyncio.sleep(self.args.hold)
        held = memory(self.args.pid)
        self.release.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {
            "requested": self.args.count,
            "open": self.open,
            "closed_early": self.closed_early,
            "errors": self.errors,
            "rss_before_kib": before.get("VmRSS"),
            "rss_held_kib": held.get("VmRSS"),
            "hwm_held_kib": held.get("VmHWM"),
            "open_seconds": round(opened_in, 2),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls", action="store_true", help="TLS with ALPN h2 (certificate not verified)")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=10.0, help="seconds to hold all connections idle")
    parser.add_argument("--pid", type=int, required=True, help="server process whose memory is read")
    args = parser.parse_args()
    result = asyncio.run(Idle(args).run())
    print(json.dumps(result), flush=True)
    return 0 if result["open"] == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
