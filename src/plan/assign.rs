//! The tests dealt to shards.
//!
//! Scopes are kept whole as units unless they are heavy: a scope whose
//! tests and shared setup together exceed a fraction θ of the ideal shard
//! (the whole suite's cost over the number of shards) is cut, recursively:
//! into its child scopes and single tests when it has no shared setup,
//! else into pieces that each pay the setup again (`pieces`). The units
//! are dealt longest first (LPT), each to the shard where it finishes
//! soonest, counting the shared setup of the scopes around it only on a
//! shard that does not run that scope yet. Then the slowest shard gives
//! units away while that makes it faster.
//!
//! Which θ is best depends on the suite: coarse units keep scopes together
//! (shared setup paid once) but balance poorly, fine ones balance well but
//! pay setups again. So several are tried, from whole scopes down to single
//! tests, together with a plain deal of single tests that ignores scopes
//! (what pytest-split's `least_duration` does), and the best is kept (the
//! coarser on a tie): never worse than any of them, in the same cost model
//! and by the rule below.
//!
//! The rule (issue 49): a scope is kept whole unless splitting it shortens
//! the slowest shard by more than the setup it repeats. A split buys wall
//! time with setup paid again, which the CI bills on every shard that pays
//! it and which one run times only roughly, so a second of the slowest
//! shard is worth no more than a second of setup repeated. `Cost` holds
//! the two figures and `Cost::beats` weighs them; the same rule decides
//! every choice that can repeat a setup, so that a candidate does not
//! split what the choice between candidates would have kept whole:
//! - between candidate plans: the one that repeats more setup (the sum of
//!   its shards' loads beyond every cost counted once) must finish its
//!   slowest shard sooner than the other by more than the setup it
//!   repeats beyond the other's. Where the finer plan repeats more, as it
//!   mostly does, that is "a finer plan replaces the kept one only when it
//!   gains more than it repeats"; where it repeats less, the kept plan must
//!   have gained more than the extra it repeats to stay. Either way the
//!   kept plan has the least slowest shard plus repeated setup of those
//!   tried, whatever the order they are tried in (a placement, below, has
//!   no order to lean on). Summed over the plan, because the CI bills
//!   every shard's repetition and the slowest shard's gain is the whole
//!   plan's: a plan that splits ten modules to gain a second has not paid
//!   for them with that second. (At 200 shards that weighs a second of
//!   the slowest shard against the setup all 200 repeat, where weighing
//!   each module's split alone would not: where modules outweigh shards,
//!   the plan gives up some balance to repeat far less setup.) The early
//!   stop stays: once a candidate's slowest shard is at the lower bound,
//!   finer units, which repeat more, are not tried; the plain deal is
//!   always weighed (it is cheap), so no plan is worse than it by the
//!   rule;
//! - in `Deal::place`: a unit goes to a shard that would pay a setup again
//!   only if that shard finishes sooner by more than the setup. Sooner
//!   than what the plan can expect in any case: a shard finishing below a
//!   fair share of the suite (with the setup repeated so far and by this
//!   unit) or the bound is not the slowest, whatever it holds; the other
//!   shards' loads so far are left out, as they are not final and a
//!   holder's own load would hide what splitting the rest of its module
//!   gains. And counting, on each shard, its share of the rest of the
//!   unit's scope, which the shards running it will be offered too
//!   (`Deal::finish`): dealt piece by piece, no one piece of a costly
//!   module gains more than its setup where halving the module does;
//! - in `Deal::refine`: a move from the slowest shard to one that does not
//!   run the unit's scopes yet is made only when the slowest shard gets
//!   faster by more than the setup the move repeats (net of what the
//!   slowest shard no longer pays); among the moves, the one that gains
//!   most net of it.

use std::collections::{BTreeSet, HashMap};

use super::scopes::Suite;

/// The fractions of the ideal shard above which a scope is opened; 0
/// deals single tests.
const THETAS: [f64; 7] = [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.0];

/// Moves the slowest shard tries before the plan is kept as it is.
const MOVES_PER_SHARD: usize = 8;

/// A piece of a cut scope holds up to this many times the scope's shared
/// setup in tests, so that the setup it pays again is at most a fifth of
/// it.
const SETUP_SHARE: f64 = 4.0;

/// The most shards running a scope that are each tried for a unit in it.
const FEW_HOLDERS: usize = 16;

/// Less than this is no improvement (float sums differ in the last bits).
const EPSILON: f64 = 1e-9;

/// Each test's shard (0-based).
pub(super) fn assign(suite: &Suite, shards: usize) -> Vec<usize> {
    let ideal = suite.total() / shards as f64;
    // No plan can beat this: once one reaches it, finer units are not tried.
    let bound = ideal.max(largest_test(suite));
    let mut best: Option<(Cost, Vec<usize>)> = None;
    let mut keep = |shard_of: Vec<usize>| {
        let cost = Cost::of(suite, &shard_of, shards);
        if best.as_ref().is_none_or(|(b, _)| cost.beats(*b)) {
            best = Some((cost, shard_of));
        }
        cost.slowest
    };
    for theta in THETAS {
        if keep(scoped(suite, shards, theta * ideal, bound)) <= bound * (1.0 + EPSILON) {
            break;
        }
    }
    // Always weighed, so that no plan is worse than it by the rule; cheap.
    keep(plain(suite, shards));
    best.map(|(_, shard_of)| shard_of).unwrap_or_default()
}

/// A plan, a placement or a move as the rule weighs it: the seconds of
/// the slowest shard (of the shard it fills), and the seconds of shared
/// setup it pays more than once (more than the alternative does).
#[derive(Debug, Clone, Copy)]
struct Cost {
    slowest: f64,
    repeated: f64,
}

impl Cost {
    /// A whole plan: its slowest shard, and its loads' sum beyond every
    /// cost counted once.
    fn of(suite: &Suite, shard_of: &[usize], shards: usize) -> Cost {
        let loads = suite.loads(shard_of, shards);
        Cost {
            slowest: loads.iter().copied().fold(0.0, f64::max),
            repeated: (loads.iter().sum::<f64>() - suite.total()).max(0.0),
        }
    }

    /// Whether this is better than `other`: the one that repeats more
    /// shared setup must finish its slowest shard sooner by more than the
    /// setup it repeats beyond the other's; else the other is kept. In
    /// one sum: the smaller slowest shard plus repeated setup wins.
    fn beats(self, other: Cost) -> bool {
        let faster_by = other.slowest - self.slowest;
        faster_by > self.repeated - other.repeated + EPSILON
    }

    /// Whether neither beats the other.
    fn ties(self, other: Cost) -> bool {
        !self.beats(other) && !other.beats(self)
    }
}

/// The most a single test costs alone: its own time and the shared setup
/// of every scope around it.
fn largest_test(suite: &Suite) -> f64 {
    (0..suite.own.len())
        .map(|t| {
            suite.own[t]
                + suite
                    .chain(t)
                    .map(|s| suite.scopes[s as usize].cost)
                    .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

/// A unit dealt whole: a scope and every test in it, or one test.
#[derive(Debug, Clone)]
struct Unit {
    /// Its tests' own costs and the shared costs of the scopes inside it.
    inside: f64,
    /// The costly scopes around it, innermost first: paid on a shard that
    /// does not run them yet.
    around: Vec<u32>,
    /// Its first test, for ties.
    first: u32,
    /// What it costs on a shard that runs nothing around it.
    alone: f64,
}

/// The units of `suite` with scopes opened above `limit` seconds, and each
/// test's unit.
fn units(suite: &Suite, limit: f64) -> (Vec<Unit>, Vec<u32>) {
    let weight = subtree_weights(suite);
    let mut made = Units {
        units: Vec::new(),
        unit_of: vec![u32::MAX; suite.own.len()],
    };
    let mut stack: Vec<u32> = suite
        .scopes
        .iter()
        .enumerate()
        .filter(|(_, s)| s.parent.is_none())
        .map(|(i, _)| i as u32)
        .rev()
        .collect();
    while let Some(scope) = stack.pop() {
        let s = &suite.scopes[scope as usize];
        let single = s.children.is_empty() && s.tests.len() <= 1;
        if weight[scope as usize] <= limit || single {
            made.add(
                suite,
                &[Item::Scope(scope)],
                weight[scope as usize],
                suite.above(scope),
            );
            continue;
        }
        let mut heavy = Vec::new();
        let pieces = pieces(suite, scope, &weight, limit, &mut heavy);
        for (items, inside) in pieces {
            made.add(suite, &items, inside, suite.above(scope).chain([scope]));
        }
        stack.extend(heavy.iter().rev());
    }
    (made.units, made.unit_of)
}

/// A scope's child scope, or one of its own tests.
#[derive(Debug, Clone, Copy)]
enum Item {
    Scope(u32),
    Test(u32),
}

/// The units made so far, and the unit of every test placed in one.
struct Units {
    units: Vec<Unit>,
    unit_of: Vec<u32>,
}

impl Units {
    /// A unit of `items` weighing `inside`, inside the scopes `around`.
    fn add(
        &mut self,
        suite: &Suite,
        items: &[Item],
        inside: f64,
        around: impl Iterator<Item = u32>,
    ) {
        let id = self.units.len() as u32;
        let mut first = u32::MAX;
        for &item in items {
            let tests = match item {
                Item::Scope(s) => tests_under(suite, s),
                Item::Test(t) => vec![t],
            };
            for t in tests {
                self.unit_of[t as usize] = id;
                first = first.min(t);
            }
        }
        self.units.push(unit(suite, inside, around, first));
    }
}

/// A heavy scope cut into pieces, each paying the scope's shared setup
/// (and that of the scopes around it) once: its child scopes and its own
/// tests in collection order, filled into pieces of up to `limit` less
/// that setup (at least a quarter of `limit`: a scope whose setup nearly
/// fills a shard is cut only as far as its size forces), and of no more
/// than [`SETUP_SHARE`] times the setup: a scope without shared setup is
/// cut into single tests and child scopes, the finest grain to balance
/// with. A child scope heavier than `limit` is left out of the pieces, to
/// be cut in its turn (`heavy`). Pieces rather than single tests for a
/// scope with setup: a greedy deal of single tests would start a new
/// shard with each of them while shards are empty, paying the setup every
/// time; a piece pays it at most once per [`SETUP_SHARE`] times its
/// worth of tests.
fn pieces(
    suite: &Suite,
    scope: u32,
    weight: &[f64],
    limit: f64,
    heavy: &mut Vec<u32>,
) -> Vec<(Vec<Item>, f64)> {
    let s = &suite.scopes[scope as usize];
    let setup: f64 = suite
        .above(scope)
        .chain([scope])
        .map(|a| suite.scopes[a as usize].cost)
        .sum();
    let room = (limit - setup).max(limit / 4.0).min(setup * SETUP_SHARE);
    // Children and own tests merged in collection order.
    let mut items: Vec<(u32, Item)> = s
        .children
        .iter()
        .map(|&c| (suite.scopes[c as usize].first, Item::Scope(c)))
        .chain(s.tests.iter().map(|&t| (t, Item::Test(t))))
        .collect();
    items.sort_by_key(|&(first, _)| first);
    let mut pieces: Vec<(Vec<Item>, f64)> = Vec::new();
    let mut current: (Vec<Item>, f64) = (Vec::new(), 0.0);
    for (_, item) in items {
        let w = match item {
            Item::Scope(c) => weight[c as usize],
            Item::Test(t) => suite.own[t as usize],
        };
        if let Item::Scope(c) = item {
            let child = &suite.scopes[c as usize];
            if w > limit && !(child.children.is_empty() && child.tests.len() <= 1) {
                heavy.push(c);
                continue;
            }
        }
        if !current.0.is_empty() && current.1 + w > room {
            pieces.push(std::mem::take(&mut current));
        }
        current.0.push(item);
        current.1 += w;
    }
    if !current.0.is_empty() {
        pieces.push(current);
    }
    // The scope's own cost travels with every piece as a scope around it.
    pieces
}

fn unit(suite: &Suite, inside: f64, around: impl Iterator<Item = u32>, first: u32) -> Unit {
    let around: Vec<u32> = around
        .filter(|&s| suite.scopes[s as usize].cost > 0.0)
        .collect();
    let alone = inside
        + around
            .iter()
            .map(|&s| suite.scopes[s as usize].cost)
            .sum::<f64>();
    Unit {
        inside,
        around,
        first,
        alone,
    }
}

/// Each scope's own cost plus everything inside it.
fn subtree_weights(suite: &Suite) -> Vec<f64> {
    let mut weight: Vec<f64> = suite.scopes.iter().map(|s| s.cost).collect();
    for (test, &scope) in suite.scope_of.iter().enumerate() {
        weight[scope as usize] += suite.own[test];
    }
    // A child is numbered after its parent: children first.
    for scope in (0..suite.scopes.len()).rev() {
        if let Some(parent) = suite.scopes[scope].parent {
            weight[parent as usize] += weight[scope];
        }
    }
    weight
}

fn tests_under(suite: &Suite, scope: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![scope];
    while let Some(s) = stack.pop() {
        let s = &suite.scopes[s as usize];
        out.extend(&s.tests);
        stack.extend(&s.children);
    }
    out
}

/// Units of scopes opened above `limit` seconds, dealt and refined.
fn scoped(suite: &Suite, shards: usize, limit: f64, bound: f64) -> Vec<usize> {
    let (units, unit_of) = units(suite, limit);
    let mut deal = Deal::new(suite, shards, &units, bound);
    let mut order: Vec<u32> = (0..units.len() as u32).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&units[a as usize], &units[b as usize]);
        b.alone.total_cmp(&a.alone).then(a.first.cmp(&b.first))
    });
    for &u in &order {
        deal.place(&units, u);
    }
    deal.refine(&units);
    unit_of.iter().map(|&u| deal.shard_of[u as usize]).collect()
}

/// Single tests by their own cost, each to the least loaded shard, scopes
/// ignored: the simple baseline every plan is held to.
pub(super) fn plain(suite: &Suite, shards: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..suite.own.len()).collect();
    order.sort_by(|&a, &b| suite.own[b].total_cmp(&suite.own[a]).then(a.cmp(&b)));
    let mut loads: BTreeSet<(Seconds, usize)> = (0..shards).map(|k| (Seconds(0.0), k)).collect();
    let mut shard_of = vec![0; suite.own.len()];
    for test in order {
        if let Some((Seconds(load), k)) = loads.pop_first() {
            shard_of[test] = k;
            loads.insert((Seconds(load + suite.own[test]), k));
        }
    }
    shard_of
}

/// Seconds ordered totally (loads are finite sums of finite costs).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seconds(f64);

impl Eq for Seconds {}

impl PartialOrd for Seconds {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Seconds {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Units dealt so far: each shard's load, which scopes it runs, where each
/// unit went.
struct Deal<'a> {
    suite: &'a Suite,
    /// The slowest shard no plan can beat.
    bound: f64,
    /// Every cost counted once.
    total: f64,
    /// The setup dealt so far that shards pay again: each costly scope's
    /// cost once for every shard beyond the first that runs it.
    repeated: f64,
    /// Each costly scope's seconds in units not dealt yet.
    unplaced: Vec<f64>,
    load: Vec<f64>,
    by_load: BTreeSet<(Seconds, usize)>,
    /// How many units under each costly scope a shard runs.
    under: HashMap<(u32, usize), u32>,
    /// The shards that run each costly scope, in the order they got it.
    holders: Vec<Vec<usize>>,
    shard_of: Vec<usize>,
    on: Vec<Vec<u32>>,
}

impl<'a> Deal<'a> {
    fn new(suite: &'a Suite, shards: usize, units: &[Unit], bound: f64) -> Deal<'a> {
        let mut unplaced = vec![0.0; suite.scopes.len()];
        for unit in units {
            for &s in &unit.around {
                unplaced[s as usize] += unit.inside;
            }
        }
        Deal {
            suite,
            bound,
            total: suite.total(),
            repeated: 0.0,
            unplaced,
            load: vec![0.0; shards],
            by_load: (0..shards).map(|k| (Seconds(0.0), k)).collect(),
            under: HashMap::new(),
            holders: vec![Vec::new(); suite.scopes.len()],
            shard_of: vec![0; units.len()],
            on: vec![Vec::new(); shards],
        }
    }

    fn runs(&self, scope: u32, shard: usize) -> u32 {
        self.under.get(&(scope, shard)).copied().unwrap_or(0)
    }

    /// What `unit` adds to `shard`.
    fn added(&self, unit: &Unit, shard: usize) -> f64 {
        unit.inside
            + unit
                .around
                .iter()
                .filter(|&&s| self.runs(s, shard) == 0)
                .map(|&s| self.suite.scopes[s as usize].cost)
                .sum::<f64>()
    }

    /// What taking `unit` away saves `shard`.
    fn saved(&self, unit: &Unit, shard: usize) -> f64 {
        unit.inside
            + unit
                .around
                .iter()
                .filter(|&&s| self.runs(s, shard) == 1)
                .map(|&s| self.suite.scopes[s as usize].cost)
                .sum::<f64>()
    }

    /// The shards worth trying for `unit`: the least loaded one, and those
    /// that already run a scope around it (where it costs less).
    /// A scope already spread over more shards than [`FEW_HOLDERS`] is
    /// not searched shard by shard: its setup is paid on many shards
    /// anyway, and trying them all would make dealing quadratic.
    fn candidates(&self, unit: &Unit) -> Vec<usize> {
        let mut out: Vec<usize> = self.by_load.first().map(|&(_, k)| k).into_iter().collect();
        for &s in &unit.around {
            let holders = &self.holders[s as usize];
            if holders.len() <= FEW_HOLDERS {
                out.extend(holders);
            }
        }
        out
    }

    /// The setup `unit` pays again on `shard`: that of the scopes around
    /// it that other shards run and `shard` does not.
    fn repeats(&self, unit: &Unit, shard: usize) -> f64 {
        unit.around
            .iter()
            .filter(|&&s| self.runs(s, shard) == 0 && !self.holders[s as usize].is_empty())
            .map(|&s| self.suite.scopes[s as usize].cost)
            .sum()
    }

    /// Deals `u` to the shard where it finishes soonest (the lowest
    /// index on a tie), by the rule: a shard that pays a setup again must
    /// finish sooner by more than that setup. Sooner than what the plan
    /// can expect in any case (the bound, or a fair share of everything
    /// with the setup paid again so far and by this unit): below that, no
    /// shard is the slowest. And with the rest of the unit's scope, which
    /// its shards will be offered too (`finish`).
    fn place(&mut self, units: &[Unit], u: u32) {
        let unit = &units[u as usize];
        let shards = self.load.len() as f64;
        let mut best: Option<(Cost, f64, usize)> = None;
        for k in self.candidates(unit) {
            let done = self.load[k] + self.added(unit, k);
            let repeated = self.repeats(unit, k);
            let expected = self
                .bound
                .max((self.total + self.repeated + repeated) / shards);
            let cost = Cost {
                slowest: self.finish(unit, k, done).max(expected),
                repeated,
            };
            let better = match best {
                None => true,
                Some((c, d, b)) => {
                    cost.beats(c)
                        || (cost.ties(c) && (done < d - EPSILON || (done <= d + EPSILON && k < b)))
                }
            };
            if better {
                best = Some((cost, done, k));
            }
        }
        if let Some((_, _, k)) = best {
            self.put(units, u, k);
            for &s in &unit.around {
                self.unplaced[s as usize] -= unit.inside;
            }
        }
    }

    /// When `shard` would finish, `done` with `unit`, if it also took its
    /// share of the rest of the unit's innermost costly scope: the rest
    /// shared by the shards that run the scope, `shard` among them. Dealt
    /// piece by piece, a costly module would otherwise stay on one shard
    /// until that shard passed a fair share by the module's setup: no one
    /// piece gains more than the setup, where halving the module does.
    fn finish(&self, unit: &Unit, shard: usize, done: f64) -> f64 {
        let Some(&scope) = unit.around.first() else {
            return done;
        };
        let rest = (self.unplaced[scope as usize] - unit.inside).max(0.0);
        let holders = self.holders[scope as usize].len();
        let sharing = if self.runs(scope, shard) > 0 {
            holders
        } else {
            holders + 1
        };
        done + rest / sharing.max(1) as f64
    }

    fn set_load(&mut self, shard: usize, load: f64) {
        self.by_load.remove(&(Seconds(self.load[shard]), shard));
        self.load[shard] = load;
        self.by_load.insert((Seconds(load), shard));
    }

    fn put(&mut self, units: &[Unit], u: u32, shard: usize) {
        let unit = &units[u as usize];
        let load = self.load[shard] + self.added(unit, shard);
        self.set_load(shard, load);
        for &s in &unit.around {
            let count = self.under.entry((s, shard)).or_insert(0);
            *count += 1;
            if *count == 1 {
                self.holders[s as usize].push(shard);
                if self.holders[s as usize].len() > 1 {
                    self.repeated += self.suite.scopes[s as usize].cost;
                }
            }
        }
        self.shard_of[u as usize] = shard;
        self.on[shard].push(u);
    }

    fn take(&mut self, units: &[Unit], u: u32, shard: usize) {
        let unit = &units[u as usize];
        let load = self.load[shard] - self.saved(unit, shard);
        self.set_load(shard, load.max(0.0));
        for &s in &unit.around {
            let count = self.under.entry((s, shard)).or_insert(1);
            *count -= 1;
            if *count == 0 {
                if self.holders[s as usize].len() > 1 {
                    self.repeated -= self.suite.scopes[s as usize].cost;
                }
                self.holders[s as usize].retain(|&h| h != shard);
            }
        }
        self.on[shard].retain(|&x| x != u);
    }

    /// The slowest shard gives a unit to the shard where it finishes
    /// soonest, while that leaves both faster than the slowest was by more
    /// than the setup the move repeats (a unit of a scope the other shard
    /// does not run yet, less the setup the slowest no longer pays): the
    /// move that gains most net of the setup it repeats first (the
    /// earliest unit on a tie).
    fn refine(&mut self, units: &[Unit]) {
        let budget = MOVES_PER_SHARD * self.load.len() + 64;
        for _ in 0..budget {
            let Some(&(Seconds(worst), slowest)) = self.by_load.last() else {
                return;
            };
            let stay = Cost {
                slowest: worst,
                repeated: 0.0,
            };
            let mut best: Option<(Cost, u32, usize)> = None;
            for &u in &self.on[slowest] {
                let unit = &units[u as usize];
                let saved = self.saved(unit, slowest);
                for k in self.candidates(unit) {
                    if k == slowest {
                        continue;
                    }
                    let added = self.added(unit, k);
                    let after = Cost {
                        slowest: (worst - saved).max(self.load[k] + added),
                        // Never below 0: the slowest shard must get faster.
                        repeated: (added - saved).max(0.0),
                    };
                    if after.beats(stay) && best.is_none_or(|(b, _, _)| after.beats(b)) {
                        best = Some((after, u, k));
                    }
                }
            }
            let Some((_, u, k)) = best else {
                return;
            };
            self.take(units, u, slowest);
            self.put(units, u, k);
        }
    }
}
