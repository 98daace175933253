//! `ccmem check` as a user runs it: formats, exit codes, `--fail-on`, suppression in a file
//! and in ccmem.toml, the JSON schema file, configuration errors; and a repository-sized
//! tree (2,000 directories, 200 instruction files) whose every directory result is known
//! from how it was built.

use std::path::Path;

use serde_json::Value;

mod common;

use common::cli::{Test, snapshot};

/// A sandbox whose `repo/` holds `files`; runs start there.
fn repo(files: &[(&str, &str)]) -> Test {
    let t = Test::new().dir("repo").current_dir("repo");
    files
        .iter()
        .fold(t, |t, (rel, text)| t.file(format!("repo/{rel}"), text))
}

#[test]
fn exit_codes_and_fail_on() {
    let clean = repo(&[("CLAUDE.md", "hello\n")]);
    assert_eq!(clean.ccmem(["check", "."]).run().exit_code(), 0);
    let warn = repo(&[("CLAUDE.md", "a @b.md\n"), ("b.md", "b @CLAUDE.md\n")]);
    assert_eq!(warn.ccmem(["check", "."]).run().exit_code(), 0);
    assert_eq!(
        warn.ccmem(["check", ".", "--fail-on", "warning"])
            .run()
            .status
            .code(),
        Some(1)
    );
    let bad = repo(&[("claude.md", "lower\n")]);
    assert_eq!(bad.ccmem(["check", "."]).run().exit_code(), 1);
    assert_eq!(
        bad.ccmem(["check", ".", "--fail-on", "never"])
            .run()
            .status
            .code(),
        Some(0)
    );
    snapshot!("missing_folder", bad.ccmem(["check", "nope"]).run().code(2));
}

#[test]
fn default_root_is_the_git_repository() {
    let r = repo(&[("CLAUDE.md", "root\n"), ("pkg/sub/package.json", "{}")]);
    let r = r.dir("repo/.git").current_dir("repo/pkg/sub");
    let doc = r.ccmem(["check", "--json"]).run().json();
    assert_eq!(doc["root"], r.path("repo").to_str().unwrap());
    r.ccmem(["check", "--format", "github"]).run().code(0);
}

#[test]
fn json_follows_its_schema_file() {
    let r = repo(&[
        ("CLAUDE.md", "See @AGENTS.md\n"),
        ("AGENTS.md", "guide\n"),
        ("packages/web/package.json", "{}"),
        ("claude.md", "x\n"),
    ]);
    let doc = r.ccmem(["check", ".", "--json"]).run().json();
    assert_eq!(doc["schema"], "ccmem.check/1");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas/ccmem.check.1.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(&doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let web = doc["directories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["dir"] == "packages/web")
        .unwrap();
    assert_eq!(web["lost"][0]["path"], "AGENTS.md");
    assert_eq!(web["lost"][0]["reason"]["type"], "external-not-approved");
    assert_eq!(web["lost"][0]["from"], serde_json::json!(["CLAUDE.md", 1]));
    assert_eq!(doc["summary"]["errors"], 2);
    // The schema is live: a finding without a fix is refused.
    let mut broken = doc.clone();
    broken["findings"][0].as_object_mut().unwrap().remove("fix");
    assert!(!v.is_valid(&broken));
}

#[test]
fn human_view_shows_losses_annotated_lines_and_fixes() {
    let r = repo(&[
        ("CLAUDE.md", "# Repo\n\nSee @AGENTS.md\n"),
        ("AGENTS.md", "guide\n"),
        ("packages/web/package.json", "{}"),
    ]);
    snapshot!(
        "losses_annotated_lines_and_fixes",
        r.ccmem(["check", "."]).run().code(1)
    );
}

#[test]
fn github_annotations_carry_the_fix() {
    let r = repo(&[("app/claude.md", "x\n")]);
    let out = r.ccmem(["check", ".", "--format", "github"]).run();
    snapshot!("github", out.code(1));
}

#[test]
fn suppression_in_a_comment_and_in_ccmem_toml() {
    let r = repo(&[
        (
            "CLAUDE.md",
            "a\n<!-- ccmem-ignore: import-target-missing -->\nSee @docs/gone.md\nand @docs/also-gone.md\n",
        ),
        (
            "src/agents.md",
            "<!-- ccmem-ignore: wrong-case-name -->\nabout our agents feature\n",
        ),
        ("notes/claude.md", "x\n"),
        ("vendor/Claude.md", "x\n"),
        (
            "ccmem.toml",
            "[check.per-file-ignores]\n\"vendor/**\" = [\"*\"]\n",
        ),
    ]);
    let doc = r.ccmem(["check", ".", "--json"]).run().json();
    let found: Vec<(&str, &str, u64)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["path"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("import-target-missing", "CLAUDE.md", 4),
            ("wrong-case-name", "notes/claude.md", 1)
        ]
    );
    assert_eq!(doc["summary"]["suppressed"], 3);
    let r = r.file("repo/ccmem.toml", "[check]\ndisable = [\"wrong-case\"]\n");
    snapshot!("unknown_rule", r.ccmem(["check", "."]).run().code(2));
}

#[test]
fn size_model_is_stated_and_configurable() {
    let big = "x".repeat(50_000);
    let r = repo(&[("CLAUDE.md", &big)]);
    let doc = r.ccmem(["check", ".", "--json"]).run().json();
    assert_eq!(doc["size_model"]["file_warn_chars"], 40_000);
    assert_eq!(doc["findings"][0]["rule"], "file-over-size-warning");
    let doc = r
        .ccmem([
            "check",
            ".",
            "--json",
            "--context-window",
            "1000000",
            "--chars-per-token",
            "3",
        ])
        .run()
        .json();
    assert_eq!(doc["size_model"]["file_warn_chars"], 150_000);
    assert!(doc["findings"].as_array().unwrap().is_empty());
}

#[test]
fn explain_finds_check_rules() {
    let out = Test::new().ccmem(["explain", "agents-md-lost-below"]).run();
    snapshot!("explain", out.code(0));
}

/// 20 packages × (1 + 9 folders) × 10 subfolders = 2,000 directories; a CLAUDE.md in the root,
/// every package and most folders (200 instruction files); the root imports a shared guide;
/// one folder of package 7 has a lowercase `claude.md` instead.
#[test]
fn a_repository_of_two_thousand_directories() {
    let t = Test::new().dir("repo").current_dir("repo");
    let root = t.path("repo");
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("CLAUDE.md", "Root rules.\n\nSee @docs/guide.md\n");
    w("docs/guide.md", "The shared guide.\n");
    let mut instruction = 1;
    let mut dirs = 2; // the root and docs
    for p in 0..20 {
        let pkg = format!("packages/p{p:02}");
        w(&format!("{pkg}/package.json"), "{}");
        w(&format!("{pkg}/CLAUDE.md"), &format!("package {p}\n"));
        instruction += 1;
        for f in 0..9 {
            for s in 0..10 {
                w(&format!("{pkg}/f{f}/s{s}/index.ts"), "x\n");
                dirs += 1;
            }
            dirs += 1;
            if instruction < 200 {
                let name = if p == 7 && f == 0 {
                    "claude.md"
                } else {
                    "CLAUDE.md"
                };
                w(&format!("{pkg}/f{f}/{name}"), &format!("folder {p}/{f}\n"));
                if name == "CLAUDE.md" {
                    instruction += 1;
                }
            }
        }
        dirs += 1;
    }
    dirs += 1; // packages/
    let doc = t.ccmem(["check", ".", "--json"]).run().json();
    let walk = &doc["walk"];
    assert!(walk["directories"].as_u64().unwrap() >= 2_000, "{walk}");
    assert_eq!(walk["directories"], dirs);
    assert_eq!(walk["instruction_files"], instruction);
    let instruction = instruction as usize;
    assert_eq!(instruction, 200);
    let listed = doc["directories"].as_array().unwrap();
    // The root, and the directory of every other CLAUDE.md (package roots among them).
    assert_eq!(listed.len(), instruction);
    for d in listed {
        let dir = d["dir"].as_str().unwrap();
        let mut want = vec!["CLAUDE.md".to_owned()];
        if dir == "." {
            want.push("docs/guide.md".into());
        } else {
            let parts: Vec<&str> = dir.split('/').collect();
            for k in 2..=parts.len() {
                let here = parts[..k].join("/");
                if root.join(&here).join("CLAUDE.md").is_file() {
                    want.push(format!("{here}/CLAUDE.md"));
                }
            }
        }
        let got: Vec<&str> = d["loaded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{dir}");
        let lost: Vec<&str> = d["lost"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["path"].as_str().unwrap())
            .collect();
        assert_eq!(
            lost,
            if dir == "." {
                vec![]
            } else {
                vec!["docs/guide.md"]
            },
            "{dir}"
        );
    }
    let findings = doc["findings"].as_array().unwrap();
    let outside: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "import-outside-start-dir")
        .collect();
    assert_eq!(outside.len(), 1);
    assert_eq!(
        outside[0]["start_dirs"].as_array().unwrap().len(),
        listed.len() - 1
    );
    let misnamed: Vec<&str> = findings
        .iter()
        .filter(|f| f["rule"] == "wrong-case-name")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(misnamed, ["packages/p07/f0/claude.md"]);
    assert_eq!(findings.len(), 2, "{findings:?}");
}

#[test]
fn a_missing_folder_is_named_once_with_exit_two() {
    let t = Test::new();
    let missing = t.path("nope");
    let out = t.ccmem(["check", missing.to_str().unwrap()]).run();
    snapshot!("missing_folder_absolute", out.code(2));
}

/// The clean environment keeps the platform model `CCMEM_PLATFORM` names (it used to drop it,
/// and every session was the host's). Here a Linux folder under the Windows model reads nothing
/// (its posix paths are no Windows paths), where the Linux model loads all three files.
#[test]
fn the_clean_environment_keeps_the_platform_model() {
    let r = repo(&[
        ("CLAUDE.md", "see @X.md\nand @x.md\n"),
        ("X.md", "upper\n"),
        ("x.md", "lower\n"),
    ]);
    let loaded = |platform: Option<&str>| {
        let t = match platform {
            Some(p) => r.ccmem(["check", ".", "--json"]).env("CCMEM_PLATFORM", p),
            None => r
                .ccmem(["check", ".", "--json"])
                .env_remove("CCMEM_PLATFORM"),
        };
        let doc = t.run().json();
        let root = doc["directories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["dir"] == ".")
            .cloned()
            .unwrap();
        root["loaded"].as_array().unwrap().len()
    };
    assert_eq!(loaded(None), 3);
    assert_eq!(loaded(Some("linux")), 3);
    assert_eq!(loaded(Some("windows")), 0);
}

/// Every command a fix prints is pasted into a terminal by someone: the repository names its
/// folders, so a folder called `a b;touch PWNED` must stay one word. Each backticked command of
/// each fix runs in `sh` here; it must do what it says (the rename happens) and nothing else.
#[cfg(unix)]
#[test]
fn fix_commands_quote_the_repository_s_paths() {
    let evil = "a b;touch PWNED;$(touch PWNED2)";
    let r = repo(&[
        ("CLAUDE.md", "root\n"),
        (&format!("{evil}/claude.md"), "lower\n"),
        (&format!("{evil}/.claude/CLAUDE.local.md"), "misplaced\n"),
        (&format!("{evil}/deep/AGENTS.md"), "guide\n"),
    ])
    .dir("repo/.git");
    let doc = r.ccmem(["check", ".", "--json"]).run().json();
    let fixes: Vec<String> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["fix"].as_str())
        .flat_map(|fix| {
            fix.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter(|c| c.starts_with("git mv") || c.starts_with("ln -s"))
        .collect();
    assert!(fixes.len() >= 2, "fix commands: {fixes:?}\n{doc:#}");
    let repo = r.path("repo");
    for cmd in &fixes {
        // `git mv` needs the file in the index; a plain `mv` is what it does here.
        let cmd = cmd.replacen("git mv", "mv", 1);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(&cmd)
            .current_dir(&repo)
            .output()
            .expect("sh");
        assert!(
            out.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        !repo.join("PWNED").exists() && !repo.join("PWNED2").exists(),
        "{fixes:?}"
    );
    assert!(repo.join(evil).join("CLAUDE.md").exists(), "{fixes:?}");
}
