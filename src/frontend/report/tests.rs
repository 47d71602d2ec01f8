use super::*;

/// Every pytest fixture's result files as shards of one run, and a
/// broken file: read on 1 thread and on 4, the merged run renders the
/// same in every format, and the errors come in the same order.
#[test]
fn shards_read_in_parallel_merge_as_read_one_by_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pytest");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/fixtures/pytest")
        .map(|e| e.expect("entry").path())
        .collect();
    dirs.sort();
    let mut inputs = Vec::new();
    for dir in &dirs {
        for file in ["report.json", "junit-xunit1.xml"] {
            let path = dir.join(file);
            if let Ok(bytes) = std::fs::read(&path) {
                inputs.push(Input {
                    name: path.display().to_string(),
                    contents: Ok(bytes),
                });
            }
        }
    }
    assert!(inputs.len() > 10, "{} files", inputs.len());
    let options = ReadOptions::default();
    let merged = |threads| {
        let runs: Vec<Run> = read_all(&inputs, options, threads)
            .into_iter()
            .map(|r| r.expect("readable"))
            .collect();
        merge(runs)
    };
    let (serial, parallel) = (merged(1), merged(4));
    // Every format, as clap lists them: a new one is never left out.
    for &format in <OutputFormat as clap::ValueEnum>::value_variants() {
        assert!(
            dispatch::whole(&serial, format) == dispatch::whole(&parallel, format),
            "{format:?} differs"
        );
    }
    let mut broken = vec![input("a.xml")];
    broken.push(Input {
        name: "bad.xml".into(),
        contents: Ok(b"<testsuite><oops".to_vec()),
    });
    broken.push(Input {
        name: "gone.xml".into(),
        contents: Err("cannot read the file".into()),
    });
    let errors = |threads| -> Vec<String> {
        read_all(&broken, options, threads)
            .into_iter()
            .filter_map(|r| r.err().map(|e| e.to_string()))
            .collect()
    };
    assert_eq!(errors(1), errors(3));
    assert_eq!(errors(3).len(), 2);
}

const PASSING: &str = r#"<testsuite name="s" tests="2"><testcase classname="t" name="a" time="0.1"/><testcase classname="t" name="b" time="0.2"/></testsuite>"#;

fn input(name: &str) -> Input {
    Input {
        name: name.into(),
        contents: Ok(PASSING.as_bytes().to_vec()),
    }
}

/// Passes are counted, not listed, only for Markdown of one file or of
/// JUnit files alone: every other rendering, and a merge with a JSON
/// report, get every test.
#[test]
fn only_markdown_of_one_file_counts_passes() {
    let one = [input("a.xml")];
    let two = [input("a.xml"), input("b.xml")];
    let counted = |inputs: &[Input], format| {
        RenderOnly::read(inputs, format)
            .map(|r| r.unlisted().passed)
            .unwrap()
    };
    assert_eq!(counted(&one, OutputFormat::Markdown), 2);
    let others = <OutputFormat as clap::ValueEnum>::value_variants()
        .iter()
        .filter(|f| **f != OutputFormat::Markdown);
    for &format in others {
        assert_eq!(counted(&one, format), 0, "{format:?}");
    }
    // Two JUnit files, no suite time: counted too, each read once.
    assert_eq!(counted(&two, OutputFormat::Markdown), 4);
    let with_json = [input("a.xml"), json_input("b.json")];
    assert_eq!(counted(&with_json, OutputFormat::Markdown), 0);
    assert_eq!(
        read_run(&one, Reading::for_format(OutputFormat::Markdown))
            .unwrap()
            .unlisted
            .passed,
        0
    );
    let alone = RenderOnly::read(&one, OutputFormat::Markdown).unwrap();
    assert_eq!(alone.counts().passed, 2);
    assert_eq!(
        alone.render(&dispatch::Style::report(Budget::NONE)).text,
        dispatch::whole(
            &read_run(&one, Reading::for_format(OutputFormat::Markdown)).unwrap(),
            OutputFormat::Markdown
        )
    );
}

fn json_input(name: &str) -> Input {
    let json = r#"{"created": 1.0, "duration": 0.5, "exitcode": 0, "root": "/r",
        "summary": {"passed": 1, "total": 1, "collected": 1},
        "tests": [{"nodeid": "t.py::c", "lineno": 1, "outcome": "passed", "keywords": [],
            "setup": {"duration": 0.1, "outcome": "passed"},
            "call": {"duration": 0.2, "outcome": "passed"},
            "teardown": {"duration": 0.1, "outcome": "passed"}}]}"#;
    Input {
        name: name.into(),
        contents: Ok(json.as_bytes().to_vec()),
    }
}

/// JUnit files with no suite `time`, the run's duration the sum of its
/// tests': a plain floating-point fold gives other bits over the full list
/// (1.7499999999999998) than file by file (1.75), which Markdown shows as
/// 1.7s and 1.8s. The sums are exact, so the merge of the files counting
/// their passes has the duration, and the Markdown, of the merge listing
/// every test. One file counts no pass (all its tests failed).
const UNTIMED: [&str; 3] = [
    r#"<testsuite name="s"><testcase classname="t" name="a" time="0.1"/><testcase classname="t" name="f" time="0.35"><failure message="boom">tb</failure></testcase></testsuite>"#,
    r#"<testsuite name="s"><testcase classname="u" name="g" time="0.7"><failure message="bang">tb</failure></testcase></testsuite>"#,
    r#"<testsuite name="s"><testcase classname="v" name="b" time="0.45"/><testcase classname="v" name="c" time="0.15"/></testsuite>"#,
];

/// A file whose loads are counted.
struct Counted {
    input: Input,
    loads: std::sync::atomic::AtomicUsize,
}

impl Load for Counted {
    fn name(&self) -> &str {
        &self.input.name
    }

    fn load(&self) -> Result<Bytes<'_>, String> {
        self.loads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.input.load()
    }

    fn is_junit(&self) -> bool {
        self.input.is_junit()
    }
}

fn untimed() -> Vec<Counted> {
    UNTIMED
        .iter()
        .enumerate()
        .map(|(i, xml)| Counted {
            input: Input {
                name: format!("{i}.xml"),
                contents: Ok(xml.as_bytes().to_vec()),
            },
            loads: Default::default(),
        })
        .collect()
}

#[test]
fn untimed_junit_files_merged_counted_have_the_listed_duration() {
    let plain = |d: &[&[f64]]| d.iter().flat_map(|f| f.iter()).fold(0.0, |a, d| a + d);
    let by_file = |d: &[&[f64]]| d.iter().map(|f| plain(&[f])).fold(0.0, |a, d| a + d);
    let durations: [&[f64]; 3] = [&[0.1, 0.35], &[0.7], &[0.45, 0.15]];
    assert_ne!(
        plain(&durations),
        by_file(&durations),
        "the fold's grouping shows"
    );

    let inputs = untimed();
    let listed = read_run(&inputs, Reading::for_format(OutputFormat::Markdown)).unwrap();
    assert_eq!((listed.unlisted.passed, listed.duration), (0, None));
    for threads in [1, 3] {
        let counted = RenderOnly::read_on(&inputs, OutputFormat::Markdown, threads).unwrap();
        assert_eq!(counted.unlisted().passed, 3, "passes counted");
        assert_eq!(
            counted.run.duration_secs().to_bits(),
            listed.duration_secs().to_bits()
        );
        assert_eq!(listed.duration_secs(), 1.75);
        let markdown = counted.render(&dispatch::Style::report(Budget::NONE)).text;
        assert_eq!(markdown, dispatch::whole(&listed, OutputFormat::Markdown));
        assert!(markdown.contains("(1.8s)"), "{markdown}");
    }
}

/// `report` of JUnit files with no suite time reads each file once.
#[test]
fn untimed_junit_files_are_read_once() {
    let inputs = untimed();
    let counted = RenderOnly::read_on(&inputs, OutputFormat::Markdown, 2).unwrap();
    assert_eq!(counted.counts().passed, 3);
    for input in &inputs {
        let loads = input.loads.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(loads, 1, "{}", input.input.name);
    }
}

/// Held to a number of bytes: the longest rendering that fits, found in
/// a few tries; nothing when even the shortest does not fit.
#[test]
fn fit_bytes_counts_bytes_not_characters() {
    let wide = |chars: usize| "é".repeat(chars);
    assert_eq!(fit_bytes(100, 50, wide), "é".repeat(25));
    assert_eq!(fit_bytes(10, 50, wide), "é".repeat(10));
    // A rendering that never gets shorter than 60 bytes.
    assert_eq!(fit_bytes(100, 50, |c| "x".repeat(c.max(60))), "");
}
