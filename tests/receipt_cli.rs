//! `ccmem receipt` as a newcomer first sees it: every figure says whether it is on disk or
//! loaded, long lists stop after ten lines, and a receipt with findings ends with what fixes
//! each one — a command that really runs.

mod common;

use std::path::{Path, PathBuf};

use common::cli::{Run, Test, snapshot};
use serde_json::Value;

/// A project with a CLAUDE.md whose import has a trailing `.`, and a memory folder (its name
/// has a space) whose MEMORY.md has `entries` entries, each with its topic file.
struct Project {
    t: Test,
    mem: PathBuf,
}

fn project(entries: usize, bad_import: bool) -> Project {
    let t = Test::new();
    let (proj, mem) = (t.path("proj"), t.path("my mem"));
    for d in [&proj, &mem, &proj.join("docs")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join("docs/style.md"), "Use tabs.\n").unwrap();
    let import = if bad_import {
        "@docs/style.md."
    } else {
        "@docs/style.md"
    };
    let claude_md = format!("<!-- a note the client strips -->\n# rules\nsee {import}\n");
    std::fs::write(proj.join("CLAUDE.md"), claude_md).unwrap();
    let mut index = String::new();
    for i in 1..=entries {
        let name = format!("project_topic-{i:03}.md");
        index.push_str(&format!("- [topic {i}]({name}) — fact {i}, kept short\n"));
        let topic = format!(
            "---\nname: topic {i}\ndescription: fact {i}\ntype: project\n---\n\nfact {i}\n"
        );
        std::fs::write(mem.join(name), topic).unwrap();
    }
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    let t = t
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &mem)
        .current_dir("proj");
    Project { t, mem }
}

fn ccmem(p: &Project, args: &[&str]) -> Run {
    p.t.ccmem(args).run()
}

fn receipt(p: &Project, args: &[&str]) -> (i32, String) {
    let out = p.t.ccmem(["receipt"]).args(args).run();
    (out.exit_code(), out.stdout())
}

fn file_len(p: &Path) -> String {
    ccmem::receipt::group(std::fs::metadata(p).unwrap().len() as usize)
}

#[test]
fn each_loaded_row_shows_loaded_figures_and_names_the_size_on_disk() {
    let p = project(215, false);
    // 200 kept lines, a blank line and the client's warning: what the model receives; the
    // receipt's `--all` view lists every dark line and every unlinked topic.
    let out = p.t.ccmem(["receipt", "--all"]).run().code(1);
    snapshot!("over_the_cut_all", out);
    let on_disk = format!("· on disk: {} bytes", file_len(&p.mem.join("MEMORY.md")));
    assert!(receipt(&p, &[]).1.contains(&on_disk));

    let json: Value = serde_json::from_str(&receipt(&p, &["--json"]).1).unwrap();
    let loaded_files = json["loaded"].as_array().unwrap();
    let index = loaded_files
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("/MEMORY.md"))
        .unwrap();
    let loaded = index["loaded_bytes"].as_u64().unwrap();
    let disk = index["size"]["bytes"].as_u64().unwrap();
    assert!(loaded < disk, "loaded {loaded} ≥ on disk {disk}");
    // The CLAUDE.md's comment is stripped: fewer bytes loaded than on disk there too.
    let claude = &json["loaded"][0];
    assert!(claude["loaded_bytes"].as_u64() < claude["size"]["bytes"].as_u64());
    let totals = &json["totals"];
    let sum: u64 = loaded_files
        .iter()
        .map(|l| l["loaded_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(totals["loaded_bytes"].as_u64(), Some(sum));
}

/// The fixes come last, each beside its finding and again in "To fix"; long lists stop at ten.
#[test]
fn a_receipt_with_findings_ends_with_the_command_that_fixes_each() {
    let p = project(215, true);
    snapshot!("findings_and_fixes", p.t.ccmem(["receipt"]).run().code(1));

    // The fix runs as printed: a dry run that plans the restructure and writes nothing.
    let json: Value = serde_json::from_str(&receipt(&p, &["--json"]).1).unwrap();
    let dark = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "dark")
        .unwrap();
    let command = dark["fix"].as_str().unwrap();
    let command = &command[..command.find(" (").unwrap()];
    let words = shell_words::split(command).unwrap();
    assert_eq!(words[..2], ["ccmem", "tier"]);
    let before = std::fs::read(p.mem.join("MEMORY.md")).unwrap();
    let words: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let out = ccmem(&p, &words).code(0);
    assert!(out.stdout().contains("Dry run: nothing written."));
    assert_eq!(std::fs::read(p.mem.join("MEMORY.md")).unwrap(), before);
}

#[test]
fn a_clean_receipt_has_nothing_to_fix() {
    let p = project(20, false);
    snapshot!("clean", p.t.ccmem(["receipt"]).run().code(0));
}

/// The receipt counts the topic files MEMORY.md reaches as `audit` and `tier` count them (the
/// memory library's reach): a topic listed in a hub that the loaded part links is reached; one
/// linked only from past the cut, or from nowhere, is not.
#[test]
fn topics_reached_through_a_hub_count_as_reached() {
    let p = project(2, false);
    let fm = |name: &str| {
        format!("---\nname: {name}\ndescription: {name} fact\ntype: project\n---\n\nfact\n")
    };
    let mut index = std::fs::read_to_string(p.mem.join("MEMORY.md")).unwrap();
    index.push_str("- [infra hub](reference_infra_hub.md) — deploys, cron, queues\n");
    std::fs::write(p.mem.join("MEMORY.md"), &index).unwrap();
    std::fs::write(
        p.mem.join("reference_infra_hub.md"),
        fm("infra-hub") + "- [deploys](project_deploys.md)\n- [[project_cron]]\n",
    )
    .unwrap();
    for name in ["project_deploys", "project_cron", "project_orphan"] {
        std::fs::write(p.mem.join(format!("{name}.md")), fm(name)).unwrap();
    }
    snapshot!(
        "reached_through_a_hub",
        p.t.ccmem(["receipt"]).run().code(0)
    );

    let (_, json) = receipt(&p, &["--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let linked = |list: &Value, name: &str| {
        let entry = (list.as_array().unwrap().iter())
            .find(|l| l["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not in {list}"));
        entry["why"]["linked"].as_bool().unwrap()
    };
    for list in [&v["lazy"], &v["auto_memory"]["lazy"]] {
        assert!(linked(list, "/project_cron.md"));
        assert!(linked(list, "/project_deploys.md"));
        assert!(linked(list, "/reference_infra_hub.md"));
        assert!(!linked(list, "/project_orphan.md"));
    }
}

/// A monorepo with the traps `check` catches and a receipt alone never showed (issue 25): a
/// rule with Cursor's `globs:` key (German), a malformed `paths:` (Chinese), a lower-case
/// `claude.md` (Japanese), a nested `AGENTS.md` that never loads (Chinese), and the root's
/// `AGENTS.md` imported by its `CLAUDE.md`.
fn monorepo() -> Test {
    Test::new().tree(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "CLAUDE.md",
            "# Acme storefront\n\n@AGENTS.md\n\n- Use pnpm, never npm.\n",
        ),
        ("AGENTS.md", "# Agents\n\nRun `pnpm test` before every commit.\n"),
        (
            ".claude/rules/typescript.md",
            "---\nglobs: \"apps/**/*.ts\"\ndescription: TypeScript-Regeln\n---\n# TypeScript-Regeln\n\n- Keine `any`-Typen.\n",
        ),
        (
            ".claude/rules/api.md",
            "---\npaths: \"apps/api/{routes,models\"\n---\n# API\n\n- 所有接口返回统一错误格式。\n",
        ),
        ("apps/web/package.json", "{\"name\": \"web\"}\n"),
        ("apps/web/claude.md", "# ウェブ\n\n- コンポーネントは関数で書く。\n"),
        ("apps/web/src/main.ts", "export {};\n"),
        ("apps/api/package.json", "{\"name\": \"api\"}\n"),
        ("apps/api/AGENTS.md", "# API 服务\n\n- 用 `pnpm --filter api dev` 启动。\n"),
        ("apps/api/routes/orders.ts", "export {};\n"),
    ])
}

/// The receipt names every trap `check` reports for its start directory, counts the rest of
/// the repository with the command that shows it, and fails on the errors among them.
#[test]
fn a_receipt_names_the_traps_check_reports_for_its_start_directory() {
    let t = monorepo();
    snapshot!("traps_at_the_root", t.ccmem(["receipt"]).run().code(1));
    // From apps/web the trap of apps/api is elsewhere: counted, not listed.
    let web = t.clone().current_dir("apps/web");
    snapshot!("traps_in_a_package", web.ccmem(["receipt"]).run().code(1));

    let v: Value = serde_json::from_str(&web.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
    let traps = &v["traps"];
    let rules: Vec<&str> = (traps["findings"].as_array().unwrap().iter())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"wrong-case-name"), "{rules:?}");
    assert!(rules.contains(&"foreign-scope-key"), "{rules:?}");
    assert!(!rules.contains(&"agents-md-never-loads"), "{rules:?}");
    assert!(traps["elsewhere"].as_u64().unwrap() >= 1);
    assert_eq!(traps["start"], "apps/web");
    // The same findings as `check --user-config` run from the root, where they are listed.
    let checked: Value = serde_json::from_str(
        &t.ccmem(["check", "--user-config", "--json", "--fail-on", "never"])
            .run()
            .stdout(),
    )
    .unwrap();
    let all = checked["findings"].as_array().unwrap().len() as u64;
    let here = traps["findings"].as_array().unwrap().len() as u64;
    assert_eq!(
        here + traps["elsewhere"].as_u64().unwrap(),
        all,
        "{checked}"
    );

    // `--no-check` leaves them out, and the exit status with them.
    let out = t.ccmem(["receipt", "--no-check"]).run().code(0);
    assert!(!out.stdout().contains("Traps"), "{}", out.stdout());
    // The repository's ccmem.toml applies as it does to `check`.
    let t = t.file("ccmem.toml", "[check]\ndisable = [\"wrong-case-name\"]\n");
    let v: Value = serde_json::from_str(&web.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
    let rules: Vec<&str> = (v["traps"]["findings"].as_array().unwrap().iter())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"wrong-case-name"), "{rules:?}");
    drop(t);
}

/// A file the session loads is never also listed as skipped: the root's AGENTS.md, not read on
/// its own because CLAUDE.md loads, loads as CLAUDE.md's import.
#[test]
fn a_file_loaded_through_an_import_is_not_also_skipped() {
    let t = monorepo();
    let v: Value = serde_json::from_str(&t.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
    let loaded: Vec<&str> = (v["loaded"].as_array().unwrap().iter())
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert!(
        loaded.iter().any(|p| p.ends_with("/AGENTS.md")),
        "{loaded:?}"
    );
    for s in v["skipped"].as_array().unwrap() {
        let path = s["path"].as_str().unwrap();
        assert!(
            !loaded.contains(&path),
            "{path} both loaded and skipped: {s}"
        );
    }
}

/// Outside a git repository the receipt checks nothing (`check` would walk the whole folder,
/// a home folder included).
#[test]
fn outside_a_git_repository_the_receipt_checks_nothing() {
    let t = monorepo();
    std::fs::remove_dir_all(t.path(".git")).unwrap();
    let v: Value = serde_json::from_str(&t.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
    assert!(v.get("traps").is_none(), "{v}");
}

/// A MEMORY.md an editor saved as UTF-16 (with its BOM, little- or big-endian) loads: the
/// client reads it as UTF-8 and its sanitizer drops the NUL bytes, so the model gets its ASCII
/// links (captured cases `mem-utf16le-bom`, `mem-utf16be-bom`). The receipt counts the topic files they
/// reach from that same decoded text, as `audit` does: only the one the index never names is
/// unreached.
#[test]
fn a_utf16_index_reaches_the_topics_its_links_name() {
    let index = "- [Deploys](project_deploys.md) — 部署は金曜日に止める\r\n\
                 - [Cron](project_cron.md) — cron 작업은 UTC\r\n";
    let fm = |name: &str| {
        format!("---\nname: {name}\ndescription: {name} fact\ntype: project\n---\n\nfact\n")
    };
    for (bom, units, name) in [
        (
            [0xFF, 0xFE],
            index
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect::<Vec<u8>>(),
            "utf16le_index",
        ),
        (
            [0xFE, 0xFF],
            index.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            "utf16be_index",
        ),
    ] {
        let mut t = Test::new().tree(&[
            ("proj/.git/HEAD", "ref: refs/heads/main\n"),
            ("proj/CLAUDE.md", "# proj\n"),
            ("mem/project_deploys.md", &fm("deploys")),
            ("mem/project_cron.md", &fm("cron")),
            ("mem/project_orphan.md", &fm("orphan")),
        ]);
        t = t.file("mem/MEMORY.md", [&bom[..], &units].concat());
        let mem = t.path("mem");
        let t = t
            .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &mem)
            .current_dir("proj");
        snapshot!(name, t.ccmem(["receipt"]).run().code(0));
        let v: Value =
            serde_json::from_str(&t.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
        let linked: Vec<(String, bool)> = (v["auto_memory"]["lazy"].as_array().unwrap().iter())
            .map(|l| {
                let path = l["path"].as_str().unwrap();
                let name = path.rsplit('/').next().unwrap().to_owned();
                (name, l["why"]["linked"].as_bool().unwrap())
            })
            .collect();
        let want = [
            ("project_cron.md".to_owned(), true),
            ("project_deploys.md".to_owned(), true),
            ("project_orphan.md".to_owned(), false),
        ];
        assert_eq!(linked, want, "{name}");
        // `audit` counts the same reach: the orphan alone is unreachable.
        let audit = t.ccmem(["audit", "--json", "../mem"]).run();
        let v: Value = serde_json::from_str(&audit.stdout()).unwrap();
        let mut by_rule: Vec<(String, String)> = (v["diagnostics"].as_array().unwrap().iter())
            .filter(|f| {
                ["unreachable-file", "index-encoding"].contains(&f["rule"].as_str().unwrap())
            })
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_owned(),
                    f["path"]
                        .as_str()
                        .unwrap()
                        .trim_start_matches("../mem/")
                        .to_owned(),
                )
            })
            .collect();
        by_rule.sort();
        assert_eq!(
            by_rule,
            [
                ("index-encoding".to_owned(), "MEMORY.md".to_owned()),
                (
                    "unreachable-file".to_owned(),
                    "project_orphan.md".to_owned()
                ),
            ],
            "{name}: {}",
            audit.stdout()
        );
    }
}

/// A repository whose `.claude/settings.json` holds 2,000 `claudeMdExcludes` that exclude
/// nothing: each is an `exclude-matches-nothing` trap (up to the 1,000 patterns ccmem compiles).
/// The receipt lists ten of them and counts the rest; `--all` and the JSON have them all.
#[test]
fn a_thousand_traps_of_one_rule_are_ten_lines_and_a_count() {
    let excludes: Vec<String> = (0..2_000)
        .map(|k| format!("**/vendor-{k}/CLAUDE.md"))
        .collect();
    let t = Test::new().tree(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("CLAUDE.md", "# Shop\n\n- Run the tests first.\n"),
        (
            ".claude/settings.json",
            &serde_json::json!({ "claudeMdExcludes": excludes }).to_string(),
        ),
    ]);
    let run = t.ccmem(["receipt"]).run().code(0);
    snapshot!("a_thousand_traps_of_one_rule", run);
    let all = t.ccmem(["receipt", "--all"]).run().code(0).stdout();
    let listed = |text: &str| text.matches("[exclude-matches-nothing]").count();
    let v: Value = serde_json::from_str(&t.ccmem(["receipt", "--json"]).run().stdout()).unwrap();
    let traps = v["traps"]["findings"].as_array().unwrap().len();
    assert!(traps > 1_000, "{traps}");
    assert_eq!((listed(&run.stdout()), listed(&all)), (10, traps));
}
