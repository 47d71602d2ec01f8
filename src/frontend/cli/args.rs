//! The command line's flags: one type per command, read by clap.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::frontend::report::DEFAULT_MAX_CHARS;
use crate::request::OutputFormat;
use crate::runner::params::DEFAULT_TIMEOUT_SECS;

#[derive(Debug, Parser)]
#[command(
    name = "pytest-mcp",
    version,
    about = "Turn test results into token-lean Markdown or ADR-006 JSON.",
    long_about = "Turn test results into what an AI agent or a reviewer can act on at the \
lowest token cost.\n\n\
`report` reads JUnit XML from any framework (pytest, Surefire, Jest, Go, PHPUnit, \
nextest, Catch2, Mocha, ...), pytest-json-report JSON and CTRF JSON, merges them into one \
run and prints it as --format markdown (token-lean, for agents), json (the ADR-006 \
structure), gfm (GitHub Flavored Markdown for a PR comment or a job summary), html (a \
self-contained page), junit (clean JUnit XML), ctrf (a CTRF document) or github (workflow \
annotations); with --plan it checks shards against their plan. `run` and `discover` run \
pytest in a project (safely: checked parameters, its own process group, a time limit) and \
answer the same way; `run --shard K/N` runs one shard. `plan` splits the tests into shards \
of about equal time for parallel CI jobs, from the durations the history recorded. \
`serve` offers `run` and `discover` to an AI agent as the MCP tools execute_tests and \
discover_tests.\n\n\
`pytest-mcp help <COMMAND>` (or `<COMMAND> --help`) describes each command."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render result files (JUnit XML, pytest-json-report JSON, CTRF JSON) as one report.
    #[command(
        long_about = "Render result files as one report.\n\n\
Each FILE may be JUnit XML (any framework), a pytest-json-report JSON file or a CTRF \
JSON file; the format is detected from the content. Files are merged by test id: the files of \
the same pytest run give one result per test (the JSON report wins, then CTRF, then JUnit; \
a lower one fills what a higher one lacks), and shards of one run give their union.\n\n\
--format github prints GitHub workflow commands for a workflow step: one ::error \
annotation per failure group (largest first, at most 10, what GitHub shows per step) on \
the line where the test failed, then a ::notice saying how many groups were left out; \
when GITHUB_STEP_SUMMARY is set, the GitHub rendering (--format gfm) is appended to that file, kept within \
GitHub's 1 MiB (--max-chars bounds it too). Paths are taken as relative to the repository \
root, or to --path-prefix. An unreadable file is one ::error line (exit status 2).\n\n\
--format gfm prints GitHub Flavored Markdown for people, for a PR comment or a job summary \
(the summary --format github writes is the same): the status and a table of counts (with \
--baseline the baseline's counts and the change), then one collapsible section per root \
cause with the failure in a code block (new failures first, then fixed tests, then the \
failures that were already there, collapsed), flaky tests, the 10 slowest tests and the \
skips by reason. Nothing a test wrote is read as Markdown or HTML (it is always in code), \
so it cannot mention anyone, link an issue or close a section. file:line links to the \
file at the commit with --link-base, or in GitHub Actions from GITHUB_SERVER_URL, \
GITHUB_REPOSITORY and GITHUB_SHA. It is held to --max-chars (65536, a comment, by \
default): the table and every new failure stay, and it says what it left out. An \
unreadable file is answered with the Markdown error under a heading, in a code block \
(exit status 2).\n\n\
--format ctrf prints a CTRF document (Common Test Report Format, ctrf.io), strictly \
valid against CTRF's schema, for the dashboards and reporters that read CTRF: one entry \
per test, named by its id, errors as failed with the phase in rawStatus, collection \
errors as entries of their own. An unreadable file prints the Markdown error.\n\n\
--plan FILE checks shards against the plan they ran (`pytest-mcp plan`'s JSON, \
docs/sharding.md): the report names the shards whose results came back, shows every \
planned test no shard ran as an error (\"Not run: planned for shard 3 of 4, whose results \
did not come back\") in every format, and names every test two shards ran.\n\n\
Exit status: 0 when the report was written (whatever the test outcomes, unless \
--fail-on says otherwise: then 1 when the results fail; with --plan, 1 when a planned test \
was not run), 2 when a file could not be read (every bad file is listed, with line and column for broken \
XML or JSON) or the output could not be written.",
        after_help = "Examples:\n  \
pytest-mcp report junit.xml\n  \
pytest-mcp report report.json junit.xml --format json -o result.json\n  \
pytest-mcp report shard-*.xml >> \"$GITHUB_STEP_SUMMARY\"\n  \
pytest-mcp report --format github --fail-on failures reports/\n  \
pytest-mcp report --format gfm --baseline main.xml pr.xml -o comment.md\n  \
pytest-mcp report junit.xml --format ctrf -o ctrf-report.json\n  \
pytest-mcp report --baseline main.xml --baseline main.json pr.xml pr.json\n  \
pytest-mcp report --history history.sqlite --fail-on new junit.xml    # in CI, the store restored\n  \
pytest-mcp report --plan plan.json shards/    # every planned test ran, once?"
    )]
    Report(ReportArgs),
    /// Run pytest in a project and report the result.
    #[command(
        long_about = "Run pytest in a project and report the result.\n\n\
pytest runs with the project's own interpreter (--python, else PYTEST_MCP_PYTHON, else \
<root>/.venv/bin/python, <root>/venv/bin/python, $VIRTUAL_ENV/bin/python, python3), \
in its own process group, with a time limit that ends the whole group. Results come \
from pytest-json-report when the project has it, and from JUnit XML always; after a \
timeout or a crash the answer still says which tests finished and which was running.\n\n\
--format github prints GitHub workflow commands: ::error annotations on the lines where \
tests failed (at most 10 failure groups, paths relative to GITHUB_WORKSPACE or the working \
directory), and appends the GitHub rendering (--format gfm) to GITHUB_STEP_SUMMARY when it is set (within \
GitHub's 1 MiB); a timeout, crash or refused parameter is one ::error line.\n\n\
--format gfm prints the report as GitHub Flavored Markdown for a PR comment or a job \
summary (see `pytest-mcp help report`), its file:line links from --link-base or the \
GitHub Actions variables; a timeout, crash or refused parameter is the Markdown error \
under a heading, in a code block.\n\n\
Exit status: pytest's own (0 passed, 1 tests failed, 2 interrupted, 3 internal \
error, 4 usage error, 5 no tests); 124 on timeout; 128+N when pytest died of signal N \
or pytest-mcp got SIGTERM/SIGINT/SIGHUP (the whole run is ended first); 4 when a parameter \
is refused; 127 when pytest cannot be started.",
        after_help = "Examples:\n  \
pytest-mcp run\n  \
pytest-mcp run tests/test_api.py::test_login -x\n  \
pytest-mcp run --root ~/src/app -m 'not slow' --timeout 600 --format json\n  \
pytest-mcp run --retries 2    # is a failure flaky? (pytest-rerunfailures)\n  \
pytest-mcp run --format github    # in a GitHub Actions step"
    )]
    Run(Box<RunArgs>),
    /// List the tests pytest would run, without running them.
    #[command(
        long_about = "List the tests pytest would run (pytest --collect-only), \
grouped by file, with collection errors as data.\n\n\
Exit status: 0 tests found, 2 collection errors, 5 no tests, 4 refused parameter, \
124 timeout, 127 pytest cannot be started.",
        after_help = "Examples:\n  \
pytest-mcp discover\n  \
pytest-mcp discover --path tests/api --pattern 'check_*.py' --format json"
    )]
    Discover(DiscoverArgs),
    /// Plan shards: which tests each of N parallel CI jobs runs, balanced by earlier durations.
    #[command(
        long_about = "Plan shards: split the tests pytest collects (as `discover` does, with \
`run`'s selection: ids or paths, -m, -k) into N shards of about equal time, for the parallel \
jobs of a CI (a GitHub Actions matrix, GitLab parallel, CircleCI or Buildkite parallelism).\n\n\
Durations come from the history of runs (each test's median over its last 10 runs, as `run` \
and `report --history` record them: by default the one `run` keeps under --root, so one \
`pytest-mcp run` is enough; --history FILE for another) or from the result files of earlier \
runs (--durations, repeatable: each test's median over them). The summary line on standard \
error says how many runs the durations come from, and from which history. A pytest-json-report file is best: its setup, call and teardown times show \
what a module's or a class's fixtures cost (the first test of a module pays them), and the plan \
counts that setup once on every shard that runs any of the module's tests, so it keeps a costly \
module together rather than pay its fixture on every shard. JUnit XML (or CTRF) gives each \
test's total only. A test without a duration gets the mean of its module's known tests, else \
the suite's; the plan says how many. The same collection and durations give the same plan, \
byte for byte. Every collected test is in exactly one shard; a shard may be empty when there \
are more shards than tests.\n\n\
--format json (the default) writes the plan: `shards`, each with its 1-based `index`, its \
expected `seconds` and its `tests` (node ids in collection order), and the `basis` (runs, \
tests, estimated, shared_setup); see docs/sharding.md. --format ids -o DIR writes \
DIR/shard-K.txt for K = 1..N, one node id a line, for plain pytest: `pytest @DIR/shard-K.txt` \
(pytest 8.2 and later read arguments from a file, so no command line is too long); an empty \
shard's file selects no test (a marker expression none matches: pytest exits 5).\n\n\
Exit status: 0 the plan was written; 2 a durations file could not be read, collection \
errors (the plan would leave their tests out), or the output could not be written; 4 a \
refused parameter; 124 timeout; 127 pytest cannot be started.",
        after_help = "Examples:\n  \
pytest-mcp run && pytest-mcp plan --shards 3 -o plan.json    # from the run just recorded\n  \
pytest-mcp plan --shards 4 --durations report.json -o plan.json\n  \
pytest-mcp plan --shards 4 --durations main.json --format ids -o shards/ && pytest @shards/shard-2.txt\n  \
pytest-mcp plan --shards 3 --durations junit.xml -m 'not slow' tests/api"
    )]
    #[command(
        mut_arg("timeout", |a| a.help(PLAN_TIMEOUT_HELP)),
        mut_arg("kill_grace", |a| a.help(PLAN_GRACE_HELP))
    )]
    Plan(PlanArgs),
    /// Serve execute_tests and discover_tests over MCP on stdin/stdout.
    #[command(
        long_about = "Serve the MCP tools execute_tests and discover_tests over \
stdin/stdout for an AI agent's client (Claude Code, Claude Desktop, Cursor, VS Code; see the \
README for their configuration). The project root is fixed at start; every test id and path \
a request names must stay inside it. stdout carries only the protocol; logs go to stderr \
(RUST_LOG sets their level). Runs in flight end when the client cancels them, closes \
stdin, or the server gets SIGTERM/SIGINT."
    )]
    Serve(ServeArgs),
    /// Internal: chooses a shard's tests inside the run of `run --shard`.
    #[command(hide = true)]
    SelectShard(SelectShardArgs),
}

/// `select-shard`, which pytest-mcp's plugin runs inside the pytest of
/// `run --shard` with the collected node ids on standard input (not for
/// people: `run --shard` gives it these).
#[derive(Debug, clap::Args)]
pub struct SelectShardArgs {
    /// `K` with --plan, else `K/N`.
    #[arg(long)]
    pub shard: String,
    /// The plan file (an absolute path: pytest's directory is the root).
    #[arg(long)]
    pub plan: Option<PathBuf>,
    /// The plan file as the user named it, for the shard's note.
    #[arg(long)]
    pub named: Option<PathBuf>,
    /// Without --plan: the history of runs to plan from.
    #[arg(long)]
    pub history: Option<PathBuf>,
    /// Where to write what was found (JSON).
    #[arg(long)]
    pub outcome: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The project directory; every test id and path a request names must
    /// stay inside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The Python interpreter that has the project's pytest.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Time limit in seconds for a call that sets none (1 to 86400).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT_SECS)]
    pub timeout: u64,
    /// Seconds pytest's process group gets between SIGTERM and SIGKILL when
    /// a run is ended (time limit, cancellation, a signal to pytest-mcp).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_grace)]
    pub kill_grace: Duration,
    /// Start every run in a fresh Python instead of forking it from a warm
    /// process that has pytest, the plugins and the project's libraries
    /// imported (docs/warm.md). Warm runs give the same answers; a call
    /// can ask for a fresh one with `warm: false`.
    #[arg(long)]
    pub no_warm: bool,
    #[command(flatten)]
    pub history: HistoryArgs,
}

/// `--kill-grace`: seconds (a decimal fraction allowed) from 0 to
/// [`crate::runner::process::MAX_GRACE`].
fn parse_grace(value: &str) -> Result<Duration, String> {
    let max = crate::runner::process::MAX_GRACE;
    value
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .filter(|grace| *grace <= max)
        .ok_or_else(|| format!("expected seconds from 0 to {}", max.as_secs()))
}

/// `report --max-tokens`: the tools' range.
fn parse_max_tokens(value: &str) -> Result<usize, String> {
    use crate::budget::{MAX_TOKENS, MIN_TOKENS};
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (MIN_TOKENS..=MAX_TOKENS).contains(n))
        .ok_or_else(|| format!("expected a number of tokens from {MIN_TOKENS} to {MAX_TOKENS}"))
}

/// Where `run` and `serve` keep the history of runs (docs/flaky.md).
#[derive(Debug, Clone, clap::Args)]
pub struct HistoryArgs {
    /// Keep the history of runs in this SQLite file (default:
    /// <root>/.pytest_cache/d/pytest-mcp/history.sqlite). Each run's per-test
    /// outcomes are recorded, so that a failure is told as new, failing
    /// since an earlier run, or flaky (it passed and failed on the same
    /// code).
    #[arg(long, value_name = "PATH", conflicts_with = "no_history")]
    pub history: Option<PathBuf>,
    /// Runs the history keeps, this one included: the window a failure is
    /// judged in, 2 to 1000.
    #[arg(long, value_name = "N", default_value_t = crate::history::DEFAULT_RUNS, value_parser = parse_history_runs)]
    pub history_runs: usize,
    /// Keep no history: failures are new or not only by pytest's cache of
    /// the last run.
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub flaky: FlakyArgs,
}

/// The numbers of the flaky rule (docs/flaky.md), for `run`, `serve` and
/// `report --history`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FlakyArgs {
    /// Clean passes in a row, after its last flip, that make a flaky test
    /// passing again, 1 to 1000.
    #[arg(long, value_name = "N", default_value_t = crate::model::history::state::CLEAR_AFTER, value_parser = parse_streak)]
    pub flaky_passes: u32,
    /// Failures in a row that make a flaky test failing again ("failing
    /// for 3 runs; flaky before"), 1 to 1000.
    #[arg(long, value_name = "N", default_value_t = crate::model::history::state::FAILING_AFTER, value_parser = parse_streak)]
    pub flaky_failures: u32,
}

impl FlakyArgs {
    pub fn rules(self) -> crate::model::history::Rules {
        crate::model::history::Rules {
            clear_after: self.flaky_passes,
            failing_after: self.flaky_failures,
        }
    }
}

/// `--flaky-passes`, `--flaky-failures`: 1 to [`crate::history::MAX_RUNS`].
fn parse_streak(value: &str) -> Result<u32, String> {
    let max = crate::history::MAX_RUNS as u32;
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("expected a number of runs from 1 to {max}"))
}

impl HistoryArgs {
    /// Where the history is kept for a project at `root`, if anywhere.
    pub fn keeping(&self, root: &std::path::Path) -> Option<crate::history::Keeping> {
        if self.no_history {
            return None;
        }
        Some(crate::history::Keeping {
            path: self
                .history
                .clone()
                .unwrap_or_else(|| crate::history::default_path(root)),
            runs: self.history_runs,
            rules: self.flaky.rules(),
        })
    }
}

/// `--history-runs`: 2 to [`crate::history::MAX_RUNS`].
fn parse_history_runs(value: &str) -> Result<usize, String> {
    let max = crate::history::MAX_RUNS;
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (2..=max).contains(n))
        .ok_or_else(|| format!("expected a number of runs from 2 to {max}"))
}

/// Where pytest runs and how it is stopped: the options of every command
/// that starts pytest for a project (`run`, `discover`, `plan`). `plan`
/// words `--timeout` and `--kill-grace` for its collecting
/// (`PLAN_TIMEOUT_HELP`, `PLAN_GRACE_HELP`).
#[derive(Debug, clap::Args)]
pub struct PytestArgs {
    /// The project directory; every path and test id must stay inside it.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// The Python interpreter that has the project's pytest.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// Time limit in seconds for the pytest process and everything it
    /// starts, 1 to 86400 (default: 300).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<i64>,
    /// Seconds pytest's process group gets between SIGTERM and SIGKILL when
    /// a run is ended (time limit, cancellation, a signal to pytest-mcp).
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = parse_grace)]
    pub kill_grace: Duration,
}

/// `plan --timeout`'s help: its pytest only collects.
const PLAN_TIMEOUT_HELP: &str =
    "Time limit in seconds for collecting the tests, 1 to 86400 (default: 300)";
/// `plan --kill-grace`'s help.
const PLAN_GRACE_HELP: &str = "Seconds pytest's process group gets between SIGTERM and SIGKILL when collecting is ended (time limit, a signal to pytest-mcp)";

/// Options shared by `run` and `discover`.
#[derive(Debug, clap::Args)]
pub struct ProjectArgs {
    #[command(flatten)]
    pub pytest: PytestArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = OutputFormat::default())]
    pub format: OutputFormat,
    /// Write the answer to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Largest answer in o200k tokens, 200 to 1000000 (default: no limit).
    /// Detail goes first (captured output, traceback lines, ids), then
    /// failures become one line per group; the answer says what it left
    /// out. The summary counts stay exact.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_tokens: Option<i64>,
    /// Longest Markdown answer in characters (65536, a GitHub comment, by
    /// default), shortened the same way. JSON has no character limit.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CHARS)]
    pub max_chars: usize,
}

/// Which tests: `run`'s and `plan`'s selection, as pytest takes it.
#[derive(Debug, clap::Args)]
pub struct SelectionArgs {
    /// Test ids or paths (e.g. tests/test_x.py::test_y); all tests when none.
    #[arg(value_name = "NODE_ID")]
    pub node_ids: Vec<String>,
    /// Only tests matching this keyword expression (pytest -k).
    #[arg(short = 'k', value_name = "EXPR")]
    pub keywords: Option<String>,
    /// Only tests matching this marker expression (pytest -m).
    #[arg(short = 'm', value_name = "EXPR")]
    pub markers: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Stop at the first failure.
    #[arg(short = 'x', long = "exitfirst", conflicts_with = "maxfail")]
    pub failfast: bool,
    /// Stop after N failures.
    #[arg(long, value_name = "N")]
    pub maxfail: Option<i64>,
    /// pytest's verbosity, -2 (quietest) to 2.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub verbosity: Option<i64>,
    /// Rerun only the tests that failed last time (pytest --lf); if none
    /// did, run nothing.
    #[arg(long, visible_alias = "lf")]
    pub last_failed: bool,
    /// Run only the tests whose code changed since they last ran, and the
    /// ones failing before (pytest-testmon, which must be installed in the
    /// project; its first run runs everything and records).
    #[arg(long)]
    pub affected: bool,
    /// Leave captured stdout/stderr/log out of failure reports.
    #[arg(long)]
    pub no_capture_output: bool,
    /// Run the tests in N processes with pytest-xdist (pytest -n), or
    /// `auto` for one per CPU; needs pytest-xdist in the project.
    #[arg(
        short = 'n',
        long,
        value_name = "N|auto",
        allow_negative_numbers = true
    )]
    pub workers: Option<String>,
    /// Rerun a failing test up to N times, 1 to 5 (2: three attempts in
    /// all), with pytest-rerunfailures (pytest --reruns), which must be
    /// installed in the project. A test that passes on a retry is reported
    /// flaky, with the error of its first failed attempt; one that fails
    /// every attempt is a failure that says so.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub retries: Option<i64>,
    /// Run the tests under coverage.py (installed in the project) and
    /// list, after the failures, the changed lines no test ran: the
    /// working tree (staged, unstaged and untracked files) against
    /// --base (docs/coverage.md).
    #[arg(long)]
    pub coverage: bool,
    /// With --coverage: the git revision the change is compared with
    /// (default HEAD; `main` for a branch's whole change).
    #[arg(long, value_name = "REF", requires = "coverage")]
    pub base: Option<String>,
    /// `--format gfm` (and the job summary of `github`): link `path:line`
    /// to URL + path + `#L` + line, e.g.
    /// `https://github.com/OWNER/REPO/blob/SHA/`. Default in GitHub
    /// Actions: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/;
    /// elsewhere paths are plain text.
    #[arg(long, value_name = "URL")]
    pub link_base: Option<String>,
    /// Run one shard of the suite (docs/sharding.md): `K/N`, shard K of a
    /// plan of N made here from the history of runs and what pytest
    /// collects (the same on every machine with the same history); `K`,
    /// shard K of --plan FILE; `auto`, the CI's parallel job (GitLab's
    /// CI_NODE_INDEX/CI_NODE_TOTAL, CircleCI's CIRCLE_NODE_INDEX/TOTAL,
    /// Buildkite's BUILDKITE_PARALLEL_JOB/_COUNT). A collected test the
    /// plan does not name goes to one shard, its module's; an empty shard
    /// passes (exit status 0), saying so.
    #[arg(long, value_name = "K/N|K|auto", conflicts_with_all = ["last_failed", "affected"])]
    pub shard: Option<String>,
    /// With --shard: the plan to take the shard from (`pytest-mcp plan`'s
    /// JSON), as every job of a CI reads the one plan a first job made.
    /// Give `run` the selection (ids, -m, -k) the plan was made with.
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub plan: Option<PathBuf>,
    /// Also keep this run's result file here, for `report` to merge (a CI
    /// shard's results): pytest-json-report's JSON when the plugin is
    /// installed (every test's setup, call and teardown: the history then
    /// tells a module's fixture from its tests, and `plan` keeps it on
    /// few shards), else pytest's JUnit XML.
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Fork the run from the warm process of a `pytest-mcp serve` running
    /// for this root and interpreter, when there is one (docs/warm.md);
    /// without one, or when it cannot take the run, the run starts cold.
    #[arg(long)]
    pub warm: bool,
    #[command(flatten)]
    pub history: HistoryArgs,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, clap::Args)]
pub struct DiscoverArgs {
    /// Directory or file to look in, relative to the root (default: the root).
    #[arg(long, value_name = "P")]
    pub path: Option<String>,
    /// Test file name glob (default: pytest's python_files, test_*.py and *_test.py).
    #[arg(long, value_name = "GLOB")]
    pub pattern: Option<String>,
    #[command(flatten)]
    pub project: ProjectArgs,
}

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// How many shards (the CI's parallel jobs), 1 to 10000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=10000))]
    pub shards: u16,
    /// A result file of an earlier run: pytest-json-report JSON (setup,
    /// call and teardown: shared fixture setup is told from the tests'
    /// own time), or JUnit XML or CTRF (each test's total). Repeat for
    /// several runs; each test takes its median. Without it (or
    /// --history) the history `run` keeps under --root is read.
    #[arg(long, value_name = "FILE")]
    pub durations: Vec<PathBuf>,
    /// The history of runs to take durations from (an SQLite file `run`
    /// and `report --history` keep): each test's median over its last 10
    /// runs, phase by phase where the runs timed them. A missing file is a
    /// history with no runs yet. Default, without --durations: the one
    /// `run` keeps, <root>/.pytest_cache/d/pytest-mcp/history.sqlite.
    #[arg(long, value_name = "PATH", conflicts_with = "no_history")]
    pub history: Option<PathBuf>,
    /// Read no history of runs: without --durations, every test counts
    /// alike and the shards get equal numbers of tests.
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// json: the plan (docs/sharding.md); ids: one file of node ids per
    /// shard, DIR/shard-K.txt, for `pytest @DIR/shard-K.txt` (needs -o DIR).
    #[arg(long, short = 'f', value_enum, default_value_t = PlanFormat::Json)]
    pub format: PlanFormat,
    /// Write the plan to this file (--format ids: into this directory,
    /// created if need be) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE|DIR")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub pytest: PytestArgs,
}

/// What `plan` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanFormat {
    /// The plan as JSON.
    Json,
    /// One file of node ids per shard.
    Ids,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Result files: JUnit XML or pytest-json-report JSON (detected by
    /// content); a directory means every .xml and .json file under it; a
    /// quoted glob ('shards/*/junit.xml') is expanded.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = OutputFormat::default())]
    pub format: OutputFormat,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Result file of an earlier run to compare with (a directory or a
    /// quoted glob as for FILE): new failures first, then fixed, still
    /// failing, added and removed tests, and the change in duration. One
    /// file per flag; repeat the flag for several:
    /// `--baseline a.xml --baseline b.json`.
    #[arg(long, value_name = "FILE")]
    pub baseline: Vec<PathBuf>,
    /// Longest Markdown (or gfm) report in characters: detail is shortened
    /// first, then failures become one line per root cause; the summary
    /// line (gfm: the table and the new failures) stays and the report says
    /// what was cut.
    /// 65536 (the default) fits a GitHub comment; a job summary takes 1048576
    /// bytes, the default for the summary `--format github` writes.
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    /// `--format github` and `gfm`: where pytest ran (its rootdir), relative
    /// to the repository root, e.g. `backend`: put before the result files'
    /// relative paths so that annotations and links land on the right
    /// files. Default: the repository root.
    #[arg(long, value_name = "DIR")]
    pub path_prefix: Option<String>,
    /// `--format gfm` (and the job summary of `github`): link `path:line`
    /// to URL + path + `#L` + line, e.g.
    /// `https://github.com/OWNER/REPO/blob/SHA/`. Default in GitHub
    /// Actions: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/;
    /// elsewhere paths are plain text.
    #[arg(long, value_name = "URL")]
    pub link_base: Option<String>,
    /// Largest report in o200k tokens, 200 to 1000000 (default: no limit),
    /// for Markdown and JSON. JSON drops json_report, text_output, passing
    /// tests, then failing tests beyond those that fit, and adds
    /// `failure_groups` and `truncated`.
    #[arg(long, value_name = "N", value_parser = parse_max_tokens)]
    pub max_tokens: Option<usize>,
    /// Exit with status 1 when the results contain failures (or errors, or
    /// only errors), to gate a CI step; `never` (the default) exits 0
    /// whatever the tests did.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// Read on N threads: up to N result files at once (shards of a
    /// suite), and a large JUnit file in parts; default: one per CPU core.
    /// The report is the same, byte for byte, whatever N.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// The plan the result files are the shards of (`pytest-mcp plan`'s
    /// JSON): the report names the shards that came back, lists every
    /// planned test no shard ran as an error (and exits with status 1,
    /// whatever --fail-on says) and every test two shards ran.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Record this run in the history of runs kept in this SQLite file
    /// (e.g. restored from a CI cache), and tell each failure as new,
    /// failing since an earlier run, or flaky (docs/flaky.md).
    #[arg(long, value_name = "PATH")]
    pub history: Option<PathBuf>,
    /// Runs the history keeps, this one included, 2 to 1000.
    #[arg(long, value_name = "N", default_value_t = crate::history::DEFAULT_RUNS, value_parser = parse_history_runs)]
    pub history_runs: usize,
    /// With --history: the commit the results are of (default:
    /// $GITHUB_SHA; else what is checked out in the working directory).
    /// Runs of one commit that pass and fail make a test flaky.
    #[arg(long, value_name = "SHA", requires = "history")]
    pub commit: Option<String>,
    #[command(flatten)]
    pub flaky: FlakyArgs,
    #[command(flatten)]
    pub coverage: ReportCoverageArgs,
}

/// `report`'s change coverage (docs/coverage.md).
#[derive(Debug, clap::Args)]
pub struct ReportCoverageArgs {
    /// coverage.py's data for these results: coverage.xml (as pytest-cov
    /// writes it), coverage.json, or .coverage data files (shards' files
    /// are combined first). The report then leads with the changed lines
    /// (the working tree against --base) that no test ran. One file per
    /// flag; repeat it, or give a directory or a quoted glob
    /// (`--coverage '.coverage.*'`).
    #[arg(long = "coverage", id = "coverage", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// With --coverage: the git revision the change is compared with, from
    /// where it and HEAD part (their merge base): `origin/main` for a
    /// branch's whole change. Default: HEAD (what is not committed).
    #[arg(long, value_name = "REF", requires = "coverage")]
    pub base: Option<String>,
    /// With --coverage: the base's coverage (as for --coverage), so that a
    /// range no test ran says whether it ran before the change.
    #[arg(long, value_name = "FILE", requires = "coverage")]
    pub baseline_coverage: Vec<PathBuf>,
    /// With .coverage data files: the interpreter with coverage.py that
    /// reads them (default: the project's, as `run` finds it).
    #[arg(long, value_name = "PATH", requires = "coverage")]
    pub python: Option<PathBuf>,
}

/// When `report` exits non-zero because of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Failed or erroring tests, or collection errors.
    Failures,
    /// Only erroring tests and collection errors.
    Errors,
    /// Only new failures: not failing before and not flaky by the history
    /// (--history), and not failing in the baseline (--baseline).
    New,
    /// Never: the exit status says only whether the report was written.
    Never,
}

#[cfg(test)]
mod tests;
