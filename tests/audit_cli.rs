//! `ccmem audit` and `ccmem explain` as a user runs them: formats, exit codes, config errors.

use assert_cmd::Command;

const CLEAN: &str = "---\nname: a\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n";
const KEY: &str =
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

fn library(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn ccmem(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::cargo_bin("ccmem")
        .unwrap()
        .args(args)
        .arg(dir)
        .env("NO_COLOR", "1")
        .env("CCMEM_NOW", "2026-11-29T00:00:00Z")
        .output()
        .unwrap()
}

/// `ccmem explain ARGS`.
fn explain(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ccmem")
        .unwrap()
        .arg("explain")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn exit_codes() {
    let clean = library(&[("MEMORY.md", "- [a](user_a.md)\n"), ("user_a.md", CLEAN)]);
    assert_eq!(ccmem(&["audit"], clean.path()).status.code(), Some(0));
    let warn = library(&[("MEMORY.md", "# I\n"), ("user_a.md", CLEAN)]);
    assert_eq!(ccmem(&["audit"], warn.path()).status.code(), Some(0));
    assert_eq!(
        ccmem(&["audit", "--strict"], warn.path()).status.code(),
        Some(1)
    );
    let hard = library(&[("MEMORY.md", "- [a](user_gone.md)\n")]);
    assert_eq!(ccmem(&["audit"], hard.path()).status.code(), Some(1));
    let missing = ccmem(&["audit"], &hard.path().join("nope"));
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nope"));
}

#[test]
fn config_in_folder_and_its_errors() {
    let lib = library(&[
        ("MEMORY.md", "- [a](user_a.md)\n"),
        ("user_a.md", CLEAN),
        ("ccmem.toml", "[audit]\nmax-file-lines = 3\n"),
    ]);
    let out = ccmem(&["audit", "--json"], lib.path());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["diagnostics"][0]["rule"], "oversized-file");
    std::fs::write(
        lib.path().join("ccmem.toml"),
        "[audit]\nmax-file-line = 3\n",
    )
    .unwrap();
    let out = ccmem(&["audit"], lib.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ccmem.toml"));
}

#[test]
fn human_output_groups_by_file_and_hides_secrets() {
    let lib = library(&[
        ("MEMORY.md", "# I\n- [a](user_a.md)\n- [x](user_gone.md)\n"),
        ("user_a.md", &format!("{CLEAN}token {KEY}\n")),
    ]);
    let out = ccmem(&["audit"], lib.path());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("error[broken-link]: link to `user_gone.md`"),
        "{text}"
    );
    assert!(text.contains("3 | - [x](user_gone.md)"), "{text}");
    assert!(
        text.contains("= help: Point the link at the file's current name"),
        "each finding's fix is printed beside it: {text}"
    );
    assert!(text.contains("warning[secret-in-memory]"), "{text}");
    assert!(text.contains("= help: Revoke the key"), "{text}");
    assert!(!text.contains("AbCdEf"), "secret printed:\n{text}");
    assert!(
        text.contains("1 files · 1 error(s) · 1 warning(s) · compliance 100.0% (marginal)"),
        "MEMORY.md's broken link is an error, not a memory file's, and never healthy: {text}"
    );
    for format in ["json", "sarif", "github"] {
        let out = ccmem(&["audit", "--format", format], lib.path());
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("AbCdEf"),
            "{format}"
        );
    }
}

#[test]
fn sarif_and_github_formats() {
    let lib = library(&[("MEMORY.md", "# I\n- [x](user_gone.md)\n")]);
    let out = ccmem(&["audit", "--format", "sarif"], lib.path());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &doc["runs"][0];
    assert_eq!(doc["version"], "2.1.0");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), ccmem::rules::RULES.len());
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

    let out = ccmem(&["audit", "--format", "github"], lib.path());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("::error file="), "{text}");
    assert!(
        text.contains("MEMORY.md,line=2,col=7,title=broken-link::link to `user_gone.md`"),
        "{text}"
    );
}

#[test]
fn explain_prints_the_rule_doc() {
    let out = explain(&["broken-link"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "broken-link (hard, error) · ccmem audit · both write specs (client and claude-memory-manager)"
        ),
        "{text}"
    );
    assert!(text.contains("## Why it matters"), "{text}");
    let out = explain(&["bad-file-name", "--json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rules"][0]["spec"], "claude-memory-manager", "{doc}");
    let out = explain(&["nope"]);
    assert_eq!(out.status.code(), Some(2));
    let out = explain(&[]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().count(),
        ccmem::rules::RULES.len() + ccmem::check::RULES.len()
    );
}

#[test]
fn all_sweeps_every_project() {
    let home = tempfile::tempdir().unwrap();
    for (slug, index) in [
        ("-a", "- [a](user_a.md)\n"),
        ("-b", "- [x](user_gone.md)\n"),
    ] {
        let mem = home
            .path()
            .join(".claude/projects")
            .join(slug)
            .join("memory");
        std::fs::create_dir_all(&mem).unwrap();
        std::fs::write(mem.join("MEMORY.md"), index).unwrap();
        std::fs::write(mem.join("user_a.md"), CLEAN).unwrap();
    }
    let out = Command::cargo_bin("ccmem")
        .unwrap()
        .args(["audit", "--all", "--json"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("CCMEM_NOW", "2026-11-29T00:00:00Z")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "ccmem.audit/1");
    assert_eq!(doc["libraries"].as_array().unwrap().len(), 2);
    assert_eq!(doc["libraries"][0]["spec"], "claude-memory-manager");
    assert_eq!(doc["summary"]["files"], 2, "memory files, not MEMORY.md");
    assert_eq!(doc["summary"]["errors"], 1);
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
    let out = ccmem(&["audit"], lib.path());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("error[index-over-cap]"), "{text}");
    let tier = format!("`ccmem tier {}`", lib.path().display());
    assert!(text.contains(&format!("= help: Run {tier}")), "{text}");
    assert!(!text.contains("healthy"), "{text}");

    let out = ccmem(&["audit", "--json"], lib.path());
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = (doc["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["rule"] == "index-over-cap")
        .unwrap();
    assert_eq!(d["severity"], "error", "{d}");
    assert!(d["fix"].as_str().unwrap().contains(&tier), "{d}");
    assert_eq!(doc["summary"]["band"], "marginal", "{doc}");

    let out = ccmem(&["audit", "--format", "sarif"], lib.path());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
    let fifo = library(&[("user_a.md", CLEAN)]);
    let path = std::ffi::CString::new(fifo.path().join("MEMORY.md").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    let huge = library(&[("user_a.md", CLEAN)]);
    let mut index = over_cap_index(1);
    index.push_str(&"x".repeat(4 << 20));
    std::fs::write(huge.path().join("MEMORY.md"), index).unwrap();
    for lib in [&fifo, &huge] {
        let out = ccmem(&["audit"], lib.path());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(text.contains("compliance 100.0% (marginal)"), "{text}");
        assert!(!text.contains("healthy"), "{text}");
    }
}

#[test]
fn explain_index_over_cap_says_hard_and_opens_its_fix_with_ccmem_tier() {
    let out = explain(&["index-over-cap"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("index-over-cap (hard, error)"), "{text}");
    let fix = &text[text.find("## Fix").unwrap()..];
    assert!(
        fix.lines().nth(1).unwrap().starts_with("Run `ccmem tier`"),
        "{text}"
    );
}
