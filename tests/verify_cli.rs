//! `ccmem verify` against a fake client: isolation (what reaches the client's process, and
//! that the request lands on the loopback stub), comparison, and failure modes.
//!
//! The fake `claude` is a Python script that records its argv and environment, applies the
//! `env` of the user's `settings.json` and then of `--settings` the way Claude Code 2.1.332 does
//! (flag settings win), and POSTs one Messages request to the resulting `ANTHROPIC_BASE_URL`.
//!
//! Unix only: the fake client is a `#!/usr/bin/env python3` script with an exec bit.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;

use common::cli::{Run, Test, snapshot};

const FAKE: &str = r#"#!/usr/bin/env python3
import json, os, sys, time, urllib.request
args = sys.argv[1:]
if args == ["--version"]:
    print(os.environ.get("FAKE_VERSION", "2.1.332") + " (Claude Code)"); sys.exit(0)
json.dump({"argv": args, "env": dict(os.environ)}, open(os.environ["FAKE_RECORD"], "w"))
mode = os.environ.get("FAKE_MODE", "ok")
if mode == "fail": sys.stderr.write("boom: the fake failed\n"); sys.exit(3)
if mode == "hang": time.sleep(600)
if mode == "silent": print("ok"); sys.exit(0)
if mode == "oldflag": sys.stderr.write("error: unknown option '--strict-mcp-config'\n"); sys.exit(1)
env = dict(os.environ)
try: env.update(json.load(open(os.path.join(os.environ["HOME"], ".claude/settings.json"))).get("env", {}))
except OSError: pass
flag = json.loads(args[args.index("--settings") + 1])
env.update(flag.get("env", {}))
src = os.environ.get("FAKE_REMINDER", "")
src = src if os.path.exists(src) else "reminder.txt"
reminder = open(src).read().replace("@CWD@", os.getcwd()) if os.path.exists(src) else ""
body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": [
    {"type": "text", "text": reminder}, {"type": "text", "text": "hi"}]}]}
headers = {"content-type": "application/json", "x-api-key": env.get("ANTHROPIC_API_KEY", "")}
if env.get("ANTHROPIC_AUTH_TOKEN"): headers["authorization"] = "Bearer " + env["ANTHROPIC_AUTH_TOKEN"]
req = urllib.request.Request(env["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true",
                             data=json.dumps(body).encode(), headers=headers)
answer = urllib.request.urlopen(req, timeout=10).read().decode()
rec = json.load(open(os.environ["FAKE_RECORD"]))
rec["answer"] = answer; rec["sent_to"] = env["ANTHROPIC_BASE_URL"]; rec["headers"] = headers
json.dump(rec, open(os.environ["FAKE_RECORD"], "w"))
print("ok")
"#;

struct World {
    t: Test,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
    fake: PathBuf,
}

impl World {
    fn new() -> World {
        let t = Test::new();
        let root = t.root().to_path_buf();
        let (home, project) = (root.join("home"), root.join("proj"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("CLAUDE.md"), "project memory\n").unwrap();
        std::fs::write(home.join(".claude/CLAUDE.md"), "user memory\n").unwrap();
        let fake = root.join("bin/claude");
        std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
        std::fs::write(&fake, FAKE).unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let t = t
            .current_dir("proj")
            .env("XDG_CACHE_HOME", root.join("cache"))
            .env("CCMEM_MANAGED_DIR", root.join("managed"))
            .env("FAKE_RECORD", root.join("record.json"))
            .env("FAKE_REMINDER", root.join("reminder.txt"))
            // How long the client ran, which no two runs share.
            .redact_regex(r"\b\d+ ms\b", "[N] ms");
        World {
            t,
            root,
            home,
            project,
            fake,
        }
    }

    fn record(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.root.join("record.json")).unwrap()).unwrap()
    }

    /// `ccmem ARGS` in the project, with a clean environment plus `extra`.
    fn ccmem(&self, args: &[&str], extra: &[(&str, &str)]) -> Run {
        self.t.ccmem(args).envs(extra.iter().copied()).run()
    }

    fn verify(&self, extra_args: &[&str], extra_env: &[(&str, &str)]) -> Run {
        let fake = self.fake.to_string_lossy().into_owned();
        let mut args = vec!["verify", "--claude", fake.as_str()];
        args.extend_from_slice(extra_args);
        self.ccmem(&args, extra_env)
    }

    /// ccmem's own prediction for the project (what `ccmem context` prints).
    fn predicted(&self) -> String {
        self.ccmem(&["context"], &[]).code(0).stdout()
    }

    fn set_reminder(&self, text: &str) {
        std::fs::write(self.root.join("reminder.txt"), text).unwrap();
    }
}

/// Every file under `dir` with its bytes (settings and memory files included).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn no_credential_reaches_the_client_and_the_request_lands_on_loopback() {
    let w = World::new();
    std::fs::write(
        w.home.join(".claude/settings.json"),
        r#"{"apiKeyHelper": "echo sk-ant-from-helper", "env": {"ANTHROPIC_BASE_URL": "http://192.0.2.1:9",
            "ANTHROPIC_AUTH_TOKEN": "sk-ant-settings-token"}}"#,
    )
    .unwrap();
    w.set_reminder(&w.predicted());
    let before = (snapshot(&w.home), snapshot(&w.project));
    let secrets = [
        ("ANTHROPIC_API_KEY", "sk-ant-real-key"),
        ("ANTHROPIC_AUTH_TOKEN", "sk-ant-real-token"),
        ("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat-real"),
        ("ANTHROPIC_BASE_URL", "https://api.example.invalid"),
        ("HTTPS_PROXY", "http://192.0.2.1:3128"),
        ("http_proxy", "http://192.0.2.1:3128"),
        ("CLAUDE_CODE_USE_BEDROCK", "1"),
        ("AWS_SECRET_ACCESS_KEY", "aws-real"),
    ];
    let out = w.verify(&[], &secrets).code(0);
    assert!(out.stdout().starts_with("match\n"), "{}", out.transcript());

    let rec = w.record();
    let env = rec["env"].as_object().unwrap();
    for (k, v) in env {
        let v = v.as_str().unwrap();
        for (_, secret) in secrets.iter().filter(|(_, s)| s.len() > 4) {
            assert!(!v.contains(secret), "{k}={v} leaks a credential");
        }
    }
    for k in [
        "CLAUDE_CODE_OAUTH_TOKEN",
        "ANTHROPIC_AUTH_TOKEN",
        "HTTPS_PROXY",
        "http_proxy",
        "CLAUDE_CODE_USE_BEDROCK",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        assert!(!env.contains_key(k), "{k} reached the client");
    }
    assert_eq!(env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"], "1");
    assert_eq!(env["DISABLE_AUTOUPDATER"], "1");
    let base = env["ANTHROPIC_BASE_URL"].as_str().unwrap();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_eq!(
        rec["sent_to"], base,
        "settings.json env must not redirect the request"
    );
    assert!(
        rec["headers"].get("authorization").is_none(),
        "settings token must be blanked"
    );
    assert!(
        rec["answer"]
            .as_str()
            .unwrap()
            .contains("event: message_stop")
    );

    let argv: Vec<&str> = rec["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(&argv[..3], ["-p", "hi", "--no-session-persistence"]);
    let settings: Value =
        serde_json::from_str(argv[argv.iter().position(|a| *a == "--settings").unwrap() + 1])
            .unwrap();
    assert_eq!(
        settings["apiKeyHelper"], "",
        "apiKeyHelper must be neutralized"
    );
    assert_eq!(settings["env"]["ANTHROPIC_AUTH_TOKEN"], "");

    assert_eq!(
        (snapshot(&w.home), snapshot(&w.project)),
        before,
        "files changed during verify"
    );
}

#[test]
fn a_different_reminder_is_a_mismatch_with_a_diff() {
    let w = World::new();
    w.set_reminder("<system-reminder>\nCodebase and user instructions are shown below.\n\nSOMETHING ELSE\n</system-reminder>");
    snapshot!("mismatch", w.verify(&[], &[]).code(1));
}

#[test]
fn json_reports_status_and_versions() {
    let w = World::new();
    w.set_reminder(&w.predicted());
    let out = w.verify(&["--json"], &[]).code(0);
    let v = out.json();
    assert_eq!(v["status"], "match");
    assert_eq!(v["client_version"], "2.1.332 (Claude Code)");
    assert_eq!(v["modeled_version"], "2.1.332");
}

#[test]
fn client_flags_are_passed_through() {
    let w = World::new();
    std::fs::create_dir_all(w.root.join("extra")).unwrap();
    w.set_reminder(&w.predicted());
    w.verify(&["--add-dir", "../extra", "--setting-sources", "user"], &[]);
    let rec = w.record();
    let argv: Vec<&str> = rec["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        argv.windows(2).any(|p| p == ["--add-dir", "../extra"]),
        "{argv:?}"
    );
    assert!(
        argv.windows(2).any(|p| p == ["--setting-sources", "user"]),
        "{argv:?}"
    );
}

#[test]
fn missing_client_is_exit_2_with_a_clear_error() {
    let w = World::new();
    let out = w.ccmem(&["verify", "--claude", "/nonexistent/claude"], &[]);
    snapshot!("missing_client", out.code(2));
    let out = w.ccmem(&["verify"], &[("PATH", "/nonexistent")]);
    snapshot!("no_client_on_path", out.code(2));
}

#[test]
fn failing_client_is_exit_2_with_its_output() {
    let w = World::new();
    snapshot!(
        "failing_client",
        w.verify(&[], &[("FAKE_MODE", "fail")]).code(2)
    );
}

#[test]
fn client_that_sends_nothing_is_exit_2() {
    let w = World::new();
    snapshot!(
        "silent_client",
        w.verify(&[], &[("FAKE_MODE", "silent")]).code(2)
    );
}

#[test]
fn too_old_client_names_the_flag() {
    let w = World::new();
    snapshot!(
        "too_old_client",
        w.verify(&[], &[("FAKE_MODE", "oldflag")]).code(2)
    );
}

#[test]
fn hanging_client_is_stopped_at_the_time_limit() {
    let w = World::new();
    let out = w.verify(&["--timeout", "1"], &[("FAKE_MODE", "hang")]);
    snapshot!("hanging_client", out.code(2));
}

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn capture_writes_a_normalized_case_from_the_project() {
    let w = World::new();
    put(&w.project, "sub/CLAUDE.md", "nested\n");
    put(&w.project, "docs/x.md", "imported\n");
    put(&w.project, "CLAUDE.md", "see @docs/x.md\n");
    put(&w.project, "src/main.rs", "not memory\n");
    std::fs::create_dir(w.project.join(".git")).unwrap();
    let reminder = "<system-reminder>\nCodebase and user instructions\n\nContents of @CWD@/CLAUDE.md:\n</system-reminder>";
    w.set_reminder(reminder);
    let case = w.root.join("case");
    let case_s = case.to_string_lossy().into_owned();
    w.verify(
        &["--capture", &case_s, "--bare"],
        &[("CLAUDE_CODE_SIMPLE", "0")],
    )
    .code(0);
    for f in ["CLAUDE.md", "sub/CLAUDE.md", "docs/x.md"] {
        assert!(case.join("tree").join(f).is_file(), "{f} not copied");
    }
    assert!(!case.join("tree/src/main.rs").exists());
    assert!(case.join("tree/home").is_dir());
    assert!(
        !case.join("tree/home/.claude/CLAUDE.md").exists(),
        "home must not be copied"
    );
    let spec: Value =
        serde_json::from_slice(&std::fs::read(case.join("case.json")).unwrap()).unwrap();
    assert_eq!(spec["args"], serde_json::json!(["--bare"]));
    assert_eq!(spec["env"]["CLAUDE_CODE_SIMPLE"], "0");
    let expected = std::fs::read_to_string(case.join("expected.txt")).unwrap();
    assert!(
        expected.contains("Contents of {ROOT}/CLAUDE.md:"),
        "{expected}"
    );

    // Re-capturing keeps tree/ and case.json and rewrites expected.txt.
    std::fs::write(case.join("expected.txt"), "stale").unwrap();
    w.verify(&["--capture", &case_s], &[]).code(0);
    let again = std::fs::read_to_string(case.join("expected.txt")).unwrap();
    assert_eq!(again, expected);
}

#[test]
fn replay_reports_match_drift_mismatch_and_skip() {
    let w = World::new();
    let cases = w.root.join("cases");
    // Under --bare ccmem predicts no reminder whatever the loader does.
    for (name, reminder, expected) in [
        ("a-match", "", ""),
        ("b-drift", "", "stale text"),
        (
            "c-mismatch",
            "<system-reminder>\nCodebase and user instructions\nX\n</system-reminder>",
            "",
        ),
    ] {
        put(&cases, &format!("{name}/tree/reminder.txt"), reminder);
        put(
            &cases,
            &format!("{name}/case.json"),
            r#"{"args": ["--bare"]}"#,
        );
        put(&cases, &format!("{name}/expected.txt"), expected);
    }
    put(&cases, "d-reading/case.json", r#"{"read": "x.md"}"#);
    put(&cases, "d-reading/expected.txt", "");
    let dir = cases.to_string_lossy().into_owned();
    snapshot!("replay", w.verify(&["--replay", &dir], &[]).code(1));
    w.verify(&["--replay", &dir, "--only", "a-"], &[]).code(0);
}

#[test]
fn a_different_installed_version_gets_one_note_line() {
    let w = World::new();
    w.set_reminder(&w.predicted());
    let out = w.verify(&[], &[("FAKE_VERSION", "2.1.400")]);
    snapshot!("other_version", out.code(0));
    let same = World::new();
    same.set_reminder(&same.predicted());
    let out = same.verify(&[], &[]).code(0);
    assert!(!out.stdout().contains("note:"), "{}", out.transcript());
}
