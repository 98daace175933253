//! `tier` and `add` on every library of the corpus (tests/fixtures/libraries/, README.md
//! there), as a user runs them:
//!
//! - `tier --write` (at the default target, and at a tight one: half the index's lines) never
//!   refuses, and afterwards `ccmem audit` reports no finding of the kinds tier must never add
//!   (unreachable, naming, links, and the frontmatter of the hubs it wrote) that it did not
//!   report before; nothing tier created has a hard finding; `undo` restores every byte.
//! - `add` either writes an entry the client will see (its line in the part of MEMORY.md the
//!   loader keeps, or in a hub a line of that part links) or writes nothing, exits 1 and says
//!   to run `ccmem tier`; over-cap libraries take the entry after `tier --write`.

mod common;

use common::cli::Test;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

const NOW: &str = "2026-12-01T09:00:00Z";

/// The kinds of finding `tier --write` must never add (the rules its fifth invariant runs).
const NEVER_NEW: [&str; 8] = ccmem::tier::proof::AGREE;

fn corpus() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libraries");
    let mut libs: Vec<PathBuf> = fs::read_dir(base)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("memory").is_dir())
        .collect();
    libs.sort();
    assert!(libs.len() >= 14, "the corpus is there: {libs:?}");
    libs
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A fresh copy of library `lib`: (temp dir, its memory folder, its HOME).
fn fresh(lib: &Path) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&lib.join("memory"), &tmp.path().join("memory"));
    let home = tmp.path().join("home");
    match lib.join("home").is_dir() {
        true => copy_tree(&lib.join("home"), &home),
        false => fs::create_dir_all(&home).unwrap(),
    }
    let memory = tmp.path().join("memory");
    (tmp, memory, home)
}

fn ccmem(home: &Path) -> Test {
    Test::new().env("HOME", home).env("CCMEM_NOW", NOW)
}

/// Every file of the folder, recursively, with its bytes (ccmem's own `.ccmem/` state left
/// out).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_name() == ".ccmem" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// `ccmem audit --json`'s findings, keyed so that a finding that only moved is the same one:
/// a broken link by its rule and message (the message names the target), anything else by
/// rule, file and message.
fn findings(memory: &Path, home: &Path) -> BTreeMap<(String, String), usize> {
    let out = ccmem(home).arg("audit").arg(memory).arg("--json").run();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let mut m = BTreeMap::new();
    for d in v["diagnostics"].as_array().unwrap() {
        let rule = d["rule"].as_str().unwrap().to_owned();
        let path = d["path"].as_str().unwrap_or("");
        let path = Path::new(path)
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let msg = d["message"].as_str().unwrap();
        let key = if rule == "broken-link" {
            msg.to_owned()
        } else {
            format!("{path}: {msg}")
        };
        *m.entry((rule, key)).or_insert(0) += 1;
    }
    m
}

fn index_lines(lib: &Path) -> usize {
    let expect: toml::Value =
        toml::from_str(&fs::read_to_string(lib.join("expect.toml")).unwrap()).unwrap();
    expect["index"]["lines"].as_integer().unwrap() as usize
}

fn tier_then_audit(lib: &Path, target_lines: Option<usize>) {
    let name = lib.file_name().unwrap().to_string_lossy();
    let (_tmp, memory, home) = fresh(lib);
    let before = findings(&memory, &home);
    let files_before = snapshot(&memory);
    let mut cmd = ccmem(&home)
        .arg("tier")
        .arg(&memory)
        .arg("--write")
        .arg("--json");
    if let Some(n) = target_lines {
        cmd = cmd.args(["--target-lines", &n.to_string()]);
    }
    let out = cmd.run();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("cannot get within the target") {
        // A target below what tier may move: it says the best it can do and writes nothing.
        assert!(
            snapshot(&memory) == files_before,
            "{name}: a refusal wrote something"
        );
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let best = report["after"]["lines"].as_u64().unwrap() as usize;
        assert!(target_lines.is_some_and(|t| best > t), "{name}: {stderr}");
        return tier_then_audit(lib, Some(best));
    }
    assert!(
        out.status.success(),
        "{name} (target {target_lines:?}): tier refused: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    for check in report["proof"]["checks"].as_array().unwrap() {
        if check["id"] != 1 {
            assert_eq!(
                check["ok"], true,
                "{name} (target {target_lines:?}): {check}"
            );
        }
    }
    let after = findings(&memory, &home);
    let new: Vec<&(String, String)> = (after.iter())
        .filter(|(k, n)| NEVER_NEW.contains(&k.0.as_str()) && before.get(*k).is_none_or(|b| b < *n))
        .map(|(k, _)| k)
        .collect();
    assert!(
        new.is_empty(),
        "{name} (target {target_lines:?}): new findings after tier --write: {new:#?}"
    );
    let created: Vec<String> = (report["files"].as_array().unwrap().iter())
        .filter(|f| f["created"] == true)
        .map(|f| f["name"].as_str().unwrap().to_owned())
        .collect();
    // A finding on a hub tier wrote is one that moved with its line (a secret in an entry
    // line, say), or one about the hub itself: there must be none of the latter. The line
    // count of a big hub is a fair signal (oversized-file), not tier's fault.
    let moved = |rule: &str, key: &str| {
        let what = key.split_once(": ").map_or(key, |(_, m)| m);
        (before.keys())
            .any(|(r, k)| r == rule && k.split_once(": ").map_or(k.as_str(), |(_, m)| m) == what)
    };
    let on_created: Vec<&(String, String)> = (after.keys())
        .filter(|(rule, key)| {
            created.iter().any(|c| key.starts_with(&format!("{c}: ")))
                && rule != "oversized-file"
                && !moved(rule, key)
        })
        .collect();
    assert!(
        on_created.is_empty(),
        "{name}: findings about the hubs tier wrote: {on_created:?}"
    );
    if report["written"].is_object() {
        ccmem(&home).arg("undo").arg(&memory).run().code(0);
        assert!(
            snapshot(&memory) == files_before,
            "{name}: undo restores every byte"
        );
    }
}

#[test]
fn tier_write_adds_no_finding_on_any_corpus_library() {
    for lib in corpus() {
        tier_then_audit(&lib, None);
        tier_then_audit(&lib, Some((index_lines(&lib) / 2).max(8)));
    }
}

/// Whether the file `entry` is reached from the part of MEMORY.md the client loads: a link
/// to it there, or in a hub a link there names.
fn loads(memory: &Path, entry: &str) -> bool {
    let index = fs::read(memory.join("MEMORY.md")).unwrap_or_default();
    // What the model gets: the loaded part, then the client's warning (which names no file).
    let visible = ccmem::load::automem::index::process_file(&index).content;
    let target = format!("]({entry})");
    if visible.contains(&target) {
        return true;
    }
    visible.match_indices("](reference_").any(|(at, _)| {
        let rest = &visible[at + 2..];
        let hub = &rest[..rest.find(')').unwrap_or(0)];
        hub.ends_with("_hub.md")
            && fs::read_to_string(memory.join(hub)).is_ok_and(|t| t.contains(&target))
    })
}

fn add(memory: &Path, home: &Path, topic: &str) -> common::cli::Run {
    ccmem(home)
        .arg("add")
        .arg(memory)
        .args(["--type", "feedback", "--topic", topic])
        .args([
            "--description",
            "Run the contract tests against the staging gateway before tagging",
        ])
        .args([
            "--why",
            "a tag once shipped a gateway change the unit tests never saw",
        ])
        .args(["--how-to-apply", "before every release tag"])
        .run()
}

#[test]
fn add_writes_where_the_client_loads_or_writes_nothing() {
    let mut refused = 0;
    for lib in corpus() {
        let name = lib.file_name().unwrap().to_string_lossy().into_owned();
        let (_tmp, memory, home) = fresh(&lib);
        let before = snapshot(&memory);
        let out = add(&memory, &home, "contract-tests");
        let stdout = String::from_utf8_lossy(&out.stdout);
        match out.status.code() {
            Some(0) => assert!(
                loads(&memory, "feedback_contract-tests.md"),
                "{name}: added into the dark:\n{stdout}"
            ),
            Some(1) => {
                refused += 1;
                assert!(
                    snapshot(&memory) == before,
                    "{name}: a refused add wrote something"
                );
                assert!(stdout.contains("ccmem tier"), "{name}: {stdout}");
                ccmem(&home)
                    .arg("tier")
                    .arg(&memory)
                    .arg("--write")
                    .run()
                    .code(0);
                let again = add(&memory, &home, "contract-tests");
                assert_eq!(
                    again.status.code(),
                    Some(0),
                    "{name}: after tier: {again:?}"
                );
                assert!(loads(&memory, "feedback_contract-tests.md"), "{name}");
            }
            other => panic!(
                "{name}: exit {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    assert!(
        refused >= 2,
        "the over-cap libraries have no room that loads: {refused}"
    );
}
