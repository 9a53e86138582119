#!/usr/bin/env python3
"""Header blocks across many streams: what one provider connection can make `herald serve` hold.

One authenticated h2c connection opens STREAMS streams, each with a header block of BLOCK octets (literal fields
without indexing, in a HEADERS frame and CONTINUATION frames of 16 KiB) that is far above the 8,000 octets Herald
advertises as SETTINGS_MAX_HEADER_LIST_SIZE. It prints the server's resident memory (VmRSS) before and after, its
peak (VmHWM), and what the server answered: 431s, resets, GOAWAY. Raw frames, no HTTP/2 library: the point is to
send what a library would refuse to.

    python3 bench/limits/header_blocks.py --port 2195 --pid PID --jwt "$(herald keys token)" --token TOKEN

bench/limits/README.md says how to run it against a fresh `herald serve`.
"""
import argparse
import socket
import struct
import threading
import time


def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def integer(value, prefix, flags=0):
    limit = (1 << prefix) - 1
    if value < limit:
        return bytes([flags | value])
    out = [flags | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def literal(name, value):
    """A literal field without indexing, new name, no Huffman (RFC 7541 §6.2.2)."""
    return b"\x00" + integer(len(name), 7) + name + integer(len(value), 7) + value


def request_block(path, jwt, topic):
    fields = [(b":method", b"POST"), (b":scheme", b"http"), (b":path", path.encode()), (b":authority", b"localhost"),
              (b"authorization", b"bearer " + jwt.encode()), (b"apns-topic", topic.encode()), (b"apns-push-type", b"alert")]
    return b"".join(literal(n, v) for n, v in fields)


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
    return values


class Reader(threading.Thread):
    """Reads and counts the server's frames, so that the server is never blocked on a client that does not read."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock = sock
        self.counts = {}
        self.goaway = None
        self.closed = False

    def run(self):
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= 9:
                    length = int.from_bytes(buffer[:3], "big")
                    if len(buffer) < 9 + length:
                        break
                    kind, payload = buffer[3], buffer[9:9 + length]
                    name = {0: "DATA", 1: "HEADERS", 3: "RST_STREAM", 4: "SETTINGS", 6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE"}.get(kind, str(kind))
                    self.counts[name] = self.counts.get(name, 0) + 1
                    if kind == 7:
                        self.goaway = int.from_bytes(payload[4:8], "big")
                    buffer = buffer[9 + length:]
        except OSError:
            pass
        self.closed = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="herald serve's h2c port")
    parser.add_argument("--pid", type=int, required=True, help="herald serve's process id (for /proc/PID/status)")
    parser.add_argument("--jwt", required=True, help="a provider token (herald keys token)")
    parser.add_argument("--token", required=True, help="a device token of the topic's app")
    parser.add_argument("--topic", default="com.example.app")
    parser.add_argument("--streams", type=int, default=999)
    parser.add_argument("--block", type=int, default=60 * 1024, help="octets of each stream's header block")
    parser.add_argument("--open", action="store_true",
                        help="instead: leave each stream open with the most it may hold (a header list just under 8,000 "
                             "octets in a header Herald keeps, and 5,120 octets of body), the worst case per stream")
    args = parser.parse_args()

    before = memory(args.pid)
    sock = socket.create_connection((args.host, args.port))
    reader = Reader(sock)
    reader.start()
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") + frame(4, 1, 0, b""))
    # Stream 1 authenticates the connection (a valid push), which raises the stream limit (spec §A.1).
    body = b'{"aps":{"alert":"header blocks"}}'
    sock.sendall(frame(1, 4, 1, request_block(f"/3/device/{args.token}", args.jwt, args.topic)) + frame(0, 1, 1, body))
    time.sleep(0.5)
    pad = literal(b"x-pad", b"p" * 1000)
    base = request_block(f"/3/device/{args.token}", args.jwt, args.topic)
    block = base + pad * ((args.block - len(base)) // len(pad))
    if args.open:
        # apns-collapse-id is one of the headers Herald keeps (its value is checked only once the request is whole).
        block = base + literal(b"apns-collapse-id", b"c" * (8000 - len(base) - 400))
    started = time.monotonic()
    sent = 0
    try:
        for index in range(args.streams):
            stream = 3 + 2 * index
            pieces = [block[offset:offset + 16384] for offset in range(0, len(block), 16384)]
            out = b""
            for number, piece in enumerate(pieces):
                last = number == len(pieces) - 1
                flags = (0x4 if last else 0) | (0x1 if number == 0 and not args.open else 0)
                out += frame(1 if number == 0 else 9, flags, stream, piece)
            if args.open:
                out += frame(0, 0, stream, b"b" * 5120)
            sock.sendall(out)
            sent += 1
    except OSError as error:
        print(f"send stopped after {sent} streams: {error}")
    elapsed = time.monotonic() - started
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not reader.closed and reader.counts.get("HEADERS", 0) < sent + 1:
        if args.open and time.monotonic() > deadline - 8:
            break  # the streams stay open: nothing more will be answered
        time.sleep(0.05)
    after = memory(args.pid)
    sock.close()
    print(f"streams sent: {sent} of {args.streams}, block {len(block)} octets, {elapsed:.1f} s")
    print(f"server frames: {dict(sorted(reader.counts.items()))}, GOAWAY code: {reader.goaway}")
    print(f"VmRSS before {before['VmRSS']:.1f} MB, after {after['VmRSS']:.1f} MB: {after['VmRSS'] - before['VmRSS']:+.1f} MB; "
          f"VmHWM {before['VmHWM']:.1f} -> {after['VmHWM']:.1f} MB")


if __name__ == "__main__":
    main()
