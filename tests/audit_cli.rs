//! `ccmem audit` and `ccmem explain` as a user runs them: formats, exit codes, config errors.

mod common;

use common::cli::{Run, Test, snapshot};

const CLEAN: &str = "---\nname: a\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n";
const KEY: &str =
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

/// A sandbox whose `mem/` holds `files`.
fn library(files: &[(&str, &str)]) -> Test {
    files
        .iter()
        .fold(Test::new().dir("mem"), |t, (name, text)| {
            t.file(format!("mem/{name}"), text)
        })
}

/// `ccmem ARGS mem` in the library's sandbox.
fn ccmem(args: &[&str], lib: &Test) -> Run {
    lib.ccmem(args).arg("mem").run()
}

/// `ccmem explain ARGS`.
fn explain(args: &[&str]) -> Run {
    Test::new().arg("explain").args(args).run()
}

#[test]
fn exit_codes() {
    let clean = library(&[("MEMORY.md", "- [a](user_a.md)\n"), ("user_a.md", CLEAN)]);
    ccmem(&["audit"], &clean).code(0);
    let warn = library(&[("MEMORY.md", "# I\n"), ("user_a.md", CLEAN)]);
    ccmem(&["audit"], &warn).code(0);
    ccmem(&["audit", "--strict"], &warn).code(1);
    let hard = library(&[("MEMORY.md", "- [a](user_gone.md)\n")]);
    ccmem(&["audit"], &hard).code(1);
    snapshot!(
        "missing_folder",
        hard.ccmem(["audit", "nope"]).run().code(2)
    );
}

#[test]
fn config_in_folder_and_its_errors() {
    let lib = library(&[
        ("MEMORY.md", "- [a](user_a.md)\n"),
        ("user_a.md", CLEAN),
        ("ccmem.toml", "[audit]\nmax-file-lines = 3\n"),
    ]);
    let doc = ccmem(&["audit", "--json"], &lib).json();
    assert_eq!(doc["diagnostics"][0]["rule"], "oversized-file");
    let lib = lib.file("mem/ccmem.toml", "[audit]\nmax-file-line = 3\n");
    snapshot!("config_unknown_key", ccmem(&["audit"], &lib).code(2));
}

#[test]
fn human_output_groups_by_file_and_hides_secrets() {
    let lib = library(&[
        ("MEMORY.md", "# I\n- [a](user_a.md)\n- [x](user_gone.md)\n"),
        ("user_a.md", &format!("{CLEAN}token {KEY}\n")),
    ]);
    // MEMORY.md's broken link is an error, not a memory file's, and never healthy; each
    // finding's fix is printed beside it.
    let out = ccmem(&["audit"], &lib).code(1);
    snapshot!("groups_by_file", out);
    for format in ["human", "json", "sarif", "github"] {
        let out = ccmem(&["audit", "--format", format], &lib);
        assert!(
            !out.stdout().contains("AbCdEf"),
            "secret printed:\n{}",
            out.stdout()
        );
    }
}

#[test]
fn sarif_and_github_formats() {
    let lib = library(&[("MEMORY.md", "# I\n- [x](user_gone.md)\n")]);
    let doc = ccmem(&["audit", "--format", "sarif"], &lib).json();
    let run = &doc["runs"][0];
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        ccmem::rules::of(ccmem::rules::Command::Audit).count()
    );
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "broken-link");
    assert_eq!(
        rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "broken-link"
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        7
    );
    snapshot!(
        "github",
        ccmem(&["audit", "--format", "github"], &lib).code(1)
    );
}

#[test]
fn explain_prints_the_rule_doc() {
    snapshot!("explain_broken_link", explain(&["broken-link"]).code(0));
    let doc = explain(&["bad-file-name", "--json"]).code(0).json();
    assert_eq!(doc["rules"][0]["spec"], "claude-memory-manager", "{doc}");
    snapshot!("explain_unknown", explain(&["nope"]).code(2));
    let out = explain(&[]).code(0);
    assert_eq!(out.stdout().lines().count(), ccmem::rules::RULES.len());
}

#[test]
fn all_sweeps_every_project() {
    let mut t = Test::new();
    for (slug, index) in [
        ("-a", "- [a](user_a.md)\n"),
        ("-b", "- [x](user_gone.md)\n"),
    ] {
        let mem = format!("home/.claude/projects/{slug}/memory");
        t = t
            .file(format!("{mem}/MEMORY.md"), index)
            .file(format!("{mem}/user_a.md"), CLEAN);
    }
    let doc = t.ccmem(["audit", "--all", "--json"]).run().code(1).json();
    assert_eq!(doc["schema"], "ccmem.audit/1");
    assert_eq!(doc["libraries"].as_array().unwrap().len(), 2);
    assert_eq!(doc["libraries"][0]["spec"], "claude-memory-manager");
    assert_eq!(doc["summary"]["files"], 2, "memory files, not MEMORY.md");
    assert_eq!(doc["summary"]["errors"], 1);
    snapshot!("all", t.ccmem(["audit", "--all"]).run().code(1));
}

/// A MEMORY.md of `lines` entries, all pointing at `user_a.md`.
fn over_cap_index(lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("- [a {i}](user_a.md) — fact {i}\n"))
        .collect()
}

/// Entries going dark is an error wherever it is reported (exit 1, `error` in every format,
/// never "healthy"), with `ccmem tier` as the fix printed beside it.
#[test]
fn an_index_over_the_cap_is_an_error_with_ccmem_tier_beside_it() {
    let index = over_cap_index(205);
    let lib = library(&[("MEMORY.md", &index), ("user_a.md", CLEAN)]);
    snapshot!("index_over_cap", ccmem(&["audit"], &lib).code(1));

    let tier = format!("`ccmem tier {}`", "mem");
    let doc = ccmem(&["audit", "--json"], &lib).code(1).json();
    let d = (doc["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["rule"] == "index-over-cap")
        .unwrap();
    assert_eq!(d["severity"], "error", "{d}");
    assert!(d["fix"].as_str().unwrap().contains(&tier), "{d}");
    assert_eq!(doc["summary"]["band"], "marginal", "{doc}");

    let doc = ccmem(&["audit", "--format", "sarif"], &lib).json();
    let run = &doc["runs"][0];
    let r = (run["results"].as_array().unwrap().iter())
        .find(|r| r["ruleId"] == "index-over-cap")
        .unwrap();
    assert_eq!(r["level"], "error", "{r}");
    assert!(
        r["properties"]["fix"].as_str().unwrap().contains(&tier),
        "{r}"
    );
    let rule = &run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["defaultConfiguration"]["level"], "error", "{rule}");
}

/// An index the client cannot read at all (a FIFO; over 4 MiB) leaves the memory files'
/// score at 100 %, but the library is not healthy.
#[test]
fn an_index_that_does_not_load_is_never_healthy() {
    let fifo = library(&[("user_a.md", CLEAN)]).fifo("mem/MEMORY.md");
    let mut index = over_cap_index(1);
    index.push_str(&"x".repeat(4 << 20));
    let huge = library(&[("user_a.md", CLEAN), ("MEMORY.md", &index)]);
    snapshot!("index_fifo", ccmem(&["audit"], &fifo).code(1));
    snapshot!("index_over_4_mib", ccmem(&["audit"], &huge).code(1));
}

#[test]
fn explain_index_over_cap_says_hard_and_opens_its_fix_with_ccmem_tier() {
    snapshot!(
        "explain_index_over_cap",
        explain(&["index-over-cap"]).code(0)
    );
}
