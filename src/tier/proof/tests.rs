use std::path::Path;

use super::findings::{NEAR, Reuse};
use super::*;
use crate::tier::tests::lib;
use crate::tier::{Options, Target, applied, plan, text_of, topic};

/// A file replaced or created (`Some(text)`) or removed (`None`), as [`Library::with`] takes it.
type Change<'a> = (&'a str, Option<&'a str>);

/// Two entries that say nearly the same, and an index that links them.
fn twins() -> Library {
    let body = "Deploys go through the staging cluster first; a release that skips staging is \
                rolled back by the on-call engineer without asking.";
    let entry = |n: &str, extra: &str| {
        format!("---\nname: {n}\ndescription: staging first\ntype: feedback\n---\n{body}{extra}\n")
    };
    lib(
        "# Memory\n- [a](feedback_a.md) — staging\n- [b](feedback_b.md) — staging\n",
        &[
            ("feedback_a.md", entry("a", "")),
            ("feedback_b.md", entry("b", " Always.")),
            (
                "reference_deploy_hub.md",
                "---\nname: hub\ndescription: h\ntype: reference\n---\n- [a](feedback_a.md)\n"
                    .to_owned(),
            ),
        ],
    )
}

#[test]
fn reused_findings_are_those_of_every_rule_run_again() {
    let l = twins();
    assert!(
        !Findings::of(&l).near_part().is_empty(),
        "the library has a near-duplicate finding"
    );
    let cases: [(&str, Vec<Change>, Reuse); 4] = [
        ("nothing changed", vec![], Reuse::All),
        (
            "MEMORY.md and a hub rewritten",
            vec![
                (
                    "MEMORY.md",
                    Some("# Memory\n- [deploy](reference_deploy_hub.md) — staging\n"),
                ),
                (
                    "reference_deploy_hub.md",
                    Some(
                        "---\nname: hub\ndescription: h\ntype: reference\n---\n- [a](feedback_a.md)\n- [b](feedback_b.md)\n",
                    ),
                ),
            ],
            Reuse::NearDuplicates,
        ),
        (
            "an entry's body changed",
            vec![(
                "feedback_b.md",
                Some("---\nname: b\ndescription: other\ntype: feedback\n---\nTabs.\n"),
            )],
            Reuse::Nothing,
        ),
        (
            "an entry created",
            vec![(
                "feedback_c.md",
                Some("---\nname: c\ndescription: c\ntype: feedback\n---\nc\n"),
            )],
            Reuse::Nothing,
        ),
    ];
    for (what, changes, reuse) in cases {
        let after = l.with(changes);
        assert_eq!(Reuse::of(&l, &after), reuse, "{what}");
        let (baseline, found) = Baseline::with_audit(&l, &after);
        assert_eq!(found.now.near, reuse == Reuse::Nothing, "{what}");
        found
            .check_against_full(&l, &after)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(baseline.audit(&after), found, "{what}");
        assert_eq!(found.was.near, found.now.near, "{what}");
    }
}

#[test]
fn the_file_rules_run_only_on_the_files_a_plan_writes_or_removes_and_find_what_they_change() {
    let l = twins();
    let no_name = "---\ndescription: staging first\ntype: feedback\n---\nDeploys.\n";
    let cases: [(&str, Vec<Change>, bool); 3] = [
        // A finding the plan adds, in a file it writes.
        (
            "a field dropped",
            vec![("feedback_b.md", Some(no_name))],
            false,
        ),
        // One it takes away (a file with a finding removed) is not new.
        (
            "a file removed",
            vec![("reference_deploy_hub.md", None)],
            true,
        ),
        (
            "a hub rewritten",
            vec![(
                "reference_deploy_hub.md",
                Some(
                    "---\nname: hub\ndescription: h\ntype: reference\n---\n- [b](feedback_b.md)\n",
                ),
            )],
            true,
        ),
    ];
    for (what, changes, ok) in cases {
        let after = l.with(changes);
        let (_, found) = Baseline::with_audit(&l, &after);
        found
            .check_against_full(&l, &after)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let written = l.files.len() - found.shared;
        assert!(written <= 1, "{what}: {written} files audited again");
        let check = audit_check(&l, &after, &found);
        assert_eq!(check.ok, ok, "{what}: {}", check.detail);
    }
    // Other settings: every rule on every file of both libraries.
    let mut other = l.with([("feedback_b.md", Some(no_name))]);
    other.config.audit.max_file_lines = 1;
    let (_, found) = Baseline::with_audit(&l, &other);
    assert_eq!(found.shared, 0);
    found.check_against_full(&l, &other).unwrap();
    assert!(!audit_check(&l, &other, &found).ok);
}

#[test]
fn a_near_duplicate_the_plan_makes_is_new_though_the_baseline_left_the_rule_for_later() {
    let l = twins();
    let (baseline, _) = Baseline::with_audit(&l, &l);
    assert!(
        baseline.near.get().is_none(),
        "not run for a plan that changes nothing"
    );
    let copy = text_of(topic(&l, "feedback_a.md").unwrap()).replace("name: a", "name: c");
    let after = l.with([("feedback_c.md", Some(copy.as_str()))]);
    let found = baseline.audit(&after);
    let check = audit_check(&l, &after, &found);
    assert!(!check.ok && check.detail.contains(NEAR), "{}", check.detail);
}

/// Every curated library (tests/fixtures/curated/) and every corpus library
/// (tests/fixtures/libraries/), planned at each target its `expect.toml` states and at the
/// default: the proof's findings, which leave out the file rules on the files the plan left
/// as they were, find per finding as many more (or fewer) as the whole audit run on both
/// libraries, and so the same verdict.
#[test]
#[cfg_attr(
    not(ccmem_repository),
    ignore = "reads tests/fixtures/curated/ and tests/fixtures/libraries/, which only the repository holds"
)]
fn the_proof_audit_agrees_with_the_whole_audit_on_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut libraries = Vec::new();
    for corpus in ["curated", "libraries"] {
        for entry in std::fs::read_dir(root.join(corpus)).unwrap() {
            let dir = entry.unwrap().path();
            let memory = if dir.join("memory").is_dir() {
                dir.join("memory")
            } else {
                dir.clone()
            };
            if memory.join(crate::constants::INDEX_FILE).is_file() {
                libraries.push((dir, memory));
            }
        }
    }
    libraries.sort();
    assert!(libraries.len() >= 20, "{libraries:?}");
    let (mut planned, mut written) = (0, 0);
    for (dir, memory) in &libraries {
        let lib = Library::load_configured(memory, crate::config::Config::default(), None).unwrap();
        let mut targets = vec![Options::default().target];
        if let Ok(expect) = std::fs::read_to_string(dir.join("expect.toml")) {
            let expect: toml::Table = toml::from_str(&expect).unwrap();
            for t in (expect.get("targets").and_then(|t| t.as_array()))
                .into_iter()
                .flatten()
            {
                targets.push(Target {
                    lines: t["lines"].as_integer().unwrap() as usize,
                    utf16: t["utf16"].as_integer().unwrap() as usize,
                });
            }
        }
        for target in targets {
            let opts = Options {
                target,
                ..Options::default()
            };
            let Ok(p) = plan::plan(&lib, &opts) else {
                continue;
            };
            let after = applied(&lib, &p);
            let (_, found) = Baseline::with_audit(&lib, &after);
            found
                .check_against_full(&lib, &after)
                .unwrap_or_else(|e| panic!("{} at {target:?}: {e}", dir.display()));
            planned += 1;
            written += usize::from(!p.is_noop());
        }
    }
    assert!(
        planned >= 40 && written >= 20,
        "{planned} plans, {written} writing"
    );
}
