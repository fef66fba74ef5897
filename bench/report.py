#!/usr/bin/env python3
"""Turns nn-bench's Google Benchmark JSON into the table of docs/benchmarks.md.

    python3 bench/report.py build/bench.json [more.json ...]

Rows are workloads x thread counts; times are the min and median over the
repetitions (ms). "vs libtorch" is libtorch's median over nn's (above 1: nn
is faster). "% peak" puts each median against the measured roofline of the
same thread count: FLOP/s over the FMA peak, or bytes/s over the STREAM triad
bandwidth for the memory-bound W6 (the faster of the triads with plain and
with non-temporal stores: plain stores also read each written line, which
STREAM does not count). A second table puts nn's pipeline
ablations (nn_nofuse, nn_nofuse_nofold: nn-optimize with stages switched
off) against the full pipeline, and a third nn's rows run with the kernels
capped to AVX2 (NN_MAX_ISA, a second run that `make bench` adds on AVX-512
CPUs) against the same rows on the CPU's own ISA.
"""
import json
import sys
from collections import defaultdict


def main(paths):
    data = {"benchmarks": []}
    for path in paths:  # later files add rows (e.g. a separate roofline run)
        with open(path) as f:
            data["benchmarks"] += json.load(f)["benchmarks"]
    runs = defaultdict(dict)  # (name) -> {aggregate: row}
    errors = {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if name.endswith("/real_time"):  # UseRealTime() suffix
            name = name[: -len("/real_time")]
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if b.get("run_type") == "aggregate":
            runs[name][b["aggregate_name"]] = b
        else:  # no repetitions: the single run is min and median
            runs[name].setdefault("min", b)
            runs[name].setdefault("median", b)

    def ms(row):
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[row["time_unit"]]
        return row["real_time"] * scale

    peaks = {}  # (kind, threads) -> rate per second
    for name, aggs in runs.items():
        if not name.startswith("Roofline/") or "min" not in aggs:
            continue
        row = aggs["min"]
        t = int(row.get("threads", 1))
        # Over several runs keep the best: a loaded machine only lowers it.
        if "fma_peak" in name:
            rate = row["flop"] / (ms(row) / 1e3)
            peaks[("flop", t)] = max(rate, peaks.get(("flop", t), 0))
            peaks[("isa", t)] = name.split("/")[1].replace("fma_peak_", "")
        elif "stream_triad" in name:  # plain and non-temporal stores
            rate = row["bytes"] / (ms(row) / 1e3)
            kind = "bytes_nt" if "stream_triad_nt" in name else "bytes_plain"
            peaks[(kind, t)] = max(rate, peaks.get((kind, t), 0))
            peaks[("bytes", t)] = max(rate, peaks.get(("bytes", t), 0))

    workloads = sorted({n.split("/")[0] for n in list(runs) + list(errors)
                        if not n.startswith("Roofline/")})
    # W6 has two hand loops: plain stores ("hand") and non-temporal stores
    # ("hand_nt"); the anchor column shows the faster.
    # The zoo rows (Z*) have PyTorch's traced model run op by op
    # ("libtorch") and frozen ("libtorch_frozen").
    impls = ["nn", "libtorch", "libtorch_frozen", "onednn", "hand", "hand_nt"]

    def cell(name):
        if name in errors:
            return None, None
        aggs = runs.get(name)
        if not aggs or "min" not in aggs:
            return None, None
        return ms(aggs["min"]), ms(aggs["median"])

    print("| workload | thr | nn min / med (ms) | libtorch min / med | oneDNN, hand or frozen min / med "
          "| libtorch / nn | best anchor / nn | nn % peak | libtorch % peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for w in workloads:
        for t in (1, 2):
            got = {i: cell(f"{w}/{i}/t{t}") for i in impls}
            if all(v[0] is None for v in got.values()) and not any(
                    f"{w}/{i}/t{t}" in errors for i in impls):
                continue
            any_row = next((runs[f"{w}/{i}/t{t}"]["median"] for i in impls
                            if f"{w}/{i}/t{t}" in runs
                            and "median" in runs[f"{w}/{i}/t{t}"]), None)

            def fmt(v):
                return "—" if v[0] is None else f"{v[0]:.3f} / {v[1]:.3f}"

            def pct(v):
                if v[1] is None or any_row is None:
                    return "—"
                if any_row.get("bytes", 0) > 0:
                    peak = peaks.get(("bytes", t))
                    work = any_row["bytes"]
                    unit = "BW"
                else:
                    peak = peaks.get(("flop", t))
                    work = any_row.get("flop", 0)
                    unit = ""
                if not peak or not work:
                    return "—"
                return f"{100 * work / (v[1] / 1e3) / peak:.0f}%{(' ' + unit) if unit else ''}"

            anchors = [(k, got[k]) for k in ("libtorch_frozen", "onednn", "hand", "hand_nt")
                       if got[k][1] is not None]
            other_key, other = min(anchors, key=lambda a: a[1][1],
                                   default=(None, (None, None)))
            other_name = {"libtorch_frozen": "TorchScript frozen",
                          "onednn": "oneDNN", "hand": "hand",
                          "hand_nt": "hand (nt stores)", None: ""}[other_key]
            nn = got["nn"]
            ratio = "—" if nn[1] is None or got["libtorch"][1] is None else \
                f"{got['libtorch'][1] / nn[1]:.2f}x"
            best = [v[1] for k, v in got.items() if k != "nn" and v[1] is not None]
            ratio_best = "—" if nn[1] is None or not best else f"{min(best) / nn[1]:.2f}x"
            print(f"| {w} | {t} | {fmt(nn)} | {fmt(got['libtorch'])} | "
                  f"{(other_name + ' ') if other_name else ''}{fmt(other)} | {ratio} | {ratio_best} "
                  f"| {pct(nn)} | {pct(got['libtorch'])} |")
            for i in impls:
                key = f"{w}/{i}/t{t}"
                if key in errors:
                    notes.append(f"- {key}: {errors[key]}")
    print_ablations(runs, errors, cell)
    print_isa_caps(runs, cell)
    # A capped row that failed has no line in its table: say why here.
    notes += [f"- {k}: {v}" for k, v in errors.items()
              if len(k.split("/")) > 2 and isa_capped(k.split("/")[1])]
    print()
    for t in (1, 2):
        if ("flop", t) in peaks:
            print(f"- roofline, {t} thread(s): FMA peak ({peaks[('isa', t)]}) "
                  f"{peaks[('flop', t)] / 1e9:.1f} GFLOP/s, STREAM triad "
                  f"{peaks.get(('bytes_plain', t), 0) / 1e9:.1f} GB/s, with "
                  f"non-temporal stores "
                  f"{peaks.get(('bytes_nt', t), 0) / 1e9:.1f} GB/s")
    for n in sorted(set(notes)):
        print(n)


def print_ablations(runs, errors, cell):
    """The pipeline ablation (W7): nn with stages of nn-optimize switched
    off, each variant's median over the full pipeline's (above 1: the
    stage pays)."""
    variants = sorted({n.split("/")[1] for n in list(runs) + list(errors)
                       if n.split("/")[1].startswith("nn_")
                       and not isa_capped(n.split("/")[1])})
    if not variants:
        return
    workloads = sorted({n.split("/")[0] for n in list(runs) + list(errors)
                        if len(n.split("/")) > 1 and n.split("/")[1] in variants})
    print()
    print("| workload | thr | nn (full pipeline) min / med (ms) | "
          + " | ".join(f"{v} min / med | {v} / nn" for v in variants) + " |")
    print("|---|---|---|" + "---|---|" * len(variants))
    for w in workloads:
        for t in (1, 2):
            full = cell(f"{w}/nn/t{t}")
            cols = []
            for v in variants:
                got = cell(f"{w}/{v}/t{t}")
                time = "—" if got[0] is None else f"{got[0]:.3f} / {got[1]:.3f}"
                ratio = "—" if got[1] is None or full[1] is None else \
                    f"{got[1] / full[1]:.2f}x"
                cols += [time, ratio]
            if full[0] is None and all(c == "—" for c in cols):
                continue
            head = "—" if full[0] is None else f"{full[0]:.3f} / {full[1]:.3f}"
            print(f"| {w} | {t} | {head} | " + " | ".join(cols) + " |")


ISA_CAPS = ("avx2", "scalar")


def isa_capped(impl):
    """An nn row run under NN_MAX_ISA ("nn_avx2", "nn_split_avx2")."""
    return any(impl.endswith("_" + cap) for cap in ISA_CAPS)


def print_isa_caps(runs, cell):
    """nn's rows run again with the kernels capped (NN_MAX_ISA=avx2, which
    `make bench` adds on an AVX-512 CPU) against the same rows on the CPU's
    own ISA: the cap's median over the native one (1.00x or above: the wider
    kernels are not slower)."""
    capped = sorted({n.split("/")[1] for n in runs
                     if len(n.split("/")) > 2 and isa_capped(n.split("/")[1])})
    rows = []
    for w in sorted({n.split("/")[0] for n in runs}):
        for impl in capped:
            native = impl.rsplit("_", 1)[0]
            for t in (1, 2):
                got, full = cell(f"{w}/{impl}/t{t}"), cell(f"{w}/{native}/t{t}")
                if got[0] is None or full[0] is None:
                    continue
                rows.append(f"| {w} | {t} | {native} | {full[0]:.3f} / {full[1]:.3f} | "
                            f"{impl.rsplit('_', 1)[1]} | {got[0]:.3f} / {got[1]:.3f} | "
                            f"{got[1] / full[1]:.2f}x |")
    if not rows:
        return
    print()
    print("| workload | thr | nn | native ISA min / med (ms) | capped to | "
          "capped min / med | capped / native |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main(sys.argv[1:] or ["build/bench.json"])
