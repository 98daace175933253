//! Each file is read once per command: the commands that run in every session (`receipt`, the
//! two hooks) and `tier --write` are run under `strace`, and the opens of MEMORY.md and of each
//! topic file are counted. One model per concept, read once and passed down: the loader's read
//! of MEMORY.md serves the memory library and the history; `tier --write` reads the library
//! once and, after writing, only the files it wrote.
//!
//! The tests need `strace` (`apt-get install strace`); `build.rs` looks for it when ccmem is
//! built, and without it they are reported as ignored, with that reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A project whose MEMORY.md is past the client's cut (210 entries, each with its topic file,
/// plus one topic file nothing links), and the hook inputs for it.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
}

const ENTRIES: usize = 210;

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, proj) = (root.join("home"), root.join("proj"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(proj.join("CLAUDE.md"), "# rules\nUse pnpm.\n").unwrap();
    let slug: String = (proj.to_string_lossy().chars())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mem = home.join(".claude/projects").join(slug).join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    let mut index = String::from("# Memory\n\n");
    for i in 1..=ENTRIES {
        let kind = ["project", "feedback", "reference"][i % 3];
        let name = format!("{kind}_e{i:03}.md");
        index.push_str(&format!("- [e{i}]({name}) — entry {i}\n"));
        let topic = format!("---\nname: e{i}\ndescription: entry {i}\ntype: {kind}\n---\n\nfact\n");
        std::fs::write(mem.join(name), topic).unwrap();
    }
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    let lone = "---\nname: lone\ndescription: d\ntype: project\n---\nbody\n";
    std::fs::write(mem.join("project_lone.md"), lone).unwrap();
    World {
        _dir: dir,
        root,
        home,
        proj,
        mem,
    }
}

impl World {
    /// A hook input file for this project.
    fn input(&self, name: &str, fields: serde_json::Value) -> PathBuf {
        let mut v = serde_json::json!({"session_id": "s", "cwd": self.proj,
            "transcript_path": self.root.join("t.jsonl")});
        v.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let path = self.root.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path
    }

    /// Runs ccmem with `args` under strace; the number of opens of each file of the memory
    /// folder, by name (opens relative to the folder count too).
    fn opens(&self, args: &[&str]) -> BTreeMap<String, usize> {
        let trace = traced("openat,open", &self.root, &self.home, &self.proj, args);
        let names: Vec<String> = std::fs::read_dir(&self.mem)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let mut counts: BTreeMap<String, usize> = names.iter().map(|n| (n.clone(), 0)).collect();
        let mem = self.mem.to_string_lossy().into_owned();
        for line in trace.lines() {
            let Some(path) = opened(line) else { continue };
            let name = match path.strip_prefix(&format!("{mem}/")) {
                Some(name) => name,
                None if !path.contains('/') => path,
                None => continue,
            };
            if let Some(n) = counts.get_mut(name) {
                *n += 1;
            }
        }
        counts
    }
}

/// Runs ccmem with `args` in `cwd` under strace, tracing the system calls `calls`, in a clean
/// environment (HOME `home`, state and managed folders under `root`); the trace's text.
fn traced(calls: &str, root: &Path, home: &Path, cwd: &Path, args: &[&str]) -> String {
    let trace = root.join("trace");
    let status = Command::new("strace")
        .args(["-f", "-qq", "-e", &format!("trace={calls}"), "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_ccmem"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("CCMEM_MANAGED_DIR", root.join("no-managed"))
        .env("NO_COLOR", "1")
        .current_dir(cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("strace runs");
    assert!(
        status.code().is_some_and(|c| c <= 1),
        "ccmem {args:?}: {status}"
    );
    std::fs::read_to_string(&trace).unwrap()
}

/// The path of an `openat`/`open` line of strace's output that opened a file (not a folder).
fn opened(line: &str) -> Option<&str> {
    if !line.contains("open") || line.contains("O_DIRECTORY") || line.contains("= -1") {
        return None;
    }
    let start = line.find('"')? + 1;
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

fn topics(counts: &BTreeMap<String, usize>) -> impl Iterator<Item = (&String, &usize)> {
    counts
        .iter()
        .filter(|(n, _)| n.ends_with(".md") && *n != "MEMORY.md")
}

/// Asserts every topic file (other than `written`) was opened exactly `n` times.
fn each_topic(counts: &BTreeMap<String, usize>, n: usize, written: &[&str], what: &str) {
    let wrong: Vec<_> = topics(counts)
        .filter(|(name, _)| !written.contains(&name.as_str()))
        .filter(|(_, k)| **k != n)
        .collect();
    assert!(
        wrong.is_empty(),
        "{what}: topic files not opened {n} time(s): {wrong:?}"
    );
}

#[test]
#[cfg_attr(
    not(ccmem_has_strace),
    ignore = "strace was not found when ccmem was built: apt-get install strace, then rebuild"
)]
fn receipt_reads_memory_md_and_each_topic_file_once() {
    let w = world();
    let counts = w.opens(&["receipt"]);
    assert_eq!(counts["MEMORY.md"], 1, "{counts:?}");
    each_topic(&counts, 1, &[], "receipt");
}

#[test]
#[cfg_attr(
    not(ccmem_has_strace),
    ignore = "strace was not found when ccmem was built: apt-get install strace, then rebuild"
)]
fn session_start_reads_memory_md_once_and_no_topic_file() {
    let w = world();
    let input = w.input(
        "start.json",
        serde_json::json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    let counts = w.opens(&["hook", "session-start", "--input", input.to_str().unwrap()]);
    assert_eq!(counts["MEMORY.md"], 1, "{counts:?}");
    each_topic(&counts, 0, &[], "hook session-start");
}

#[test]
#[cfg_attr(
    not(ccmem_has_strace),
    ignore = "strace was not found when ccmem was built: apt-get install strace, then rebuild"
)]
fn post_tool_use_reads_memory_md_and_each_topic_file_once() {
    let w = world();
    let topic = w.mem.join("project_lone.md");
    let edit = w.input(
        "edit.json",
        serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": topic, "old_string": "a", "new_string": "b"},
            "tool_response": {}}),
    );
    let counts = w.opens(&["hook", "post-tool-use", "--input", edit.to_str().unwrap()]);
    assert_eq!(
        counts["MEMORY.md"], 1,
        "after an edit of a topic file: {counts:?}"
    );
    each_topic(&counts, 1, &[], "hook post-tool-use (Edit)");
    let index = w.mem.join("MEMORY.md");
    let write = w.input(
        "write.json",
        serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": index, "content": "x"}, "tool_response": {}}),
    );
    let counts = w.opens(&["hook", "post-tool-use", "--input", write.to_str().unwrap()]);
    assert_eq!(
        counts["MEMORY.md"], 1,
        "after a write of MEMORY.md: {counts:?}"
    );
    each_topic(&counts, 0, &[], "hook post-tool-use (Write)");
}

#[test]
#[cfg_attr(
    not(ccmem_has_strace),
    ignore = "strace was not found when ccmem was built: apt-get install strace, then rebuild"
)]
fn tier_write_reads_the_library_once_and_reads_back_only_what_it_wrote() {
    let w = world();
    let before: Vec<String> = std::fs::read_dir(&w.mem)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mem = w.mem.to_str().unwrap().to_owned();
    let counts = w.opens(&["tier", &mem, "--write"]);
    // Read; the writer's check that nobody changed it, just before its rename; read back.
    assert_eq!(counts["MEMORY.md"], 3, "{counts:?}");
    let created: Vec<&str> = (counts.keys())
        .filter(|n| n.ends_with("_hub.md") && !before.contains(n))
        .map(String::as_str)
        .collect();
    assert!(!created.is_empty(), "tier wrote hubs: {counts:?}");
    each_topic(&counts, 1, &created, "tier --write");
    assert!(Path::new(&w.mem).join(created[0]).is_file());
}

/// `readlink` calls of `ccmem check` on a monorepo whose root CLAUDE.md imports each of its
/// `packages` packages' AGENTS.md (every package is a start directory).
fn check_readlinks(packages: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    let mut imports = String::from("# Monorepo\n");
    for i in 0..packages {
        let pkg = repo.join(format!("packages/p{i}"));
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("AGENTS.md"), format!("# p{i}\nrun the tests\n")).unwrap();
        std::fs::write(pkg.join("package.json"), "{}").unwrap();
        imports.push_str(&format!("- @packages/p{i}/AGENTS.md\n"));
    }
    std::fs::write(repo.join("CLAUDE.md"), imports).unwrap();
    let args = ["check", "--json", "--max-dirs", "1000"];
    let trace = traced(
        "readlink,readlinkat",
        &root,
        &root.join("home"),
        &repo,
        &args,
    );
    trace.lines().count()
}

/// A cloned repository must not be able to stall `ccmem receipt` (it runs check's engine) or
/// `ccmem check`: resolving paths grows with the repository, not with its square or
/// cube. Each package's session asked `realpath` of every skip for every loss (cubic: a root
/// importing 200 packages' files took a minute), and each AGENTS.md asked it of every entry of
/// every session (quadratic). Counted in syscalls, so a busy machine cannot make it flaky.
#[test]
#[cfg_attr(
    not(ccmem_has_strace),
    ignore = "strace was not found when ccmem was built: apt-get install strace, then rebuild"
)]
fn check_resolves_paths_in_proportion_to_the_repository() {
    let (small, big) = (check_readlinks(25), check_readlinks(50));
    assert!(
        big * 10 <= small * 25,
        "readlink calls: {small} for 25 packages, {big} for 50 (linear: 2×, quadratic: 4×)"
    );
}
