//! The session shapes compared as `conform_sessions.py` compares them (used by `sessions`,
//! which replays the stored cases, and `sessions_live`, which holds ccmem against cases the
//! real client answers during the run):
//! - agents: `--agent NAME` against the first user message's reminder, `--agent NAME
//!   --agent-memory` against the `## MEMORY.md` section of the system prompt (trailing
//!   newlines removed);
//! - bash-read: `--reading PATH` / `--bash COMMAND` steps, block by block;
//! - compact: mtimes set as the capture set them, turn-1 writes made, `between` run, then
//!   `--after-compact [--auto] --history FILE`, block by block (the SessionStart paragraph is
//!   not compared).

use std::fs;
use std::process::Command;

use serde_json::Value;

use super::{Case, Materialized, client_args, materialize};

/// The capture's base mtime (2026-01-01T00:00:00Z, `capture_compact.BASE_MTIME`).
const BASE_MTIME: i64 = 1_767_225_600;

fn blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("<system-reminder>\n") {
        let Some(j) = rest[i..].find("\n</system-reminder>") else {
            break;
        };
        let end = i + j + "\n</system-reminder>".len();
        out.push(&rest[i..end]);
        rest = &rest[end..];
    }
    out
}

/// `capture_agent.py` sections (`<<<< name >>>>` lines).
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let marker = format!("<<<< {name} >>>>\n");
    let Some(i) = text.find(&marker) else {
        return "";
    };
    let rest = &text[i + marker.len()..];
    rest.find("\n<<<< ").map_or(rest, |j| &rest[..j])
}

/// The `## MEMORY.md` section of an agent's system prompt, as `conform_sessions.agent_memory`.
fn agent_memory(prompt: &str) -> &str {
    if !prompt.contains("# Persistent Agent Memory") {
        return "";
    }
    let Some(i) = prompt.rfind("\n## MEMORY.md") else {
        return "";
    };
    let rest = &prompt[i + 1..];
    let end = rest
        .find("\n\nMessages from the agent that launched you")
        .unwrap_or(rest.len());
    rest[..end].trim_end_matches('\n')
}

fn run(m: &Materialized, case: &Case, mut args: Vec<String>) -> Result<String, String> {
    args.insert(0, "context".into());
    args.extend(client_args(case));
    let (got, stderr, ok) = m.ccmem(&args);
    if ok { Ok(got) } else { Err(stderr) }
}

pub(crate) fn compare_agent(case: &Case) -> Option<String> {
    let m = materialize(case);
    let name = case.spec["agent"].as_str().unwrap().to_owned();
    let want_rem = section(&case.expected, "memory reminder").trim_end_matches('\n');
    let prompt = section(&case.expected, "next system block");
    let want_mem = agent_memory(prompt);
    let rem = run(&m, case, vec!["--agent".into(), name.clone()]);
    let mem = run(
        &m,
        case,
        vec!["--agent".into(), name, "--agent-memory".into()],
    );
    match (rem, mem) {
        (Ok(r), Ok(g))
            if r.trim_end_matches('\n') == want_rem && g.trim_end_matches('\n') == want_mem =>
        {
            None
        }
        (r, g) => Some(format!(
            "{}\n--- expected reminder\n{want_rem}\n--- got\n{r:?}\n--- expected memory\n{want_mem}\n--- got\n{g:?}",
            case.name
        )),
    }
}

fn compare_blocks(case: &Case, m: &Materialized, args: Vec<String>, want: &str) -> Option<String> {
    match run(m, case, args) {
        Ok(got) if blocks(&got) == blocks(want) => None,
        got => Some(format!(
            "{}\n--- expected\n{want}\n--- got\n{got:?}",
            case.name
        )),
    }
}

pub(crate) fn compare_steps(case: &Case) -> Option<String> {
    let m = materialize(case);
    let mut args = Vec::new();
    for s in case.spec["steps"].as_array().unwrap() {
        if let Some(p) = s.get("read").and_then(Value::as_str) {
            args.extend(["--reading".to_owned(), m.sub(p)]);
        } else if let Some(c) = s.get("bash").and_then(Value::as_str) {
            args.extend(["--bash".to_owned(), m.sub(c)]);
        }
    }
    compare_blocks(case, &m, args, &case.expected)
}

/// `capture_compact.set_mtimes`: every entry under ROOT at the base time, then `mtimes`.
fn set_mtimes(m: &Materialized, spec: &Value) {
    let base = filetime(BASE_MTIME);
    let mut stack = vec![m.tmp.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                continue;
            }
            if t.is_dir() {
                stack.push(p.clone());
            }
            fs::File::open(&p).unwrap().set_modified(base).unwrap();
        }
    }
    if let Some(map) = spec.get("mtimes").and_then(Value::as_object) {
        for (rel, secs) in map {
            let t = filetime(BASE_MTIME + secs.as_i64().unwrap());
            fs::File::open(m.tmp.path().join(rel))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
    }
}

fn filetime(secs: i64) -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
}

pub(crate) fn compare_compact(case: &Case) -> Option<String> {
    let m = materialize(case);
    set_mtimes(&m, &case.spec);
    let turn1 = case.spec["turn1"].as_array().unwrap();
    for s in turn1 {
        if let Some(p) = s.get("write").and_then(Value::as_str) {
            let p = m.cwd.join(m.sub(p));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, s.get("content").and_then(Value::as_str).unwrap_or("")).unwrap();
        }
    }
    if let Some(between) = case.spec.get("between").and_then(Value::as_str) {
        let ok = Command::new("bash")
            .args(["-ec", between])
            .current_dir(m.tmp.path())
            .env_clear()
            .envs(&m.env)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{}: between failed", case.name);
    }
    let hist = m.tmp.path().join(".history.json");
    fs::write(&hist, m.sub(&serde_json::to_string(turn1).unwrap())).unwrap();
    let mut args = vec!["--after-compact".to_owned()];
    if case.spec.get("auto").and_then(Value::as_bool) == Some(true) {
        args.push("--auto".into());
    }
    args.extend(["--history".to_owned(), hist.to_string_lossy().into_owned()]);
    let want = case
        .expected
        .split("\n<<<< system message >>>>\n")
        .next()
        .unwrap();
    compare_blocks(case, &m, args, want)
}
