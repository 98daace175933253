//! Every JSON document ccmem prints, checked against its JSON Schema in `docs/schemas/`.
//!
//! Each command below runs for real with `--json` (errors too: a failing command prints a
//! `ccmem.error/1` document on stdout). Every document must carry a `schema` key
//! `ccmem.<command>/<n>` whose file `docs/schemas/ccmem.<command>.<n>.schema.json` exists and
//! validates it, and every schema file there must be exercised by at least one run: a schema
//! added without a run here, or a new JSON output without a schema file, fails this test.
//! `receipt --session ID` reads the log that `hook instructions-loaded` writes: one event is
//! logged first. A transcript of one recorded session (dated in the future, so its differences
//! with today's files are not "changed since") gives `history`, `history --check` and the
//! receipt's `dark_history` something to show.
//!
//! Unix only: the fake client `verify` runs is a `#!` script with an exec bit.
#![cfg(unix)]

mod common;

use common::cli::Test;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/schemas");

/// A stand-in for the client: answers `--version`, and sends one Messages request (no memory
/// reminder) to the stub `ccmem verify` points it at.
const FAKE_CLIENT: &str = r#"#!/usr/bin/env python3
import json, os, sys, urllib.request
args = sys.argv[1:]
if args == ["--version"]:
    print("2.1.332 (Claude Code)"); sys.exit(0)
env = dict(os.environ)
env.update(json.loads(args[args.index("--settings") + 1]).get("env", {}))
body = {"model": "m", "stream": True,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
headers = {"content-type": "application/json", "x-api-key": env.get("ANTHROPIC_API_KEY", "")}
req = urllib.request.Request(env["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true",
                             data=json.dumps(body).encode(), headers=headers)
urllib.request.urlopen(req, timeout=10).read()
print("ok")
"#;

struct World {
    _root: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
}

fn world() -> World {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("mem"));
    for d in [&home, &proj, &mem] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join("CLAUDE.md"), "# rules\nsee @missing.md\n").unwrap();
    let mut index = String::new();
    for i in 1..=205 {
        let name = format!("project_e{i:03}.md");
        index.push_str(&format!("- [e{i}]({name}) — entry {i}\n"));
        let topic =
            format!("---\nname: e{i}\ndescription: entry {i}\ntype: project\n---\n\nfact\n");
        std::fs::write(mem.join(name), topic).unwrap();
    }
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    World {
        _root: root,
        home,
        proj,
        mem,
    }
}

impl World {
    /// Runs ccmem with `args` (and `stdin`), returning its exit code and stdout as JSON.
    fn json(&self, args: &[&str], stdin: Option<String>) -> (i32, Value) {
        let cmd = Test::at(self._root.path())
            .args(args)
            .env("HOME", &self.home)
            .env("CCMEM_MANAGED_DIR", self.home.join("no-managed"))
            .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &self.mem)
            .env_remove("CCMEM_NOW")
            .current_dir(&self.proj);
        let out = stdin.map_or(cmd.clone(), |input| cmd.stdin(input)).run();
        (out.exit_code(), out.json())
    }
}

fn schema_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(SCHEMAS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
        .collect();
    files.sort();
    files
}

/// `ccmem.tier-check/1` → `docs/schemas/ccmem.tier-check.1.schema.json`.
fn schema_file(tag: &str) -> PathBuf {
    let (name, version) = tag.rsplit_once('/').expect("schema tag has no /<n>");
    Path::new(SCHEMAS).join(format!("{name}.{version}.schema.json"))
}

fn validate(what: &str, doc: &Value, used: &mut BTreeSet<PathBuf>) {
    let tag = doc["schema"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no top-level \"schema\" key:\n{doc:#}"));
    assert!(
        tag.starts_with("ccmem.")
            && tag
                .rsplit_once('/')
                .is_some_and(|(_, n)| n.parse::<u32>().is_ok()),
        "{what}: schema {tag:?} is not ccmem.<command>/<n>"
    );
    let file = schema_file(tag);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|_| panic!("{what}: no schema file {} for {tag}", file.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{}: not a valid JSON Schema: {e}", file.display()));
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("  at {}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what}: output does not match {}:\n{}",
        file.display(),
        errors.join("\n")
    );
    used.insert(file);
}

#[test]
fn every_json_output_matches_its_schema_file_and_every_schema_file_is_checked() {
    let w = world();
    let mem = w.mem.to_str().unwrap().to_owned();
    let hook_input = serde_json::json!({"session_id": "s", "transcript_path": "/t",
        "cwd": w.proj, "hook_event_name": "SessionStart"})
    .to_string();
    let slug: String = w
        .proj
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let transcripts = w.home.join(".claude/projects").join(slug);
    std::fs::create_dir_all(&transcripts).unwrap();
    let index_line = "- [e1](project_e001.md) — entry 1";
    let record = serde_json::json!({"parentUuid": null, "isSidechain": false,
        "attachment": {"type": "instructions", "files": [
            {"path": w.proj.join("CLAUDE.md"), "type": "Project", "content": "# old rules"},
            {"path": format!("{}/MEMORY.md", w.mem.display()), "type": "AutoMem", "content": index_line}]},
        "type": "attachment", "timestamp": "2099-01-01T00:00:00Z", "cwd": w.proj,
        "sessionId": "s-recorded", "version": "2.1.332"});
    std::fs::write(transcripts.join("s-recorded.jsonl"), format!("{record}\n")).unwrap();
    let history = w.home.join("history.json");
    std::fs::write(&history, r#"[{"read": "CLAUDE.md"}]"#).unwrap();
    let history = history.to_str().unwrap().to_owned();
    let loaded = serde_json::json!({"session_id": "s-1", "cwd": w.proj,
        "hook_event_name": "InstructionsLoaded", "file_path": w.proj.join("CLAUDE.md"),
        "memory_type": "Project", "load_reason": "session_start"});
    Test::new()
        .args(["hook", "instructions-loaded"])
        .env_clear()
        .env("HOME", &w.home)
        .env("CCMEM_MANAGED_DIR", w.home.join("no-managed"))
        .current_dir(&w.proj)
        .stdin(loaded.to_string())
        .run()
        .code(0);
    let add = vec![
        "--json",
        "add",
        "--type",
        "project",
        "--topic",
        "schema-test",
        "--description",
        "a fact",
        "--why",
        "it matters",
        &mem,
    ];
    let cases: Vec<(Vec<&str>, Option<String>, i32)> = vec![
        (vec!["receipt", "--session", "s-1", "--json"], None, 0),
        (vec!["receipt", "--json"], None, 1),
        (vec!["history", "--json"], None, 0),
        (vec!["history", "--check", "--json"], None, 1),
        (vec!["receipt", "--agents", "--json"], None, 0),
        (
            vec!["receipt", "--agent", "general-purpose", "--json"],
            None,
            0,
        ),
        (
            vec![
                "receipt",
                "--after-compact",
                "--history",
                &history,
                "--json",
            ],
            None,
            0,
        ),
        (vec!["context", "--json"], None, 0),
        (vec!["budget", &mem, "--json"], None, 1),
        (vec!["audit", &mem, "--json"], None, 1),
        (vec!["audit", &mem, "--format", "json"], None, 1),
        (vec!["check", ".", "--json"], None, 1),
        (vec!["check", ".", "--format", "json"], None, 1),
        (vec!["tier", &mem, "--json"], None, 0),
        (vec!["tier", &mem, "--check", "--json"], None, 1),
        (vec!["explain", "--json"], None, 0),
        (vec!["explain", "missing-why", "--json"], None, 0),
        (vec!["statusline", "--json"], Some(hook_input), 0),
        // The index is past the cap: add refuses (its refusal document), tier makes room,
        // then add writes.
        (add.clone(), None, 1),
        (vec!["tier", &mem, "--write", "--json"], None, 0),
        (add, None, 0),
        (vec!["undo", &mem, "--json"], None, 0),
        (vec!["undo", &mem, "--list", "--json"], None, 0),
        (vec!["undo", &mem, "--status", "--json"], None, 0),
        (vec!["undo", &mem, "--discard", "--json"], None, 0),
        (
            vec!["hook", "install", "--project", "--yes", "--json"],
            None,
            0,
        ),
        (
            vec!["hook", "uninstall", "--project", "--yes", "--json"],
            None,
            0,
        ),
        // Errors: a failing command, a usage error, a command with no JSON form.
        (vec!["tier", "/nonexistent/memory", "--json"], None, 2),
        (vec!["--json", "receipt", "--no-such-flag"], None, 2),
        (vec!["completions", "bash", "--json"], None, 2),
    ];
    let mut used = BTreeSet::new();
    for (args, stdin, code) in cases {
        let (got, doc) = w.json(&args, stdin);
        let what = format!("ccmem {}", args.join(" "));
        assert_eq!(got, code, "{what}: exit status\n{doc:#}");
        if code == 2 {
            assert_eq!(doc["schema"], "ccmem.error/1", "{what}");
        }
        if args.contains(&"--check") && args.contains(&"tier") {
            assert_eq!(doc["over_target"], true, "{what}");
        }
        if args == ["receipt", "--json"] {
            assert_eq!(doc["dark_history"]["sessions"], 1, "{doc:#}");
            assert_eq!(
                doc["dark_history"]["entries"][0]["last_loaded"],
                Value::Null
            );
        }
        if args == ["history", "--json"] {
            assert_eq!(doc["sessions"][0]["id"], "s-recorded", "{doc:#}");
            assert_eq!(doc["entries"][0]["last_loaded"], "s-recorded", "{doc:#}");
        }
        if args.contains(&"--session") {
            // The event the hook logged above, read back and predicted.
            assert_eq!(doc["reports"].as_array().map(Vec::len), Some(1), "{doc:#}");
            assert_eq!(
                doc["reports"][0]["reported"]["load_reason"],
                "session_start"
            );
            assert_eq!(doc["reports"][0]["predicted"], true, "{doc:#}");
        }
        validate(&what, &doc, &mut used);
    }
    // verify: a missing client (exit 2, its own status document), a fake client that answers
    // the stub (a mismatch: it sends no reminder), a capture, and a replay.
    let (code, doc) = w.json(
        &["verify", "--claude", "/nonexistent/claude", "--json"],
        None,
    );
    assert_eq!((code, doc["status"].as_str()), (2, Some("error")));
    validate("ccmem verify (no client)", &doc, &mut used);
    let fake = w.home.join("claude");
    std::fs::write(&fake, FAKE_CLIENT).unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let fake = fake.to_str().unwrap();
    let (code, doc) = w.json(&["verify", "--claude", fake, "--json"], None);
    assert_eq!(
        (code, doc["status"].as_str()),
        (1, Some("mismatch")),
        "{doc:#}"
    );
    validate("ccmem verify (fake client)", &doc, &mut used);
    let capture = tempfile::tempdir().unwrap();
    let case_dir = capture.path().join("case");
    let case_dir = case_dir.to_str().unwrap();
    let (code, doc) = w.json(
        &["verify", "--claude", fake, "--capture", case_dir, "--json"],
        None,
    );
    assert_eq!(code, 0, "{doc:#}");
    validate("ccmem verify --capture", &doc, &mut used);

    let replay = tempfile::tempdir().unwrap();
    let case = replay.path().join("one-case");
    std::fs::create_dir_all(case.join("tree")).unwrap();
    std::fs::write(case.join("expected.txt"), "").unwrap();
    let cases_dir = replay.path().to_str().unwrap();
    let (_, doc) = w.json(
        &[
            "verify",
            "--claude",
            "/nonexistent/claude",
            "--replay",
            cases_dir,
            "--json",
        ],
        None,
    );
    validate("ccmem verify --replay", &doc, &mut used);

    let unused: Vec<String> = schema_files()
        .into_iter()
        .filter(|f| !used.contains(f))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        unused.is_empty(),
        "schema files no run checks (add a run of the command that prints them): {unused:#?}"
    );
}
