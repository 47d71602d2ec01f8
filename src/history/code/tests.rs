use super::*;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write");
}

#[test]
fn outside_git_the_python_files_name_the_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(d, "tests/test_a.py", "def test_a(): pass\n");
    write(d, "pytest.ini", "[pytest]\n");
    let skip = d.join("h.sqlite");
    let first = identify(d, &skip);
    assert_eq!(first.commit, None);
    assert!(first.id.is_some());
    // Files that are not code, caches, virtualenvs and the store change
    // nothing.
    write(d, "junit.xml", "<testsuite/>");
    write(d, ".pytest_cache/v/x.py", "x");
    write(d, "__pycache__/a.py", "x");
    write(d, "venv/pyvenv.cfg", "home = /usr\n");
    write(d, "venv/lib/site.py", "x");
    write(d, "h.sqlite", "data");
    assert_eq!(identify(d, &skip), first);
    write(d, "tests/test_a.py", "def test_a(): assert 0\n");
    assert_ne!(identify(d, &skip), first);
    write(d, "tests/test_a.py", "def test_a(): pass\n");
    assert_eq!(identify(d, &skip), first);
}

fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn in_git_the_commit_and_uncommitted_changes_name_the_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    if !git(d, &["init", "-q"]) {
        println!("git not found: skipped");
        return;
    }
    write(d, "test_a.py", "def test_a(): pass\n");
    assert!(git(d, &["add", "."]) && git(d, &["commit", "-qm", "one"]));
    let skip = d.join(".pytest_cache/h.sqlite");
    let clean = identify(d, &skip);
    assert_eq!(clean.commit.as_ref().map(String::len), Some(40));
    write(d, "report.xml", "<testsuite/>");
    assert_eq!(identify(d, &skip), clean, "an untracked report is not code");
    write(d, "test_a.py", "def test_a(): assert 0\n");
    let edited = identify(d, &skip);
    assert_eq!(edited.commit, clean.commit);
    assert_ne!(edited.id, clean.id);
    write(d, "test_a.py", "def test_a(): pass\n");
    assert_eq!(identify(d, &skip), clean);
    write(d, "test_new.py", "def test_b(): pass\n");
    assert_ne!(identify(d, &skip), clean, "an untracked test file is code");
}

#[test]
fn a_project_in_an_ignored_folder_is_named_by_its_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    if !git(d, &["init", "-q"]) {
        println!("git not found: skipped");
        return;
    }
    write(d, ".gitignore", "/target\n");
    assert!(git(d, &["add", "."]) && git(d, &["commit", "-qm", "one"]));
    let project = d.join("target/copy");
    write(&project, "test_a.py", "def test_a(): pass\n");
    let skip = project.join(".pytest_cache/h.sqlite");
    let first = identify(&project, &skip);
    assert_eq!(first.commit, None, "git's commit is not this project's");
    write(&project, "test_a.py", "def test_a(): assert 0\n");
    assert_ne!(
        identify(&project, &skip),
        first,
        "an edit git ignores is a change"
    );
}
