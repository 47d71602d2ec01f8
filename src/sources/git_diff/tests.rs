use super::*;

/// `git diff --no-color --no-ext-diff -U0 HEAD --` as git 2.x wrote it
/// over a work tree with a file added (staged), one modified in three
/// hunks, one deleted, one renamed and edited, a binary one, one whose
/// mode alone changed, one with a non-ASCII name, one with a space (git
/// ends its `---`/`+++` names with a tab, written `<TAB>` here), one that
/// gained its final newline. Only the tab is not git's own.
const REALISTIC: &str = r#"diff --git a/added.py b/added.py
new file mode 100644
index 0000000..07f33c4
--- /dev/null
+++ b/added.py
@@ -0,0 +1,2 @@
+new
+file
diff --git "a/caf\303\251.py" "b/caf\303\251.py"
index ab8f396..b638070 100644
--- "a/caf\303\251.py"
+++ "b/caf\303\251.py"
@@ -2 +2 @@ k
-l
+L
diff --git a/gone.py b/gone.py
deleted file mode 100644
index b77b4eb..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
diff --git a/img.bin b/img.bin
index 88768ef..3e3315e 100644
Binary files a/img.bin and b/img.bin differ
diff --git a/mod.py b/mod.py
index 9405325..6dcb1d1 100644
--- a/mod.py
+++ b/mod.py
@@ -2 +2 @@ a
-b
+B
@@ -4 +3,0 @@ c
-d
@@ -5,0 +5,2 @@ e
+f
+g
diff --git a/my file.py b/my file.py
index bca70f3..8a08eba 100644
--- a/my file.py<TAB>
+++ b/my file.py<TAB>
@@ -1,0 +2 @@ q
+r
diff --git a/old_name.py b/new_name.py
similarity index 81%
rename from old_name.py
rename to new_name.py
index f00c965..088bd5d 100644
--- a/old_name.py
+++ b/new_name.py
@@ -10 +10 @@
-10
+ten
diff --git a/nonl.py b/nonl.py
index 1c1206e..b25fa3f 100644
--- a/nonl.py
+++ b/nonl.py
@@ -1 +1 @@
-last
\ No newline at end of file
+last
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
"#;

fn realistic() -> String {
    REALISTIC.replace("<TAB>", "\t")
}

/// The files and lines of `changed`, for comparing with a literal.
fn listed(changed: &ChangedLines) -> Vec<(&str, Vec<u32>)> {
    changed
        .files
        .iter()
        .map(|(path, lines)| (path.as_str(), lines.clone()))
        .collect()
}

#[test]
fn a_realistic_diff_gives_each_files_new_lines() {
    let changed = changed_lines(&realistic());
    assert_eq!(
        listed(&changed),
        [
            ("added.py", vec![1, 2]),
            ("café.py", vec![2]),
            ("mod.py", vec![2, 5, 6]),
            ("my file.py", vec![2]),
            ("new_name.py", vec![10]),
            ("nonl.py", vec![1]),
        ]
    );
}

#[test]
fn deleted_binary_and_mode_only_files_add_nothing() {
    let changed = changed_lines(&realistic());
    for path in ["gone.py", "img.bin", "run.sh", "old_name.py", "/dev/null"] {
        assert!(!changed.files.contains_key(path), "{path}");
    }
}

#[test]
fn hunk_headers_with_and_without_counts() {
    let cases: [(&str, &[u32]); 8] = [
        ("@@ -3 +3 @@\n-a\n+b\n", &[3]),
        ("@@ -3,2 +3 @@ def f():\n-a\n-b\n+c\n", &[3]),
        ("@@ -5,0 +6,3 @@\n+a\n+b\n+c\n", &[6, 7, 8]),
        ("@@ -9,2 +8,0 @@\n-a\n-b\n", &[]),
        // A file emptied: nothing is left on the new side.
        ("@@ -1,3 +0,0 @@\n-a\n-b\n-c\n", &[]),
        ("@@ -0,0 +1 @@\n+a\n", &[1]),
        (
            "@@ -1 +1,1 @@@@ a context that looks like a header\n-a\n+b\n",
            &[1],
        ),
        // Not hunk headers: skipped.
        (
            "@@ -1 +x @@\n@@ -1 +1\n@@ -1 ++2 @@\n@@@ -1 -1 +1 @@@\n",
            &[],
        ),
    ];
    for (hunks, want) in cases {
        let diff = format!("diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n{hunks}");
        let changed = changed_lines(&diff);
        let got = changed.files.get("f.py").cloned().unwrap_or_default();
        assert_eq!(got, want, "{hunks:?}");
    }
}

#[test]
fn a_quoted_non_ascii_path_is_unquoted() {
    let diff = "diff --git \"a/caf\\303\\251.py\" \"b/caf\\303\\251.py\"\n\
                --- \"a/caf\\303\\251.py\"\n\
                +++ \"b/caf\\303\\251.py\"\n\
                @@ -1 +1 @@\n-a\n+b\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("café.py", vec![1])]);
}

#[test]
fn quoted_paths_undo_each_of_gits_escapes() {
    let cases = [
        // As git 2.x quotes a new file named `q"u\o<tab>t<newline>e.py`.
        (r#""b/q\"u\\o\tt\ne.py""#, Some("q\"u\\o\tt\ne.py")),
        (r#""b/\303\251t\303\251.py""#, Some("été.py")),
        (r#""b/\a\b\v\f\r.py"<TAB>"#, Some("\x07\x08\x0b\x0c\r.py")),
        // With core.quotePath off git quotes UTF-8 as it is.
        ("\"b/é\\t.py\"", Some("é\t.py")),
        // Not UTF-8 (a Latin-1 name): kept, its byte replaced.
        (r#""b/caf\351.py""#, Some("caf\u{FFFD}.py")),
        (r#""b/unclosed.py"#, None),
        (r#""b/bad\q.py""#, None),
        (r#""b/bad\477.py""#, None),
        (r#""b/short\30""#, None),
        (r#""b/""#, None),
    ];
    for (text, want) in cases {
        let text = text.replace("<TAB>", "\t");
        assert_eq!(new_path(&text).as_deref(), want, "{text:?}");
    }
}

#[test]
fn unquoted_paths_lose_the_prefix_and_a_trailing_tab() {
    let cases = [
        ("b/src/a.py", Some("src/a.py")),
        ("b/my file.py\t", Some("my file.py")),
        ("b/x.py\t2024-05-01 12:00:00", Some("x.py")),
        // `diff.noprefix`: the path as git wrote it.
        ("src/a.py", Some("src/a.py")),
        ("/dev/null", None),
        ("b/", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(new_path(text).as_deref(), want, "{text:?}");
    }
}

#[test]
fn no_newline_marker_after_a_hunk_is_not_a_line() {
    // The marker right after a pure deletion's header and body, then
    // between the two sides of a change, then after the hunk's last line.
    let diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n\
                @@ -3 +2,0 @@\n-x\n\\ No newline at end of file\n\
                diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n\
                @@ -4 +4 @@\n-y\n\\ No newline at end of file\n+z\n\
                \\ No newline at end of file\n\
                @@ -9,0 +10 @@\n+w\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("b.py", vec![4, 10])]);
}

#[test]
fn body_lines_that_look_like_headers_stay_in_their_hunk() {
    // Added `++ b/evil.py` and removed `-- a/evil.py` show as `+++` and
    // `---` lines; counting the body keeps them out of the headers.
    let diff = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n\
                @@ -1 +1,3 @@\n--- a/evil.py\n+++ b/evil.py\n+@@ -1 +9,9 @@\n+x\n\
                @@ -7,0 +8 @@\n+y\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("a.py", vec![1, 2, 3, 8])]);
}

#[test]
fn a_combined_diff_is_passed_over() {
    let diff = "diff --cc m.py\nindex 1,2..3\n--- a/m.py\n+++ b/m.py\n\
                @@@ -1,1 -1,1 +1,2 @@@\n++a\n+ b\n\
                diff --git a/n.py b/n.py\n--- a/n.py\n+++ b/n.py\n@@ -1 +1 @@\n-a\n+b\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("n.py", vec![1])]);
}

#[test]
fn a_plain_unified_diff_is_read_too() {
    let diff = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n\
                --- a/b.py\n+++ b/b.py\n@@ -2,0 +3 @@\n+c\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("a.py", vec![1]), ("b.py", vec![3])]);
}

#[test]
fn a_file_listed_twice_keeps_its_lines_once() {
    // A file turned into a symlink shows as a deletion and an addition.
    let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+d\n\
                diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +2,2 @@\n+e\n+f\n\
                @@ -0,0 +1 @@\n+g\n";
    let changed = changed_lines(diff);
    assert_eq!(listed(&changed), [("x", vec![1, 2, 3])]);
}

/// What every answer holds to, whatever it was read from.
fn assert_well_formed(changed: &ChangedLines, input: &str) {
    let total: usize = changed.files.values().map(Vec::len).sum();
    assert!(total <= input.len(), "{input:?}");
    for (path, lines) in &changed.files {
        assert!(!path.is_empty(), "{input:?}");
        assert!(!lines.is_empty(), "{path} in {input:?}");
        assert!(lines.windows(2).all(|w| w[0] < w[1]), "{path} in {input:?}");
        assert!(lines.iter().all(|&l| l > 0), "{path} in {input:?}");
    }
}

#[test]
fn every_prefix_of_a_diff_is_read_without_panic() {
    let diff = realistic();
    for (cut, _) in diff.char_indices().chain([(diff.len(), ' ')]) {
        let prefix = &diff[..cut];
        assert_well_formed(&changed_lines(prefix), prefix);
    }
}

#[test]
fn hostile_input_is_read_without_panic() {
    let hostile = [
        "",
        "\n\n\n",
        "\r\n\r\n",
        "@@",
        "@@ -",
        "@@ -1 +",
        "+++ b/x.py\n@@ -1 +1 @@\n",
        "+++ b/x.py\n@@ -1 +4294967295,4294967295 @@\n",
        "+++ b/x.py\n@@ -4294967295 +4294967295 @@\n",
        "+++ b/x.py\n@@ -1 +1,4000000000 @@\n@@ -1 +1,4000000000 @@\n",
        "+++ b/x.py\n@@ -0,0 +0,5 @@\n",
        "+++ b/x.py\n@@ -1 +99999999999999999999 @@\n",
        "+++ \"",
        "+++ \"b/\\",
        "+++ \"b/\\3",
        "+++ \"b/\\777\"",
        "diff --git\n+++ b/é\u{0}\n@@ -é +é @@\n@@ -1 +1é @@\n",
        "diff --cc\ndiff --git\n---\n+++\n@@ -1,1 +1,1 @@\n\\\n+\n-\n \n",
        "\u{FEFF}diff --git a/x b/x\n+++ b/x\n@@ -1 +2 @@ \u{1F600}",
    ];
    for input in hostile {
        assert_well_formed(&changed_lines(input), input);
    }
    // A forged count is held to the input's length.
    let forged = "+++ b/x.py\n@@ -1 +1,4000000000 @@\n";
    let changed = changed_lines(forged);
    assert_eq!(changed.files["x.py"].len(), forged.len());
}

#[test]
fn untracked_files_count_every_line() {
    let mut changed = changed_lines(&realistic());
    changed.add_untracked("new/tool.py", 3);
    changed.add_untracked("empty.py", 0);
    assert_eq!(changed.files["new/tool.py"], [1, 2, 3]);
    assert!(!changed.files.contains_key("empty.py"));
    assert_eq!(changed.files["mod.py"], [2, 5, 6]);
}
