#!/usr/bin/env python3
"""make validate: every stopo eval model beside BookSim2's saturation
throughput on dragonfly:p=2,a=4,h=2,g=9 (../shared/validation/).

For each simulated case (traffic, routing, buffer depth) the models run on
the same flows file under the matching routing: min -> `min`, ugal-l ->
`ugal:intra=local` (BookSim's UGAL-L keeps intra-group traffic minimal),
ugal-g -> `ugal:intra=global`.  A model's prediction of the per-node
saturation rate is the smallest per-node sending rate it gives (for the
concurrent-flow models alpha times a node's demand), capped at 1 (a node's
injection link) for uniform traffic.  The simulated value is the midpoint
of BookSim's stable / first unstable bracket; the error is relative to it.

usage: validate.py STOPO VALIDATION_DIR [--csv]"""
import csv
import json
import os
import subprocess
import sys
import tempfile

TOPO = "dragonfly:p=2,a=4,h=2,g=9"
ROUTING = {"min": "min", "ugal-l": "ugal:intra=local",
           "ugal-g": "ugal:intra=global"}


def uniform_flows(path):
    with open(path, "w") as f:
        for s in range(72):
            for d in range(72):
                if s != d:
                    f.write(f"{s} {d} 1\n")


def read_cases(path):
    """The CSV's flows_file of the uniform rows holds an unquoted comma:
    the last six fields and the first are fixed, the rest is the file."""
    with open(path) as f:
        head = f.readline().strip().split(",")
        for line in f:
            v = line.strip().split(",")
            if len(v) < len(head):
                continue
            v = [v[0], ",".join(v[1:len(v) - 6])] + v[len(v) - 6:]
            yield dict(zip(head, v))


def predict(stopo, routing, flows):
    out = subprocess.run(
        [stopo, "eval", "--topo", TOPO, "--routing", routing, "--flows",
         flows, "--model", "all", "--json"],
        check=True, capture_output=True, text=True).stdout
    res = {}
    for m in json.loads(out)["models"]:
        if m["status"] != "optimal":
            res[m["model"]] = None
            continue
        res[m["model"]] = m["nodes"]["min"]
    return res


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    stopo, vdir = sys.argv[1], sys.argv[2]
    as_csv = "--csv" in sys.argv[3:]
    tmp = tempfile.mkdtemp()
    uni = os.path.join(tmp, "uniform.txt")
    uniform_flows(uni)
    rows, models, cache = [], [], {}
    for r in read_cases(os.path.join(vdir, "booksim_dfly_2_4_2_9.csv")):
        if True:
            flows = (uni if r["traffic"] == "uniform" else
                     os.path.join(vdir, r["flows_file"]))
            key = (flows, r["routing"])
            if key not in cache:
                cache[key] = predict(stopo, ROUTING[r["routing"]], flows)
            pred = cache[key]
            if r["traffic"] == "uniform":
                pred = {k: (min(1.0, v) if v is not None else None)
                        for k, v in pred.items()}
            for m in pred:
                if m not in models:
                    models.append(m)
            sim = (float(r["sat_rate_stable"]) +
                   float(r["first_unstable"])) / 2
            rows.append((r, sim, pred))
    os.remove(uni)
    os.rmdir(tmp)
    name = {"randperm": "perm", "bad_dragon": "bad_dragon",
            "uniform": "uniform"}
    if as_csv:
        w = csv.writer(sys.stdout)
        w.writerow(["traffic", "flows", "routing", "buffer", "booksim"] +
                   [m for m in models] + [m + "_err" for m in models])
        for r, sim, pred in rows:
            w.writerow([r["traffic"], r["flows_file"], r["routing"],
                        r["buffer_flits"], f"{sim:.6f}"] +
                       [f"{pred[m]:.6f}" if pred.get(m) is not None
                        else "" for m in models] +
                       [f"{(pred[m] - sim) / sim:.4f}"
                        if pred.get(m) is not None else ""
                        for m in models])
        return
    print(f"{TOPO}: per-node saturation rate, BookSim2 (midpoint of the "
          "stable/unstable bracket) and each model, relative error in %")
    head = f"{'case':<22} {'routing':<7} {'buf':>4} {'booksim':>8}"
    for m in models:
        head += f" {m:>15}"
    print(head)
    err = {m: {} for m in models}
    for r, sim, pred in rows:
        case = name[r["traffic"]]
        if r["traffic"] == "randperm":
            case += " " + r["flows_file"].split("_")[-1].split(".")[0]
        line = f"{case:<22} {r['routing']:<7} {r['buffer_flits']:>4} " \
               f"{sim:8.4f}"
        for m in models:
            v = pred.get(m)
            if v is None:
                line += f" {'-':>15}"
                continue
            e = (v - sim) / sim * 100
            err[m].setdefault(r["routing"], []).append(abs(e))
            line += f" {v:7.4f} {e:+6.1f}%"
        print(line)
    print()
    print("mean |relative error| per routing, %:")
    for routing in ("min", "ugal-l", "ugal-g"):
        line = f"  {routing:<7}"
        for m in models:
            v = err[m].get(routing, [])
            line += f" {m}={sum(v) / len(v):.1f}" if v else f" {m}=-"
        print(line)


if __name__ == "__main__":
    main()
