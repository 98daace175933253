//! End to end with the real client (Claude Code 2.1.332): a project with ccmem's hooks installed
//! in `.claude/settings.json`, a loopback Messages API stub that answers the first main-loop call
//! with a `Write` to MEMORY.md, and `claude -p hi --output-format stream-json --verbose
//! --include-hook-events`. These tests need the real client: they are `#[ignore]`d, so a plain
//! `cargo test` reports them as ignored with the reason; `scripts/live-conformance.sh` runs them
//! with `--include-ignored` and `CCMEM_CLAUDE_BIN` naming the client (without it they fail).
//!
//! Unix only: the client here is Linux's, and the plugin's hooks run `sh`.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

/// The stub's answer: a tool call to Write on the first main-loop request, then plain `ok`.
struct Script {
    /// Where the tool call writes (`None`: never call a tool).
    write_path: Option<String>,
    write_content: String,
    served_tool: bool,
    main_bodies: Vec<Value>,
}

fn sse(model: &str, blocks: &[Value], stop: &str) -> String {
    let mut evs = vec![(
        "message_start",
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )];
    for (i, b) in blocks.iter().enumerate() {
        if b["type"] == "text" {
            evs.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "text", "text": ""}}),
            ));
            evs.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i,
                "delta": {"type": "text_delta", "text": b["text"]}}),
            ));
        } else {
            evs.push(("content_block_start", json!({"type": "content_block_start", "index": i,
                "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})));
            evs.push((
                "content_block_delta",
                json!({"type": "content_block_delta", "index": i,
                "delta": {"type": "input_json_delta", "partial_json": b["input"].to_string()}}),
            ));
        }
        evs.push((
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        ));
    }
    evs.push((
        "message_delta",
        json!({"type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 1}}),
    ));
    evs.push(("message_stop", json!({"type": "message_stop"})));
    evs.iter()
        .map(|(e, d)| format!("event: {e}\ndata: {d}\n\n"))
        .collect()
}

/// Serves one HTTP request on `stream` (the stub closes every connection after answering).
fn serve(mut stream: TcpStream, script: &Mutex<Script>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (ctype, payload) = if request_line.starts_with("POST") {
        let model = req["model"].as_str().unwrap_or("x").to_owned();
        let tools: Vec<&str> = req["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str())
            .collect();
        let main = request_line.contains("/v1/messages")
            && tools.contains(&"Write")
            && req["messages"].is_array();
        let mut s = script.lock().unwrap();
        let (blocks, stop) = if main && !s.served_tool && s.write_path.is_some() {
            s.served_tool = true;
            (
                vec![
                    json!({"type": "tool_use", "id": "toolu_ccmem1", "name": "Write",
                "input": {"file_path": s.write_path, "content": s.write_content}}),
                ],
                "tool_use",
            )
        } else {
            (vec![json!({"type": "text", "text": "ok"})], "end_turn")
        };
        if main {
            s.main_bodies.push(req.clone());
        }
        if req["stream"] == true {
            ("text/event-stream", sse(&model, &blocks, stop))
        } else {
            (
                "application/json",
                json!({"id": "m", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop, "stop_sequence": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}})
                .to_string(),
            )
        }
    } else {
        ("application/json", "{}".to_owned())
    };
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{payload}",
        payload.len()
    )?;
    stream.flush()
}

/// Starts the stub on an ephemeral loopback port.
fn start_stub(write_path: Option<String>) -> (u16, Arc<Mutex<Script>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = Arc::new(Mutex::new(Script {
        write_path,
        write_content: entries(209),
        served_tool: false,
        main_bodies: Vec::new(),
    }));
    let s2 = Arc::clone(&script);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let s3 = Arc::clone(&s2);
            std::thread::spawn(move || serve(stream, &s3));
        }
    });
    (port, script)
}

fn entries(n: usize) -> String {
    (1..=n)
        .map(|i| format!("- [e{i}](e{i}.md) — entry {i}\n"))
        .collect()
}

/// The real client's binary: these tests are only run on purpose, so a missing one is a failure.
fn claude_bin() -> String {
    std::env::var("CCMEM_CLAUDE_BIN")
        .ok()
        .filter(|b| !b.is_empty())
        .expect("CCMEM_CLAUDE_BIN must name the real client (scripts/install-client.sh prints it)")
}

/// The client's arguments for one non-interactive session streaming its events (hooks
/// included) as JSON lines.
const ONE_SESSION: [&str; 7] = [
    "-p",
    "hi",
    "--no-session-persistence",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-hook-events",
];

/// A temporary folder holding `home/`, `proj/` (with a CLAUDE.md) and the memory folder `mem/`.
struct Sandbox {
    _root: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
}

/// A sandbox whose project's CLAUDE.md is `claude_md` and whose MEMORY.md has `n` entries.
fn sandbox(claude_md: &str, n: usize) -> Sandbox {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("mem"));
    for d in [&home, &proj, &mem] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join("CLAUDE.md"), claude_md).unwrap();
    std::fs::write(mem.join("MEMORY.md"), entries(n)).unwrap();
    Sandbox {
        _root: root,
        base,
        home,
        proj,
        mem,
    }
}

impl Sandbox {
    /// The real client in `proj/`, from a cleared environment: `PATH` = `path`, this HOME and
    /// memory folder, the Messages API stub on `port`.
    fn client(&self, claude: &str, path: &str, port: u16) -> Command {
        let mut cmd = Command::new(claude);
        cmd.current_dir(&self.proj)
            .stdin(Stdio::null())
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &self.mem)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
            .env("ANTHROPIC_API_KEY", "sk-ant-ccmem-test");
        cmd
    }
}

/// The output of the `event` hook in the client's stream of events; the hook must have
/// exited 0.
fn hook_output(stdout: &str, event: &str) -> Value {
    let e = (stdout.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["subtype"] == "hook_response" && e["hook_event"] == event)
        .unwrap_or_else(|| panic!("no {event} hook_response in the stream:\n{stdout}"));
    assert_eq!(e["exit_code"], 0, "{e}");
    serde_json::from_str(e["output"].as_str().unwrap_or(""))
        .unwrap_or_else(|_| panic!("{event} output is not JSON: {e}"))
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn real_client_shows_the_receipt_and_runs_the_write_guard() {
    let claude = claude_bin();
    let s = sandbox("# project\nbe brief\n", 205);
    let ccmem = env!("CARGO_BIN_EXE_ccmem");

    // Install the hooks the way a user does.
    common::cli::Test::at(&s.base)
        .current_dir("proj")
        .args(["hook", "install", "--project", "--yes", "--bin", ccmem])
        .run()
        .code(0);

    let (port, script) = start_stub(Some(s.mem.join("MEMORY.md").to_string_lossy().into_owned()));
    let path = std::env::var("PATH").unwrap_or_default();
    let out = (s.client(&claude, &path, port))
        .args(ONE_SESSION)
        .args(["--allowedTools", "Write,Edit,Read"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );

    let start = hook_output(&stdout, "SessionStart");
    let msg = start["systemMessage"].as_str().unwrap();
    assert!(msg.starts_with("ccmem: "), "{msg}");
    assert!(msg.contains("5 lines dark (201–205)"), "{msg}");

    let post = hook_output(&stdout, "PostToolUse");
    let msg = post["systemMessage"].as_str().unwrap();
    assert!(msg.contains("9 lines (201–209) will be dark"), "{msg}");

    // The write went through, and the model's next request carries ccmem's context.
    assert_eq!(
        std::fs::read_to_string(s.mem.join("MEMORY.md")).unwrap(),
        entries(209)
    );
    let bodies = script.lock().unwrap().main_bodies.clone();
    let last = bodies.last().expect("no main-loop request").to_string();
    assert!(
        last.contains("PostToolUse:Write hook additional context: ccmem: this write left"),
        "{last}"
    );
}

/// Installs the plugin from the repository's local marketplace into a fresh HOME and runs one
/// session in a project whose MEMORY.md has 203 entries. `ccmem_on_path`: a link to the ccmem
/// under test is on PATH; otherwise PATH is `/usr/bin:/bin` and npm's global prefix an empty
/// folder, so the launcher finds no ccmem anywhere. Returns the init event's skills and the
/// SessionStart hook's output.
fn plugin_session(ccmem_on_path: bool) -> (Value, Value) {
    let claude = claude_bin();
    let s = sandbox("# project\n", 203);
    let bin = s.base.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = if ccmem_on_path {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ccmem"), bin.join("ccmem")).unwrap();
        format!("{}:/usr/bin:/bin", bin.display())
    } else {
        "/usr/bin:/bin".to_owned()
    };
    let (port, _script) = start_stub(None);
    let client = |args: &[&str]| {
        (s.client(&claude, &path, port))
            .args(args)
            .env("NPM_CONFIG_PREFIX", s.base.join("npm-empty"))
            .output()
            .unwrap()
    };
    let repo = env!("CARGO_MANIFEST_DIR");
    for args in [
        &["plugin", "marketplace", "add", repo][..],
        &["plugin", "install", "ccmem@ccmem-local"][..],
    ] {
        let out = client(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = client(&ONE_SESSION);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let init = (stdout.lines())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["subtype"] == "init")
        .expect("no init event");
    (init["skills"].clone(), hook_output(&stdout, "SessionStart"))
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn real_client_runs_the_plugin_from_the_local_marketplace() {
    let (skills, output) = plugin_session(true);
    assert!(
        skills
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "ccmem:ccmem"),
        "skill missing: {skills}"
    );
    let msg = output["systemMessage"].as_str().unwrap();
    assert!(msg.contains("3 lines dark (201–203)"), "{msg}");
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn real_client_shows_how_to_install_ccmem_when_the_plugin_cannot_find_it() {
    let (_, output) = plugin_session(false);
    let msg = output["systemMessage"].as_str().unwrap();
    assert!(msg.contains("the ccmem command is not"), "{msg}");
    assert!(msg.contains("cargo install --locked --git"), "{msg}");
}

/// Issue 13: `hook install` run from a binary that is not on PATH (as `target/release/ccmem hook
/// install` is) writes that binary's absolute path, so the real client finds it and the receipt
/// shows at session start; the command carries ccmem's ownership marker.
#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn real_client_shows_the_receipt_after_an_install_from_off_path() {
    let claude = claude_bin();
    let s = sandbox("# project\n", 204);
    // PATH without any ccmem: only the system's tools.
    let path = "/usr/local/bin:/usr/bin:/bin";
    common::cli::Test::at(&s.base)
        .env("PATH", path)
        .current_dir("proj")
        .args(["hook", "install", "--yes"])
        .run()
        .code(0);
    let settings = std::fs::read_to_string(s.home.join(".claude/settings.json")).unwrap();
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_ccmem"))
        .canonicalize()
        .unwrap();
    assert!(
        settings.contains(&format!(
            "{} hook session-start # ccmem-managed",
            exe.display()
        )),
        "{settings}"
    );
    let (port, _script) = start_stub(None);
    let out = (s.client(&claude, path, port))
        .args(ONE_SESSION)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let output = hook_output(&stdout, "SessionStart");
    let msg = output["systemMessage"].as_str().unwrap();
    assert!(msg.contains("4 lines dark (201–204)"), "{msg}");
}
