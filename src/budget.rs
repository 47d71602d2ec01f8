//! Answer budgets: how big an answer may be, and how big one is.
//!
//! An answer that does not fit an agent's context is a failed answer, so
//! every rendering that can grow with the run takes a [`Budget`]: tokens
//! (MCP answers, `--max-tokens`), characters (GitHub comments and job
//! summaries, `--max-chars`), or both. Tokens are counted the way models
//! count them, with tiktoken's `o200k_base`, not estimated: an estimate
//! that is 10% off on code-heavy failure text would break the promise that
//! an answer stays within its budget. The tokenizer is loaded once per
//! process, and only when a token budget is asked for.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

/// The smallest token budget a request may ask for: the status line, the
/// summary counts, a note on what was left out and one line per group need
/// about this much.
pub const MIN_TOKENS: usize = 200;
/// The largest token budget a request may ask for (beyond it, a budget
/// protects nothing a client could hold).
pub const MAX_TOKENS: usize = 1_000_000;
/// The MCP tools' default token budget: under the 10,000 tokens at which
/// common clients start warning.
pub const DEFAULT_MCP_TOKENS: usize = 8_000;

/// Text holds at most this many bytes per o200k token (long runs of one
/// character aside: 4 bytes per token is typical of code and English):
/// more bytes than `tokens × this` cannot fit, and are not counted. A wrong
/// guess only shrinks an answer more than it needs.
pub const BYTES_PER_TOKEN: usize = 10;

/// A limit on an answer's size. Each limit that is set must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    /// At most this many o200k tokens.
    pub tokens: Option<usize>,
    /// At most this many characters (Unicode scalar values, as GitHub counts).
    pub chars: Option<usize>,
    /// When this is the part of a request's budget left to one piece of
    /// the answer (the Markdown beside its structured result), the
    /// request's tokens and characters: what notes name.
    pub within: Option<(Option<usize>, Option<usize>)>,
}

impl Budget {
    /// No limit at all.
    pub const NONE: Budget = Budget {
        tokens: None,
        chars: None,
        within: None,
    };

    pub fn tokens(limit: usize) -> Budget {
        Budget {
            tokens: Some(limit),
            ..Budget::NONE
        }
    }

    pub fn chars(limit: usize) -> Budget {
        Budget {
            chars: Some(limit),
            ..Budget::NONE
        }
    }

    /// Whether any limit is set.
    pub fn is_limited(&self) -> bool {
        self.tokens.is_some() || self.chars.is_some()
    }

    /// Whether `text` is within every limit. Characters are counted first:
    /// when they already break the character limit, no tokens are counted.
    pub fn fits(&self, text: &str) -> bool {
        if let Some(max) = self.chars
            && !fits_chars(text, max)
        {
            return false;
        }
        match self.tokens {
            // A token holds at least one byte: a cheap yes. And text
            // holds at most BYTES_PER_TOKEN bytes per token: a cheap no
            // for a 4 MB answer that a 8,000-token budget cannot hold.
            Some(max) if text.len() <= max => true,
            Some(max) if text.len() > max.saturating_mul(BYTES_PER_TOKEN) => false,
            Some(max) => count_tokens(text) <= max,
            None => true,
        }
    }

    /// `n`/`d` of each limit (at least 1): the share of an answer one of
    /// its parts may take.
    pub fn part(&self, n: usize, d: usize) -> Budget {
        let share = |max: usize| (max.saturating_mul(n) / d.max(1)).max(1);
        Budget {
            tokens: self.tokens.map(share),
            chars: self.chars.map(share),
            within: self.asked(),
        }
    }

    /// What each limit leaves beside `text` and `slack` more tokens or
    /// characters (at least 1).
    pub fn beside(&self, text: &str, slack: usize) -> Budget {
        Budget {
            tokens: self
                .tokens
                .map(|max| max.saturating_sub(count_tokens(text) + slack).max(1)),
            chars: self
                .chars
                .map(|max| max.saturating_sub(text.chars().count() + slack).max(1)),
            within: self.asked(),
        }
    }

    /// The request's limits: this budget's, or those it is a part of.
    fn asked(&self) -> Option<(Option<usize>, Option<usize>)> {
        self.within.or(Some((self.tokens, self.chars)))
    }

    /// By how many tokens or characters (the larger) `text` is over the
    /// budget; 0 when it fits.
    pub fn excess(&self, text: &str) -> usize {
        let tokens = self
            .tokens
            .map_or(0, |max| count_tokens(text).saturating_sub(max));
        let chars = self
            .chars
            .map_or(0, |max| text.chars().count().saturating_sub(max));
        tokens.max(chars)
    }

    /// How full `text` makes the budget, as the larger of its fractions
    /// (1.0 = exactly at the limit); 0 with no limit.
    pub fn used(&self, text: &str) -> f64 {
        let t = self
            .tokens
            .map_or(0.0, |max| count_tokens(text) as f64 / max.max(1) as f64);
        let c = self
            .chars
            .map_or(0.0, |max| text.chars().count() as f64 / max.max(1) as f64);
        t.max(c)
    }

    /// The fraction of the budget `text` leaves free (may be negative).
    pub fn room(&self, text: &str) -> f64 {
        1.0 - self.used(text)
    }

    /// The budget, as a note says it: `8,000 tokens`, `65,536 characters`,
    /// or both; the request's, when this is a part of it.
    pub fn describe(&self) -> String {
        let (tokens, chars) = self.within.unwrap_or((self.tokens, self.chars));
        let mut parts = Vec::new();
        if let Some(t) = tokens {
            parts.push(format!("{} tokens", crate::text::thousands(t)));
        }
        if let Some(c) = chars {
            parts.push(format!("{} characters", crate::text::thousands(c)));
        }
        if parts.is_empty() {
            "no limit".to_string()
        } else {
            parts.join(" and ")
        }
    }

    /// The size of `text` in the budget's units, as a note says it.
    pub fn describe_size(&self, text: &str) -> String {
        let mut parts = Vec::new();
        if self.tokens.is_some() {
            parts.push(format!(
                "{} tokens",
                crate::text::thousands(count_tokens(text))
            ));
        }
        if self.chars.is_some() || self.tokens.is_none() {
            parts.push(format!(
                "{} characters",
                crate::text::thousands(text.chars().count())
            ));
        }
        parts.join(", ")
    }
}

/// A rendering and what it left out to fit its budget (`None`: nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub text: String,
    pub truncation: Option<Truncation>,
}

impl Fitted {
    /// A rendering that needed no shortening.
    pub fn whole(text: String) -> Fitted {
        Fitted {
            text,
            truncation: None,
        }
    }
}

/// What a rendering left out to fit its budget: said at the end of a
/// Markdown answer, as the `truncated` object of a JSON one, and used by
/// the server to offer the whole result.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct Truncation {
    /// The budget the answer was shortened to, in tokens (when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// The budget the answer was shortened to, in characters (when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// What was dropped, in the order it was dropped: `captured output`,
    /// `json_report`, `passing tests`, ...
    pub dropped: Vec<String>,
    /// Tests whose entries were left out (their counts are still exact).
    pub tests_omitted: usize,
    /// Failure groups left out entirely (not even a line).
    pub groups_omitted: usize,
}

impl Truncation {
    /// The sentence that says it, as a shortened answer closes:
    /// `Shortened to fit 8,000 tokens (the full answer has 12,345 tokens):
    /// captured output left out; 3 more failure groups (40 tests) not
    /// listed.` `whole` names the full answer (`answer`, `report`), `size`
    /// its size ([`Budget::describe_size`]).
    pub fn note(&self, budget: &Budget, whole: &str, size: &str) -> String {
        let mut note = format!(
            "Shortened to fit {} (the full {whole} has {size}): {} left out",
            budget.describe(),
            self.dropped.join(", ")
        );
        if self.groups_omitted > 0 {
            note.push_str(&format!(
                "; {} more failure groups ({} tests) not listed",
                crate::text::thousands(self.groups_omitted),
                crate::text::thousands(self.tests_omitted)
            ));
        }
        note.push('.');
        note
    }

    /// Nothing left out yet, against `budget`: the request's, when
    /// `budget` is a part of it.
    pub fn new(budget: &Budget) -> Truncation {
        let (max_tokens, max_chars) = budget.within.unwrap_or((budget.tokens, budget.chars));
        Truncation {
            max_tokens,
            max_chars,
            ..Truncation::default()
        }
    }
}

/// One rung of the ladder an output offers to fit its budget, richest
/// first: a plan, or a family of plans that grow with a count.
pub enum Rung<'a, P> {
    /// One plan.
    One(P),
    /// The plans `make(k)` for `k` from `least` (0 or 1) to `most`, where a
    /// larger `k` never takes less room: the largest that fits. With
    /// `least` 0, `make(0)` must fit, or the whole rung is passed over.
    Most {
        least: usize,
        most: usize,
        make: Box<dyn Fn(usize) -> P + 'a>,
    },
}

impl<'a, P: 'a> Rung<'a, P> {
    /// The same rung with each plan turned into another by `f` (an output
    /// whose plans include another's, as an error's include its partial
    /// run's).
    pub fn map<Q: 'a>(self, f: impl Fn(P) -> Q + 'a) -> Rung<'a, Q> {
        match self {
            Rung::One(plan) => Rung::One(f(plan)),
            Rung::Most { least, most, make } => Rung::most(least, most, move |k| f(make(k))),
        }
    }

    /// [`Rung::Most`] from `least` to `most`.
    pub fn most(least: usize, most: usize, make: impl Fn(usize) -> P + 'a) -> Rung<'a, P> {
        Rung::Most {
            least,
            most,
            make: Box::new(make),
        }
    }
}

/// What an output offers to fit its budget: its plans, richest first, and
/// how one is rendered with its note on what it left out. The output
/// decides nothing: which plan is sent is [`fit`]'s choice.
pub trait Plans {
    /// One way of shortening the answer (the output's own type).
    type Plan;
    /// What a plan renders to: a text and what it left out, or a value.
    type Answer;
    /// The plans, richest first.
    fn ladder(&self) -> Vec<Rung<'_, Self::Plan>>;
    /// `plan` rendered with its note on what it left out, when it fits the
    /// budget (`None` also for a plan given up while rendering, past it).
    fn attempt(&self, plan: Self::Plan) -> Option<Self::Answer>;
    /// What is sent when no plan fits.
    fn last_resort(&self) -> Self::Answer;
}

/// An answer to be fitted: whole already (it fits, or its format is never
/// cut), or the plans to choose from.
pub enum Offer<'a, A> {
    Whole(A),
    Plans(Box<dyn Choose<A> + 'a>),
}

impl<'a, A> Offer<'a, A> {
    /// An offer of `plans`.
    pub fn plans(plans: impl Plans<Answer = A> + 'a) -> Offer<'a, A> {
        Offer::Plans(Box::new(plans))
    }
}

impl<'a, A: 'a> Offer<'a, A> {
    /// The same offer, its answer turned into another by `f` once chosen
    /// (an error's Markdown shown as a page, say).
    pub fn map<B>(self, f: impl Fn(A) -> B + 'a) -> Offer<'a, B> {
        match self {
            Offer::Whole(answer) => Offer::Whole(f(answer)),
            Offer::Plans(plans) => Offer::Plans(Box::new(Mapped { plans, f })),
        }
    }
}

/// An offer's plans whose chosen answer is then turned by `f`.
struct Mapped<'a, A, F> {
    plans: Box<dyn Choose<A> + 'a>,
    f: F,
}

impl<A, B, F: Fn(A) -> B> Choose<B> for Mapped<'_, A, F> {
    fn choose(&self) -> B {
        (self.f)(self.plans.choose())
    }
}

/// [`Plans`] with their plan type out of sight, so that offers of every
/// output can be fitted in one place.
pub trait Choose<A> {
    /// The answer of the first rung that fits, else the last resort.
    fn choose(&self) -> A;
}

impl<P: Plans> Choose<P::Answer> for P {
    fn choose(&self) -> P::Answer {
        first_fitting(self.ladder(), |plan| self.attempt(plan))
            .unwrap_or_else(|| self.last_resort())
    }
}

/// The one fitting loop: an offer's whole answer, or the answer of its
/// first rung whose plan fits; for a [`Rung::Most`], the largest of its
/// plans that does; else its last resort. Outputs only make offers
/// ([`Plans`]); the dispatch and the tools' structured results fit them
/// here.
pub fn fit<A>(offer: Offer<'_, A>) -> A {
    match offer {
        Offer::Whole(answer) => answer,
        Offer::Plans(plans) => plans.choose(),
    }
}

/// The plan of the first rung that `attempt` renders within the budget
/// (`attempt` gives `None` for a plan that does not fit); for a
/// [`Rung::Most`], the largest of its plans that does. `None` when no plan
/// fits.
fn first_fitting<'a, P, T>(
    rungs: impl IntoIterator<Item = Rung<'a, P>>,
    mut attempt: impl FnMut(P) -> Option<T>,
) -> Option<T> {
    for rung in rungs {
        let found = match rung {
            Rung::One(plan) => attempt(plan),
            Rung::Most { least, most, make } => {
                let base = if least == 0 {
                    match attempt(make(0)) {
                        Some(found) => Some(found),
                        None => continue,
                    }
                } else {
                    None
                };
                largest_fitting(most, |k| attempt(make(k)))
                    .map(|(_, found)| found)
                    .or(base)
            }
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The largest `k` in `1..=n` for which `attempt(k)` gives a rendering
/// (its `Some`: it fits), with that very rendering, where more items never
/// take less room; `None` when not even one item fits. The caller gets the
/// text that was measured, never a second rendering that could differ.
///
/// It gallops up from 1 (1, 3, 7, 15, ... items) before halving, so no
/// rendering tried is much larger than the largest that fits, however many
/// items there are: counting tokens costs in proportion to the text.
fn largest_fitting<T>(n: usize, mut attempt: impl FnMut(usize) -> Option<T>) -> Option<(usize, T)> {
    let (mut lo, mut hi) = (0, n);
    let mut best = None;
    let mut step = 1;
    while lo < hi {
        let probe = (lo + step).min(hi);
        match attempt(probe) {
            Some(t) => {
                best = Some((probe, t));
                lo = probe;
                step = step.saturating_mul(2);
            }
            None => {
                hi = probe - 1;
                break;
            }
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match attempt(mid) {
            Some(t) => {
                best = Some((mid, t));
                lo = mid;
            }
            None => hi = mid - 1,
        }
    }
    best
}

/// Whether `text` has at most `max` characters, without counting them all
/// when its bytes already say so.
fn fits_chars(text: &str, max: usize) -> bool {
    text.len() <= max || text.chars().count() <= max
}

/// The tokenizer, loaded on first use (about 0.1 s and 20 MB).
fn bpe() -> Option<&'static CoreBPE> {
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// `text`'s length in o200k_base tokens. Special-token spellings in test
/// output (`<|endoftext|>`) are counted as the model would read them.
/// Should the tokenizer fail to load (it is built into the binary, so it
/// does not), a conservative estimate of one token per 3 bytes stands in.
pub fn count_tokens(text: &str) -> usize {
    match bpe() {
        Some(bpe) => bpe.encode_with_special_tokens(text).len(),
        None => text.len().div_ceil(3),
    }
}

#[cfg(test)]
mod tests;
