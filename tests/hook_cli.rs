//! The `ccmem hook` and `ccmem statusline` commands as a user (or the client) runs them.

mod common;

use std::path::{Path, PathBuf};

use common::cli::{Test, snapshot};

/// A project (`proj/`, a CLAUDE.md) with a MEMORY.md of `lines` entries in `mem/`. Runs start
/// in HOME; [`with_memory`] points the client's override at `mem/`.
fn project(lines: usize) -> (Test, PathBuf) {
    let body: String = (1..=lines)
        .map(|i| format!("- [e{i}](e{i}.md) — entry {i}\n"))
        .collect();
    let t = Test::new()
        .file("proj/CLAUDE.md", "# rules\nbe brief\n")
        .file("mem/MEMORY.md", body)
        .current_dir("home");
    let proj = t.path("proj");
    (t, proj)
}

fn with_memory(t: &Test) -> Test {
    t.clone()
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", t.path("mem"))
}

fn start_input(cwd: &Path) -> String {
    serde_json::json!({"session_id": "s", "transcript_path": "/t", "cwd": cwd,
        "hook_event_name": "SessionStart", "source": "startup"})
    .to_string()
}

#[test]
fn session_start_reports_a_cut_index_and_is_silent_otherwise() {
    let (t, proj) = project(205);
    let out = with_memory(&t)
        .args(["hook", "session-start", "--recover"])
        .stdin(start_input(&proj))
        .run()
        .code(0);
    snapshot!("session_start_recover", out);

    let (t, proj) = project(12);
    let t = with_memory(&t).stdin(start_input(&proj));
    t.ccmem(["hook", "session-start"])
        .run()
        .code(0)
        .stdout_is("");
    let always = t.ccmem(["hook", "session-start", "--always"]).run();
    snapshot!("session_start_always", always.code(0));
}

#[test]
fn hooks_never_fail_the_session() {
    let (t, _proj) = project(1);
    for (i, (sub, input)) in [
        ("session-start", "not json"),
        ("session-start", ""),
        ("session-start", r#"{"cwd":"/no/such/dir/x"}"#),
        ("post-tool-use", "{\"tool_name\":"),
        ("post-tool-use", "\u{0}\u{1}binary"),
    ]
    .into_iter()
    .enumerate()
    {
        // Exit 0, nothing on stdout, one line on stderr.
        let out = t.ccmem(["hook", sub]).stdin(input).run().code(0);
        snapshot!(format!("never_fails_{i}"), out);
    }
}

#[test]
fn post_tool_use_guards_memory_and_ignores_the_rest() {
    let (t, proj) = project(203);
    let mem = t.path("mem/MEMORY.md");
    let input = |tool: &str, path: &Path| {
        serde_json::json!({"session_id": "s", "transcript_path": "/t", "cwd": proj,
            "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": {"file_path": path, "content": "x"}, "tool_response": {}, "tool_use_id": "t"})
        .to_string()
    };
    let hook = t.ccmem(["hook", "post-tool-use"]);
    // The folder is not named `memory`: it counts because the client resolves it (env override).
    let out = hook.clone().stdin(input("Edit", &mem)).run();
    out.code(0).stdout_is("");
    let out = with_memory(&hook).stdin(input("Edit", &mem)).run();
    snapshot!("post_tool_use_index_past_the_cut", out.code(0));
    let source = input("Write", &proj.join("src/lib.rs"));
    hook.clone()
        .stdin(source)
        .run()
        .code(0)
        .stdout_is("")
        .stderr_is("");
    let fixture = include_str!("fixtures/hooks/post_tool_use_bash.json");
    hook.clone().stdin(fixture).run().code(0).stdout_is("");
}

#[test]
fn install_asks_refuses_without_a_terminal_and_round_trips() {
    let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo bye\"}]}]}\n}";
    let (t, _) = project(1);
    let t = t
        .file("proj/.claude/settings.json", original)
        .current_dir("proj");
    let settings = t.path("proj/.claude/settings.json");
    let bin = ["--bin", "/opt/ccmem/bin/ccmem"];

    // `hooks` is on one line: ccmem's groups are added on that line, nothing else moves.
    let refused = t
        .ccmem(["hook", "install", "--project"])
        .args(bin)
        .stdin("y\n");
    snapshot!("install_without_a_terminal", refused.run().code(2));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    let dry = t
        .ccmem(["hook", "install", "--project", "--dry-run"])
        .args(bin);
    dry.run().code(0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    let install = t.ccmem(["hook", "install", "--project", "--yes"]).args(bin);
    install.run().code(0);
    snapshot!(
        "installed_settings",
        std::fs::read_to_string(&settings).unwrap()
    );
    snapshot!("install_again", install.run().code(0));

    let out = t.ccmem(["hook", "uninstall", "--project", "--yes", "--json"]);
    let v = out.run().code(0).json();
    assert_eq!(v["action"], "restore");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert!(!t.path("proj/.claude/settings.json.ccmem-backup").exists());
}

#[test]
fn install_user_scope_creates_and_uninstall_deletes() {
    let (t, _) = project(1);
    let t = t.current_dir("proj");
    let settings = t.home().join(".claude/settings.json");
    let install = t.ccmem(["hook", "install", "--yes", "--bin", "/opt/ccmem/bin/ccmem"]);
    snapshot!("install_user", install.run().code(0));
    assert!(settings.exists());
    let uninstall = t.ccmem(["hook", "uninstall", "--user", "--yes"]).run();
    snapshot!("uninstall_user", uninstall.code(0));
    assert!(!settings.exists());
}

#[test]
fn statusline_prints_one_line() {
    let (t, proj) = project(205);
    let input =
        serde_json::json!({"cwd": proj, "workspace": {"current_dir": proj, "project_dir": proj}});
    let out = with_memory(&t)
        .arg("statusline")
        .stdin(input.to_string())
        .run();
    out.code(0).stdout_is("mem 205/200 lines · 5 dark\n");
}

#[test]
fn post_tool_use_flags_a_topic_file_the_index_does_not_link() {
    let (t, proj) = project(3);
    let t = t
        .file("mem/e2.md", "---\nname: e2\n---\nlinked\n")
        .file("mem/orphan.md", "---\nname: orphan\n---\nnot linked\n");
    let input = |name: &str| {
        serde_json::json!({"cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": t.path("mem").join(name), "content": "x"}})
        .to_string()
    };
    let hook = with_memory(&t).args(["hook", "post-tool-use"]);
    snapshot!(
        "unlinked_topic",
        hook.clone().stdin(input("orphan.md")).run().code(0)
    );
    hook.stdin(input("e2.md")).run().code(0).stdout_is("");
}

/// The guard reads the memory library's reach, as `audit` and `tier` do: a topic listed in a
/// hub that the loaded part of MEMORY.md links is reached (silence); one linked only from past
/// the cut is not (a warning naming the line, with `ccmem tier`).
#[test]
fn post_tool_use_counts_a_hub_and_not_the_dark_part_of_the_index() {
    let (t, proj) = project(205);
    let index = std::fs::read_to_string(t.path("mem/MEMORY.md")).unwrap();
    let hub_line = "- [infra hub](reference_infra_hub.md) — deploys, cron\n";
    let topic = "---\nname: x\ndescription: d\n---\nfact\n";
    let t = t
        .file("mem/MEMORY.md", format!("{hub_line}{index}"))
        .file(
            "mem/reference_infra_hub.md",
            "---\nname: infra-hub\ndescription: infra\n---\n- [deploys](project_deploys.md)\n",
        )
        .file("mem/project_deploys.md", topic)
        .file("mem/e203.md", topic);
    let edit = |name: &str| {
        let input = serde_json::json!({"cwd": proj, "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": t.path("mem").join(name),
            "old_string": "a", "new_string": "b"}});
        let hook = with_memory(&t).args(["hook", "post-tool-use"]);
        hook.stdin(input.to_string()).run().code(0)
    };
    edit("project_deploys.md").stdout_is("");
    // e203 is on line 204 of MEMORY.md, past the 200-line cut.
    snapshot!("linked_only_past_the_cut", edit("e203.md"));
}

/// A MEMORY.md saved as UTF-16 still links its topics for the client (it drops the NUL
/// bytes): the guard reads the same decoded links, silent on a linked topic, a warning on the
/// one the index never names.
#[test]
fn post_tool_use_reads_a_utf16_index_as_the_client_does() {
    let (t, proj) = project(1);
    let index = "- [e1](e1.md) — 第一\n- [e2](e2.md) — 두 번째\n";
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(index.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let topic = "---\nname: x\ndescription: d\n---\nfact\n";
    let t = t
        .file("mem/MEMORY.md", utf16)
        .file("mem/e2.md", topic)
        .file("mem/orphan.md", topic);
    let write = |name: &str| {
        let input = serde_json::json!({"cwd": proj, "hook_event_name": "PostToolUse",
            "tool_name": "Write", "tool_input": {"file_path": t.path("mem").join(name),
            "content": "x"}});
        let hook = with_memory(&t).args(["hook", "post-tool-use"]);
        hook.stdin(input.to_string()).run().code(0)
    };
    write("e2.md").stdout_is("");
    snapshot!("utf16_index_unlinked_topic", write("orphan.md"));
}

#[test]
fn statusline_with_a_vanished_session_dir_exits_0_like_the_hooks() {
    let (t, _proj) = project(3);
    let gone = t.path("gone");
    let input = serde_json::json!({"cwd": gone, "workspace": {"current_dir": gone}});
    let out = t.ccmem(["statusline"]).stdin(input.to_string()).run();
    snapshot!("statusline_vanished_dir", out.code(0));
}
