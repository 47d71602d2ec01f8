#!/usr/bin/env python3
"""The cost of `pytest-mcp run --coverage` against `pytest-mcp run` on real
libraries' own test suites, on every Python found (issue 48 item 6: within
1.3x of `run`; BENCHMARKS.md, section 6).

    python3 benches/coverage_cost.py                  # 5 rounds, every Python 3.11+ found
    python3 benches/coverage_cost.py --plain          # and pytest, coverage run alone (BENCHMARKS.md)
    python3 benches/coverage_cost.py --rounds 9 --python 3.12 --python /opt/py/bin/python3.13
    python3 benches/coverage_cost.py --binary /tmp/old/target/release/pytest-mcp --suites toolz

Standard library only. Three Pythons, 5 rounds: 7 minutes on a 2-core
machine shared with another session's builds, 11 to 14 with `--plain`
(the first run also makes a venv per Python, with pip: the network). It needs git, tar and `target/release/pytest-mcp` (built with
`cargo build --release` when missing); it prints Markdown tables on
standard output and its progress on standard error.

What it does, under `--work` (default target/bench-inputs/coverage-cost/):

- A venv per Python (`venv-3.X`) with the pins of requirements-dev.txt:
  pytest, pytest-json-report, pytest-metadata and coverage.py.
- Each suite of BENCHMARKS.md section 3c (the sdists pinned with their
  hashes in requirements-suites.txt, from `.suites/` as scripts/setup.sh
  downloads them, else downloaded here) extracted into a git work tree of
  its own, committed as released, then the bugs of
  testkit/src/real_suites.rs (copied below) applied and left uncommitted:
  the change `run --coverage` judges against HEAD: 2 or 3 lines, each in
  code the tests run (`all 3 changed lines ran`).
- Per suite and Python, a warm-up (the `coverage run -p` whose data the
  judge reads below: bytecode, page cache), then `--rounds` timed rounds.
  Every round runs every command once, in the opposite order from the
  round before, so that a drift of the shared machine falls on both sides
  of a ratio; every answer is checked (the bugs' failures: exit status 1;
  the change judged, its section there):

  - `run`: `pytest-mcp run --root S --python V --no-history`
  - `run --coverage`: the same with `--coverage` (coverage.py's default
    core, as pytest-mcp runs it today)
  - `run --coverage, sysmon` (Python 3.12+): with `COVERAGE_CORE=sysmon`
    in the environment, which coverage.py reads (its default core is
    sys.monitoring only from Python 3.14)
  - with `--plain`, `pytest`: `python -m pytest -q -p no:cacheprovider`,
    and `coverage run`: `python -m coverage run -m pytest -q -p
    no:cacheprovider` (measuring from before pytest's import; pytest-mcp
    starts as its plugin is imported, a little later)
  - the judge's parts, each alone: `python -c "import coverage"` (the
    check before the run), the three git commands
    (`rev-parse --show-toplevel`, `diff -U0 HEAD`, `ls-files --others`),
    and src/runner/command/pytest_mcp_coverage.py (the judge) on data a
    `coverage run -p` of the suite wrote, fed the change's lines.

  Wall time of each command (CPU: user + system of it and its children),
  medians over the rounds and the median of the per-round ratios. The
  second table splits `run --coverage`'s extra time: the judge's parts
  (timed alone), and the rest, which is coverage.py inside pytest
  (its import, tracing, saving); `coverage run` against `pytest` is the
  same tracing without pytest-mcp (`--plain`). The last column of the first table,
  "sysmon less check and judge", is per round `run --coverage, sysmon`
  less the check's and the judge's times, over `run`: what is left if
  both cost nothing (an estimate of the fixes BENCHMARKS.md section 6
  describes, not a measurement).

Every command runs with PYTEST_ADDOPTS=--rootdir=S (under target/, pytest
would otherwise take this repository's pyproject.toml for a rootdir of a
suite with no pytest configuration: inflection) and without the caller's
PYTHONPATH, PYTEST_PLUGINS and COVERAGE_* variables; isodate gets
PYTHONPATH=src (its `src/` layout).
"""

import argparse
import glob
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JUDGE = os.path.join(REPO, "src", "runner", "command", "pytest_mcp_coverage.py")

# The pins of requirements-dev.txt the runs need (read from it, so the bench
# follows the test suite's versions).
PINNED = ("pytest", "pytest-json-report", "pytest-metadata", "coverage")

# BENCHMARKS.md section 3c's suites: testkit/src/real_suites.rs's SUITES, with
# their bugs (file, old, new: `old` occurs once in the file). Keep in step.
SUITES = [
    {
        "name": "inflection", "version": "0.5.1", "sdist": "inflection-0.5.1.tar.gz",
        "pythonpath": None,
        "bugs": [
            ("inflection/__init__.py", "    if separator:\n", "    if separator is not None:\n"),
            ("inflection/__init__.py", "return word.replace('_', '-')",
             "return word.replace('_', '-', 1)"),
        ],
    },
    {
        "name": "toolz", "version": "1.2.0", "sdist": "toolz-1.2.0.tar.gz",
        "pythonpath": None,
        "bugs": [
            ("toolz/itertoolz.py", "end = len(seq) % n", "end = len(seq) // n"),
            ("toolz/itertoolz.py", "return seq[-n:]", "return seq[-n + 1:]"),
            ("toolz/dicttoolz.py", "    if k in d:\n        inner[k] = func(d[k])",
             "    if k not in d:\n        inner[k] = func(d[k])"),
        ],
    },
    {
        "name": "isodate", "version": "0.7.2", "sdist": "isodate-0.7.2.tar.gz",
        "pythonpath": "src",
        "bugs": [
            ("src/isodate/isotzinfo.py",
             "return FixedOffset(tzsign * tzhour, tzsign * tzmin, tzname)",
             "return FixedOffset(tzsign * tzhour, tzmin, tzname)"),
            ("src/isodate/isostrf.py",
             'ret.append(("%d.%06d" % (seconds, usecs)).rstrip("0"))',
             'ret.append("%d.%06d" % (seconds, usecs))'),
            ("src/isodate/duration.py",
             "if ((year % 400) == 0) or ((year % 100) != 0) and ((year % 4) == 0):",
             "if ((year % 100) != 0) and ((year % 4) == 0):"),
        ],
    },
]

GITIGNORE = "__pycache__/\n*.egg-info/\n.pytest_cache/\n.coverage*\n"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_ok(cmd, **kw):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if out.returncode != 0:
        sys.exit(f"coverage_cost: {' '.join(cmd)} failed ({out.returncode}):\n{out.stdout}")
    return out.stdout


# --- Pythons -------------------------------------------------------------

def probe(exe):
    """(version tuple, real executable) of a Python, or None."""
    try:
        out = subprocess.run(
            [exe, "-c", "import sys, platform; print(platform.python_version()); print(sys.executable)"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    version, real = out.stdout.split("\n")[:2]
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3]), real


def find_pythons(asked):
    """The Pythons to measure: those asked (`3.12` or a path), else the first
    working python3.X for X in 11..14 on PATH (coverage 7.17 needs 3.11), under pyenv, in /usr/bin."""
    found = {}
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    wanted = asked or [f"3.{m}" for m in range(11, 15)]
    for want in wanted:
        if os.sep in want:
            candidates = [want]
        else:
            candidates = [c for c in (shutil.which(f"python{want}"),) if c]
            candidates += sorted(glob.glob(f"{pyenv}/versions/{want}.*/bin/python{want}"), reverse=True)
            candidates += [f"/usr/local/bin/python{want}", f"/usr/bin/python{want}"]
        for c in candidates:
            got = probe(c)
            if got:
                found.setdefault(got[0][:2], (got[0], got[1]))
                break
        else:
            if asked:
                sys.exit(f"coverage_cost: no working Python for {want}")
    return [found[k] for k in sorted(found)]


def pins():
    text = open(os.path.join(REPO, "requirements-dev.txt")).read()
    out = []
    for name in PINNED:
        m = re.search(rf"^{re.escape(name)}==(\S+)", text, re.M)
        if not m:
            sys.exit(f"coverage_cost: {name} is not pinned in requirements-dev.txt")
        out.append(f"{name}=={m.group(1)}")
    return out


def venv(work, version, exe):
    """A venv of `exe` with the pins, made once (a stamp says which)."""
    where = os.path.join(work, f"venv-{version[0]}.{version[1]}")
    stamp = os.path.join(where, ".coverage-cost")
    want = "\n".join([exe] + pins()) + "\n"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return os.path.join(where, "bin", "python")
    log(f"coverage_cost: making {where} ({exe}, {' '.join(pins())})")
    shutil.rmtree(where, ignore_errors=True)
    run_ok([exe, "-m", "venv", where])
    py = os.path.join(where, "bin", "python")
    run_ok([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + pins())
    with open(stamp, "w") as f:
        f.write(want)
    return py


# --- Suites --------------------------------------------------------------

def sdist(work, suite):
    """The sdist from .suites/ (scripts/setup.sh), else downloaded with the
    hashes of requirements-suites.txt into the work folder."""
    for folder in (os.path.join(REPO, ".suites"), os.path.join(work, "sdists")):
        path = os.path.join(folder, suite["sdist"])
        if os.path.isfile(path):
            return path
    folder = os.path.join(work, "sdists")
    log(f"coverage_cost: downloading the sdists of requirements-suites.txt into {folder}")
    run_ok([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
            "--no-deps", "--no-binary", ":all:", "--require-hashes",
            "-r", os.path.join(REPO, "requirements-suites.txt"), "-d", folder])
    return os.path.join(folder, suite["sdist"])


def git(root, *args):
    return run_ok(["git", "-C", root, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                   "-c", "commit.gpgsign=false"] + list(args))


def prepare(work, suite):
    """The suite as released, committed in a git work tree of its own, with
    its bugs applied in the working tree."""
    root = os.path.join(work, "suites", suite["name"])
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    run_ok(["tar", "-xzf", sdist(work, suite), "--strip-components=1", "-C", root])
    with open(os.path.join(root, ".gitignore"), "a") as f:
        f.write(GITIGNORE)
    git(root, "init", "-q")
    # The suite's own repository, never the one around it.
    top = git(root, "rev-parse", "--show-toplevel").strip()
    if os.path.realpath(top) != os.path.realpath(root):
        sys.exit(f"coverage_cost: {root} is not its own git work tree ({top})")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{suite['name']} {suite['version']} as released")
    for file, old, new in suite["bugs"]:
        path = os.path.join(root, file)
        text = open(path).read()
        if text.count(old) != 1:
            sys.exit(f"coverage_cost: {suite['name']}: {old!r} occurs {text.count(old)} times in {file}")
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))
    return root


def changed_lines(root):
    """The working tree's changed lines against HEAD, per file (what the
    judge is fed; the bugs change no line count)."""
    diff = git(root, "diff", "--no-color", "--no-ext-diff", "-U0", "HEAD", "--")
    changed, path = {}, None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path:
            m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
            start, count = int(m.group(1)), int(m.group(2) or 1)
            changed.setdefault(path, []).extend(range(start, start + count))
    return changed


# --- Timing --------------------------------------------------------------

def timed(cmd, cwd, env, stdin=None, capture=False):
    """(wall seconds, CPU seconds of the process and its children, exit
    status, output when captured). One child at a time: the CPU is the
    growth of what the terminated children used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen(
        cmd, cwd=cwd, env=env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if capture else subprocess.DEVNULL,
    )
    out, _ = p.communicate(stdin)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode, out


def base_env(root, suite):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTEST_PLUGINS", "PYTEST_ADDOPTS", "VIRTUAL_ENV")
           and not k.startswith("COVERAGE_") and not k.startswith("PYTEST_MCP_")}
    env["PYTEST_ADDOPTS"] = f"--rootdir={root}"
    if suite["pythonpath"]:
        env["PYTHONPATH"] = os.path.join(root, suite["pythonpath"])
    return env


def commands(binary, judge, py, version, root, suite, work, plain):
    """name -> (argv, env, stdin) for one suite and Python, and where the
    judge's data is."""
    env = base_env(root, suite)
    sysmon = dict(env, COVERAGE_CORE="sysmon")
    data = os.path.join(work, "tmp", "plain", ".coverage")
    run = [binary, "run", "--root", root, "--python", py, "--no-history"]
    pytest = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    cov = [py, "-m", "coverage", "run", f"--data-file={data}", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    judged = os.path.join(work, "tmp", "judge", f"{version[0]}.{version[1]}", suite["name"], "data")
    request = json.dumps({"data": judged, "changed": changed_lines(root)}).encode()
    cmds = {
        "run": (run, env, None),
        "run --coverage": (run + ["--coverage"], env, None),
        "check": ([py, "-c", "import coverage"], env, None),
        "git rev-parse": (["git", "-C", root, "rev-parse", "--show-toplevel"], env, None),
        "git diff": (["git", "-C", root, "diff", "--no-color", "--no-ext-diff", "-U0",
                      "--src-prefix=a/", "--dst-prefix=b/", "HEAD", "--"], env, None),
        "git ls-files": (["git", "-C", root, "ls-files", "--others", "--exclude-standard", "-z"], env, None),
        "judge": ([py, judge], env, request),
    }
    if version >= (3, 12):
        cmds["run --coverage, sysmon"] = (run + ["--coverage"], sysmon, None)
    if plain:
        cmds["pytest"] = (pytest, env, None)
        cmds["coverage run"] = (cov, env, None)
    return cmds, judged


def judge_data(py, root, env, judged):
    """The data files the judge reads: a `coverage run -p` of the suite
    (data.<suffix>, as each pytest process under pytest-mcp writes)."""
    shutil.rmtree(os.path.dirname(judged), ignore_errors=True)
    os.makedirs(os.path.dirname(judged))
    subprocess.run([py, "-m", "coverage", "run", "-p", f"--data-file={judged}", "-m", "pytest", "-q",
                    "-p", "no:cacheprovider"], cwd=root, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not glob.glob(judged + ".*"):
        sys.exit(f"coverage_cost: no coverage data under {os.path.dirname(judged)}")


def check(name, rc, out, label, first):
    """Every answer checked: the bugs fail tests (exit status 1), and
    `run --coverage` judged the change; said once, from the first round."""
    text = (out or b"").decode(errors="replace")
    if name.startswith(("run", "pytest", "coverage run")) and rc != 1:
        sys.exit(f"coverage_cost: {label}: {name} exited {rc}, not 1:\n{text}")
    if name.startswith("run --coverage"):
        line = next((l for l in text.splitlines() if "CHANGE COVERAGE" in l), None)
        if line is None or "not judged" in text.lower():
            sys.exit(f"coverage_cost: {label}: {name} gave no judged coverage section:\n{text}")
        if first:
            log(f"  {name}: {line.strip()}")
    elif name == "judge":
        answer = json.loads(text)
        if "error" in answer or not answer.get("changed_lines"):
            sys.exit(f"coverage_cost: {label}: the judge said {text}")
        if first:
            log(f"  judge alone: {answer['covered_lines']} of {answer['changed_lines']} changed lines ran")
    elif rc != 0 and not name.startswith(("run", "pytest", "coverage run")):
        sys.exit(f"coverage_cost: {label}: {name} exited {rc}:\n{text}")


def measure(cmds, root, rounds, label):
    """name -> list of (wall, cpu), every command once a round, the order
    reversed every other round. The warm-up (bytecode, page cache) was the
    judge's `coverage run` of the same suite and Python."""
    names = list(cmds)
    got = {n: [] for n in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            cmd, env, stdin = cmds[name]
            wall, cpu, rc, out = timed(cmd, root, env, stdin, capture=True)
            check(name, rc, out, label, r == 0)
            got[name].append((wall, cpu))
    return got


# --- Output --------------------------------------------------------------

def secs(s):
    return f"{s:.2f} s" if s >= 0.9995 else f"{s * 1000:.0f} ms"


def med(samples, i=0):
    return statistics.median(s[i] for s in samples)


def ratio(got, a, b, i=0):
    """The median of the per-round ratios a/b."""
    return statistics.median(x[i] / y[i] for x, y in zip(got[a], got[b]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--python", action="append", default=[],
                    help="a version (3.12) or an interpreter's path; repeatable; default every 3.11-3.14 found")
    ap.add_argument("--binary", default=os.path.join(REPO, "target", "release", "pytest-mcp"))
    ap.add_argument("--judge", default=JUDGE,
                    help="the judge timed alone (default the checkout's; the binary carries its own)")
    ap.add_argument("--plain", action="store_true",
                    help="also time pytest and coverage run -m pytest alone (about 40%% longer)")
    ap.add_argument("--suites", default=",".join(s["name"] for s in SUITES))
    ap.add_argument("--work", default=os.path.join(REPO, "target", "bench-inputs", "coverage-cost"))
    args = ap.parse_args()

    binary = os.path.abspath(args.binary)
    if not os.path.isfile(binary) and binary == os.path.join(REPO, "target", "release", "pytest-mcp"):
        log("coverage_cost: building the release binary")
        run_ok(["cargo", "build", "--release"], cwd=REPO)
    if not os.path.isfile(binary):
        sys.exit(f"coverage_cost: no {binary}")
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    pythons = find_pythons(args.python)
    if not pythons:
        sys.exit("coverage_cost: no Python 3.11+ found")
    suites = [s for s in SUITES if s["name"] in args.suites.split(",")]
    unknown = set(args.suites.split(",")) - {s["name"] for s in SUITES}
    if unknown or not suites:
        sys.exit(f"coverage_cost: --suites takes {','.join(s['name'] for s in SUITES)}")
    venvs = [(version, venv(work, version, exe)) for version, exe in pythons]
    roots = {s["name"]: prepare(work, s) for s in suites}

    results = []  # (suite, version, got)
    head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    started = time.perf_counter()
    load = os.getloadavg()[0]
    for version, py in venvs:
        for suite in suites:
            root = roots[suite["name"]]
            label = f"{suite['name']} {suite['version']}, Python {'.'.join(map(str, version))}"
            log(f"coverage_cost: {label}")
            cmds, judged = commands(binary, os.path.abspath(args.judge), py, version, root, suite, work,
                                    args.plain)
            judge_data(py, root, cmds["run"][1], judged)
            results.append((suite, version, measure(cmds, root, args.rounds, label)))

    print("## run --coverage against run (issue 48 item 6)\n")
    print(f"{args.rounds} rounds after a warm-up, commands alternated; {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{binary} (the checkout at {head} when it began), {os.cpu_count()} cores, load average {load:.2f} at the start "
          f"and {os.getloadavg()[0]:.2f} at the end, {pins()[-1]}, "
          f"{time.perf_counter() - started:.0f} s of measuring.\n")
    print("| suite | Python | run | run --coverage | wall | CPU | within 1.3x? "
          "| run --coverage, sysmon | wall | CPU | sysmon less check and judge |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for suite, version, got in results:
        v = ".".join(map(str, version))
        cov = ratio(got, "run --coverage", "run")
        name = "run --coverage, sysmon"
        if name in got:
            less = statistics.median(
                (m[0] - c[0] - j[0]) / r[0]
                for m, c, j, r in zip(got[name], got["check"], got["judge"], got["run"]))
            sysmon = (f"{secs(med(got[name]))} | {ratio(got, name, 'run'):.3f}x "
                      f"| {ratio(got, name, 'run', 1):.3f}x | {less:.3f}x")
        else:
            sysmon = "n/a | n/a | n/a | n/a"
        print(f"| {suite['name']} {suite['version']} | {v} | {secs(med(got['run']))} "
              f"| {secs(med(got['run --coverage']))} | {cov:.3f}x "
              f"| {ratio(got, 'run --coverage', 'run', 1):.3f}x | {'yes' if cov <= 1.3 else 'no'} "
              f"| {sysmon} |")

    print("\nWhere the cost goes (wall, medians; the judge's parts each alone, "
          "tracing the rest of the difference):\n")
    plain = args.plain
    print("| suite | Python | run --coverage - run | check | git (3 commands) | judge "
          "| tracing (the rest) |" + (" pytest | coverage run | coverage run / pytest (wall, CPU) |"
                                      if plain else ""))
    print("|---|---|---|---|---|---|---|" + ("---|---|---|" if plain else ""))
    for suite, version, got in results:
        v = ".".join(map(str, version))
        extra = statistics.median(c[0] - r[0] for c, r in zip(got["run --coverage"], got["run"]))
        gits = statistics.median(
            a[0] + b[0] + c[0]
            for a, b, c in zip(got["git rev-parse"], got["git diff"], got["git ls-files"]))
        parts = med(got["check"]) + gits + med(got["judge"])
        row = (f"| {suite['name']} {suite['version']} | {v} | {secs(extra)} | {secs(med(got['check']))} "
               f"| {secs(gits)} | {secs(med(got['judge']))} | {secs(extra - parts)} |")
        if plain:
            row += (f" {secs(med(got['pytest']))} | {secs(med(got['coverage run']))} "
                    f"| {ratio(got, 'coverage run', 'pytest'):.3f}x, "
                    f"{ratio(got, 'coverage run', 'pytest', 1):.3f}x |")
        print(row)
    used = ", ".join(f"{'.'.join(map(str, v))} ({exe})" for v, exe in pythons)
    print(f"\nPythons: {used}; {platform.platform()}.")


if __name__ == "__main__":
    main()
