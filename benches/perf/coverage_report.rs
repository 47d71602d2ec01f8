//! What `report --coverage` costs (issue 48 item 6: within 2x of reading
//! the test results alone). A generated project of 50,000 statement lines
//! (250 modules of 100 two-line functions) in a git repository of its own,
//! its coverage.xml listing every line (every other function run), JUnit
//! XML of 5,000 and of 50,000 cases, and a change: 20 modules with 10 functions rewritten
//! and one added each. `report junit.xml` against `report junit.xml
//! --coverage coverage.xml`, in the Markdown and the PR comment's `gfm`,
//! alternated; medians and the median of per-round ratios.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::overhead::verdict;
use crate::proc::{Sample, median, timed};
use crate::{Env, secs};

/// `report --coverage` must cost at most this factor of `report`.
const TARGET: f64 = 2.0;
const MODULES: usize = 250;
const FUNCTIONS: usize = 100;
/// JUnit cases of the test results: a suite of this project's size, and
/// ten times more (the fixed cost of judging weighs less on a larger run).
const CASES: [usize; 2] = [5_000, 50_000];
const CHANGED_MODULES: usize = 20;

pub fn run(env: &Env) {
    let root = env.inputs.join("coverage");
    let _ = fs::remove_dir_all(&root);
    project(&root);
    let xml_lines = fs::read_to_string(root.join("coverage.xml"))
        .map(|t| t.lines().count())
        .unwrap_or(0);
    println!(
        "## 6. `report --coverage`: {} statement lines in {MODULES} modules (coverage.xml of {xml_lines} lines), {CHANGED_MODULES} modules changed; {} rounds, alternated\n",
        MODULES * FUNCTIONS * 2,
        env.rounds
    );
    println!(
        "| JUnit cases | format | `report` alone | with `--coverage` | ratio (median of rounds) | target |"
    );
    println!("|---|---|---|---|---|---|");
    for (cases, format) in CASES
        .iter()
        .flat_map(|c| ["markdown", "gfm"].map(|f| (*c, f)))
    {
        let junit = format!("junit-{cases}.xml");
        let alone = ["report", junit.as_str(), "--format", format];
        let with = [&alone[..], &["--coverage", "coverage.xml"]].concat();
        let (mut a, mut w, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..env.rounds {
            let mut pair: [Option<Sample>; 2] = [None, None];
            for k in [round % 2, 1 - round % 2] {
                let args: &[&str] = if k == 0 { &alone } else { &with };
                let sample = timed(
                    Command::new(&env.bin)
                        .args(args)
                        .current_dir(&root)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null()),
                );
                assert_eq!(sample.status, 0, "report {args:?} failed");
                pair[k] = Some(sample);
            }
            let (Some(x), Some(y)) = (pair[0], pair[1]) else {
                continue;
            };
            a.push(x.wall);
            w.push(y.wall);
            ratios.push(y.wall / x.wall);
        }
        let ratio = median(&ratios);
        println!(
            "| {cases} | {format} | {} | {} | **{ratio:.2}x** {} | ≤ {TARGET}x |",
            secs(median(&a)),
            secs(median(&w)),
            verdict(ratio <= TARGET)
        );
    }
    println!();
}

/// The project, its reports and its change.
fn project(root: &Path) {
    let pkg = root.join("pkg");
    fs::create_dir_all(&pkg).expect("create the project");
    let mut xml =
        String::from("<?xml version=\"1.0\" ?>\n<coverage version=\"7.17.5\">\n<sources><source>");
    xml.push_str(&root.to_string_lossy());
    xml.push_str("</source></sources>\n<packages><package name=\"pkg\"><classes>\n");
    for m in 0..MODULES {
        let mut text = String::new();
        let _ = writeln!(
            xml,
            "<class name=\"mod_{m}.py\" filename=\"pkg/mod_{m}.py\"><methods/><lines>"
        );
        for f in 0..FUNCTIONS {
            let _ = write!(text, "def f_{f}(x):\n    return x + {f}\n");
            let hits = usize::from(f % 2 == 0);
            let _ = writeln!(xml, "<line number=\"{}\" hits=\"1\"/>", 2 * f + 1);
            let _ = writeln!(xml, "<line number=\"{}\" hits=\"{hits}\"/>", 2 * f + 2);
        }
        xml.push_str("</lines></class>\n");
        fs::write(pkg.join(format!("mod_{m}.py")), text).expect("write a module");
    }
    xml.push_str("</classes></package></packages>\n</coverage>\n");
    fs::write(pkg.join("__init__.py"), "").expect("write __init__.py");
    fs::write(root.join("coverage.xml"), xml).expect("write coverage.xml");
    fs::write(root.join(".gitignore"), "*.xml\n").expect("write .gitignore");
    for cases in CASES {
        fs::write(root.join(format!("junit-{cases}.xml")), junit(cases))
            .expect("write the JUnit XML");
    }
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@example.com",
            "commit",
            "-q",
            "-m",
            "base",
        ],
    ] {
        git(root, args);
    }
    for m in 0..CHANGED_MODULES {
        let path: PathBuf = pkg.join(format!("mod_{m}.py"));
        let text = fs::read_to_string(&path).expect("read a module");
        let mut changed = String::new();
        for (i, line) in text.lines().enumerate() {
            let rewritten = i % 20 == 1;
            let _ = writeln!(
                changed,
                "{}",
                if rewritten {
                    line.replace('+', "-")
                } else {
                    line.to_string()
                }
            );
        }
        changed.push_str("def added(x):\n    return x * 2\n");
        fs::write(&path, changed).expect("write a change");
    }
    // The index refreshed, as any `git status` leaves it: files written in
    // the second their index was would be hashed again by every diff.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let _ = Command::new("git")
        .args(["update-index", "-q", "--refresh"])
        .current_dir(root)
        .status();
}

fn junit(cases: usize) -> String {
    let mut xml = format!(
        "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"pytest\" tests=\"{cases}\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"12.5\">\n"
    );
    for i in 0..cases {
        let _ = writeln!(
            xml,
            "<testcase classname=\"tests.test_mod_{}\" name=\"test_{i}\" time=\"0.002\"/>",
            i % MODULES
        );
    }
    xml.push_str("</testsuite></testsuites>\n");
    xml
}

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?} failed in {}", root.display());
}
