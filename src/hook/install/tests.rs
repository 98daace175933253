use serde_json::{Value, json};

use super::*;

fn install(text: Option<&str>, bin: &str) -> Option<String> {
    plan_install(text.map(str::as_bytes), bin, ENTRIES)
        .unwrap()
        .after
        .map(|b| String::from_utf8(b).unwrap())
}

fn uninstall(text: &str) -> Option<String> {
    plan_uninstall(Some(text.as_bytes()))
        .unwrap()
        .after
        .map(|b| String::from_utf8(b).unwrap())
}

fn value(text: &str) -> Value {
    serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap()
}

/// Settings shapes whose install → uninstall round trip is exact by splicing alone.
fn shapes() -> Vec<(&'static str, &'static str)> {
    vec![
        ("empty object", "{}"),
        ("empty object with newline", "{}\n"),
        (
            "other keys",
            "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n",
        ),
        (
            "other hooks",
            r#"{
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] }
        ],
        "SessionStart": [
            { "hooks": [ { "type": "command", "command": "echo hello", "timeout": 5 } ] }
        ]
    },
    "permissions": { "allow": ["Read"] }
}
"#,
        ),
        (
            "same matcher, compact",
            "{\"hooks\":{\"PostToolUse\":[{\"matcher\":\"Write|Edit|MultiEdit\",\"hooks\":[{\"type\":\"command\",\"command\":\"prettier --write\"}]}]}}",
        ),
        (
            "compact numbers and unicode",
            "{\"cleanupPeriodDays\":1e2,\"statusLine\":{\"type\":\"command\",\"command\":\"é ✓\"},\"z\":[1,2,3]}",
        ),
        (
            "crlf and tabs",
            "{\r\n\t\"model\": \"x\",\r\n\t\"hooks\": {\r\n\t\t\"Stop\": []\r\n\t}\r\n}\r\n",
        ),
        ("bom", "\u{feff}{\n  \"model\": \"x\"\n}\n"),
    ]
}

#[test]
fn install_then_uninstall_is_byte_identical_for_every_shape() {
    for (name, original) in shapes() {
        let installed = install(Some(original), "ccmem").unwrap_or_else(|| panic!("{name}"));
        let v = value(&installed);
        let start = v["hooks"]["SessionStart"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        assert_eq!(
            start["hooks"][0]["command"], "ccmem hook session-start # ccmem-managed",
            "{name}"
        );
        let post = v["hooks"]["PostToolUse"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        assert_eq!(post["matcher"], POST_TOOL_USE_MATCHER, "{name}");
        assert_eq!(
            install(Some(&installed), "ccmem"),
            None,
            "{name}: idempotent"
        );
        assert_eq!(
            uninstall(&installed).as_deref(),
            Some(original),
            "{name}: not restored byte for byte:\n{installed}"
        );
        assert_eq!(uninstall(original), None, "{name}");
    }
}

#[test]
fn containers_the_removal_empties_go_with_it() {
    // `hooks: {}` before the install: the uninstall takes the emptied object away (the CLI puts
    // the exact bytes back when nothing else changed since, from the install's journal).
    let original = "{\n  \"hooks\": {},\n  \"model\": \"x\"\n}";
    let installed = install(Some(original), "ccmem").unwrap();
    assert!(
        installed.contains("\"hooks\": {\n    \"SessionStart\": [\n"),
        "{installed}"
    );
    assert_eq!(uninstall(&installed).unwrap(), "{\n  \"model\": \"x\"\n}");
}

#[test]
fn a_missing_or_empty_file_gets_a_fresh_object() {
    for original in [None, Some(""), Some("  \n")] {
        let out = install(original, "/opt/ccmem").unwrap();
        assert!(
            out.starts_with("{\n  \"hooks\": {\n    \"SessionStart\": ["),
            "{out}"
        );
        assert_eq!(uninstall(&out).as_deref(), Some("{}\n"));
        assert!(is_empty_object(b"{}\n"));
    }
}

#[test]
fn other_values_keep_their_bytes_when_the_file_has_hooks() {
    let original = "{\n  \"n\": 123456789012345678901234567890,\n  \"f\": 1.0e+2,\n  \"hooks\": {\"Stop\": [{\"hooks\": []}]},\n  \"k\":   \"\\u00e9\"\n}\n";
    let out = install(Some(original), "ccmem").unwrap();
    assert!(out.contains("123456789012345678901234567890"), "{out}");
    assert!(
        out.contains("1.0e+2") && out.contains("\"k\":   \"\\u00e9\""),
        "{out}"
    );
    let d = diff("/s.json", original, &out);
    let removed: Vec<&str> = d
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    assert_eq!(
        removed,
        ["-  \"hooks\": {\"Stop\": [{\"hooks\": []}]},"],
        "{d}"
    );
    assert_eq!(uninstall(&out).as_deref(), Some(original));
}

#[test]
fn user_written_ccmem_commands_are_never_ours() {
    let original = r#"{"hooks": {"SessionStart": [
  {"hooks": [{"type": "command", "command": "ccmem-wrapper hook session-start --my-flag"}]},
  {"hooks": [{"type": "command", "command": "ccmem hook session-start --always --recover"}]}
]}}"#;
    let plan = plan_install(Some(original.as_bytes()), "ccmem", ENTRIES).unwrap();
    let out = String::from_utf8(plan.after.unwrap()).unwrap();
    assert!(
        out.contains("ccmem-wrapper hook session-start --my-flag\""),
        "{out}"
    );
    assert!(
        out.contains("ccmem hook session-start --always --recover\""),
        "{out}"
    );
    assert_eq!(
        value(&out)["hooks"]["SessionStart"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "no second session-start: the user's own runs it"
    );
    assert!(plan.notes[0].contains("your own `ccmem hook session-start --always --recover`"));
    // Only the PostToolUse group was added; uninstall removes exactly it.
    assert_eq!(uninstall(&out).as_deref(), Some(original));
    // A file of the user's own ccmem commands: nothing to uninstall, nothing deleted.
    let plan = plan_uninstall(Some(original.as_bytes())).unwrap();
    assert_eq!(plan.after, None);
    assert!(
        plan.notes.iter().any(|n| n.contains("left your own")),
        "{:?}",
        plan.notes
    );
}

#[test]
fn the_marker_survives_bin_so_reinstall_updates_in_place_keeping_added_arguments() {
    let first = install(None, "/opt/tools/memory-guard").unwrap();
    let edited = first.replace(
        "memory-guard hook session-start # ccmem-managed",
        "memory-guard hook session-start --always # ccmem-managed",
    );
    let second = install(Some(&edited), "/x y/ccmem").unwrap();
    let v = value(&second);
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "'/x y/ccmem' hook session-start --always # ccmem-managed"
    );
    assert_eq!(install(Some(&second), "/x y/ccmem"), None);
    assert_eq!(uninstall(&second).as_deref(), Some("{}\n"));
}

#[test]
fn an_install_by_an_older_ccmem_is_brought_up_to_date_not_duplicated() {
    // What ccmem installed before the Bash reads and InstructionsLoaded were hooked.
    let old = "{\"hooks\": {\"PostToolUse\": [{\"matcher\": \"Write|Edit|MultiEdit\", \"hooks\": \
               [{\"type\": \"command\", \"command\": \"ccmem hook post-tool-use # ccmem-managed\"}]}]}}\n";
    let new = install(Some(old), "ccmem").unwrap();
    let v = value(&new);
    let post = v["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 1, "{new}");
    assert_eq!(post[0]["matcher"], POST_TOOL_USE_MATCHER);
    assert!(POST_TOOL_USE_MATCHER.split('|').any(|m| m == "Bash"));
    assert_eq!(
        v["hooks"]["InstructionsLoaded"][0]["hooks"][0]["command"],
        "ccmem hook instructions-loaded # ccmem-managed"
    );
    assert_eq!(install(Some(&new), "ccmem"), None, "idempotent");
    // A group the user shares with ccmem's command keeps the user's matcher.
    let shared = "{\"hooks\": {\"PostToolUse\": [{\"matcher\": \"Write|Edit|MultiEdit\", \"hooks\": [\
                  {\"type\": \"command\", \"command\": \"ccmem hook post-tool-use # ccmem-managed\"}, \
                  {\"type\": \"command\", \"command\": \"prettier --write\"}]}]}}\n";
    let v = value(&install(Some(shared), "ccmem").unwrap());
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["matcher"],
        "Write|Edit|MultiEdit"
    );
    assert_eq!(v["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
}

#[test]
fn recognises_the_marker_only() {
    assert!(is_ours("ccmem hook session-start # ccmem-managed"));
    assert!(is_ours("'/x y/tool' hook post-tool-use # ccmem-managed  "));
    assert!(!is_ours("ccmem hook session-start"));
    assert!(!is_ours("/home/u/.cargo/bin/ccmem hook post-tool-use"));
    assert_eq!(
        parse_ours("'/x y/c' hook session-start --always # ccmem-managed"),
        Some(("session-start", "--always"))
    );
}

#[test]
fn malformed_settings_are_refused_with_a_location() {
    let err = plan_install(Some(b"{\"a\": 1,\n}"), "ccmem", ENTRIES)
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2 column 1"), "{err}");
    for bad in [
        &b"[]"[..],
        b"{\"hooks\": []}",
        b"{\"hooks\": {\"SessionStart\": {}}}",
    ] {
        assert!(plan_install(Some(bad), "ccmem", ENTRIES).is_err());
    }
    assert!(plan_uninstall(Some(b"nope")).is_err());
    let utf16: Vec<u8> = "\u{feff}{}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let err = plan_install(Some(&utf16), "ccmem", ENTRIES)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("UTF-16") && err.contains("the client reads it"),
        "{err}"
    );
    let big_endian: Vec<u8> = "\u{feff}{}"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let err = plan_install(Some(&big_endian), "ccmem", ENTRIES)
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not load"), "{err}");
}

#[test]
fn deep_nesting_a_bom_and_bytes_that_are_not_utf8_are_kept() {
    let deep = format!(
        "\u{feff}{{\"d\": {}{}, \"s\": \"\u{0}\"}}",
        "[".repeat(150_000),
        "]".repeat(150_000)
    )
    .replace('\u{0}', "x");
    let mut bytes = deep.into_bytes();
    let at = bytes.len() - 3;
    bytes[at] = 0xff;
    let plan = plan_install(Some(&bytes), "ccmem", ENTRIES).unwrap();
    let out = plan.after.unwrap();
    assert!(out.starts_with("\u{feff}{\"d\": [[[".as_bytes()));
    assert!(
        out.windows(3).any(|w| w == b"\"\xff\""),
        "the invalid byte is kept"
    );
    let back = plan_uninstall(Some(&out)).unwrap().after.unwrap();
    assert_eq!(back, bytes);
}

#[test]
fn diff_shows_the_added_lines() {
    let d = diff("/s.json", "{}\n", "{\n  \"a\": 1\n}\n");
    assert!(d.contains("--- /s.json (before)"));
    assert!(d.contains("+  \"a\": 1"));
}

mod generated {
    use proptest::prelude::*;

    use super::*;

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i32>().prop_map(|n| json!(n)),
            "[a-zé ✓]{0,8}".prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
            Just(Value::Null),
        ]
    }

    fn group() -> impl Strategy<Value = Value> {
        (
            prop::option::of("[A-Z][a-z]{0,5}"),
            prop::collection::vec("(echo|ccmem|prettier) [a-z-]{1,12}", 0..3),
        )
            .prop_map(|(matcher, cmds)| {
                let hooks: Vec<Value> = cmds
                    .into_iter()
                    .map(|c| json!({"type": "command", "command": c}))
                    .collect();
                let mut g = serde_json::Map::new();
                if let Some(m) = matcher {
                    g.insert("matcher".into(), Value::String(m));
                }
                g.insert("hooks".into(), Value::Array(hooks));
                Value::Object(g)
            })
    }

    fn settings() -> impl Strategy<Value = Value> {
        (
            prop::collection::vec(("[a-zA-Z]{1,6}", leaf()), 0..5),
            prop::option::of(prop::collection::vec(
                (
                    prop::sample::select(vec!["SessionStart", "PostToolUse", "Stop", "PreToolUse"]),
                    prop::collection::vec(group(), 1..3),
                ),
                1..4,
            )),
        )
            .prop_map(|(keys, hooks)| {
                let mut obj = serde_json::Map::new();
                for (k, v) in keys {
                    obj.insert(k, v);
                }
                if let Some(events) = hooks {
                    let mut h = serde_json::Map::new();
                    for (e, groups) in events {
                        h.insert(e.into(), Value::Array(groups));
                    }
                    obj.insert("hooks".into(), Value::Object(h));
                }
                Value::Object(obj)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn round_trip_is_byte_identical(v in settings(), style in 0..4usize, newline: bool) {
            let mut text = match style {
                0 => serde_json::to_string(&v).unwrap(),
                1 => serde_json::to_string_pretty(&v).unwrap(),
                _ => {
                    let indent: &[u8] = if style == 2 { b"\t" } else { b"    " };
                    let mut out = Vec::new();
                    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent);
                    serde::Serialize::serialize(&v, &mut serde_json::Serializer::with_formatter(&mut out, fmt)).unwrap();
                    String::from_utf8(out).unwrap()
                }
            };
            if newline {
                text.push('\n');
            }
            let installed = install(Some(&text), "ccmem").expect("install changed nothing");
            prop_assert_eq!(install(Some(&installed), "ccmem"), None);
            let mut want = v.clone();
            if let Some(h) = want.get_mut("hooks").and_then(Value::as_object_mut) {
                for e in ENTRIES {
                    let arr = h.entry(e.event).or_insert_with(|| json!([]));
                    let ours = group_value("ccmem", e);
                    if let Some(a) = arr.as_array_mut() {
                        a.push(ours);
                    }
                }
            }
            if want.get("hooks").is_some() {
                prop_assert_eq!(value(&installed), want, "only ccmem's groups were added");
            }
            prop_assert_eq!(uninstall(&installed), Some(text));
        }
    }
}
