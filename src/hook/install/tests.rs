use super::*;

/// Settings shapes for the round trip: (name, original bytes or None for a missing file).
fn shapes() -> Vec<(&'static str, Option<&'static str>)> {
    vec![
        ("missing", None),
        ("zero bytes", Some("")),
        ("empty object", Some("{}")),
        ("empty object with newline", Some("{}\n")),
        (
            "other keys",
            Some("{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  }\n}\n"),
        ),
        (
            "empty hooks object",
            Some("{\n  \"hooks\": {},\n  \"model\": \"x\"\n}"),
        ),
        (
            "other hooks",
            Some(
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
        ),
        (
            "same matcher",
            Some(
                "{\"hooks\":{\"PostToolUse\":[{\"matcher\":\"Write|Edit|MultiEdit\",\"hooks\":[{\"type\":\"command\",\"command\":\"prettier --write\"}]}]}}",
            ),
        ),
        (
            "empty event lists",
            Some("{\n\t\"hooks\": {\n\t\t\"SessionStart\": [],\n\t\t\"PostToolUse\": []\n\t}\n}\n"),
        ),
        (
            "compact numbers and unicode",
            Some(
                "{\"cleanupPeriodDays\":1e2,\"statusLine\":{\"type\":\"command\",\"command\":\"é ✓\"},\"z\":[1,2,3]}",
            ),
        ),
    ]
}

/// Applies a planned change to an in-memory file (contents, backup) as `apply` does on disk.
fn apply_mem(file: &mut Option<Vec<u8>>, backup: &mut Option<Vec<u8>>, change: Change) {
    match change {
        Change::Unchanged => {}
        Change::Write(t) => {
            if let Some(old) = file.as_ref()
                && !has_ours(std::str::from_utf8(old).unwrap())
            {
                *backup = Some(old.clone());
            }
            *file = Some(t.into_bytes());
        }
        Change::RestoreBackup(b) => {
            *file = Some(b);
            *backup = None;
        }
        Change::Delete => *file = None,
    }
}

fn text(f: &Option<Vec<u8>>) -> Option<&str> {
    f.as_deref().map(|b| std::str::from_utf8(b).unwrap())
}

#[test]
fn install_then_uninstall_is_byte_identical_for_every_shape() {
    for (name, original) in shapes() {
        let mut file = original.map(|s| s.as_bytes().to_vec());
        let mut backup = None;
        let change = plan_install(text(&file), "ccmem").unwrap();
        let Change::Write(ref installed) = change else {
            panic!("{name}: install changed nothing");
        };
        let v: Value = serde_json::from_str(installed).unwrap();
        assert_eq!(
            v["hooks"]["SessionStart"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()["hooks"][0]["command"],
            "ccmem hook session-start",
            "{name}"
        );
        let post = v["hooks"]["PostToolUse"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(post["matcher"], POST_TOOL_USE_MATCHER, "{name}");
        apply_mem(&mut file, &mut backup, change);
        // Idempotent.
        assert_eq!(
            plan_install(text(&file), "ccmem").unwrap(),
            Change::Unchanged,
            "{name}"
        );
        let change = plan_uninstall(text(&file), backup.as_deref()).unwrap();
        apply_mem(&mut file, &mut backup, change);
        assert_eq!(text(&file), original, "{name}: not restored byte for byte");
        assert!(backup.is_none(), "{name}: backup left behind");
        assert_eq!(
            plan_uninstall(text(&file), None).unwrap(),
            Change::Unchanged,
            "{name}"
        );
    }
}

#[test]
fn install_preserves_other_keys_hooks_and_order() {
    let original = shapes()[6].1.unwrap();
    let Change::Write(out) = plan_install(Some(original), "ccmem").unwrap() else {
        panic!("no change");
    };
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hooks", "permissions"]);
    let events: Vec<&String> = v["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(
        events,
        [
            "PreToolUse",
            "SessionStart",
            "PostToolUse",
            "InstructionsLoaded"
        ]
    );
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "echo hello"
    );
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 5);
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    assert!(out.starts_with("{\n    \"hooks\""), "indent kept: {out}");
}

#[test]
fn uninstall_after_other_edits_keeps_them() {
    let mut file = Some(b"{\"model\":\"x\"}".to_vec());
    let mut backup = None;
    let change = plan_install(text(&file), "ccmem").unwrap();
    apply_mem(&mut file, &mut backup, change);
    let mut v: Value = serde_json::from_str(text(&file).unwrap()).unwrap();
    v["theme"] = json!("dark");
    let edited = serde_json::to_string_pretty(&v).unwrap();
    let change = plan_uninstall(Some(&edited), backup.as_deref()).unwrap();
    let Change::Write(out) = change else {
        panic!("expected a rewrite, got {change:?}");
    };
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v, json!({"model": "x", "theme": "dark"}));
}

#[test]
fn uninstall_removes_only_ccmem_hooks_from_a_shared_group() {
    let shared = r#"{"hooks":{"PostToolUse":[{"matcher":"Write|Edit|MultiEdit","hooks":[
        {"type":"command","command":"prettier --write"},
        {"type":"command","command":"/opt/bin/ccmem hook post-tool-use"}]}]}}"#;
    let Change::Write(out) = plan_uninstall(Some(shared), None).unwrap() else {
        panic!("no change");
    };
    let v: Value = serde_json::from_str(&out).unwrap();
    let hooks = v["hooks"]["PostToolUse"][0]["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1);
    assert_eq!(hooks[0]["command"], "prettier --write");
}

#[test]
fn reinstall_with_another_binary_updates_in_place() {
    let Change::Write(first) = plan_install(None, "ccmem").unwrap() else {
        panic!()
    };
    let Change::Write(second) = plan_install(Some(&first), "/x y/ccmem").unwrap() else {
        panic!()
    };
    let v: Value = serde_json::from_str(&second).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "'/x y/ccmem' hook session-start"
    );
}

#[test]
fn recognises_ccmem_commands_only() {
    assert!(is_ours("ccmem hook session-start"));
    assert!(is_ours("/home/u/.cargo/bin/ccmem hook post-tool-use"));
    assert!(is_ours("'/x y/ccmem' hook session-start --always"));
    assert!(!is_ours("ccmem tier"));
    assert!(!is_ours("other hook session-start"));
    assert!(!is_ours("ccmem hook install"));
    assert!(!is_ours("echo ccmem"));
}

#[test]
fn malformed_settings_are_refused_with_a_location() {
    let err = plan_install(Some("{\"a\": 1,\n}"), "ccmem")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2"), "{err}");
    assert!(plan_install(Some("[]"), "ccmem").is_err());
    assert!(plan_install(Some("{\"hooks\": []}"), "ccmem").is_err());
    assert!(plan_install(Some("{\"hooks\": {\"SessionStart\": {}}}"), "ccmem").is_err());
    assert!(plan_uninstall(Some("nope"), None).is_err());
}

#[test]
fn apply_writes_atomically_through_symlinks_and_keeps_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::write(&real, "{\"a\":1}").unwrap();
    let link = dir.path().join("settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let before = std::fs::read(&link).unwrap();
    let change = plan_install(Some("{\"a\":1}"), "ccmem").unwrap();
    apply(&link, Some(&before), &change).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(has_ours(&std::fs::read_to_string(&real).unwrap()));
    assert_eq!(std::fs::read(backup_path(&real)).unwrap(), b"{\"a\":1}");
    let now = std::fs::read_to_string(&link).unwrap();
    let change = plan_uninstall(
        Some(&now),
        Some(&std::fs::read(backup_path(&real)).unwrap()),
    )
    .unwrap();
    apply(&link, None, &change).unwrap();
    assert_eq!(std::fs::read(&real).unwrap(), b"{\"a\":1}");
    assert!(!backup_path(&real).exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temp files left: {names:?}");
}

#[test]
fn diff_shows_the_added_lines() {
    let d = diff(Path::new("/s.json"), "{}\n", "{\n  \"a\": 1\n}\n");
    assert!(d.contains("--- /s.json (before)"));
    assert!(d.contains("+  \"a\": 1"));
}

#[test]
fn install_into_a_file_without_hooks_only_adds_lines() {
    let original = "{\n\t\"model\": \"opus\",\n\t\"env\": {\"A\": \"1\", \"B\": 2e1}\n}\n";
    let Change::Write(out) = plan_install(Some(original), "ccmem").unwrap() else {
        panic!()
    };
    let d = diff(Path::new("/s.json"), original, &out);
    let removed: Vec<&str> = d
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .collect();
    assert_eq!(removed, ["-\t\"env\": {\"A\": \"1\", \"B\": 2e1}"], "{d}");
    assert!(
        out.contains(
            "\t\"env\": {\"A\": \"1\", \"B\": 2e1},\n\t\"hooks\": {\n\t\t\"SessionStart\""
        ),
        "{out}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["hooks"]["PostToolUse"][0]["matcher"],
        POST_TOOL_USE_MATCHER
    );
    let Change::Write(from_empty) = plan_install(Some("{}"), "ccmem").unwrap() else {
        panic!()
    };
    assert!(
        from_empty.starts_with("{\n  \"hooks\": {\n    \"SessionStart\": ["),
        "{from_empty}"
    );
    assert!(
        from_empty.ends_with("\n}"),
        "no newline added where there was none: {from_empty:?}"
    );
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
                let mut g = Map::new();
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
                    prop::collection::vec(group(), 0..3),
                ),
                0..4,
            )),
        )
            .prop_map(|(keys, hooks)| {
                let mut obj = Map::new();
                for (k, v) in keys {
                    obj.insert(k, v);
                }
                if let Some(events) = hooks {
                    let mut h = Map::new();
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
                    v.serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt)).unwrap();
                    String::from_utf8(out).unwrap()
                }
            };
            if newline {
                text.push('\n');
            }
            // Skip originals that already hold ccmem hooks: those are an install's output, not a user's.
            prop_assume!(!has_ours(&text));
            let Change::Write(installed) = plan_install(Some(&text), "ccmem").unwrap() else {
                panic!("install changed nothing");
            };
            prop_assert_eq!(plan_install(Some(&installed), "ccmem").unwrap(), Change::Unchanged);
            let restored = match plan_uninstall(Some(&installed), Some(text.as_bytes())).unwrap() {
                Change::RestoreBackup(b) => String::from_utf8(b).unwrap(),
                other => panic!("expected the backup back, got {other:?}"),
            };
            prop_assert_eq!(restored, text);
            // Without the backup, the user's value survives (only empty hook containers may go).
            // With nothing left, the file install would have created goes.
            let back: Value = match plan_uninstall(Some(&installed), None).unwrap() {
                Change::Write(t) => serde_json::from_str(&t).unwrap(),
                Change::Delete => json!({}),
                other => panic!("unexpected {other:?}"),
            };
            prop_assert_eq!(without_empty_hooks(&back), without_empty_hooks(&v));
        }
    }
}
