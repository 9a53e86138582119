"""The results table of bench/webpush/run.sh, from herald-bench webpush's JSON lines (throughput.jsonl, latency.jsonl).

Usage: table.py WORK PINNING REVISION NODE_VERSION LOAD_BEFORE LOAD_AFTER [FLAGGED CASE ...]
Exit status 2 when a run was flagged (an answer outside 2xx, a message not shown), else 0.
"""
import datetime
import json
import os
import statistics
import sys


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, pattern):
    return "—" if value is None else pattern.format(value)


def throughput_clean(r):
    return r["webPush"]["accepted"] == r["webPush"]["sent"] > 0 and r["apns"]["accepted"] == r["apns"]["sent"] > 0


def latency_clean(r):
    f = r["figures"]
    return (f["accepted"] == f["sent"] == f["shown"] == r["scheduled"] and f["lost"] == 0 and not f["notShown"]
            and f["duplicates"] == 0 and f["strays"] == 0)


def main():
    work, pinning, rev, node_version, load_before, load_after = sys.argv[1:7]
    flagged_cases = sys.argv[7:]
    throughput = lines(os.path.join(work, "throughput.jsonl"))
    latency_file = lines(os.path.join(work, "latency.jsonl"))
    latency = [r for r in latency_file if r["kind"] == "latency"]
    worker = [r for r in latency_file if r["kind"] == "service-worker"]
    flagged = [f"{case}: herald-bench flagged it (see its output)" for case in flagged_cases]

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"# Web push benchmark, {now}")
    print()
    print("The issue's figures: \"`bench/webpush`: accepted web pushes per second, durable, against `POST /3/device` in")
    print("the same run (goal ≥ 0.8: the server does not decrypt), and provider request → shown on the web app p99 at a")
    print("moderate rate with 1,000 web apps subscribed (goal < 50 ms, as for apps; the service worker's own Node time")
    print("reported apart).\"")
    print()
    print(f"A fresh `herald serve` (SQLite, synchronous=FULL, h2c only) per case. Pinning: {pinning}. herald {rev}, node {node_version}.")
    print(f"Load average before: {load_before}; after: {load_after}.")

    if throughput:
        t0 = throughput[0]
        print()
        print(f"## Accepted per second: web push against `POST /3/device`, same server, same run")
        print()
        print(f"{t0['webApps']:,} devices on the device link, each with one web app subscribed and the bench app registered;")
        print(f"{t0['pushes']:,} requests of each kind per run after a warm-up, {t0['concurrency']} in flight over")
        print(f"{t0['connections']} h2c connections of each kind. Web pushes: `POST /push/<id>`, `aes128gcm` bodies of {t0['bodyBytes']}")
        print(f"bytes encrypted beforehand, one VAPID `Authorization` reused. Reference: `POST /3/device/<token>` with a provider")
        print(f"token and a {t0['bodyBytes']}-byte alert. Only 2xx answers count; the order of the two kinds alternates by run.")
        print()
        print("| Run | First | Web push accepted/s | `POST /3/device` accepted/s | Ratio | Server µs/web push | Server µs/APNs push |")
        print("|---|---|---|---|---|---|---|")
        for index, r in enumerate(throughput, 1):
            clean = throughput_clean(r)
            if not clean:
                flagged.append(f"throughput run {index}: web push {r['webPush']['refused']} {r['webPush']['failures']}, "
                               f"APNs {r['apns']['refused']} {r['apns']['failures']}")
            rate = lambda o: o["accepted"] / o["seconds"] if o["seconds"] > 0 else 0
            print(f"| {index} | {r['first']} | {rate(r['webPush']):.0f} | {rate(r['apns']):.0f} | {fmt(r.get('ratio'), '{:.2f}')} | "
                  f"{fmt(r.get('webPushServerMicroseconds'), '{:.0f}')} | {fmt(r.get('apnsServerMicroseconds'), '{:.0f}')} |"
                  + ("" if clean else " ⚠"))
        kept = [r for r in throughput if throughput_clean(r)] or throughput
        web = med([r["webPush"]["accepted"] / r["webPush"]["seconds"] for r in kept])
        apns = med([r["apns"]["accepted"] / r["apns"]["seconds"] for r in kept])
        ratio = med([r.get("ratio") for r in kept])
        print(f"| **median** | | **{web:.0f}** | **{apns:.0f}** | **{fmt(ratio, '{:.2f}')}** | "
              f"{fmt(med([r.get('webPushServerMicroseconds') for r in kept]), '{:.0f}')} | "
              f"{fmt(med([r.get('apnsServerMicroseconds') for r in kept]), '{:.0f}')} |")
        print()
        verdict = "meets" if ratio is not None and ratio >= 0.8 else "misses"
        print(f"webpush/apns: {fmt(ratio, '{:.2f}')} (median of the runs' ratios; goal ≥ 0.8: {verdict} it)")

    if latency:
        l0 = latency[0]
        print()
        print("## Provider request → shown on the web app")
        print()
        print(f"{l0['webApps']:,} web apps subscribed (one per device, all in the bench process); declarative messages")
        print(f"(`{{\"web_push\":8030,\"notification\":{{\"title\":…,\"navigate\":…}}}}`) at {l0['rate']:.0f}/s for {l0['seconds']:.0f} s per run to")
        print("random web apps, encrypted beforehand. Each web app decrypts the message (RFC 8291), reads it, stamps it shown,")
        print("reports `decrypted` and `shown` and acknowledges it. Times from the provider's request, on herald-bench's clock.")
        print()
        print("| Run | Sent | Shown | p50 ms | p99 ms | max ms | 201 answer p99 ms | Server CPU (cores) |")
        print("|---|---|---|---|---|---|---|---|")
        for index, r in enumerate(latency, 1):
            f = r["figures"]
            clean = latency_clean(r)
            if not clean:
                flagged.append(f"latency run {index}: sent {f['sent']}/{r['scheduled']}, accepted {f['accepted']}, shown {f['shown']}, "
                               f"refused {f['refused']}, not shown {f['notShown']}, duplicates {f['duplicates']}, strays {f['strays']}")
            print(f"| {index} | {f['sent']:,} | {f['shown']:,} | {f['shownLatency']['p50']:.2f} | {f['shownLatency']['p99']:.2f} | "
                  f"{f['shownLatency']['max']:.2f} | {f['answerLatency']['p99']:.2f} | {fmt(r.get('serverCores'), '{:.2f}')} |"
                  + ("" if clean else " ⚠"))
        kept = [r for r in latency if latency_clean(r)] or latency
        p99 = med([r["figures"]["shownLatency"]["p99"] for r in kept])
        print(f"| **median** | | | **{med([r['figures']['shownLatency']['p50'] for r in kept]):.2f}** | **{p99:.2f}** | "
              f"**{med([r['figures']['shownLatency']['max'] for r in kept]):.2f}** | "
              f"{med([r['figures']['answerLatency']['p99'] for r in kept]):.2f} | {fmt(med([r.get('serverCores') for r in kept]), '{:.2f}')} |")
        print()
        print(f"shown p99: {p99:.2f} ms (median of the runs; goal < 50 ms: {'meets' if p99 < 50 else 'misses'} it)")

    if worker:
        w0 = worker[0]
        print()
        print("## The service worker's own time, apart")
        print()
        print(f"`{os.path.relpath(w0['script'], os.getcwd()) if os.path.isabs(w0['script']) else w0['script']}` in a `ServiceWorkerHost`"
              f" (node {node_version}, Herald's scope), started once, then {w0['pushes']} pushes one at a time, each showing one")
        print("notification. Node's time is the worker's own, from the event's dispatch until its `waitUntil` promises settle;")
        print("the round trip adds the pipe both ways. Not part of the latency above: declarative messages run no worker.")
        print()
        print("| Run | Start ms | Node p50 ms | Node p99 ms | Round trip p50 ms | Round trip p99 ms |")
        print("|---|---|---|---|---|---|")
        for index, r in enumerate(worker, 1):
            print(f"| {index} | {r['startMilliseconds']:.1f} | {r['worker']['p50']:.2f} | {r['worker']['p99']:.2f} | "
                  f"{r['roundTrip']['p50']:.2f} | {r['roundTrip']['p99']:.2f} |")
        print(f"| **median** | **{med([r['startMilliseconds'] for r in worker]):.1f}** | **{med([r['worker']['p50'] for r in worker]):.2f}** | "
              f"**{med([r['worker']['p99'] for r in worker]):.2f}** | {med([r['roundTrip']['p50'] for r in worker]):.2f} | "
              f"{med([r['roundTrip']['p99'] for r in worker]):.2f} |")

    if flagged:
        print()
        print("**Flagged** (marked ⚠, left out of the medians: a run with any answer outside 2xx, or a message not shown,")
        print("measures nothing):")
        for line in flagged:
            print(f"- {line}")
        sys.exit(2)


main()
