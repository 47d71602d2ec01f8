//! Token cost of the Markdown rendering against the compact ADR-006 JSON of
//! the same run, counted with tiktoken `o200k_base`. Not a timing benchmark:
//! it prints figures.
//!
//! ```text
//! cargo bench --bench token_cost
//! ```
//!
//! For each failure scenario under `tests/fixtures/pytest/` it measures
//! (a) report.json + junit-xunit1.xml (what the runner gathers; the JSON then
//! holds the whole `json_report`) and (b) junit-xunit1.xml alone (the leanest
//! JSON, `json_report: null`), plus JUnit files of other frameworks from
//! `../shared/junit-corpus/` when it is beside the repository (without it
//! that part is skipped, with one line saying so on stderr). The budget is Markdown <= 40% of JSON for the
//! pytest scenarios while every failing node id, message and `file:line` is
//! still carried; other frameworks have the looser regression bounds
//! documented in `testkit/src/tokens.rs` (the testkit crate, shared with
//! `tests/token_budget.rs`).

use pytest_mcp_testkit::tokens::{markdown_breakdown, measure_all, table};

fn main() {
    let measurements = measure_all();
    println!("Markdown vs compact ADR-006 JSON, tiktoken o200k_base");
    println!(
        "(json_rep. = tokens of the json_report value inside the JSON; checked = failing tests t / collection errors ce)\n"
    );
    print!("{}", table(&measurements));

    let total_json: usize = measurements.iter().map(|m| m.json_tokens).sum();
    let total_md: usize = measurements.iter().map(|m| m.markdown_tokens).sum();
    let worst = measurements
        .iter()
        .max_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    println!(
        "\nall cases: JSON {total_json} tokens, Markdown {total_md} tokens, ratio {:.3}",
        total_md as f64 / total_json as f64
    );
    if let Some(w) = worst {
        println!(
            "worst: {} [{}] at {:.3} (budget {:.2})",
            w.case.scenario,
            w.case.inputs_label,
            w.ratio(),
            w.budget()
        );
    }

    println!("\nWhere the Markdown spends its tokens (per kind of line):");
    for m in &measurements {
        let parts: Vec<String> = markdown_breakdown(&m.markdown)
            .into_iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        println!(
            "  {} [{}]: {}",
            m.case.scenario,
            m.case.inputs_label,
            parts.join(", ")
        );
    }

    let over: Vec<_> = measurements.iter().filter(|m| !m.within_budget()).collect();
    let incomplete: Vec<_> = measurements
        .iter()
        .filter(|m| !m.coverage.complete())
        .collect();
    if over.is_empty() && incomplete.is_empty() {
        println!("\nevery case within budget and complete");
        return;
    }
    for m in &over {
        println!(
            "\nOVER BUDGET: {} [{}] — {:.3}; its Markdown:\n{}",
            m.case.scenario,
            m.case.inputs_label,
            m.ratio(),
            m.markdown
        );
    }
    for m in &incomplete {
        println!(
            "\nMISSING in {} [{}]:",
            m.case.scenario, m.case.inputs_label
        );
        for line in &m.coverage.missing {
            println!("  {line}");
        }
    }
}
