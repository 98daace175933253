//! The captured histories (`tests/oracle/history/*/`: real Claude Code 2.1.332 sessions run one
//! after another in one HOME, their transcripts kept, and `truth.json` from the stub's own record
//! of what each session's model was sent) replayed through `ccmem history --json` and `history
//! --check`, in Rust: what the shared `conform_history.py` checks, so the tests stand alone.
//!
//! Each case's `state/` is laid out again as `capture_history.py`'s `materialize_state` does
//! (`{ROOT_SLUG}` then `{ROOT}` replaced in names, texts and link targets; a path component
//! `.git-state` becomes `.git`, folder or worktree file). Then, in each project folder (a
//! session's first path component under ROOT; a worktree `wt` belongs to `repo`), with HOME set:
//! - the sessions, oldest first, by id and position (a resumed session is one entry more with the
//!   same id, as the truth records it), each with its start files, the index lines that reached
//!   the model, files attached later, memory files read, compactions, and subagents (type and
//!   own memory lines);
//! - every non-blank line of the project's MEMORY.md with the last session that loaded it;
//! - `history --check` exits 0 on the untouched record and 1, naming the session, after one file
//!   is dropped from the newest session's start block.
//!
//! The truth's `topic_reads` are the Read steps into the case's own memory folder (the capture
//! counts no other): a session of a second project reads are compared within that folder too.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn cases() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/history");
    let mut out: Vec<PathBuf> = fs::read_dir(base)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("truth.json").is_file() && p.join("state").is_dir())
        .collect();
    out.sort();
    out
}

fn sub(s: &str, root: &str, slug: &str) -> String {
    s.replace("{ROOT_SLUG}", slug).replace("{ROOT}", root)
}

/// `capture_history.materialize_state`, with `.git-state` components restored to `.git`.
fn materialize(from: &Path, to: &Path, root: &str, slug: &str) {
    for e in fs::read_dir(from).unwrap().flatten() {
        let name = sub(&e.file_name().to_string_lossy(), root, slug);
        let name = if name == ".git-state" {
            ".git".to_owned()
        } else {
            name
        };
        let dst = to.join(name);
        let t = e.file_type().unwrap();
        if t.is_symlink() {
            let target = sub(
                &fs::read_link(e.path()).unwrap().to_string_lossy(),
                root,
                slug,
            );
            #[cfg(unix)]
            std::os::unix::fs::symlink(target, &dst).unwrap();
            #[cfg(windows)]
            std::os::windows::fs::symlink_file(target, &dst).unwrap();
        } else if t.is_dir() {
            fs::create_dir_all(&dst).unwrap();
            materialize(&e.path(), &dst, root, slug);
        } else {
            let bytes = fs::read(e.path()).unwrap();
            let bytes = match String::from_utf8(bytes) {
                Ok(text) => sub(&text, root, slug).into_bytes(),
                Err(e) => e.into_bytes(),
            };
            fs::write(&dst, bytes).unwrap();
        }
    }
}

fn project_of(cwd: &str) -> String {
    let top = cwd
        .trim_start_matches("{ROOT}/")
        .split('/')
        .next()
        .unwrap_or("")
        .to_owned();
    if top == "wt" { "repo".into() } else { top }
}

/// `ccmem ARGS` in `cwd`, the case's ROOT as the sandbox, on the real clock.
fn ccmem(args: &[&str], cwd: &Path, root: &Path) -> common::cli::Run {
    common::cli::Test::at(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env_remove("CCMEM_NOW")
        .current_dir(cwd)
        .args(args)
        .run()
}

fn paths(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|x| {
            x.get("path")
                .and_then(Value::as_str)
                .or(x.as_str())
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

struct Checks {
    held: usize,
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if ok {
            self.held += 1;
        } else {
            self.failed.push(what());
        }
    }
}

fn replay(case: &Path, checks: &mut Checks) {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let spec: Value =
        serde_json::from_str(&fs::read_to_string(case.join("case.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root_path = tmp.path().canonicalize().unwrap().join("r");
    fs::create_dir_all(&root_path).unwrap();
    let root = root_path.to_string_lossy().into_owned();
    let slug = common::slug(&root);
    materialize(&case.join("state"), &root_path, &root, &slug);
    let truth: Value = serde_json::from_str(&sub(
        &fs::read_to_string(case.join("truth.json")).unwrap(),
        &root,
        &slug,
    ))
    .unwrap();
    let memdir = spec["memdir"].as_str().map_or_else(
        || {
            format!(
                "{root}/home/.claude/projects/{slug}-{}/memory/",
                spec["cwd"].as_str().unwrap_or(".").replace('/', "-")
            )
        },
        |m| format!("{}/", sub(m, &root, &slug)),
    );
    let sessions = truth["sessions"].as_array().unwrap();
    let relative = |cwd: &str| cwd.replacen(&format!("{root}/"), "{ROOT}/", 1);
    let mut projects: Vec<String> = sessions
        .iter()
        .map(|s| project_of(&relative(s["cwd"].as_str().unwrap())))
        .collect();
    projects.sort();
    projects.dedup();
    for proj in &projects {
        let want: Vec<&Value> = sessions
            .iter()
            .filter(|s| project_of(&relative(s["cwd"].as_str().unwrap())) == *proj)
            .collect();
        let out = ccmem(&["history", "--json"], &root_path.join(proj), &root_path);
        let got: Value = match serde_json::from_slice(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                checks.check(false, || {
                    format!(
                        "{name}/{proj}: no JSON ({e}): {}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                });
                continue;
            }
        };
        checks.check(got["schema"] == "ccmem.history/1", || {
            format!("{name}/{proj}: schema {}", got["schema"])
        });
        let gs = got["sessions"].as_array().cloned().unwrap_or_default();
        let ids = |v: &[&Value]| {
            v.iter()
                .map(|s| s["id"].as_str().unwrap_or("").to_owned())
                .collect::<Vec<_>>()
        };
        let got_ids = ids(&gs.iter().collect::<Vec<_>>());
        let want_ids = ids(&want);
        checks.check(got_ids == want_ids, || {
            format!("{name}/{proj}: sessions {got_ids:?} != {want_ids:?}")
        });
        for (i, (g, w)) in gs.iter().zip(&want).enumerate() {
            let tag = format!("{name}/{proj} session {} ({})", i + 1, &want_ids[i][..8]);
            checks.check(paths(&g["start"]) == paths(&w["start"]), || {
                format!(
                    "{tag}: start {:?} != {:?}",
                    paths(&g["start"]),
                    paths(&w["start"])
                )
            });
            let (gm, wm) = (&g["memory_index"], &w["memory_index"]);
            let same_index = (gm.is_null() && wm.is_null())
                || (gm["path"] == wm["path"] && gm["lines"] == wm["lines"]);
            checks.check(same_index, || format!("{tag}: memory_index {gm} != {wm}"));
            checks.check(
                sorted(paths(&g["lazy"])) == sorted(paths(&w["lazy"])),
                || {
                    format!(
                        "{tag}: lazy {:?} != {:?}",
                        paths(&g["lazy"]),
                        paths(&w["lazy"])
                    )
                },
            );
            let reads: Vec<String> = paths(&g["topic_reads"])
                .into_iter()
                .filter(|p| p.starts_with(&memdir))
                .collect();
            checks.check(
                sorted(reads.clone()) == sorted(paths(&w["topic_reads"])),
                || {
                    format!(
                        "{tag}: topic_reads {reads:?} != {:?}",
                        paths(&w["topic_reads"])
                    )
                },
            );
            checks.check(g["compactions"] == w["compactions"], || {
                format!(
                    "{tag}: compactions {} != {}",
                    g["compactions"], w["compactions"]
                )
            });
            let subs = |v: &Value| -> Vec<(Value, Value)> {
                v.as_array()
                    .into_iter()
                    .flatten()
                    .map(|x| {
                        let lines = if x["memory"].is_null() {
                            Value::Null
                        } else {
                            x["memory"]["lines"].clone()
                        };
                        (x["type"].clone(), lines)
                    })
                    .collect()
            };
            checks.check(subs(&g["subagents"]) == subs(&w["subagents"]), || {
                format!(
                    "{tag}: subagents {:?} != {:?}",
                    subs(&g["subagents"]),
                    subs(&w["subagents"])
                )
            });
        }
        let index = truth["indexes"].as_object().and_then(|m| {
            m.iter().find(|(k, _)| {
                k.split("/projects/")
                    .nth(1)
                    .and_then(|r| r.split('/').next())
                    .is_some_and(|f| f.ends_with(&format!("-{proj}")))
            })
        });
        if let Some((_, want_entries)) = index {
            let got_entries = got["entries"].as_array().cloned().unwrap_or_default();
            let bad: Vec<String> = want_entries
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| {
                    let g = got_entries
                        .iter()
                        .find(|x| x["line"] == e["line"] && x["text"] == e["text"]);
                    g.map(|g| &g["last_loaded"]) != Some(&e["last_loaded"])
                })
                .map(|e| format!("line {}", e["line"]))
                .collect();
            checks.check(bad.is_empty(), || {
                format!("{name}/{proj}: entries with a wrong last_loaded: {bad:?}")
            });
        }
    }
    // --check: untouched, then the newest session of the first project with a file dropped.
    let proj = &projects[0];
    let out = ccmem(&["history", "--check"], &root_path.join(proj), &root_path);
    checks.check(out.status.code() == Some(0), || {
        format!(
            "{name}: history --check exit {:?} on the untouched record:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let last = sessions
        .iter()
        .rfind(|s| project_of(&relative(s["cwd"].as_str().unwrap())) == *proj)
        .unwrap();
    let id = last["id"].as_str().unwrap();
    let transcript = find(
        &root_path.join("home/.claude/projects"),
        &format!("{id}.jsonl"),
    );
    let Some(transcript) = transcript else {
        return;
    };
    let text = fs::read_to_string(&transcript).unwrap();
    let mut dropped = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| {
            if dropped || !l.contains(r#""type":"instructions""#) {
                return l.to_owned();
            }
            let mut v: Value = serde_json::from_str(l).unwrap();
            let files = v["attachment"]["files"].as_array_mut().unwrap();
            if files.len() > 1 {
                files.remove(0);
                dropped = true;
            }
            serde_json::to_string(&v).unwrap()
        })
        .collect();
    if !dropped {
        return;
    }
    fs::write(&transcript, lines.join("\n")).unwrap();
    let out = ccmem(&["history", "--check"], &root_path.join(proj), &root_path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    checks.check(out.status.code() == Some(1) && stdout.contains(&id[..8]), || {
        format!(
            "{name}: history --check exit {:?} after a file was dropped from {id}'s record (want 1, naming it):\n{stdout}",
            out.status.code()
        )
    });
}

fn find(dir: &Path, file: &str) -> Option<PathBuf> {
    for e in fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find(&p, file) {
                return Some(f);
            }
        } else if e.file_name().to_string_lossy() == file {
            return Some(p);
        }
    }
    None
}

#[test]
fn captured_histories_replay_exactly() {
    let cases = cases();
    assert!(
        cases.len() >= 9,
        "the captured histories are missing: {}",
        cases.len()
    );
    let mut checks = Checks {
        held: 0,
        failed: Vec::new(),
    };
    for case in &cases {
        replay(case, &mut checks);
    }
    let total = checks.held + checks.failed.len();
    assert!(
        checks.failed.is_empty(),
        "history: {}/{total} checks hold\n{}",
        checks.held,
        checks.failed.join("\n")
    );
    eprintln!(
        "history: {total}/{total} checks hold over {} cases",
        cases.len()
    );
}
