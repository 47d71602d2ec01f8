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

/// Passes are counted, not listed, only for Markdown of one file:
/// every other rendering, and two files, get every test.
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
    assert_eq!(counted(&two, OutputFormat::Markdown), 0);
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
