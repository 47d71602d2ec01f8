//! Shards planned at scale (issue 42): the planner on a simulated suite of
//! 100,000 tests in 2,000 modules (the testkit's `sharding`: heavy-tailed
//! test durations, module fixtures with heavy-tailed setup, some
//! `setup_class`), for 50 and 200 shards, against the lower bound and
//! pytest-split's `least_duration` and `duration_based_chunks` on the
//! same recorded durations. Every plan is judged by the suite's true
//! costs: each module's and class's setup paid once by every shard that
//! runs any of its tests, as pytest runs them; "repeated" is the setup a
//! plan pays beyond the first time (its shards' sum less the suite's time
//! on one machine: what the split adds to the CI time billed). Planning is
//! timed in process (the planner alone: the tests and durations already
//! read).

use std::num::NonZeroUsize;
use std::time::Instant;

use pytest_mcp::plan::{Input, Plan, plan};
use pytest_mcp_testkit::sharding::{Shape, Suite, duration_based_chunks, least_duration};

use crate::overhead::verdict;
use crate::proc::median;
use crate::{Env, secs};

const SHAPE: Shape = Shape {
    tests: 100_000,
    modules: 2_000,
    modules_per_package: 20,
    seed: 42,
};

/// Shard counts measured.
const SHARDS: [usize; 2] = [50, 200];

/// The slowest shard may take this much more than the lower bound.
const WITHIN: f64 = 1.05;

pub fn run(env: &Env) {
    let suite = Suite::generate(SHAPE);
    let tests = suite.planner_input();
    let stored = suite.stored_durations();
    let own: f64 = suite.own.iter().sum();
    let shared: f64 = suite.scope_cost.iter().sum();
    println!(
        "## 5. Shard plans: {} simulated tests in {} modules ({} packages), {rounds} rounds of planning\n",
        SHAPE.tests,
        SHAPE.modules,
        SHAPE.modules / SHAPE.modules_per_package,
        rounds = env.rounds,
    );
    println!(
        "Tests' own time {}, shared setup and teardown of modules and classes {} (counted once); \
each plan judged by the true time of its slowest shard, every scope's setup paid once per shard \
that runs any of its tests; \"repeated\" is the setup a plan pays again, beyond the first time \
(its shards' sum less {}). pytest-split sees each test's recorded total (the first test of a \
module carries the fixture), as its `--store-durations` keeps it.\n",
        secs(own),
        secs(shared),
        secs(own + shared)
    );
    println!(
        "| shards | lower bound | ours | ours / bound | repeated | planned vs true | least_duration | / bound | repeated | duration_based_chunks | / bound | repeated | planning (median) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut met = Vec::new();
    for shards in SHARDS {
        let (made, took) = timed_plans(&tests, shards, env.rounds);
        let bound = suite.lower_bound(shards);
        let ours = suite.shard_times(&suite.shards_of(&made));
        let least = suite.shard_times(&least_duration(&suite.ids, &stored, shards));
        let chunks = suite.shard_times(&duration_based_chunks(&stored, shards));
        let repeated = |times: &[f64]| secs((times.iter().sum::<f64>() - own - shared).max(0.0));
        let (ours_slowest, least_slowest, chunks_slowest) =
            (slowest(&ours), slowest(&least), slowest(&chunks));
        println!(
            "| {shards} | {} | {} | {:.3}x | {} | {} | {} | {:.2}x | {} | {} | {:.2}x | {} | {} |",
            secs(bound),
            secs(ours_slowest),
            ours_slowest / bound,
            repeated(&ours),
            prediction_error(&suite, &made),
            secs(least_slowest),
            least_slowest / bound,
            repeated(&least),
            secs(chunks_slowest),
            chunks_slowest / bound,
            repeated(&chunks),
            secs(took),
        );
        met.push((shards, ours_slowest / bound, took));
    }
    println!("\nTargets:");
    for (shards, ratio, took) in met {
        println!(
            "- {shards} shards: slowest within {WITHIN}x of the bound: {ratio:.3}x {}; planned in under 1 s: {} {}",
            verdict(ratio <= WITHIN),
            secs(took),
            verdict(took < 1.0)
        );
    }
    println!();
}

/// The plan for `shards`, and the median seconds of `rounds` plannings
/// (the plan is the same each time: the planner is deterministic).
fn timed_plans(tests: &[pytest_mcp::plan::Test], shards: usize, rounds: usize) -> (Plan, f64) {
    let input = Input {
        tests,
        shards: NonZeroUsize::new(shards).expect("shards > 0"),
        runs: 1,
    };
    let mut times = Vec::new();
    let mut made = None;
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let p = plan(input);
        times.push(start.elapsed().as_secs_f64());
        if let Some(first) = &made {
            assert_eq!(first, &p, "the same input planned twice differs");
        }
        made = Some(p);
        eprint!(".");
    }
    eprintln!();
    (made.expect("one round at least"), median(&times))
}

fn slowest(times: &[f64]) -> f64 {
    times.iter().copied().fold(0.0, f64::max)
}

/// How far the plan's expected seconds are from the true ones: the
/// largest difference over its shards, relative to that shard's truth.
fn prediction_error(suite: &Suite, plan: &Plan) -> String {
    let truth = suite.shard_times(&suite.shards_of(plan));
    let worst = plan
        .shards
        .iter()
        .zip(&truth)
        .filter(|&(_, &t)| t > 0.0)
        .map(|(s, &t)| (s.seconds - t).abs() / t)
        .fold(0.0, f64::max);
    format!("within {:.1}%", worst * 100.0)
}
