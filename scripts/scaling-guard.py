#!/usr/bin/env python3
"""The scaling guard (issue [10]): a tripwire for complexity regressions, not a timing test.

Each series runs one benchmark at a small and a large size in the same run and compares the ratio of their times
with the ratio linear cost would give. A ratio past linear x SLACK fails: a quadratic cost at 5x the size shows as
25, a linear one as 5 to 7 (caches, allocators and the machine's noise move it, which the slack absorbs).

    scripts/scaling-guard.py BUILD_DIR       (scripts/bench.sh --guard builds the programs, then runs this)

Prints one line per series and exits 1 when a ratio passes its bound. BENCHMARKS.md lists the bounds and the
ratios of the last run.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

SLACK = 2.5

# (series, program, benchmark name without its size, small size, large size, extra arguments)
SERIES = [
    ("pods in one burst, NodePool WhenEmpty", "simulation_bench", "BM_Burst/WhenEmpty", 20_000, 100_000),
    ("pods in one burst, NodePool v1 defaults", "simulation_bench", "BM_Burst/V1Defaults", 20_000, 100_000),
    ("pods in one burst, NodePool Balanced", "simulation_bench", "BM_Burst/Balanced", 20_000, 100_000),
    ("pods in one burst, node groups", "simulation_bench", "BM_Burst/NodeGroups", 20_000, 100_000),
    ("nodes in one consolidation pass", "consolidation_bench", "BM_ConsolidationPass", 1_000, 5_000),
    ("HPAs in one sync", "workloads_bench", "BM_ReconcilePassHpas", 10_000, 50_000),
    ("ScaledObjects in one sync", "workloads_bench", "BM_EvaluationPassScaledObjects", 10_000, 50_000),
]
# A run of a second or more is taken three times, its median compared; shorter ones repeat in their own code.
REPETITIONS = {"simulation_bench": 3}


def seconds(entry):
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return entry["real_time"] * units[entry["time_unit"]]


def run(build, program, names):
    """Runs `program` for the benchmarks named; returns {name/size: seconds}, the median where repeated."""
    pattern = "^(" + "|".join(names) + ")(/|$)"
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        command = [str(Path(build) / "bench" / program), f"--benchmark_filter={pattern}",
                   f"--benchmark_out={out.name}", "--benchmark_out_format=json"]
        if program in REPETITIONS:
            command.append(f"--benchmark_repetitions={REPETITIONS[program]}")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        report = json.load(open(out.name))
    times = {}
    for entry in report["benchmarks"]:
        # "BM_Burst/WhenEmpty/20000/iterations:1": the name up to its size.
        name = "/".join(part for part in entry["run_name"].split("/") if ":" not in part)
        repeated = entry.get("run_type") == "aggregate"
        if repeated and entry.get("aggregate_name") == "median":
            times[name] = seconds(entry)
        elif not repeated and name not in times:
            times[name] = seconds(entry)
    return times


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build = sys.argv[1]
    times = {}
    for program in dict.fromkeys(s[1] for s in SERIES):
        names = [f"{s[2]}/{n}" for s in SERIES if s[1] == program for n in (s[3], s[4])]
        times.update(run(build, program, names))
    failed = 0
    print(f"{'series':42} {'small':>9} {'large':>9} {'ratio':>6} {'linear':>6} {'bound':>6}")
    for series, _, name, small, large in SERIES:
        t_small, t_large = times[f"{name}/{small}"], times[f"{name}/{large}"]
        ratio = t_large / t_small
        linear = large / small
        bound = linear * SLACK
        verdict = "ok" if ratio <= bound else "PAST ITS BOUND"
        failed += ratio > bound
        print(f"{series:42} {t_small:8.3f}s {t_large:8.3f}s {ratio:6.2f} {linear:6.1f} {bound:6.1f}  {verdict}")
    if failed:
        print(f"scaling guard: {failed} series grew faster than {SLACK}x linear", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
