//! SARIF 2.1.0 conformance of every command that prints it (`audit`, `check`): the output
//! validates against the vendored SARIF 2.1.0 JSON schema (tests/schemas/), every
//! `artifactLocation` is a relative `uri` with a `uriBaseId` that `originalUriBaseIds`
//! resolves, every rule has a `name` distinct from its `id` and a `fullDescription`.

mod common;

use common::cli::Test;

use std::path::Path;

use serde_json::Value;

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/sarif-2.1.0-rtm.5.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .unwrap()
}

fn run(args: &[&str], cwd: &Path) -> Value {
    let out = Test::new()
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("CCMEM_NOW", "2026-11-29T00:00:00Z")
        .env("HOME", cwd.join("home"))
        .run();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Schema-valid, relative URIs with resolvable bases, names distinct from ids; returns the
/// number of results.
fn assert_conforms(doc: &Value) -> usize {
    let errors: Vec<String> = schema()
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0:\n{}",
        errors.join("\n")
    );
    let run = &doc["runs"][0];
    let bases = run["originalUriBaseIds"].as_object().unwrap();
    for (id, base) in bases {
        let uri = base["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("file:///") && uri.ends_with('/'),
            "{id}: {uri}"
        );
    }
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert_ne!(rule["name"], rule["id"]);
        assert!(
            rule["fullDescription"]["text"]
                .as_str()
                .unwrap()
                .contains("## Why it matters")
        );
    }
    let results = run["results"].as_array().unwrap();
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        let uri = loc["uri"].as_str().unwrap();
        assert!(
            !uri.starts_with('/') && !uri.contains("://"),
            "absolute uri {uri}"
        );
        let base = loc["uriBaseId"].as_str().unwrap();
        assert!(bases.contains_key(base), "{base} not in originalUriBaseIds");
    }
    results.len()
}

#[test]
fn audit_sarif_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("my memory");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        lib.join("MEMORY.md"),
        "# I\n- [x](user_gone.md)\n- [é](note x.md)\n",
    )
    .unwrap();
    std::fs::write(lib.join("note x.md"), "no frontmatter\n").unwrap();
    let doc = run(&["audit", "--format", "sarif", "my memory"], dir.path());
    assert!(assert_conforms(&doc) >= 2);
    let uris: Vec<&str> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(uris.contains(&"note%20x.md"), "{uris:?}");
}

#[test]
fn the_schema_rejects_what_it_should() {
    // The validator is live: a result without a message is not SARIF.
    let bad = serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
        "results": [{"ruleId": "r"}]}]});
    assert!(!schema().is_valid(&bad));
}

#[test]
fn check_sarif_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    for (p, t) in [
        ("CLAUDE.md", "See @AGENTS.md\n"),
        ("AGENTS.md", "guide\n"),
        ("packages/web app/package.json", "{}"),
        ("app/claude.md", "x\n"),
        (".claude/rules/a.md", "---\nglobs: src/**\n---\nx\n"),
    ] {
        std::fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
        std::fs::write(r.join(p), t).unwrap();
    }
    let doc = run(&["check", ".", "--format", "sarif"], r);
    assert!(assert_conforms(&doc) >= 3);
    let run0 = &doc["runs"][0];
    assert_eq!(
        run0["originalUriBaseIds"]["%SRCROOT%"]["uri"]
            .as_str()
            .unwrap(),
        format!("file://{}/", r.display())
    );
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        ccmem::rules::of(ccmem::rules::Command::Check).count()
    );
    let result = run0["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["ruleId"] == "foreign-scope-key")
        .unwrap();
    assert_eq!(
        rules[result["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "foreign-scope-key"
    );
    assert!(
        result["properties"]["fix"]
            .as_str()
            .unwrap()
            .contains("paths:")
    );
}
