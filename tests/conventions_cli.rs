//! The conventions users expect of a CLI: shell completions and a manual page, both made from
//! the same clap definitions as `--help`.

mod common;

use common::cli::Test;

use std::process::Command as Process;

fn ccmem(args: &[&str]) -> (i32, String, String) {
    let out = Test::new().args(args).run();
    (out.exit_code(), out.stdout(), out.stderr())
}

#[test]
fn completions_for_every_shell_name_the_commands_and_flags() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, script, err) = ccmem(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["receipt", "tier", "fail-on", "completions"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    let (code, _, err) = ccmem(&["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("possible values"), "{err}");
}

#[test]
fn bash_loads_the_completions_and_completes_a_command() {
    let (_, script, _) = ccmem(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ccmem.bash");
    std::fs::write(&file, script).unwrap();
    // What bash offers after `ccmem rec<TAB>`.
    let probe = format!(
        "source '{}'; COMP_WORDS=(ccmem rec); COMP_CWORD=1; _ccmem ccmem rec ccmem; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display()
    );
    let out = Process::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "receipt");
}

#[test]
fn man_pages_for_ccmem_and_each_command() {
    let (code, page, _) = ccmem(&["man"]);
    assert_eq!(code, 0);
    assert!(page.contains(".TH ccmem 1"), "{page}");
    assert!(page.contains("receipt"), "{page}");
    let (code, page, _) = ccmem(&["man", "hook", "install"]);
    assert_eq!(code, 0);
    let th = page.lines().find(|l| l.starts_with(".TH ")).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert!(th.starts_with(".TH ccmem-hook-install 1"), "{th}");
    assert!(th.contains(&format!("\"ccmem {version}\"")), "{th}");
    assert!(page.contains("dry\\-run"), "{page}");
    let (code, _, err) = ccmem(&["man", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("ccmem has no command \"nope\""), "{err}");

    // The page renders with the system's man, when it has one.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ccmem.1");
    std::fs::write(&file, ccmem(&["man"]).1).unwrap();
    match Process::new("man")
        .arg("-l")
        .arg(&file)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
    {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                text.contains("SYNOPSIS") && text.contains("receipt"),
                "{text}"
            );
        }
        Err(e) => eprintln!("note: man is not installed ({e}); the page was not rendered"),
    }
}

/// A project whose MEMORY.md (205 entries) is cut: `receipt` has findings (exit 1) and colours.
fn cut_project() -> (tempfile::TempDir, Vec<(&'static str, std::path::PathBuf)>) {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("mem"));
    for d in [&home, &proj, &mem] {
        std::fs::create_dir_all(d).unwrap();
    }
    let index: String = (1..=205)
        .map(|i| format!("- [e{i}](e{i}.md) — entry {i}\n"))
        .collect();
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    let vars = vec![
        ("HOME", home.clone()),
        ("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem),
        ("CCMEM_MANAGED_DIR", home.join("no-managed")),
        ("PWD_", proj),
    ];
    (root, vars)
}

fn run_in(vars: &[(&str, std::path::PathBuf)], args: &[&str]) -> (i32, String) {
    let mut cmd = Test::new().args(args);
    for (k, v) in vars {
        cmd = if *k == "PWD_" {
            cmd.current_dir(v)
        } else {
            cmd.env(k, v)
        };
    }
    let out = cmd.run();
    (out.exit_code(), out.stdout())
}

#[test]
fn quiet_prints_no_report_and_keeps_the_exit_status_and_json() {
    let (_root, vars) = cut_project();
    let (code, out) = run_in(&vars, &["receipt"]);
    assert_eq!(code, 1);
    assert!(out.contains("never reach the model"), "{out}");
    assert_eq!(run_in(&vars, &["receipt", "-q"]), (1, String::new()));
    assert_eq!(
        run_in(&vars, &["-q", "tier", "--check"]),
        (1, String::new())
    );
    let (code, out) = run_in(&vars, &["--quiet", "receipt", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "ccmem.receipt/1");
}

#[test]
fn color_is_off_through_a_pipe_unless_asked_for() {
    let (_root, vars) = cut_project();
    let has_escape = |s: &str| s.contains("\u{1b}[");
    assert!(!has_escape(&run_in(&vars, &["receipt"]).1));
    assert!(!has_escape(
        &run_in(&vars, &["receipt", "--color", "never"]).1
    ));
    assert!(!has_escape(&run_in(&vars, &["receipt", "--color=auto"]).1));
    let (_, always) = run_in(&vars, &["--color", "always", "receipt"]);
    assert!(has_escape(&always), "{always}");
    // JSON is never coloured.
    let (_, json) = run_in(&vars, &["--color", "always", "receipt", "--json"]);
    assert!(!has_escape(&json));
}
