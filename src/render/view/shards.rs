//! Shards checked against their plan (`report --plan`, `model::shards`),
//! worked out once for every output: which shards came back and which did
//! not, how many planned tests were not run (each is also an error among
//! the tests, so every output shows it as one), which tests two shards ran,
//! and how many ran that the plan does not name. Outputs only format it:
//! the sentences ([`Shards::lines`]), or the fields (JSON).

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::model::Run;
use crate::model::shards::ShardCheck;
use crate::text::plural;

/// Ids a sentence lists before `+N more`.
const LISTED: usize = 10;

/// A sharded run against its plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Shards<'r> {
    check: &'r ShardCheck,
    /// Shards whose results did not come back, ascending.
    pub missing: Vec<usize>,
}

/// The run's shards against their plan, when it was checked against one.
pub fn shards(run: &Run) -> Option<Shards<'_>> {
    let check = run.shards.as_ref()?;
    Some(Shards {
        check,
        missing: check.missing(),
    })
}

impl Shards<'_> {
    /// The planned tests no shard ran, with their shards.
    pub fn not_run(&self) -> &[(String, usize)] {
        &self.check.not_run
    }

    /// The tests more than one shard ran, with the shards.
    pub fn run_twice(&self) -> &[(String, Vec<usize>)] {
        &self.check.run_twice
    }

    /// The sentences every output for people shows (Markdown, the GitHub
    /// rendering, HTML): the shards first, then what ran twice and what
    /// the plan did not name. Each output formats the words and the ids its
    /// own way ([`Line::format`]).
    pub fn lines(&self) -> Vec<Line<'_>> {
        let c = self.check;
        let mut lines = vec![Line::text(self.came_back_line())];
        let lost = c
            .not_run
            .iter()
            .filter(|(_, k)| !self.missing.contains(k))
            .count();
        if lost > 0 {
            lines.push(Line::text(format!(
                "{} of shards that came back {} not run (not collected there? a plan older than the code?): an error each, above.",
                plural(lost, "planned test", "planned tests"),
                if lost == 1 { "was" } else { "were" }
            )));
        }
        if !c.run_twice.is_empty() {
            let mut line = Line::text("Run by more than one shard: ".to_string());
            for (i, (id, by)) in c.run_twice.iter().take(LISTED).enumerate() {
                if i > 0 {
                    line.parts.push(Part::Text(", ".to_string()));
                }
                line.parts.push(Part::Id(id));
                line.parts
                    .push(Part::Text(format!(" ({})", shards_words(by))));
            }
            let more = c.run_twice.len().saturating_sub(LISTED);
            if more > 0 {
                line.parts.push(Part::Text(format!(", +{more} more")));
            }
            // The full stop in the last words, not a part of its own: an
            // output escapes a part as if it began a line.
            if let Some(Part::Text(words)) = line.parts.last_mut() {
                words.push('.');
            }
            lines.push(line);
        }
        if c.unplanned > 0 {
            lines.push(Line::text(format!(
                "{} the plan does not name ran (collected since it was made).",
                plural(c.unplanned, "test", "tests")
            )));
        }
        lines
    }

    /// `Shards: 2 of 3 came back (1 and 3); shard 2 did not: its 9 planned
    /// tests were not run (errors above).`
    fn came_back_line(&self) -> String {
        let c = self.check;
        let with_tests = c.planned - c.empty.len();
        let mut line = if self.missing.is_empty() {
            match with_tests {
                1 => "Shards: the 1 shard with tests came back".to_string(),
                n if n == c.planned => format!("Shards: all {n} came back"),
                n => format!("Shards: all {n} with tests came back"),
            }
        } else {
            format!(
                "Shards: {} of {with_tests} came back{}",
                c.came_back.len(),
                if c.came_back.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", and_list(&c.came_back))
                }
            )
        };
        if !self.missing.is_empty() {
            let lost = c
                .not_run
                .iter()
                .filter(|(_, k)| self.missing.contains(k))
                .count();
            line.push_str(&format!(
                "; {} did not: {} {} not run (an error each, above)",
                shards_words(&self.missing),
                if self.missing.len() == 1 {
                    format!("its {}", plural(lost, "planned test", "planned tests"))
                } else {
                    format!("their {}", plural(lost, "planned test", "planned tests"))
                },
                if lost == 1 { "was" } else { "were" }
            ));
        }
        if !c.empty.is_empty() {
            line.push_str(&format!("; {} had no test to run", shards_words(&c.empty)));
        }
        line.push('.');
        line
    }
}

/// One sentence: words, and test ids among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'r> {
    pub parts: Vec<Part<'r>>,
}

/// A piece of a [`Line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'r> {
    Text(String),
    Id(&'r str),
}

impl<'r> Line<'r> {
    fn text(words: String) -> Line<'r> {
        Line {
            parts: vec![Part::Text(words)],
        }
    }

    /// The sentence, its words through `text` and its ids through `id`
    /// (an output escapes words one way and shows ids another: the GitHub
    /// rendering puts them in code).
    pub fn format(&self, text: impl Fn(&str) -> String, id: impl Fn(&str) -> String) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(words) => text(words),
                Part::Id(i) => id(i),
            })
            .collect()
    }
}

/// `shard 2`, `shards 1 and 3`, `shards 1, 2 and 4`; 0 is a file of no
/// planned test.
fn shards_words(shards: &[usize]) -> String {
    let (files, shards): (Vec<usize>, Vec<usize>) = shards.iter().partition(|&&k| k == 0);
    let mut words = match shards.len() {
        0 => String::new(),
        1 => format!("shard {}", shards[0]),
        _ => format!("shards {}", and_list(&shards)),
    };
    if !files.is_empty() {
        if !words.is_empty() {
            words.push_str(" and ");
        }
        words.push_str("a file of no planned test");
    }
    words
}

/// `1`, `1 and 3`, `1, 2 and 4`.
fn and_list(numbers: &[usize]) -> String {
    let words: Vec<String> = numbers.iter().map(usize::to_string).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The JSON report's `shards` (docs/json-report.md): the plan's shards,
/// which came back, which did not, which had no test, the planned tests
/// not run, the tests more than one shard ran (with the shards), and how
/// many ran that the plan does not name.
impl Serialize for Shards<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Twice<'a> {
            node_id: &'a str,
            shards: &'a [usize],
        }
        let c = self.check;
        let not_run: Vec<&str> = c.not_run.iter().map(|(id, _)| id.as_str()).collect();
        let twice: Vec<Twice<'_>> = c
            .run_twice
            .iter()
            .map(|(id, by)| Twice {
                node_id: id,
                shards: by,
            })
            .collect();
        let mut s = serializer.serialize_struct("Shards", 7)?;
        s.serialize_field("planned", &c.planned)?;
        s.serialize_field("came_back", &c.came_back)?;
        s.serialize_field("missing", &self.missing)?;
        s.serialize_field("empty", &c.empty)?;
        s.serialize_field("not_run", &not_run)?;
        s.serialize_field("run_twice", &twice)?;
        s.serialize_field("unplanned", &c.unplanned)?;
        s.end()
    }
}

#[cfg(test)]
mod tests;
