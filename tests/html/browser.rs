//! Headless Chromium for the HTML tests: a plain run with a net log
//! (`--dump-dom`, `--screenshot`), and the DOM driven through
//! playwright-core (`tests/html_browser/check.mjs`, installed with `npm ci`
//! into `target/tmp/html_browser`).
//!
//! Why playwright-core: it drives Debian's Chromium as it is (no browser
//! download), waits for the page and its events for us, and runs with
//! scripts turned off in one line; the DevTools protocol by hand would be
//! more code to get those right.

use std::collections::BTreeSet;
use std::fs::File;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(60);
/// The DOM driver's whole job, 100,000 rows included, on a slow machine.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(300);
/// The files of the DOM driver, copied next to its `node_modules`.
const DRIVER_FILES: [&str; 3] = ["package.json", "package-lock.json", "check.mjs"];

/// Chromium, or `None` when it is missing and skipping was asked for.
pub fn chromium() -> Option<&'static Path> {
    let path = Path::new(CHROMIUM);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("PYTEST_MCP_SKIP_CHROMIUM").as_deref() == Ok("1") {
        eprintln!("SKIPPED: {CHROMIUM} not found and PYTEST_MCP_SKIP_CHROMIUM=1");
        return None;
    }
    panic!(
        "{CHROMIUM} not found: the HTML page is checked in headless Chromium. \
         Install it with `apt-get update && apt-get install -y chromium` \
         (Debian), or set PYTEST_MCP_SKIP_CHROMIUM=1 to skip this test on a \
         machine without it."
    );
}

pub struct Browsed {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// URLs the page asked for, from Chromium's net log.
    pub page_requests: BTreeSet<String>,
}

/// Opens `page` in headless Chromium with a fresh profile, every host name
/// unresolvable, and a net log; `extra` says what to do (`--dump-dom`,
/// `--screenshot=...`).
pub fn browse(chromium: &Path, page: &Path, work: &Path, extra: &[String]) -> Browsed {
    let profile = tempfile::tempdir_in(work).expect("profile dir");
    let net_log = work.join(format!(
        "net-{}.json",
        profile.path().file_name().unwrap().to_string_lossy()
    ));
    let stdout_path = net_log.with_extension("stdout");
    let stderr_path = net_log.with_extension("stderr");
    let mut command = Command::new(chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--log-net-log={}", net_log.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .current_dir(work)
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("stdout file"))
        .stderr(File::create(&stderr_path).expect("stderr file"))
        .process_group(0);
    let mut child = command.spawn().expect("chromium starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if started.elapsed() > CHROMIUM_TIMEOUT {
            // Chromium and its helper processes: the group we made.
            let group = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            panic!(
                "chromium did not finish in {CHROMIUM_TIMEOUT:?}; stderr:\n{}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let page_requests = if status.success() {
        page_requests(&net_log)
    } else {
        BTreeSet::new()
    };
    Browsed {
        status,
        stdout,
        stderr,
        page_requests,
    }
}

/// Requests made for a `file://` page: Chromium keys them with the page's
/// site. Its own background requests (update checks, account lookups; all
/// unresolvable here) are keyed otherwise and are not the page's doing.
fn page_requests(net_log: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(net_log).expect("chromium wrote a net log");
    let log: serde_json::Value = serde_json::from_str(&text).expect("the net log is JSON");
    let events = log["events"].as_array().expect("net log events");
    events
        .iter()
        .filter_map(|e| {
            let params = e.get("params")?;
            let url = params.get("url")?.as_str()?;
            let key = params.get("network_isolation_key")?.as_str()?;
            key.starts_with("file://").then(|| url.to_string())
        })
        .collect()
}

/// Where the DOM driver is installed (`npm ci`, once per lockfile), or a
/// panic saying why it cannot be; `None` when Chromium, Node or npm is
/// missing and `PYTEST_MCP_SKIP_CHROMIUM=1` says to skip.
pub fn driver() -> Option<PathBuf> {
    chromium()?;
    static INSTALLED: Mutex<bool> = Mutex::new(false);
    let mut installed = INSTALLED.lock().unwrap_or_else(|e| e.into_inner());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html_browser");
    if *installed {
        return Some(dir);
    }
    let node = Command::new("node").arg("--version").output();
    if node.is_err() || !node.as_ref().is_ok_and(|o| o.status.success()) {
        if std::env::var("PYTEST_MCP_SKIP_CHROMIUM").as_deref() == Ok("1") {
            eprintln!("SKIPPED: Node.js not found and PYTEST_MCP_SKIP_CHROMIUM=1");
            return None;
        }
        panic!(
            "node not found: the HTML page's filter and sort are checked through \
             playwright-core (Node 20+ and npm), or set PYTEST_MCP_SKIP_CHROMIUM=1"
        );
    }
    std::fs::create_dir_all(&dir).expect("mkdir");
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/html_browser");
    let lock = std::fs::read(source.join("package-lock.json")).expect("lockfile");
    let stale = std::fs::read(dir.join("package-lock.json")).ok().as_ref() != Some(&lock)
        || !dir.join("node_modules/playwright-core").exists();
    for file in DRIVER_FILES {
        std::fs::copy(source.join(file), dir.join(file)).expect("copy the driver");
    }
    if stale {
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .arg("--cache")
            .arg(dir.join(".npm-cache"))
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .expect("run npm ci");
        assert!(
            out.status.success(),
            "npm ci in {} failed (playwright-core comes from npm's registry or a cache): {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    *installed = true;
    Some(dir)
}

/// Runs the DOM driver on `job` (see `check.mjs`) and returns its answer.
pub fn drive(dir: &Path, work: &Path, job: &serde_json::Value) -> serde_json::Value {
    let job_path = tempfile::Builder::new()
        .suffix(".json")
        .tempfile_in(work)
        .expect("job file");
    std::fs::write(job_path.path(), job.to_string()).expect("write the job");
    let stdout_path = job_path.path().with_extension("out");
    let stderr_path = job_path.path().with_extension("err");
    let mut child = Command::new("node")
        .arg(dir.join("check.mjs"))
        .arg(job_path.path())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("stdout file"))
        .stderr(File::create(&stderr_path).expect("stderr file"))
        .process_group(0)
        .spawn()
        .expect("run node");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for node") {
            break status;
        }
        if started.elapsed() > DRIVER_TIMEOUT {
            // Node and the Chromium it started: the group we made.
            let group = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            panic!("the DOM driver did not finish in {DRIVER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    assert!(status.success(), "the DOM driver failed: {stdout}{stderr}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).expect("the driver's JSON");
    assert_eq!(answer["errors"], serde_json::json!([]), "{answer}");
    assert_eq!(
        answer["requests"],
        serde_json::json!([]),
        "the page loaded things"
    );
    assert_eq!(
        answer["console"],
        serde_json::json!([]),
        "console messages (a CSP violation?)"
    );
    answer
}
