//! The conventions users expect of a CLI: shell completions and a manual page, both made from
//! the same clap definitions as `--help`.

use std::process::Command as Process;

use assert_cmd::Command;

fn ccmem(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("ccmem")
        .unwrap()
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
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
    assert!(page.contains(".TH ccmem-hook-install 1"), "{page}");
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
