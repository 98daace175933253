use super::*;
use crate::constants;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("/m/ccmem.toml"))
}

fn line_and_why(text: &str) -> (Option<usize>, String) {
    let err = parse(text).unwrap_err();
    assert_eq!(err.path, Path::new("/m/ccmem.toml"));
    (err.line, err.why)
}

#[test]
fn defaults_and_all_tables_in_one_file() {
    let empty = parse("").unwrap();
    assert_eq!(
        (empty.spec, &empty.audit, &empty.tier),
        (
            SpecChoice::Auto,
            &AuditConfig::default(),
            &TierConfig::default()
        )
    );
    assert!(empty.check.enabled("nested-agents-md"));
    let c = parse(
        "spec = \"client\"\n[audit]\nstale-days = 30\ndisable = [\"near-duplicate\"]\n\n[tier]\npins = [\"a.md\"]\ntarget-lines = 50\n\n[check]\ndisable = [\"nested-agents-md\"]\ncontext-window = 1000000\n[check.per-file-ignores]\n\"docs/**\" = [\"wrong-case-name\"]\n\"vendor/**\" = [\"*\"]\n",
    )
    .unwrap();
    assert_eq!(c.spec, SpecChoice::Client);
    assert_eq!(c.audit.stale_days, 30);
    assert_eq!(c.audit.max_file_lines, 100);
    assert!(!c.audit.enabled("near-duplicate"));
    assert!(c.audit.enabled("broken-link"));
    assert_eq!(c.tier.pins, ["a.md"]);
    assert_eq!(c.target(), (50, constants::TARGET_UTF16));
    assert!(!c.check.enabled("nested-agents-md"));
    assert!(
        c.check.enabled("near-duplicate"),
        "[audit] disable is the audit's"
    );
    assert_eq!(c.check.context_window, Some(1_000_000));
    assert!(c.check.ignored("docs/agents.md", "wrong-case-name"));
    assert!(!c.check.ignored("docs/agents.md", "import-cycle"));
    assert!(c.check.ignored("vendor/x/CLAUDE.md", "import-cycle"));
    assert!(!c.check.ignored("agents.md", "wrong-case-name"));
    let c = parse("[audit]\ntarget-lines = 90\n").unwrap();
    assert_eq!(c.target().0, 90, "tier's target defaults to the audit's");
}

#[test]
fn typos_snake_case_and_old_names_are_errors_with_their_line() {
    let (line, why) = line_and_why("[audit]\nstale-day = 30\n");
    assert_eq!(line, Some(2));
    assert!(why.contains("stale-day"), "{why}");
    let err = parse("[tier]\n\ntarget_lines = 50\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "/m/ccmem.toml:3: `tier.target_lines`: keys are kebab-case; write `target-lines`"
    );
    let (_, why) = line_and_why("[audit]\nmax-index-line-chars = 150\n");
    assert!(why.contains("max-index-line-utf16"), "{why}");
    assert!(parse("[audit\n").is_err());
    assert!(parse("spec = \"mine\"\n").is_err());
    let (line, why) = line_and_why("[check]\n\ndisabled = []\n");
    assert_eq!(line, Some(3));
    assert!(why.contains("disabled"), "{why}");
    let (line, why) = line_and_why("[check]\nmax_dirs = 3\n");
    assert_eq!(
        (line, why.as_str()),
        (
            Some(2),
            "`check.max_dirs`: keys are kebab-case; write `max-dirs`"
        )
    );
    let (line, why) = line_and_why("[audit]\n[checks]\nmax-dirs = 3\n");
    assert_eq!(line, Some(2));
    assert!(why.contains("checks"), "{why}");
}

#[test]
fn per_file_ignores_keys_are_globs_not_names() {
    let c = parse("[check.per-file-ignores]\n\"docs/my_notes/*.md\" = [\"*\"]\n").unwrap();
    assert!(c.check.ignored("docs/my_notes/a.md", "wrong-case-name"));
    assert!(!c.check.ignored("docs/other/a.md", "wrong-case-name"));
    let (line, why) = line_and_why("[check.per-file-ignores]\n\"ok/**\" = []\n\"a[\" = [\"*\"]\n");
    assert_eq!(line, Some(3));
    assert!(why.contains("`a[` is not a glob"), "{why}");
}

#[test]
fn size_model_values_out_of_range_are_errors_at_their_line() {
    let (line, why) = line_and_why("[check]\nmax-dirs = 3\nchars-per-token = 0\n");
    assert_eq!(line, Some(3));
    assert!(why.contains("between 1 and 8"), "{why}");
    let (line, _) = line_and_why("[check]\ncontext-window = 0\n");
    assert_eq!(line, Some(2));
}

#[test]
fn unknown_rule_names_are_reported_at_their_line() {
    let c = parse(
        "[audit]\ndisable = [\"near-duplicate\"]\n[check]\ndisable = [\n  \"nested-agents-md\",\n  \"wrong-case\",\n]\n",
    )
    .unwrap();
    let known = |n: &str| ["near-duplicate", "nested-agents-md"].contains(&n);
    assert!(c.check_rule_names("a", &c.audit.disable, known).is_ok());
    let err = c
        .check_rule_names("`check.disable`", &c.check.disable, known)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "/m/ccmem.toml:6: `check.disable` names an unknown rule `wrong-case`"
    );
    let c = parse("[check.per-file-ignores]\n\"a\" = [\"b\"]\n\"c\" = [\"nope\"]\n").unwrap();
    let named = c.check.per_file_ignores.values().flatten();
    let err = c.check_rule_names("x", named, |n| n == "b").unwrap_err();
    assert_eq!(err.line, Some(3));
}

#[test]
fn found_in_the_folder_then_upwards_or_explicit() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("proj/memory");
    std::fs::create_dir_all(&lib).unwrap();
    assert!(Config::find(&lib, None).unwrap().path().is_none());
    std::fs::write(
        dir.path().join(".ccmem.toml"),
        "[audit]\nmax-file-lines = 9\n",
    )
    .unwrap();
    let c = Config::find(&lib, None).unwrap();
    assert_eq!(c.audit.max_file_lines, 9);
    assert_eq!(c.path().unwrap(), dir.path().join(".ccmem.toml"));
    std::fs::write(lib.join("ccmem.toml"), "[audit]\nmax-file-lines = 7\n").unwrap();
    let c = Config::find(&lib, None).unwrap();
    assert_eq!(
        (c.audit.max_file_lines, c.path().unwrap()),
        (7, lib.join("ccmem.toml").as_path())
    );
    let err = Config::find(&lib, Some(&dir.path().join("nope.toml"))).unwrap_err();
    assert!(err.to_string().contains("nope.toml"), "{err}");
}
