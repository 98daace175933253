use std::path::Path;

use super::*;
use crate::hook::input;

fn write_index(dir: &Path, lines: usize, width: usize) -> std::path::PathBuf {
    let path = dir.join("memory").join("MEMORY.md");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let body: String = (1..=lines)
        .map(|i| format!("- [e{i}](e{i}.md) — {}\n", "w".repeat(width)))
        .collect();
    std::fs::write(&path, body).unwrap();
    path
}

/// The guard with this test process's environment.
fn run(input: &PostToolUse) -> anyhow::Result<Option<HookOutput>> {
    super::run(input, &ProcessEnv::read())
}

fn input_for(tool: &str, path: &str) -> PostToolUse {
    let json = serde_json::json!({
        "session_id": "s", "transcript_path": "/t", "cwd": "/", "hook_event_name": "PostToolUse",
        "tool_name": tool, "tool_input": {"file_path": path, "content": "x"}, "tool_response": {},
        "tool_use_id": "t"
    });
    input::parse(json.to_string().as_bytes()).unwrap()
}

#[test]
fn over_the_line_cap_names_dark_entries_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_index(dir.path(), 203, 10);
    let out = run(&input_for("Write", path.to_str().unwrap()))
        .unwrap()
        .unwrap();
    let msg = out.message().unwrap().to_owned();
    assert!(msg.contains("203 lines"), "{msg}");
    assert!(msg.contains("3 lines (201–203) will be dark"), "{msg}");
    assert!(msg.contains("first: \"- [e201](e201.md)"), "{msg}");
    assert!(msg.ends_with("fix: ccmem tier"), "{msg}");
    assert!(
        out.to_line()
            .unwrap()
            .contains("\"hookEventName\":\"PostToolUse\"")
    );
    let ctx = out.context().unwrap();
    assert!(ctx.contains("line 203: - [e203](e203.md)"));
    assert!(!ctx.contains("line 200:"));
}

#[test]
fn past_the_safety_line_warns_without_dark_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_index(dir.path(), 195, 10);
    let out = run(&input_for("Edit", path.to_str().unwrap()))
        .unwrap()
        .unwrap();
    let msg = out.message().unwrap().to_owned();
    assert!(msg.contains("195/200 lines"), "{msg}");
    assert!(msg.contains("5 more lines"), "{msg}");
    assert!(out.context().unwrap().contains("Nothing is cut yet"));
}

#[test]
fn size_past_the_safety_line_warns() {
    let dir = tempfile::tempdir().unwrap();
    // 100 lines of ~240 units: 24,000 units, under 200 lines.
    let path = write_index(dir.path(), 100, 222);
    let out = run(&input_for("MultiEdit", path.to_str().unwrap()))
        .unwrap()
        .unwrap();
    assert!(
        out.message()
            .unwrap()
            .to_owned()
            .contains("past the safety line")
    );
}

#[test]
fn a_small_index_and_other_tools_are_silent() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_index(dir.path(), 190, 10);
    assert!(
        run(&input_for("Write", path.to_str().unwrap()))
            .unwrap()
            .is_none()
    );
    let big = write_index(dir.path(), 250, 10);
    assert!(
        run(&input_for("Read", big.to_str().unwrap()))
            .unwrap()
            .is_none()
    );
    assert!(
        run(&input_for("Bash", big.to_str().unwrap()))
            .unwrap()
            .is_none()
    );
}

// Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
#[cfg(unix)]
#[test]
fn non_memory_paths_exit_before_reading_anything() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO would block any read; the hook must not open it, nor resolve the (missing) cwd.
    let fifo = dir.path().join("main.rs");
    crate::sys::mkfifo(&fifo, 0o644).unwrap();
    let mut inp = input_for("Write", fifo.to_str().unwrap());
    inp.common.cwd = "/no/such/dir".into();
    assert!(run(&inp).unwrap().is_none());
    inp.tool_input.file_path = Some("README.md".into());
    assert!(run(&inp).unwrap().is_none());
}

#[test]
fn a_memory_md_outside_any_memory_folder_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let body: String = (1..=250).map(|i| format!("line {i}\n")).collect();
    std::fs::write(docs.join("MEMORY.md"), body).unwrap();
    let mut inp = input_for("Write", docs.join("MEMORY.md").to_str().unwrap());
    inp.common.cwd = dir.path().to_string_lossy().into_owned();
    assert!(run(&inp).unwrap().is_none());
}

#[test]
fn a_huge_index_is_reported_as_skipped() {
    let out = index_verdict("/m/MEMORY.md", &IndexState::TooLarge { bytes: 5 << 20 }).unwrap();
    assert!(
        out.message()
            .unwrap()
            .contains("over the client's 4 MiB read limit")
    );
    assert!(index_verdict("/m/MEMORY.md", &IndexState::Missing).is_none());
}

#[test]
fn recorded_inputs_parse_and_route() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks");
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let bash: PostToolUse = input::parse(&read("post_tool_use_bash.json")).unwrap();
    assert!(run(&bash).unwrap().is_none());
    let write: PostToolUse = input::parse(&read("post_tool_use_write_src.json")).unwrap();
    assert_eq!(write.tool_name, "Write");
    assert!(
        write
            .tool_input
            .file_path
            .as_deref()
            .unwrap()
            .ends_with("src/main.rs")
    );
    assert!(run(&write).unwrap().is_none());
    let mem: PostToolUse = input::parse(&read("post_tool_use_write_memory.json")).unwrap();
    assert_eq!(
        paths::classify(Path::new(mem.tool_input.file_path.as_deref().unwrap())),
        Target::MemoryIndex
    );
    let start: input::SessionStart = input::parse(&read("session_start_startup.json")).unwrap();
    assert_eq!(start.source, "startup");
    assert_eq!(start.common.hook_event_name, "SessionStart");
}
