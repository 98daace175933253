//! The `ccmem hook` and `ccmem statusline` commands as a user (or the client) runs them.

use std::path::Path;

use assert_cmd::Command;

fn ccmem(home: &Path, cwd: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ccmem").unwrap();
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("CCMEM_MANAGED_DIR", home.join("no-managed"))
        .current_dir(cwd);
    cmd
}

/// A project with a MEMORY.md of `lines` entries in a memory folder set by the client's override.
fn project(lines: usize) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("mem"));
    for d in [&home, &proj, &mem] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join("CLAUDE.md"), "# rules\nbe brief\n").unwrap();
    let body: String = (1..=lines)
        .map(|i| format!("- [e{i}](e{i}.md) — entry {i}\n"))
        .collect();
    std::fs::write(mem.join("MEMORY.md"), body).unwrap();
    (root, home, proj)
}

fn with_memory<'a>(cmd: &'a mut Command, root: &Path) -> &'a mut Command {
    let mem = root.canonicalize().unwrap().join("mem");
    cmd.env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem)
}

fn start_input(cwd: &Path) -> String {
    serde_json::json!({"session_id": "s", "transcript_path": "/t", "cwd": cwd,
        "hook_event_name": "SessionStart", "source": "startup"})
    .to_string()
}

#[test]
fn session_start_reports_a_cut_index_and_is_silent_otherwise() {
    let (root, home, proj) = project(205);
    let out = with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "session-start", "--recover"])
        .write_stdin(start_input(&proj))
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(msg.contains("5 lines dark (201–205)"), "{msg}");
    assert!(
        msg.contains("first: \"- [e201](e201.md) — entry 201\""),
        "{msg}"
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("205: - [e205]")
    );

    let (root, home, proj) = project(12);
    with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "session-start"])
        .write_stdin(start_input(&proj))
        .assert()
        .success()
        .stdout("");
    with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "session-start", "--always"])
        .write_stdin(start_input(&proj))
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "\"systemMessage\":\"ccmem: 2 memory files loaded",
        ));
}

#[test]
fn hooks_never_fail_the_session() {
    let (_root, home, _proj) = project(1);
    for (sub, input) in [
        ("session-start", "not json"),
        ("session-start", ""),
        ("session-start", r#"{"cwd":"/no/such/dir/x"}"#),
        ("post-tool-use", "{\"tool_name\":"),
        ("post-tool-use", "\u{0}\u{1}binary"),
    ] {
        let out = ccmem(&home, &home)
            .args(["hook", sub])
            .write_stdin(input)
            .assert()
            .success();
        let o = out.get_output();
        assert!(
            o.stdout.is_empty(),
            "{sub} {input:?}: stdout must stay empty"
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err.lines().count(),
            1,
            "{sub} {input:?}: one stderr line, got {err:?}"
        );
        assert!(err.starts_with(&format!("ccmem hook {sub}: ")), "{err}");
    }
}

#[test]
fn post_tool_use_guards_memory_and_ignores_the_rest() {
    let (root, home, proj) = project(203);
    let mem = root.path().canonicalize().unwrap().join("mem/MEMORY.md");
    let input = |tool: &str, path: &Path| {
        serde_json::json!({"session_id": "s", "transcript_path": "/t", "cwd": proj,
            "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": {"file_path": path, "content": "x"}, "tool_response": {}, "tool_use_id": "t"})
        .to_string()
    };
    // The folder is not named `memory`: it counts because the client resolves it (env override).
    ccmem(&home, &home)
        .args(["hook", "post-tool-use"])
        .write_stdin(input("Edit", &mem))
        .assert()
        .success()
        .stdout("");
    let out = with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(input("Edit", &mem))
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("3 lines (201–203) will be dark")
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    ccmem(&home, &home)
        .args(["hook", "post-tool-use"])
        .write_stdin(input("Write", &proj.join("src/lib.rs")))
        .assert()
        .success()
        .stdout("")
        .stderr("");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks/post_tool_use_bash.json");
    ccmem(&home, &home)
        .args(["hook", "post-tool-use"])
        .pipe_stdin(fixture)
        .unwrap()
        .assert()
        .success()
        .stdout("");
}

#[test]
fn install_asks_refuses_without_a_terminal_and_round_trips() {
    let (_root, home, proj) = project(1);
    let settings = proj.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo bye\"}]}]}\n}";
    std::fs::write(&settings, original).unwrap();

    ccmem(&home, &proj)
        .args(["hook", "install", "--project"])
        .write_stdin("y\n")
        .assert()
        .code(2)
        // `hooks` is on one line: ccmem's groups are added on that line, nothing else moves.
        .stdout(predicates::str::contains("\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo bye\"}]}],\"SessionStart\":["))
        .stderr(predicates::str::contains("pass --yes"));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    ccmem(&home, &proj)
        .args(["hook", "install", "--project", "--dry-run"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);

    ccmem(&home, &proj)
        .args(["hook", "install", "--project", "--yes"])
        .assert()
        .success();
    let installed = std::fs::read_to_string(&settings).unwrap();
    assert!(installed.contains("ccmem hook post-tool-use"));
    assert!(installed.contains("echo bye"));
    ccmem(&home, &proj)
        .args(["hook", "install", "--project", "--yes"])
        .assert()
        .success()
        .stdout(predicates::str::contains("already installed"));

    let out = ccmem(&home, &proj)
        .args(["hook", "uninstall", "--project", "--yes", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["action"], "restore");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert!(!proj.join(".claude/settings.json.ccmem-backup").exists());
}

#[test]
fn install_user_scope_creates_and_uninstall_deletes() {
    let (_root, home, proj) = project(1);
    let settings = home.join(".claude/settings.json");
    ccmem(&home, &proj)
        .args(["hook", "install", "--yes"])
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("ccmem hook session-start")
    );
    ccmem(&home, &proj)
        .args(["hook", "uninstall", "--user", "--yes"])
        .assert()
        .success();
    assert!(!settings.exists());
}

#[test]
fn statusline_prints_one_line() {
    let (root, home, proj) = project(205);
    let input =
        serde_json::json!({"cwd": proj, "workspace": {"current_dir": proj, "project_dir": proj}});
    with_memory(&mut ccmem(&home, &home), root.path())
        .arg("statusline")
        .write_stdin(input.to_string())
        .assert()
        .success()
        .stdout("mem 205/200 lines · 5 dark\n");
}

#[test]
fn post_tool_use_flags_a_topic_file_the_index_does_not_link() {
    let (root, home, proj) = project(3);
    let mem = root.path().canonicalize().unwrap().join("mem");
    std::fs::write(mem.join("e2.md"), "---\nname: e2\n---\nlinked\n").unwrap();
    std::fs::write(
        mem.join("orphan.md"),
        "---\nname: orphan\n---\nnot linked\n",
    )
    .unwrap();
    let input = |path: &Path| {
        serde_json::json!({"cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x"}})
        .to_string()
    };
    let out = with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(input(&mem.join("orphan.md")))
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("orphan.md is not linked"),
        "{v}"
    );
    with_memory(&mut ccmem(&home, &home), root.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(input(&mem.join("e2.md")))
        .assert()
        .success()
        .stdout("");
}

/// The guard reads the memory library's reach, as `audit` and `tier` do: a topic listed in a
/// hub that the loaded part of MEMORY.md links is reached (silence); one linked only from past
/// the cut is not (a warning naming the line, with `ccmem tier`).
#[test]
fn post_tool_use_counts_a_hub_and_not_the_dark_part_of_the_index() {
    let (root, home, proj) = project(205);
    let mem = root.path().canonicalize().unwrap().join("mem");
    let index = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    let hub_line = "- [infra hub](reference_infra_hub.md) — deploys, cron\n";
    std::fs::write(mem.join("MEMORY.md"), format!("{hub_line}{index}")).unwrap();
    std::fs::write(
        mem.join("reference_infra_hub.md"),
        "---\nname: infra-hub\ndescription: infra\n---\n- [deploys](project_deploys.md)\n",
    )
    .unwrap();
    for name in ["project_deploys.md", "e203.md"] {
        std::fs::write(mem.join(name), "---\nname: x\ndescription: d\n---\nfact\n").unwrap();
    }
    let edit = |path: &Path| {
        let input = serde_json::json!({"cwd": proj, "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "a",
            "new_string": "b"}});
        let out = with_memory(&mut ccmem(&home, &home), root.path())
            .args(["hook", "post-tool-use"])
            .write_stdin(input.to_string())
            .assert()
            .success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    assert_eq!(edit(&mem.join("project_deploys.md")), "");
    // e203 is on line 204 of MEMORY.md, past the 200-line cut.
    let out = edit(&mem.join("e203.md"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("e203.md is linked only from MEMORY.md past the client's cut (line 204)"),
        "{msg}"
    );
    assert!(msg.ends_with("fix: ccmem tier"), "{msg}");
}

#[test]
fn statusline_with_a_vanished_session_dir_exits_0_like_the_hooks() {
    let (root, home, _proj) = project(3);
    let gone = root.path().join("gone");
    let input = serde_json::json!({"cwd": gone, "workspace": {"current_dir": gone}});
    let out = ccmem(&home, &home)
        .arg("statusline")
        .write_stdin(input.to_string())
        .assert()
        .success()
        .stdout("mem ?\n");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("cannot resolve the session directory") && stderr.contains("gone"),
        "{stderr}"
    );
}
