//! The tests read as a tree of scopes, and each test's durations read as
//! its own cost plus the shared setup it paid.
//!
//! A scope is what pytest sets fixtures up for once and shares: a package
//! (each directory of the node id's path), a module (the file), a class
//! (each `::Class` before the function). pytest charges a scope's setup to
//! the first test that runs in it and its teardown to the last, so one run
//! in collection order shows it as that test's setup (teardown) beyond its
//! siblings'. A shard that runs any test of the scope pays it again:
//! [`Suite::loads`] counts it once per shard that touches the scope.
//!
//! A test that opens several scopes at once (the first test of a package
//! opens the package and its first module) paid all of them in one setup.
//! The parts cannot be told apart from one run, so each inner scope is
//! credited as much as the costliest of its sibling scopes pays alone, and
//! the outermost gets only the rest: what no sibling explains. Module
//! fixtures vary widely and package fixtures are rare, so a first module
//! heavier than most of its siblings is still read as its own (the median
//! would charge its package, and so every shard running any module of the
//! package: 60% too much on some shards of the simulated suite, against
//! 23% with this rule and 2% at 50 shards). A first class with no sibling
//! class leaves it all to its module, which errs toward keeping the module
//! together; an only child (a package's one module) takes it all: it runs
//! on exactly the shards its parent does.

use std::collections::{HashMap, HashSet};

use super::{Test, Timing, median};

/// What every test costs no matter where it runs when nothing at all is
/// known: then the plan balances the number of tests.
const UNKNOWN_SECONDS: f64 = 1.0;

/// One scope of the tree.
#[derive(Debug, Clone)]
pub(super) struct Scope {
    pub parent: Option<u32>,
    /// 0 for a scope at the top.
    pub depth: u32,
    /// Whether it is a module (a file): estimates come from its tests.
    pub module: bool,
    /// Seconds of shared setup and teardown, paid once by every shard that
    /// runs any of its tests.
    pub cost: f64,
    /// The scopes inside it, in collection order.
    pub children: Vec<u32>,
    /// Its tests that are in none of its children, in collection order.
    pub tests: Vec<u32>,
    /// Its first test in collection order.
    pub first: u32,
}

/// The tests and their scopes, with every cost the plan weighs.
#[derive(Debug, Clone)]
pub(super) struct Suite {
    pub scopes: Vec<Scope>,
    /// Each test's innermost scope.
    pub scope_of: Vec<u32>,
    /// Each test's own seconds: its phases less the shared setup it paid.
    pub own: Vec<f64>,
    /// Tests whose cost is an estimate.
    pub estimated: usize,
}

impl Suite {
    pub fn read(tests: &[Test]) -> Suite {
        let (scopes, scope_of) = tree(tests);
        let mut suite = Suite {
            scopes,
            scope_of,
            own: vec![0.0; tests.len()],
            estimated: 0,
        };
        let timings: Vec<Option<Timing>> = tests
            .iter()
            .map(|t| t.timing.filter(Timing::usable).map(micros))
            .collect();
        suite.share(&timings);
        suite.estimate(&timings);
        suite
    }

    /// The scopes around `test`, innermost first.
    pub fn chain(&self, test: usize) -> Chain<'_> {
        Chain {
            scopes: &self.scopes,
            next: Some(self.scope_of[test]),
        }
    }

    /// The scopes above `scope` (not itself), innermost first.
    pub fn above(&self, scope: u32) -> Chain<'_> {
        Chain {
            scopes: &self.scopes,
            next: self.scopes[scope as usize].parent,
        }
    }

    /// Every test's own cost and every scope's shared cost, each once: the
    /// least the whole suite takes on one machine.
    pub fn total(&self) -> f64 {
        self.own.iter().sum::<f64>() + self.shared_setup()
    }

    pub fn shared_setup(&self) -> f64 {
        self.scopes.iter().map(|s| s.cost).sum()
    }

    /// The expected seconds of each of `shards` shards when test `i` runs
    /// on shard `shard_of[i]`: its tests' own costs, and each scope's once
    /// per shard that runs any of its tests.
    pub fn loads(&self, shard_of: &[usize], shards: usize) -> Vec<f64> {
        let mut loads = vec![0.0; shards];
        let mut paid: HashSet<(u32, usize)> = HashSet::new();
        for (test, &k) in shard_of.iter().enumerate() {
            loads[k] += self.own[test];
            for scope in self.chain(test) {
                if paid.insert((scope, k)) {
                    loads[k] += self.scopes[scope as usize].cost;
                }
            }
        }
        loads
    }

    /// Splits each timed test's phases into its own cost and the shared
    /// setup and teardown it paid for the scopes it opened or closed.
    fn share(&mut self, timings: &[Option<Timing>]) {
        let phased = |t: usize| timings[t].and_then(|t| t.phases);
        let setup = Ends::of(self, timings, |t| phased(t).map(|p| p.setup), false);
        let teardown = Ends::of(self, timings, |t| phased(t).map(|p| p.teardown), true);
        let setup_shares = self.credit(&setup);
        let teardown_shares = self.credit(&teardown);
        for (scope, (s, t)) in self
            .scopes
            .iter_mut()
            .zip(setup_shares.iter().zip(&teardown_shares))
        {
            scope.cost = s.unwrap_or(0.0) + t.unwrap_or(0.0);
        }
        for (test, timing) in timings.iter().enumerate() {
            if let Some(timing) = timing {
                let paid = setup.excess[test] + teardown.excess[test];
                self.own[test] = (timing.total - paid).max(0.0);
            }
        }
    }

    /// Each scope's share of the excess its opening (closing) tests paid,
    /// `None` for a scope no timed test opened. Openers whose outermost
    /// scope is deepest go first, so that the sibling scopes an inner
    /// scope is compared with are credited before it.
    fn credit(&self, ends: &Ends) -> Vec<Option<f64>> {
        let mut share: Vec<Option<f64>> = vec![None; self.scopes.len()];
        let mut openers: Vec<(u32, usize)> = ends
            .opened
            .iter()
            .enumerate()
            .filter_map(|(t, opened)| opened.first().map(|&s| (self.scopes[s as usize].depth, t)))
            .collect();
        openers.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, test) in openers {
            let opened = &ends.opened[test];
            let mut rest = ends.excess[test];
            for pair in opened.windows(2).rev() {
                let (outer, inner) = (pair[0], pair[1]);
                let o = &self.scopes[outer as usize];
                let siblings: Vec<f64> = o
                    .children
                    .iter()
                    .filter(|&&c| c != inner)
                    .filter_map(|&c| share[c as usize])
                    .collect();
                let credited = if o.children.len() == 1 && o.tests.is_empty() {
                    // An only child runs wherever its parent does: either
                    // could hold the cost, and the inner is the likelier.
                    rest
                } else {
                    siblings.iter().copied().fold(0.0, f64::max).min(rest)
                };
                share[inner as usize] = Some(credited);
                rest -= credited;
            }
            if let Some(&outermost) = opened.first() {
                share[outermost as usize] = Some(rest);
            }
        }
        share
    }

    /// Gives each untimed test the mean own cost of its module's timed
    /// tests, else the suite's: the expected value, which is what a sum
    /// of durations needs (a median would undercount a module with a few
    /// slow tests).
    fn estimate(&mut self, timings: &[Option<Timing>]) {
        let mut by_module: HashMap<u32, (f64, usize)> = HashMap::new();
        let (mut sum, mut count) = (0.0, 0usize);
        for (test, timing) in timings.iter().enumerate() {
            if timing.is_some() {
                let entry = by_module.entry(self.module_of(test)).or_default();
                entry.0 += self.own[test];
                entry.1 += 1;
                sum += self.own[test];
                count += 1;
            }
        }
        let suite_mean = if count == 0 {
            UNKNOWN_SECONDS
        } else {
            sum / count as f64
        };
        for (test, timing) in timings.iter().enumerate() {
            if timing.is_none() {
                self.own[test] = match by_module.get(&self.module_of(test)) {
                    Some(&(sum, n)) if n > 0 => sum / n as f64,
                    _ => suite_mean,
                };
                self.estimated += 1;
            }
        }
    }

    /// The module (file) a test is in: the innermost module scope around
    /// it (every node id has one).
    fn module_of(&self, test: usize) -> u32 {
        let mut last = self.scope_of[test];
        for scope in self.chain(test) {
            last = scope;
            if self.scopes[scope as usize].module {
                break;
            }
        }
        last
    }
}

/// A timing to the whole microsecond, as the history of runs keeps it:
/// a run's result file and the history it was recorded into then give the
/// same plan, rather than two that differ wherever two tests' costs tie
/// within a few microseconds.
fn micros(timing: Timing) -> Timing {
    let round = |s: f64| (s * 1e6).round() / 1e6;
    Timing {
        phases: timing.phases.map(|p| super::Phases {
            setup: round(p.setup),
            call: round(p.call),
            teardown: round(p.teardown),
        }),
        total: round(timing.total),
    }
}

/// The scopes of a suite from innermost to outermost.
pub(super) struct Chain<'a> {
    scopes: &'a [Scope],
    next: Option<u32>,
}

impl Iterator for Chain<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let here = self.next?;
        self.next = self.scopes[here as usize].parent;
        Some(here)
    }
}

/// Which scopes each timed test opened (or closed, for teardown), and the
/// seconds it paid beyond the typical test of its scope.
struct Ends {
    /// Per test: the scopes it opened, outermost first (empty for most).
    opened: Vec<Vec<u32>>,
    /// Per test: its phase beyond its siblings' typical one; 0 when it
    /// opened nothing.
    excess: Vec<f64>,
}

impl Ends {
    /// Reads `phase` (setup, or teardown with `last`) of every test that
    /// has it: the first timed test of a scope opens it (the last one
    /// closes it, with `last`).
    fn of(
        suite: &Suite,
        timings: &[Option<Timing>],
        phase: impl Fn(usize) -> Option<f64>,
        last: bool,
    ) -> Ends {
        let n = timings.len();
        let mut opener: Vec<Option<usize>> = vec![None; suite.scopes.len()];
        for test in 0..n {
            let test = if last { n - 1 - test } else { test };
            if phase(test).is_some() {
                for scope in suite.chain(test) {
                    opener[scope as usize].get_or_insert(test);
                }
            }
        }
        let opened: Vec<Vec<u32>> = (0..n)
            .map(|test| {
                let mut mine: Vec<u32> = suite
                    .chain(test)
                    .take_while(|&s| opener[s as usize] == Some(test))
                    .collect();
                mine.reverse();
                mine
            })
            .collect();
        let typical = typical(suite, &opened, &phase);
        let mut excess = vec![0.0; n];
        for test in 0..n {
            if let (Some(seconds), false) = (phase(test), opened[test].is_empty()) {
                // The typical test of its innermost scope, else of the
                // next scope out that has one.
                let usual = suite.chain(test).find_map(|s| typical[s as usize]);
                excess[test] = (seconds - usual.unwrap_or(seconds)).max(0.0);
            }
        }
        Ends { opened, excess }
    }
}

/// Each scope's typical phase: the median over its own tests (not its
/// children's) that open no scope; `None` when it has none. Made once per
/// scope, so that a scope of many tests is not read again for each test
/// that looks it up.
fn typical(
    suite: &Suite,
    opened: &[Vec<u32>],
    phase: &impl Fn(usize) -> Option<f64>,
) -> Vec<Option<f64>> {
    suite
        .scopes
        .iter()
        .map(|scope| {
            let plain: Vec<f64> = scope
                .tests
                .iter()
                .map(|&t| t as usize)
                .filter(|&t| opened[t].is_empty())
                .filter_map(phase)
                .collect();
            (!plain.is_empty()).then(|| median(plain))
        })
        .collect()
}

/// The scope tree of the node ids, scopes numbered in order of their first
/// test, and each test's innermost scope.
fn tree(tests: &[Test]) -> (Vec<Scope>, Vec<u32>) {
    let mut scopes: Vec<Scope> = Vec::new();
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut scope_of = Vec::with_capacity(tests.len());
    for (i, test) in tests.iter().enumerate() {
        let (ends, module_end) = scope_ends(&test.id);
        let mut parent: Option<u32> = None;
        for end in ends {
            let key = &test.id[..end];
            let here = match index.get(key) {
                Some(&s) => s,
                None => {
                    let s = scopes.len() as u32;
                    scopes.push(Scope {
                        parent,
                        depth: parent.map_or(0, |p| scopes[p as usize].depth + 1),
                        module: end == module_end,
                        cost: 0.0,
                        children: Vec::new(),
                        tests: Vec::new(),
                        first: i as u32,
                    });
                    if let Some(p) = parent {
                        scopes[p as usize].children.push(s);
                    }
                    index.insert(key, s);
                    s
                }
            };
            parent = Some(here);
        }
        // Every id has a module (the part before the first `::`, perhaps
        // the whole id), so `parent` is set.
        let inner = parent.unwrap_or(0);
        scopes[inner as usize].tests.push(i as u32);
        scope_of.push(inner);
    }
    (scopes, scope_of)
}

/// Where each scope of a node id ends, outermost first (every one is a
/// prefix of the id: `a/`, `a/b/`, `a/b/test_x.py`,
/// `a/b/test_x.py::TestY`), and where the module ends. Parameters
/// (`[...]`) are not read: they may hold `::` and `/`.
pub(super) fn scope_ends(id: &str) -> (Vec<usize>, usize) {
    let module_end = id.find("::").unwrap_or(id.len());
    let mut ends: Vec<usize> = id[..module_end]
        .match_indices('/')
        .map(|(at, _)| at + 1)
        .filter(|&end| end < module_end)
        .collect();
    ends.push(module_end);
    if module_end < id.len() {
        let start = module_end + 2;
        let rest = &id[start..];
        let names = &rest[..rest.find('[').unwrap_or(rest.len())];
        ends.extend(names.match_indices("::").map(|(at, _)| start + at));
    }
    (ends, module_end)
}
