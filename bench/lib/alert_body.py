"""Writes the benchmarks' 200-byte alert body (the gateway's and the delivery's h2load runs) to the path given."""
import json
import sys

doc = {"aps": {"alert": {"title": "Benchmark", "body": ""}, "sound": "default"}, "id": 1}
doc["aps"]["alert"]["body"] = "x" * (200 - len(json.dumps(doc, separators=(",", ":"))))
text = json.dumps(doc, separators=(",", ":"))
assert len(text) == 200, len(text)
with open(sys.argv[1], "w") as out:
    out.write(text)
