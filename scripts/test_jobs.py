"""The jobs of scripts/test.sh, from what `cargo test --no-run
--message-format=json` built: one line per job,
"phase<TAB>name<TAB>folder<TAB>command".

Every test executable runs as `cargo test` runs it: in its package's folder,
without arguments (a bench target too, as `cargo test --all-targets` runs
it). Then the ignored tests of the binaries that have some (a plain
`cargo test` leaves them out to stay quick), the wheel check and the sdist
check.

Two phases. The wheel, the sdist and the packaged crate are built by cargo
into the same target folder on the same profile as the tests, so each
writes target/debug/pytest-mcp anew: they run first, one after the other
in one job ("packaging"), beside only the tests that never start that
binary (IN_PROCESS); every other test runs in phase 2, when they are done.
Within a phase the jobs come longest first, by the times of a whole run on
two cores (LONGEST, in seconds; a job not named there goes after them), so
that the last job to start is a short one. Python's standard library only:
it runs before any venv exists.

Usage: python3 scripts/test_jobs.py BUILD.json
"""

import json
import os
import shlex
import sys

# Seconds each job took in a whole run on two cores, three at a time (the
# ones of 10 s or more; scripts/test.sh prints them at its end): only
# their order matters.
LONGEST = {
    "mcp": 153,
    "packaging": 180,
    "plugins": 224,
    "shard_run": 130,
    "warm_plugins": 140,
    "mcp_load --ignored": 94,
    "mcp_ts": 91,
    "html": 73,
    "corpus": 67,
    "lib --ignored": 57,
    "runner": 56,
    "answer_budget": 38,
    "real_suites": 36,
    "ci_recipes": 29,
    "changes": 26,
    "action": 24,
    "discovery": 24,
    "hostile": 24,
    "gfm": 23,
    "lib": 23,
    "affected": 21,
    "history": 21,
    "cli": 19,
    "golden": 18,
    "plan": 18,
    "flaky_state": 17,
    "last_failed": 15,
    "workers": 15,
    "ctrf_pytest": 14,
    "ctrf_frameworks": 12,
    "pytest_summary": 11,
    "retries": 10,
    "coverage": 30,
}

# Binaries whose ignored tests the whole suite runs.
IGNORED = ["lib", "mcp_load", "discovery", "release"]

# The tests that never start target/debug/pytest-mcp (the library called
# in-process: no CARGO_BIN_EXE, no support::run_pytest_mcp or
# report_bytes), which may run while the packaging job rewrites it.
IN_PROCESS = {
    "lib",
    "lib --ignored",
    "bin",
    "pytest_mcp_testkit-lib",
    "bench-perf",
    "bench-token_cost",
    "architecture",
    "changes_golden",
    "corpus",
    "docs",
    "endings_golden",
    "fuzz_regressions",
    "golden",
    "headlines_golden",
    "junit_roundtrip",
    "token_budget",
    "tools_list",
}


def jobs(messages):
    """(name, folder, command) for every test executable, then the rest."""
    found = {}
    for line in messages:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg.get("profile", {}).get("test"):
            continue
        target = msg["target"]
        kinds = target["kind"]
        package = os.path.dirname(msg["manifest_path"])
        root_package = package == os.getcwd()
        if "lib" in kinds:
            name = "lib" if root_package else f"{target['name']}-lib"
        elif "bin" in kinds:
            name = "bin" if root_package else f"{target['name']}-bin"
        elif "bench" in kinds:
            name = f"bench-{target['name']}"
        else:
            name = target["name"] if root_package else f"{target['name']}-{kinds[0]}"
        found[name] = (package, msg["executable"])
    out = [(name, folder, shlex.quote(exe)) for name, (folder, exe) in found.items()]
    for name in IGNORED:
        if name not in found:
            sys.exit(f"test_jobs: no test binary {name!r} in the build")
        folder, exe = found[name]
        if name != "release":
            out.append((f"{name} --ignored", folder, f"{shlex.quote(exe)} --ignored"))
    folder, exe = found["release"]
    packaging = " && ".join(
        [
            "bash scripts/wheel-check.sh",
            "bash scripts/sdist-check.sh",
            f"(cd {shlex.quote(folder)} && {shlex.quote(exe)} --ignored)",
        ]
    )
    out.append(("packaging", os.getcwd(), packaging))
    phased = [(1 if name in IN_PROCESS or name == "packaging" else 2, name, folder, cmd)
              for name, folder, cmd in out]
    return sorted(phased, key=lambda job: (job[0], -LONGEST.get(job[1], 0), job[1]))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 scripts/test_jobs.py BUILD.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        for phase, name, folder, command in jobs(f):
            print(f"{phase}\t{name.replace(' ', '_')}\t{folder}\t{command}")


if __name__ == "__main__":
    main()
