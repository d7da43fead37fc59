"""The analysis board's graph of a 60-move game (the Takizawa line), timed through
the API: `python3 docs/benchmarks/analysis_graph.py BINARY PORT` starts `BINARY serve` on
127.0.0.1:PORT with a fresh database, asks /api/analysis/graph until complete, five times,
and prints the median and the first scores. Alternate two builds to compare them."""
import json, subprocess, sys, time, urllib.request, tempfile, os, statistics
binary, port = sys.argv[1], sys.argv[2]
game = "f5d6c3d3c4f4f6f3e6e7d7c5b6d8c6c7d2b5a5a6a7g5e3b4c8g6g4c2e8d1f7e2g3h4f1e1f2g1b1f8g8b3h3b2h5b7a3a4a1a2c1h2h1g2b8a8g7h8h7h6"
d = tempfile.mkdtemp()
p = subprocess.Popen([binary, "serve", "--addr", f"127.0.0.1:{port}", "--db", os.path.join(d, "x.db")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz"); break
        except Exception: time.sleep(0.1)
    def post(body):
        r = urllib.request.Request(f"http://127.0.0.1:{port}/api/analysis/graph", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        return json.load(urllib.request.urlopen(r))
    runs = []
    for run in range(5):
        start = time.time(); scores = []
        while True:
            part = post({"position": game, "from": len(scores)})
            scores += part["scores"]
            if part["complete"]: break
        runs.append(time.time() - start)
    print(binary, "graph of 60 moves: median %.2f s" % statistics.median(runs), [round(r,2) for r in runs])
    print(" ".join("%.1f" % s["score"] for s in scores[:16]))
finally:
    p.terminate(); p.wait()
