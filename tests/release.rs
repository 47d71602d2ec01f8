//! Ready to release (RELEASING.md): one version, Cargo.toml's, that
//! action.yml pins and `--version` prints; the release workflow's first job
//! refuses a tag that disagrees (its own script, run here); `cargo package`
//! ships only what the crate needs, with the licences, and builds from the
//! packaged files. The wheel's metadata version and licence files are
//! checked by scripts/wheel-check.sh, the sdist by scripts/sdist-check.sh.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use yaml_rust2::YamlLoader;

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(file: &str) -> String {
    std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn one_version_in_cargo_toml_the_action_and_the_binary() {
    let pin = format!("PYTEST_MCP_VERSION: \"{VERSION}\"");
    assert!(
        read("action.yml").contains(&pin),
        "action.yml must pin {pin}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_pytest-mcp"))
        .arg("--version")
        .output()
        .expect("pytest-mcp --version");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("pytest-mcp {VERSION}")
    );
    let pyproject = read("pyproject.toml");
    assert!(
        pyproject.contains("dynamic = [\"version\"]") && !pyproject.contains("\nversion ="),
        "the wheel reads Cargo.toml's version"
    );
    assert!(
        read("CHANGELOG.md").contains(&format!("## [{VERSION}]")),
        "CHANGELOG.md has the current version"
    );
}

/// The release workflow's `version` job script, run with `TAG`: its exit
/// status and what it wrote to `$GITHUB_OUTPUT`.
fn release_check(tag: &str) -> (bool, String) {
    let text = read(".github/workflows/release.yml");
    let docs = YamlLoader::load_from_str(&text).expect("release.yml is YAML");
    let steps = docs[0]["jobs"]["version"]["steps"]
        .as_vec()
        .expect("the version job's steps");
    let script = steps
        .iter()
        .find(|s| s["id"].as_str() == Some("check"))
        .and_then(|s| s["run"].as_str())
        .expect("the check step's script");
    let dir = tempfile::tempdir().expect("tempdir");
    let output = dir.path().join("output");
    let out = Command::new("bash")
        .args(["-e", "-c", script])
        .current_dir(repo())
        .env("TAG", tag)
        .env("GITHUB_OUTPUT", &output)
        .output()
        .expect("bash");
    (
        out.status.success(),
        std::fs::read_to_string(&output).unwrap_or_default(),
    )
}

#[test]
fn the_release_refuses_a_tag_that_is_not_the_version() {
    let (ok, output) = release_check(&format!("v{VERSION}"));
    assert!(ok, "v{VERSION} is released");
    assert_eq!(output, format!("version={VERSION}\n"));
    let (ok, _) = release_check("v99.0.0");
    assert!(!ok, "a tag other than Cargo.toml's version is refused");
}

/// Cargo's target folder: `target/`, or wherever `CARGO_TARGET_DIR` (or a
/// `build.target-dir` setting) puts it, as cargo itself says.
fn target_dir() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo())
        .output()
        .expect("cargo metadata");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    PathBuf::from(
        metadata["target_directory"]
            .as_str()
            .expect("target_directory"),
    )
}

/// `cargo package --list`: the files the crate ships.
fn packaged_files() -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .current_dir(repo())
        .output()
        .expect("cargo package --list");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_crate_ships_the_sources_and_the_licences_and_no_tests() {
    let files = packaged_files();
    for needed in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "CHANGELOG.md",
        "Cargo.lock",
        "src/main.rs",
        "src/runner/command/pytest_mcp_events.py",
        "src/runner/command/pytest_mcp_attempts.py",
        "src/runner/command/pytest_mcp_measure.py",
        "templates/report.html",
    ] {
        assert!(
            files.iter().any(|f| f == needed),
            "{needed} missing: {files:?}"
        );
    }
    let stray: Vec<&String> = files
        .iter()
        .filter(|f| {
            [
                "tests/",
                "golden/",
                "benches/",
                "fuzz/",
                "testkit/",
                "scripts/",
                "examples/",
                "docs/",
                ".github/",
            ]
            .iter()
            .any(|dir| f.starts_with(dir))
        })
        .collect();
    assert!(stray.is_empty(), "not needed by the crate: {stray:?}");
}

/// `cargo package` builds the crate from the packaged files alone (a full
/// build: run by scripts/test.sh with the other ignored tests).
#[test]
#[ignore = "a full build of the packaged crate; scripts/test.sh runs it"]
fn the_packaged_crate_builds() {
    let out = Command::new(env!("CARGO"))
        .args(["package", "--allow-dirty", "--offline", "--locked"])
        .current_dir(repo())
        .output()
        .expect("cargo package");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let crate_file = target_dir().join(format!("package/pytest-mcp-{VERSION}.crate"));
    let listing = Command::new("tar")
        .arg("-tzf")
        .arg(&crate_file)
        .output()
        .expect("tar");
    let listing = String::from_utf8_lossy(&listing.stdout);
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            listing.contains(&format!("pytest-mcp-{VERSION}/{licence}")),
            "{licence} not in {}",
            crate_file.display()
        );
    }
}
