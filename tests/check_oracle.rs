//! `ccmem check` against the real client: for every repository tree under
//! `tests/oracle/check-cases/` (captured from Claude Code 2.1.332 with `capture.py`, one case
//! per start directory), `ccmem check --json` runs once on the tree, and the files it reports
//! for each start directory, with their sizes, must be exactly the files of the client's own
//! reminder in that directory. The losses it reports must be the root's files the client did
//! not load there.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;

/// `(path, utf16 length of the trimmed content)` of every entry of a captured reminder.
fn entries(expected: &str) -> Vec<(String, usize)> {
    expected
        .split("\n\nContents of ")
        .skip(1)
        .map(|block| {
            let (head, body) = block.split_once(":\n\n").unwrap();
            let path = head.rsplit_once(" (").map_or(head, |(p, _)| p).to_owned();
            let body = body.strip_suffix("\n</system-reminder>").unwrap_or(body);
            (path, body.trim().encode_utf16().count())
        })
        .collect()
}

/// The findings each tree is built to produce.
fn traps(tree: &str) -> Vec<&'static str> {
    match tree {
        "check-import-root" => vec!["import-outside-start-dir"],
        "check-rules-linked" => vec![
            "linked-rule-outside-start-dir",
            "linked-rule-outside-start-dir",
        ],
        "check-agents-fallback" => vec!["agents-md-lost-below"],
        "check-agents-local" => vec!["agents-md-hidden-by-local"],
        // `docs/agents.md` never loads either (the client's sessions below say so), but a
        // lower-case name in a documentation folder is a document named after its subject,
        // not a misnamed instruction file: `wrong-case-name` reports only `claude.md`.
        "check-names" => vec![
            "agents-md-never-loads",
            "misplaced-instruction-file",
            "wrong-case-name",
        ],
        "check-rules-folder-out" => vec!["rules-folder-linked-outside"],
        other => panic!("no expectation for {other}"),
    }
}

#[test]
fn every_start_directory_matches_the_client() {
    let all = common::cases(&["check-cases"]);
    assert!(all.len() >= 10, "check cases missing");
    let mut trees: BTreeMap<String, Vec<&common::Case>> = BTreeMap::new();
    for c in &all {
        let tree = c.spec["check"]["tree"].as_str().unwrap().to_owned();
        trees.entry(tree).or_default().push(c);
    }
    let mut compared = 0;
    for (tree, cases) in trees {
        let m = common::materialize(cases[0]);
        let repo = cases[0].spec["check"]["repo"].as_str().unwrap();
        let repo_dir = format!("{}/{repo}", m.root);
        let (out, err, _) = m.ccmem(&["check".into(), "--json".into(), repo_dir.clone()]);
        let doc: Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{tree}: {e}\n{err}"));
        let mut rules: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        rules.sort();
        assert_eq!(rules, traps(&tree), "{tree}: findings");
        let dirs = doc["directories"].as_array().unwrap();
        let root_loaded: Vec<String> = dirs[0]["loaded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect();
        for case in cases {
            let cwd = case.spec["cwd"].as_str().unwrap();
            let dir = cwd.strip_prefix(repo).unwrap().trim_start_matches('/');
            let dir = if dir.is_empty() { "." } else { dir };
            let d = dirs
                .iter()
                .find(|d| d["dir"] == dir)
                .unwrap_or_else(|| panic!("{}: check did not report {dir}", case.name));
            let mut got: Vec<(String, usize)> = d["loaded"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let p = f["path"].as_str().unwrap();
                    let p = if p.starts_with('/') {
                        p.replace(&m.root, "{ROOT}")
                    } else {
                        format!("{{ROOT}}/{repo}/{p}")
                    };
                    (p, f["chars"].as_u64().unwrap() as usize)
                })
                .collect();
            let mut want = entries(&case.expected);
            got.sort();
            want.sort();
            assert_eq!(
                got, want,
                "{}: loaded files differ from the client",
                case.name
            );
            let lost: Vec<&str> = d["lost"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["path"].as_str().unwrap())
                .collect();
            let client: Vec<String> = want
                .iter()
                .map(|(p, _)| p.replace(&format!("{{ROOT}}/{repo}/"), ""))
                .collect();
            let want_lost: Vec<&str> = root_loaded
                .iter()
                .map(String::as_str)
                .filter(|p| !client.iter().any(|c| c == p))
                .collect();
            assert_eq!(lost, want_lost, "{}: losses", case.name);
            compared += 1;
        }
    }
    eprintln!("{compared} start directories match the client");
}
