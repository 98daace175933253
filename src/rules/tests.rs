use std::path::Path;

use super::*;

#[test]
fn names_are_unique_kebab_case_and_documented() {
    let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), RULES.len(), "a name is registered twice");
    for r in RULES {
        assert!(
            r.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
            "{}",
            r.name
        );
        for section in [
            "## What it does",
            "## Why it matters",
            "## Example",
            "## Fix",
        ] {
            assert!(r.doc.contains(section), "{} lacks {section}", r.name);
        }
    }
}

#[test]
fn every_library_rule_has_a_one_line_fix_that_opens_its_fix_section() {
    // Repository rules word a fix for each finding; a library rule's findings mostly print
    // the rule's.
    for r in of(Command::Audit) {
        let fix = r.fix();
        assert!(
            fix.len() >= 20 && fix.len() <= 240 && !fix.contains('\n'),
            "{}: {fix:?}",
            r.name
        );
        let section = &r.doc[r.doc.find("## Fix").unwrap()..];
        let first = fix.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        let opening: Vec<&str> = section.split_whitespace().skip(2).take(4).collect();
        assert_eq!(first, opening.join(" "), "{}", r.name);
    }
    let cap = find("index-over-cap").unwrap().fix();
    assert!(cap.contains("`ccmem tier`"), "{cap}");
}

#[test]
fn hard_rules_are_errors_and_soft_rules_warnings() {
    assert_eq!(Category::Hard.severity(), Severity::Error);
    assert_eq!(Category::Soft.severity(), Severity::Warning);
    for (_, _, names) in REGISTERED {
        for n in *names {
            assert_eq!(find(n).unwrap().severity(), written_severity(n), "{n}");
        }
    }
}

/// Each rule's category and command, as the issues that asked for them named them, written out
/// (not read from the registry) so that the tests below can fail.
const REGISTERED: &[(Command, Category, &[&str])] = {
    use Category::{Hard, Soft};
    use Command::{Audit, Check};
    &[
        (
            Audit,
            Hard,
            &[
                "missing-frontmatter",
                "invalid-frontmatter",
                "missing-field",
                "invalid-type",
                "broken-link",
                "unreadable-file",
                "index-over-cap",
                "too-large-to-read",
                "secret-in-memory",
            ],
        ),
        (
            Audit,
            Soft,
            &[
                "unreachable-file",
                "oversized-file",
                "large-group",
                "retired-without-tombstone",
                "missing-modified",
                "stale-entry",
                "index-over-safety-line",
                "index-over-target-line",
                "long-index-line",
                "near-duplicate",
                "stray-tool-tag",
                "stale-reference",
                "name-not-slug",
                "missing-why",
                "bad-file-name",
                "missing-how-to-apply",
                "interrupted-write",
                "index-encoding",
            ],
        ),
        (
            Check,
            Hard,
            &[
                "import-outside-start-dir",
                "linked-rule-outside-start-dir",
                "agents-md-lost-below",
                "agents-md-hidden-by-local",
                "agents-md-never-loads",
                "wrong-case-name",
                "misplaced-instruction-file",
                "instruction-file-encoding",
                "instruction-file-unreadable",
                "paths-brace-over-budget",
                "invalid-paths-pattern",
                "rules-folder-linked-outside",
                "import-target-missing",
                "import-cut-at-space",
                "import-depth-exceeded",
                "exclude-pattern-relative",
                "settings-ignored",
            ],
        ),
        (
            Check,
            Soft,
            &[
                "nested-agents-md",
                "foreign-scope-key",
                "paths-match-nothing",
                "import-cycle",
                "import-in-code",
                "exclude-matches-nothing",
                "file-over-size-warning",
                "total-over-size-warning",
            ],
        ),
    ]
};

/// The severity a finding of a rule listed in [`REGISTERED`] must have, written out.
fn written_severity(rule: &str) -> Severity {
    let (_, category, _) = REGISTERED
        .iter()
        .find(|(_, _, names)| names.contains(&rule))
        .unwrap_or_else(|| panic!("{rule} is not listed in REGISTERED"));
    match category {
        Category::Hard => Severity::Error,
        Category::Soft => Severity::Warning,
    }
}

/// A rule moved to the other category or command by mistake fails here.
#[test]
fn rules_are_registered_with_their_category_and_command() {
    let mut listed = 0;
    for (command, category, names) in REGISTERED {
        for n in *names {
            let r = find(n).unwrap_or_else(|| panic!("{n} is not registered"));
            assert_eq!((r.command(), r.category), (*command, *category), "{n}");
            listed += 1;
        }
    }
    assert_eq!(listed, RULES.len(), "a registered rule is not listed here");
}

/// Every finding of the audit and the check on the fixture corpora has the severity written
/// out for its rule (hard: error, soft: warning, [`REGISTERED`]), and was found by a rule of
/// the command that ran.
#[test]
fn findings_carry_their_rules_severity() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    // The judged and curated corpora stay in the repository: Cargo.toml's include list ships
    // only the one library and repository the snapshots pin, too few to find a rule of each
    // kind, so the published crate's own test run has nothing to check here.
    if !fixtures.join("judged/make.py").is_file() {
        eprintln!("skipped: the fixture corpora are not in this copy (the published crate)");
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut found = |command: Command, diags: &[Diagnostic]| {
        for d in diags {
            let rule = find(d.rule).unwrap_or_else(|| panic!("{} is no rule", d.rule));
            assert_eq!(
                d.severity,
                written_severity(d.rule),
                "{}: {}",
                d.rule,
                d.path
            );
            assert_eq!(rule.command(), command, "{}", d.rule);
            seen.insert(d.rule);
        }
    };
    let now = "2026-11-29T00:00:00Z".parse().unwrap();
    for group in ["libraries", "curated"] {
        for case in std::fs::read_dir(fixtures.join(group)).unwrap() {
            let memory = case.unwrap().path().join("memory");
            if !memory.is_dir() {
                continue;
            }
            let config = Config::find(&memory, None).unwrap();
            let lib = crate::memory::Library::load_configured(&memory, config, None).unwrap();
            found(Command::Audit, &run::audit(lib, now).unwrap().diagnostics);
        }
    }
    let home = tempfile::tempdir().unwrap();
    let opts = repo::Options {
        config: Default::default(),
        size: repo::SizeModel::default(),
        max_dirs: repo::DEFAULT_MAX_DIRS,
        env: repo::Environment::Clean(home.path().to_path_buf(), crate::platform::Platform::Linux),
        flags: Default::default(),
        given: None,
    };
    for case in std::fs::read_dir(fixtures.join("judged/repos")).unwrap() {
        let tree = case.unwrap().path().join("tree");
        if tree.is_dir() {
            found(Command::Check, &repo::check(&tree, &opts).findings);
        }
    }
    for command in [Command::Audit, Command::Check] {
        for category in [Category::Hard, Category::Soft] {
            assert!(
                seen.iter()
                    .map(|n| find(n).unwrap())
                    .any(|r| (r.command(), r.category) == (command, category)),
                "the corpora find no {category:?} {command:?} rule: {seen:?}"
            );
        }
    }
}

fn validate(text: &str) -> Result<(), String> {
    let config = Config::parse(text, Path::new("ccmem.toml")).map_err(|e| e.to_string())?;
    check_config(&config).map_err(|e| e.to_string())
}

#[test]
fn each_table_names_rules_of_its_own_command() {
    assert_eq!(
        validate(
            "[audit]\ndisable = [\"near-duplicate\"]\n[check]\ndisable = [\"nested-agents-md\"]\n[check.per-file-ignores]\n\"vendor/**\" = [\"*\"]\n\"docs/*\" = [\"wrong-case-name\"]\n"
        ),
        Ok(())
    );
    let errors = [
        (
            "[audit]\ndisable = [\"nested-agents-md\"]\n",
            "ccmem.toml:2: `audit.disable` names an unknown rule `nested-agents-md`",
        ),
        (
            "[check]\n\ndisable = [\"near-duplicate\"]\n",
            "ccmem.toml:3: `check.disable` names an unknown rule `near-duplicate`",
        ),
        (
            "[check]\ndisable = [\"*\"]\n",
            "ccmem.toml:2: `check.disable` names an unknown rule `*`",
        ),
        (
            "[check.per-file-ignores]\n\"a\" = [\"*\"]\n\"b\" = [\"nope\"]\n",
            "ccmem.toml:3: `check.per-file-ignores` names an unknown rule `nope`",
        ),
    ];
    for (text, err) in errors {
        assert_eq!(validate(text).unwrap_err(), err, "{text}");
    }
}
