//! Server overhead: one `discover_tests` call through `pytest-mcp serve`
//! (a hand-written newline-delimited JSON-RPC client on stdio: initialize
//! once, then timed `tools/call` round trips) against `python -m pytest
//! --collect-only -q` on the same 5,000-test suite, alternated.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use crate::proc::{median, timed};
use crate::{Env, overhead, secs};

pub struct Client {
    pub child: Child,
    pub stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    pub fn start(env: &Env, root: &std::path::Path) -> Client {
        let mut child = Command::new(&env.bin)
            .arg("serve")
            .arg("--root")
            .arg(root)
            .arg("--python")
            .arg(&env.python)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pytest-mcp serve");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = Client {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        c.request(
            "initialize",
            serde_json::json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "pytest-mcp-bench", "version": "0"}
            }),
        );
        c.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, msg: &serde_json::Value) {
        writeln!(self.stdin, "{msg}").expect("write to server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and reads lines until its response (notifications
    /// in between are skipped).
    pub fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read from server");
            assert!(n > 0, "the server closed stdout");
            let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method} failed: {v}");
                return v;
            }
        }
    }
}

pub fn run(env: &Env) {
    let root = overhead::suite(env);
    let mut client = Client::start(env, &root);
    let call = |c: &mut Client| {
        let started = Instant::now();
        let v = c.request(
            "tools/call",
            serde_json::json!({"name": "discover_tests", "arguments": {}}),
        );
        let wall = started.elapsed().as_secs_f64();
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            text.contains("5,000 tests"),
            "discover_tests did not find the 5,000 tests: {}",
            &text[..text.len().min(300)]
        );
        wall
    };
    // One warm-up call each (page cache, __pycache__).
    call(&mut client);
    let collect = || {
        let mut c = Command::new(&env.python);
        c.args(["-m", "pytest", "--collect-only", "-q"])
            .current_dir(&root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let s = timed(&mut c);
        assert_eq!(s.status, 0, "pytest --collect-only exited {}", s.status);
        s.wall
    };
    collect();
    let (mut server, mut plain, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..env.rounds {
        let (s, p) = if round % 2 == 0 {
            let s = call(&mut client);
            (s, collect())
        } else {
            let p = collect();
            (call(&mut client), p)
        };
        server.push(s);
        plain.push(p);
        ratios.push(s / p);
        eprint!(".");
    }
    eprintln!();
    drop(client.stdin);
    let _ = client.child.wait();
    let ratio = median(&ratios);
    println!(
        "## 4. Server overhead: discover_tests on the 5,000-test suite, {} rounds alternated\n",
        env.rounds
    );
    println!("| command | wall (median) | vs pytest --collect-only -q |");
    println!("|---|---|---|");
    println!(
        "| python -m pytest --collect-only -q | {} | 1.000x |",
        secs(median(&plain))
    );
    println!(
        "| discover_tests round trip (pytest-mcp serve, markdown) | {} | {ratio:.3}x |\n",
        secs(median(&server))
    );
}
