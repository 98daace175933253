//! Every view a user sees, whole: each command in each format on realistic inputs (the
//! `examples/overgrown` project and its memory, a library of `tests/fixtures/libraries`, a
//! repository of `tests/fixtures/judged`), its exit code, stdout and stderr pinned in
//! `tests/snapshots/views__*.snap`. A change to any byte of any of them fails here first;
//! CONTRIBUTING.md says how to accept one that is meant.

mod common;

use common::cli::{Test, snapshot};

/// The README's example: a project whose MEMORY.md (in `~/memory`, its `autoMemoryDirectory`)
/// grew past the client's cut, a CLAUDE.md with a broken import, rules with and without
/// `paths:`. The working directory is the project.
fn overgrown() -> Test {
    Test::new()
        .copy("examples/overgrown/home", "home")
        .copy("examples/overgrown/project", "project")
        .current_dir("project")
}

/// A memory library with broken links, unreachable files and a missing Why, in `mem/`.
fn broken_links() -> Test {
    Test::new().copy("tests/fixtures/libraries/broken-links/memory", "mem")
}

/// A turbo monorepo whose root CLAUDE.md imports AGENTS.md, lost below the root, in `repo/`.
fn turbo() -> Test {
    Test::new().copy(
        "tests/fixtures/judged/repos/turbo-root-imports-agents/tree",
        "repo",
    )
}

/// A small Vietnamese library in the client's write spec, well under the cut, in `mem/`.
fn small_library() -> Test {
    Test::new().copy("tests/fixtures/curated/vi-small/memory", "mem")
}

/// The hook input the client sends at a session start in `cwd`.
fn session_start_input(t: &Test, cwd: &str) -> String {
    serde_json::json!({
        "session_id": "dd1a6e48-5039-4719-894e-8a9e0fbb84b6",
        "transcript_path": t.path("home/.claude/projects/x/dd1a6e48.jsonl"),
        "cwd": t.path(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string()
}

// receipt

#[test]
fn receipt() {
    let t = overgrown();
    snapshot!("receipt", t.ccmem(["receipt"]).run().code(1));
    snapshot!("receipt_all", t.ccmem(["receipt", "--all"]).run().code(1));
    snapshot!("receipt_json", t.ccmem(["receipt", "--json"]).run().code(1));
    let colour = t
        .ccmem(["receipt", "--color", "always"])
        .env_remove("NO_COLOR");
    snapshot!("receipt_colour", colour.run().code(1));
}

#[test]
fn receipt_clean() {
    let t = Test::new()
        .file("proj/CLAUDE.md", "# Rules\n\nUse tabs.\n")
        .dir("proj/.git")
        .current_dir("proj");
    snapshot!("receipt_clean", t.ccmem(["receipt"]).run().code(0));
}

// context

#[test]
fn context() {
    let t = overgrown();
    snapshot!("context", t.ccmem(["context"]).run().code(0));
    snapshot!("context_json", t.ccmem(["context", "--json"]).run().code(0));
    let reading = t.ccmem(["context", "--reading", "web/app.ts"]);
    snapshot!("context_reading", reading.run().code(0));
}

// budget

#[test]
fn budget() {
    let t = overgrown();
    snapshot!(
        "budget",
        t.ccmem(["budget", "../home/memory"]).run().code(1)
    );
    let json = t.ccmem(["budget", "../home/memory", "--json"]);
    snapshot!("budget_json", json.run().code(1));
    // No PATH: the project's settings move its memory to ~/memory, and there is no
    // projects folder at all; budget measures the folder the client loads.
    snapshot!("budget_no_path", t.ccmem(["budget"]).run().code(1));
}

#[test]
fn budget_sweeps_every_project() {
    let t = Test::new()
        .copy(
            "tests/fixtures/curated/vi-small/memory",
            "home/.claude/projects/-work-vi/memory",
        )
        .copy(
            "tests/fixtures/libraries/broken-links/memory",
            "home/.claude/projects/-work-api/memory",
        )
        .copy(
            "examples/overgrown/home/memory",
            "home/.claude/projects/-work-overgrown/memory",
        );
    snapshot!("budget_sweep", t.ccmem(["budget"]).run().code(1));
}

// audit

#[test]
fn audit() {
    let t = broken_links();
    snapshot!("audit", t.ccmem(["audit", "mem"]).run().code(1));
    for format in ["json", "sarif", "github"] {
        let run = t.ccmem(["audit", "mem", "--format", format]).run().code(1);
        snapshot!(format!("audit_{format}"), run);
    }
    let strict = small_library().ccmem(["audit", "mem", "--strict"]);
    snapshot!("audit_small_strict", strict.run());
}

#[test]
fn audit_colour() {
    let t = broken_links().env_remove("NO_COLOR").redact("\x1b", "␛");
    let run = t.ccmem(["audit", "mem", "--color", "always"]).run();
    snapshot!("audit_colour", run.code(1));
}

// check

#[test]
fn check() {
    let t = turbo();
    snapshot!("check", t.ccmem(["check", "repo"]).run().code(1));
    for format in ["json", "sarif", "github"] {
        let run = t.ccmem(["check", "repo", "--format", format]).run().code(1);
        snapshot!(format!("check_{format}"), run);
    }
}

// explain

#[test]
fn explain() {
    let t = Test::new();
    snapshot!(
        "explain_audit_rule",
        t.ccmem(["explain", "broken-link"]).run().code(0)
    );
    let check_rule = t.ccmem(["explain", "import-outside-start-dir"]);
    snapshot!("explain_check_rule", check_rule.run().code(0));
    let json = t.ccmem(["explain", "index-over-cap", "--json"]);
    snapshot!("explain_json", json.run().code(0));
    snapshot!("explain_list", t.ccmem(["explain"]).run().code(0));
    snapshot!(
        "explain_unknown",
        t.ccmem(["explain", "nope"]).run().code(2)
    );
}

// tier, then undo

#[test]
fn tier_dry_run_write_and_undo() {
    let t = overgrown();
    let before = std::fs::read_to_string(t.path("home/memory/MEMORY.md")).unwrap();
    snapshot!(
        "tier_dry_run",
        t.ccmem(["tier", "../home/memory"]).run().code(0)
    );
    let json = t.ccmem(["tier", "../home/memory", "--json"]);
    snapshot!("tier_json", json.run().code(0));
    let written = t.ccmem(["tier", "../home/memory", "--write"]).run().code(0);
    snapshot!("tier_write", written);
    let index = std::fs::read_to_string(t.path("home/memory/MEMORY.md")).unwrap();
    snapshot!("tier_write_memory_md", index);
    let hub = std::fs::read_to_string(t.path("home/memory/reference_database_hub.md")).unwrap();
    snapshot!("tier_write_database_hub", hub);

    snapshot!(
        "undo_list",
        t.ccmem(["undo", "--list", "../home/memory"]).run().code(0)
    );
    let status = t.ccmem(["undo", "--status", "../home/memory"]);
    snapshot!("undo_status", status.run().code(0));
    snapshot!("undo", t.ccmem(["undo", "../home/memory"]).run().code(0));
    let after = std::fs::read_to_string(t.path("home/memory/MEMORY.md")).unwrap();
    assert_eq!(after, before, "undo puts MEMORY.md back byte for byte");
    let redo = t.ccmem(["undo", "--list", "../home/memory"]);
    snapshot!("undo_list_after_undo", redo.run().code(0));
}

#[test]
fn tier_refuses_a_target_it_cannot_reach() {
    let t = overgrown();
    let run = t
        .ccmem(["tier", "../home/memory", "--target-lines", "5"])
        .run();
    snapshot!("tier_unreachable_target", run.code(2));
}

// add

#[test]
fn add_dry_run_and_write() {
    let t = small_library();
    let args = [
        "add",
        "mem",
        "--type",
        "feedback",
        "--topic",
        "deploy-freeze",
        "--description",
        "No deploys on Friday afternoons",
        "--why",
        "Two Friday incidents ran into the weekend",
        "--how-to-apply",
        "Hold merges to main after 14:00 on Fridays",
    ];
    let dry = t.ccmem(args).arg("--dry-run").run().code(0);
    snapshot!("add_dry_run", dry);
    let written = t.ccmem(args).run().code(0);
    snapshot!("add_write", written);
    let topic = std::fs::read_to_string(t.path("mem/feedback_deploy-freeze.md")).unwrap();
    snapshot!("add_write_topic", topic);
    // A refusal as a finding, like a near-duplicate: exit 1, nothing replaced.
    snapshot!("add_existing_topic", t.ccmem(args).run().code(1));
    let mut near = args;
    near[5] = "friday-deploy-freeze";
    snapshot!("add_near_duplicate", t.ccmem(near).run().code(1));
}

#[test]
fn add_to_an_index_past_the_cut() {
    let t = overgrown();
    let run = t
        .ccmem([
            "add",
            "../home/memory",
            "--type",
            "reference",
            "--topic",
            "grafana-boards",
            "--description",
            "Where the latency boards live",
            "--dry-run",
        ])
        .run();
    snapshot!("add_past_the_cut", run);
}

// hooks

#[test]
fn hook_session_start() {
    let t = overgrown();
    let input = session_start_input(&t, "project");
    let run = t
        .ccmem(["hook", "session-start", "--no-log"])
        .stdin(input.clone());
    snapshot!("hook_session_start", run.run().code(0));
    let recover = t.ccmem(["hook", "session-start", "--no-log", "--recover"]);
    snapshot!(
        "hook_session_start_recover",
        recover.stdin(input).run().code(0)
    );

    let clean = Test::new().file("proj/CLAUDE.md", "Use tabs.\n");
    let input = session_start_input(&clean, "proj");
    let quiet = clean.ccmem(["hook", "session-start", "--no-log"]);
    snapshot!(
        "hook_session_start_clean",
        quiet.stdin(input.clone()).run().code(0)
    );
    let always = clean.ccmem(["hook", "session-start", "--no-log", "--always"]);
    snapshot!(
        "hook_session_start_always",
        always.stdin(input).run().code(0)
    );
}

#[test]
fn hook_post_tool_use() {
    let t = overgrown().file(
        "home/memory/project_queue.md",
        "---\nname: queue\n---\nSQS.\n",
    );
    let write = |path: &str, content: &str| {
        serde_json::json!({
            "session_id": "dd1a6e48-5039-4719-894e-8a9e0fbb84b6",
            "cwd": t.path("project"),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": { "file_path": t.path(path), "content": content },
            "tool_response": { "type": "create", "filePath": t.path(path) },
        })
        .to_string()
    };
    let memory = write(
        "home/memory/project_queue.md",
        "---\nname: queue\n---\nSQS.\n",
    );
    let run = t.ccmem(["hook", "post-tool-use"]).stdin(memory).run();
    snapshot!("hook_post_tool_use_unlinked_topic", run.code(0));
    let index = std::fs::read_to_string(t.path("home/memory/MEMORY.md")).unwrap();
    let run = t
        .ccmem(["hook", "post-tool-use"])
        .stdin(write("home/memory/MEMORY.md", &index));
    snapshot!("hook_post_tool_use_index_past_the_cut", run.run().code(0));
    let source = write("project/web/app.ts", "export {};\n");
    let run = t.ccmem(["hook", "post-tool-use"]).stdin(source).run();
    snapshot!("hook_post_tool_use_source", run.code(0));
}

#[test]
fn hook_install_and_uninstall() {
    let t = Test::new().file(
        "home/.claude/settings.json",
        "{\n  \"model\": \"opus\"\n}\n",
    );
    let bin = ["--bin", "/opt/ccmem/bin/ccmem"];
    let dry = t.ccmem(["hook", "install", "--dry-run"]).args(bin);
    snapshot!("hook_install_dry_run", dry.run().code(0));
    let no_terminal = t.ccmem(["hook", "install"]).args(bin).run();
    snapshot!("hook_install_without_a_terminal", no_terminal);
    let project = t
        .ccmem(["hook", "install", "--project", "--dry-run"])
        .args(bin);
    snapshot!("hook_install_project_dry_run", project.run().code(0));
    snapshot!(
        "hook_install",
        t.ccmem(["hook", "install", "-y"]).args(bin).run().code(0)
    );
    let settings = std::fs::read_to_string(t.path("home/.claude/settings.json")).unwrap();
    snapshot!("hook_install_settings", settings);
    snapshot!(
        "hook_uninstall",
        t.ccmem(["hook", "uninstall", "-y"]).run().code(0)
    );
    let settings = std::fs::read_to_string(t.path("home/.claude/settings.json")).unwrap();
    assert_eq!(settings, "{\n  \"model\": \"opus\"\n}\n");
}

// statusline

#[test]
fn statusline() {
    let t = overgrown();
    let input = serde_json::json!({
        "session_id": "dd1a6e48-5039-4719-894e-8a9e0fbb84b6",
        "cwd": t.path("project"),
        "workspace": { "current_dir": t.path("project"), "project_dir": t.path("project") },
    })
    .to_string();
    let run = t.ccmem(["statusline"]).stdin(input.clone()).run();
    snapshot!("statusline", run.code(0));
    let json = t.ccmem(["statusline", "--json"]).stdin(input).run();
    snapshot!("statusline_json", json.code(0));
    snapshot!("statusline_no_input", t.ccmem(["statusline"]).run().code(0));
}

// history, from the hook's log

#[test]
fn history_from_the_hooks_log() {
    let t = overgrown();
    let input = session_start_input(&t, "project");
    t.ccmem(["hook", "session-start"])
        .stdin(input)
        .run()
        .code(0);
    snapshot!("history", t.ccmem(["history"]).run().code(0));
    snapshot!("history_json", t.ccmem(["history", "--json"]).run().code(0));
}

// errors

#[test]
fn config_errors() {
    let t = small_library()
        .file("mem/ccmem.toml", "[audit]\nmax-file-line = 3\n")
        .file("repo/ccmem.toml", "[check]\ncontext-window = \"big\"\n")
        .file("repo/CLAUDE.md", "# Rules\n");
    snapshot!(
        "config_unknown_key",
        t.ccmem(["audit", "mem"]).run().code(2)
    );
    snapshot!("config_bad_value", t.ccmem(["check", "repo"]).run().code(2));
    let json = t.ccmem(["audit", "mem", "--json"]).run().code(2);
    snapshot!("config_error_json", json);
}

#[test]
fn usage_errors() {
    let t = Test::new();
    for (name, args) in [
        ("usage_unknown_command", &["frobnicate"][..]),
        ("usage_unknown_flag", &["audit", "--bogus"]),
        ("usage_bad_format", &["check", "--format", "xml"]),
        ("usage_bad_number", &["tier", "--target-lines", "many"]),
        ("usage_json", &["audit", "--bogus", "--json"]),
        ("usage_missing_value", &["add", "--type", "feedback"]),
        ("missing_folder", &["audit", "nowhere"]),
    ] {
        snapshot!(name, t.ccmem(args).run().code(2));
    }
}

#[test]
fn version() {
    let t = Test::new();
    snapshot!("version", t.ccmem(["--version"]).run().code(0));
    let macos = t.ccmem(["--version"]).env("CCMEM_PLATFORM", "macos");
    snapshot!("version_macos", macos.run().code(0));
    let bad = t.ccmem(["--version"]).env("CCMEM_PLATFORM", "darwin");
    snapshot!("version_bad_platform", bad.run());
}

#[test]
fn add_refuses_a_secret() {
    let t = small_library();
    // Built here, so no secret scanner takes the test's source for a leak.
    let key = format!("sk_{}_{}", "live", "51HxQ2eZvKYlo2C8Nq3Ub7Wd0Rf");
    let description = format!("Billing webhooks: the live key is {key}");
    let args = [
        "add",
        "mem",
        "--type",
        "reference",
        "--topic",
        "billing-webhooks",
        "--description",
        description.as_str(),
    ];
    let index = std::fs::read_to_string(t.path("mem/MEMORY.md")).unwrap();
    let refused = t.ccmem(args).redact(&key, "[KEY]").run().code(1);
    assert!(!refused.stdout().contains(&key), "the value is never shown");
    snapshot!("add_secret_refused", refused);
    let json = t.ccmem(args).arg("--json").redact(&key, "[KEY]");
    snapshot!("add_secret_refused_json", json.run().code(1));
    // A password in the body, in Korean: refused at its line.
    let body = t.path("body.md");
    std::fs::write(&body, "스테이징 DB 접속 정보\n\n비밀번호: Xq7!vR2#kLm9\n").unwrap();
    let password = t
        .ccmem([
            "add",
            "mem",
            "--type",
            "reference",
            "--topic",
            "staging-db",
            "--description",
            "스테이징 DB 접속 방법",
        ])
        .arg("--body-file")
        .arg(&body)
        .run()
        .code(1);
    snapshot!("add_secret_refused_body", password);
    assert!(!t.path("mem/reference_billing-webhooks.md").exists());
    assert!(!t.path("mem/reference_staging-db.md").exists());
    assert_eq!(
        std::fs::read_to_string(t.path("mem/MEMORY.md")).unwrap(),
        index
    );
    // --allow-secret writes it, and still never echoes the value.
    let allowed = t
        .ccmem(args)
        .arg("--allow-secret")
        .redact(&key, "[KEY]")
        .run()
        .code(0);
    assert!(!allowed.stdout().contains(&key));
    snapshot!("add_secret_allowed", allowed);
    let topic = std::fs::read_to_string(t.path("mem/reference_billing-webhooks.md")).unwrap();
    assert!(
        topic.contains(&key),
        "what the user allowed is written as given"
    );
}

// audit: which rules run, and the score

#[test]
fn audit_select_and_ignore() {
    let t = broken_links();
    let all = t.ccmem(["audit", "mem"]).run().code(1);
    snapshot!("audit_by_rule", all);
    let only = t.ccmem(["audit", "mem", "--select", "broken-link"]).run();
    snapshot!("audit_select", only.code(1));
    let ignored = t
        .ccmem(["audit", "mem", "--ignore", "broken-link,missing-why"])
        .arg("--ignore=unreachable-file")
        .run();
    snapshot!("audit_ignore", ignored);
    let typo = t.ccmem(["audit", "mem", "--ignore", "broken-links"]).run();
    snapshot!("audit_ignore_unknown", typo.code(2));
    // A check rule is not an audit rule.
    let check_rule = t.ccmem(["audit", "mem", "--select", "import-cycle"]).run();
    check_rule.code(2);
}

#[test]
fn check_ignore() {
    let t = turbo();
    // The rule of each finding `check --format json` reports, in order.
    let rules = |extra: &[&str]| -> Vec<String> {
        let run = t
            .ccmem(["check", "repo", "--format", "json"])
            .args(extra)
            .run();
        (run.json()["findings"].as_array().into_iter().flatten())
            .map(|d| d["rule"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = rules(&[]);
    let first = all.first().expect("the turbo repository has findings");
    let rest: Vec<String> = all.iter().filter(|r| *r != first).cloned().collect();
    assert_eq!(rules(&["--ignore", first]), rest);
    let typo = t.ccmem(["check", "repo", "--select", "broken-link"]).run();
    snapshot!("check_select_audit_rule", typo.code(2));
}

#[test]
fn explain_compliance() {
    let t = Test::new();
    snapshot!(
        "explain_compliance",
        t.ccmem(["explain", "compliance"]).run().code(0)
    );
}

/// `ccmem explain tier` prints tier's policy whole: the snapshot is the text a user reads, so a
/// policy change shows here as a diff to review.
#[test]
fn explain_tier() {
    let t = Test::new();
    snapshot!("explain_tier", t.ccmem(["explain", "tier"]).run().code(0));
    snapshot!(
        "explain_tier_json",
        t.ccmem(["explain", "tier", "--json"]).run().code(0)
    );
}
