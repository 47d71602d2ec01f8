//! Sharding measured without running anything (issue 42): a simulated
//! suite whose true costs are known, pytest-split's two algorithms ported
//! to compare with, and the true time of any split of it.
//!
//! The suite is what a large project looks like: modules in packages,
//! heavy-tailed test durations (log-normal), module fixtures with
//! heavy-tailed setup costs, some classes with a `setup_class` of their
//! own. One run in collection order is "recorded" the way pytest records
//! it: the first test of a module pays the module's setup in its setup
//! phase, the last one the teardown, and the same for a class. A shard's
//! true time is what running its tests in collection order would take:
//! each test's own time, and each module's and class's setup and teardown
//! once for every shard that runs any of its tests.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use pytest_mcp::plan::{Test, Timing};

/// A suite with known true costs.
pub struct Suite {
    /// Node ids in collection order.
    pub ids: Vec<String>,
    /// Each test's own time (its function-scoped setup, call and teardown).
    pub own: Vec<f64>,
    /// Each test's scopes (indexes into `scope_cost`): its module, then
    /// its class if any.
    pub scopes_of: Vec<Vec<usize>>,
    /// Each scope's setup plus teardown.
    pub scope_cost: Vec<f64>,
    /// Each test's phases as one run in collection order recorded them.
    pub recorded: Vec<(f64, f64, f64)>,
}

/// The shape of a simulated suite.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub tests: usize,
    pub modules: usize,
    pub modules_per_package: usize,
    pub seed: u64,
}

/// splitmix64: a small generator whose stream is fixed by its seed, so
/// that every run of a bench measures the same suite.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Log-normal with this median and shape (sigma).
    pub fn log_normal(&mut self, median: f64, sigma: f64) -> f64 {
        // Box-Muller.
        let (u, v) = (self.unit(), self.unit());
        let normal = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
        median * (sigma * normal).exp()
    }
}

impl Suite {
    /// A suite of `shape`: test counts per module and every duration drawn
    /// from `shape.seed`.
    pub fn generate(shape: Shape) -> Suite {
        let mut rng = Rng::new(shape.seed);
        let counts = module_sizes(&mut rng, shape.tests, shape.modules);
        let mut suite = Suite {
            ids: Vec::with_capacity(shape.tests),
            own: Vec::with_capacity(shape.tests),
            scopes_of: Vec::with_capacity(shape.tests),
            scope_cost: Vec::new(),
            recorded: Vec::with_capacity(shape.tests),
        };
        for (m, &count) in counts.iter().enumerate() {
            let package = m / shape.modules_per_package.max(1);
            suite.module(&mut rng, &format!("tests/pkg{package}/test_m{m}.py"), count);
        }
        suite
    }

    /// One module of `count` tests: 60% of modules have a fixture (setup
    /// median 0.5 s, heavy tail), 30% a class holding their second half,
    /// half of those with a `setup_class` (median 0.2 s).
    fn module(&mut self, rng: &mut Rng, path: &str, count: usize) {
        let module = self.scope_cost.len();
        let (setup, teardown) = if rng.unit() < 0.6 {
            let s = rng.log_normal(0.5, 1.5);
            (s, s * 0.2 * rng.unit())
        } else {
            (0.0, 0.0)
        };
        self.scope_cost.push(setup + teardown);
        let class = (count >= 2 && rng.unit() < 0.3).then(|| {
            let s = if rng.unit() < 0.5 {
                rng.log_normal(0.2, 1.0)
            } else {
                0.0
            };
            self.scope_cost.push(s);
            (self.scope_cost.len() - 1, s)
        });
        let first_in_class = count / 2;
        for i in 0..count {
            let in_class = class.filter(|_| i >= first_in_class);
            let id = match in_class {
                Some(_) => format!("{path}::TestGroup::test_{i}"),
                None => format!("{path}::test_{i}"),
            };
            let (f_setup, call, f_teardown) = (
                rng.log_normal(0.001, 0.5),
                rng.log_normal(0.02, 1.6),
                rng.log_normal(0.0005, 0.5),
            );
            let mut phases = (f_setup, call, f_teardown);
            let mut scopes = vec![module];
            if i == 0 {
                phases.0 += setup;
            }
            if i + 1 == count {
                phases.2 += teardown;
            }
            if let Some((c, s)) = in_class {
                scopes.push(c);
                if i == first_in_class {
                    phases.0 += s;
                }
            }
            self.ids.push(id);
            self.own.push(f_setup + call + f_teardown);
            self.scopes_of.push(scopes);
            self.recorded.push(phases);
        }
    }

    /// The planner's input: every test with its recorded phases.
    pub fn planner_input(&self) -> Vec<Test> {
        self.ids
            .iter()
            .zip(&self.recorded)
            .map(|(id, &(s, c, t))| Test {
                id: id.clone(),
                timing: Some(Timing::phased(s, c, t)),
            })
            .collect()
    }

    /// What pytest-split's `--store-durations` keeps: each test's phases
    /// summed.
    pub fn stored_durations(&self) -> Vec<Option<f64>> {
        self.recorded
            .iter()
            .map(|&(s, c, t)| Some(s + c + t))
            .collect()
    }

    /// The true time of each shard (test indexes in collection order).
    pub fn shard_times(&self, shards: &[Vec<usize>]) -> Vec<f64> {
        shards
            .iter()
            .map(|tests| {
                let mut paid = vec![false; self.scope_cost.len()];
                let mut time = 0.0;
                for &t in tests {
                    time += self.own[t];
                    for &s in &self.scopes_of[t] {
                        if !std::mem::replace(&mut paid[s], true) {
                            time += self.scope_cost[s];
                        }
                    }
                }
                time
            })
            .collect()
    }

    /// No split can finish sooner: a fair share of everything counted
    /// once, or the test that takes longest with its scopes' setup.
    pub fn lower_bound(&self, shards: usize) -> f64 {
        let total: f64 = self.own.iter().sum::<f64>() + self.scope_cost.iter().sum::<f64>();
        let largest = (0..self.own.len())
            .map(|t| {
                self.own[t]
                    + self.scopes_of[t]
                        .iter()
                        .map(|&s| self.scope_cost[s])
                        .sum::<f64>()
            })
            .fold(0.0, f64::max);
        (total / shards as f64).max(largest)
    }

    /// Test indexes of each shard of a plan, by node id.
    pub fn shards_of(&self, plan: &pytest_mcp::plan::Plan) -> Vec<Vec<usize>> {
        let index: std::collections::HashMap<&str, usize> = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_str(), i))
            .collect();
        plan.shards
            .iter()
            .map(|s| s.tests.iter().map(|id| index[id.as_str()]).collect())
            .collect()
    }
}

/// `tests` split into `modules` sizes from a log-normal spread, each at
/// least 1, summing to `tests`.
fn module_sizes(rng: &mut Rng, tests: usize, modules: usize) -> Vec<usize> {
    let weights: Vec<f64> = (0..modules).map(|_| rng.log_normal(1.0, 1.0)).collect();
    let sum: f64 = weights.iter().sum();
    let spare = tests.saturating_sub(modules) as f64;
    let mut sizes: Vec<usize> = weights
        .iter()
        .map(|w| 1 + (w / sum * spare).floor() as usize)
        .collect();
    let mut short = tests.saturating_sub(sizes.iter().sum());
    let mut i = 0;
    while short > 0 && !sizes.is_empty() {
        sizes[i % modules] += 1;
        short -= 1;
        i += 1;
    }
    sizes
}

// pytest-split's two algorithms (pytest_split/algorithms.py, version
// 0.11.0, https://github.com/jerry-git/pytest-split, MIT licence,
// Copyright (c) 2021 Jerry Pussinen), ported for comparison: each returns
// the test indexes of every group, as pytest-split selects them.

/// The duration pytest-split gives each test: its stored one, else the
/// mean of the stored durations of the collected tests (1 without any).
fn durations_or_mean(durations: &[Option<f64>]) -> Vec<f64> {
    let known: Vec<f64> = durations.iter().flatten().copied().collect();
    let mean = if known.is_empty() {
        1.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    durations.iter().map(|d| d.unwrap_or(mean)).collect()
}

/// `least_duration`: items sorted by `str(item)` (`<Function NAME>`, the
/// name after the last `::`), then stably by duration, longest first, each
/// to the group with the smallest sum (a heap of `(sum, index)`); each
/// group's items back in collection order.
pub fn least_duration(ids: &[String], durations: &[Option<f64>], splits: usize) -> Vec<Vec<usize>> {
    let durations = durations_or_mean(durations);
    let name = |i: usize| format!("<Function {}>", ids[i].rsplit("::").next().unwrap_or(""));
    let mut order: Vec<usize> = (0..ids.len()).collect();
    // Python's sort is stable: equal names keep collection order.
    order.sort_by_cached_key(|&i| name(i));
    order.sort_by(|&a, &b| durations[b].total_cmp(&durations[a]));
    let mut heap: BinaryHeap<Reverse<(Sum, usize)>> =
        (0..splits).map(|g| Reverse((Sum(0.0), g))).collect();
    let mut groups = vec![Vec::new(); splits];
    for i in order {
        let Some(Reverse((Sum(sum), g))) = heap.pop() else {
            break;
        };
        groups[g].push(i);
        heap.push(Reverse((Sum(sum + durations[i]), g)));
    }
    for group in &mut groups {
        group.sort_unstable();
    }
    groups
}

/// `duration_based_chunks`: collection order cut into consecutive chunks,
/// moving to the next group once the current one reaches the total over
/// `splits`.
pub fn duration_based_chunks(durations: &[Option<f64>], splits: usize) -> Vec<Vec<usize>> {
    let durations = durations_or_mean(durations);
    let per_group = durations.iter().sum::<f64>() / splits as f64;
    let mut groups = vec![Vec::new(); splits];
    let mut sums = vec![0.0; splits];
    let mut g = 0;
    for (i, &d) in durations.iter().enumerate() {
        if sums[g] >= per_group {
            // pytest-split would raise IndexError past the last group
            // (float rounding); the port stays on the last one.
            g = (g + 1).min(splits - 1);
        }
        groups[g].push(i);
        sums[g] += d;
    }
    groups
}

/// A float ordered as Python compares the heap's floats (durations are
/// finite).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sum(f64);

impl Eq for Sum {}

impl PartialOrd for Sum {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Sum {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
