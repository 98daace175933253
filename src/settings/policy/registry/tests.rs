use super::*;
use std::cell::RefCell;

/// A registry for [`registry`] in tests: what each hive holds.
type Fake = Box<dyn Fn(Hive) -> Option<RegValue>>;

thread_local! {
    pub(super) static FAKE_REGISTRY: RefCell<Option<Fake>> = RefCell::new(None);
}

use crate::settings::{Settings, Source};

use crate::settings::policy::testing::{env, excludes, policy};
use crate::settings::policy::{read_os_policy, unread_sources};

/// A string value as the registry stores it: UTF-16LE with its NUL.
fn sz(text: &str) -> RegValue {
    RegValue::Data {
        ty: REG_SZ,
        bytes: text
            .encode_utf16()
            .chain([0])
            .flat_map(u16::to_le_bytes)
            .collect(),
    }
}

/// One of a hive's values in the fake registry.
#[derive(Clone)]
enum Held {
    Sz(&'static str),
    Dword,
    TooLarge,
    Denied,
}

impl Held {
    fn value(&self) -> RegValue {
        match self {
            Held::Sz(t) => sz(t),
            Held::Dword => RegValue::Data {
                ty: 4,
                bytes: vec![1, 0, 0, 0],
            },
            Held::TooLarge => RegValue::TooLarge(MAX_REGISTRY_BYTES + 2),
            Held::Denied => RegValue::Error(std::io::Error::from_raw_os_error(if cfg!(windows) {
                5
            } else {
                13
            })),
        }
    }
}

/// The Windows model's settings with `hklm` and `hkcu` in the registry and `file` as
/// managed-settings.json (set as `Settings::load` sets them, without a managed folder on
/// disk, whose Windows path this host could not open).
fn windows(hklm: Option<Held>, hkcu: Option<Held>, file: Option<&str>) -> Settings {
    FAKE_REGISTRY.with(|f| {
        *f.borrow_mut() = Some(Box::new(move |hive| {
            let held = match hive {
                Hive::Machine => hklm.clone(),
                Hive::User => hkcu.clone(),
            };
            Some(held.map_or(RegValue::Missing, |h| h.value()))
        }))
    });
    let mut s = Settings::default();
    if let Some(text) = file {
        s.push_text(Source::Policy, "managed-settings.json".into(), text);
    }
    s.place_os_policy(&env("windows", &[]), 0);
    FAKE_REGISTRY.with(|f| *f.borrow_mut() = None);
    s
}

fn origin(s: &Settings, key: &str) -> Option<String> {
    s.get_with_layer(Source::Policy, key)
        .map(|(_, l)| l.origin.clone())
}

const HKLM: &str = r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings";
const HKCU: &str = r"HKCU\SOFTWARE\Policies\ClaudeCode\Settings";

#[test]
fn the_text_of_a_registry_value_is_what_zr_takes() {
    assert_eq!(value_text(RegValue::Missing), RegText::Missing);
    assert_eq!(
        value_text(sz(" \t{\"a\": 1}\r\n\u{feff} ")),
        RegText::Text("{\"a\": 1}".into())
    );
    // The UTF-16 ends at its first NUL; no NUL at all is fine too.
    assert_eq!(value_text(sz("{}\0junk")), RegText::Text("{}".into()));
    let bare = RegValue::Data {
        ty: REG_EXPAND_SZ,
        bytes: "{}".encode_utf16().flat_map(u16::to_le_bytes).collect(),
    };
    assert_eq!(value_text(bare), RegText::Text("{}".into()));
    assert_eq!(value_text(Held::Dword.value()), RegText::NotText(4));
    assert_eq!(
        value_text(Held::TooLarge.value()),
        RegText::Unread("the value exceeds 2 MiB (2,097,154 bytes)".into())
    );
}

#[test]
fn hklm_with_settings_replaces_the_files_settings() {
    let s = windows(
        Some(Held::Sz(
            r#"{"claudeMd": "hklm", "claudeMdExcludes": ["a"]}"#,
        )),
        Some(Held::Sz(r#"{"claudeMd": "hkcu"}"#)),
        Some(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"], "autoMemoryEnabled": false}"#),
    );
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"hklm\""));
    assert_eq!(origin(&s, "/claudeMd").as_deref(), Some(HKLM));
    assert_eq!(excludes(&s), ["a"]);
    assert_eq!(policy(&s, "/autoMemoryEnabled"), None);
    assert_eq!(
        s.read_policy.len(),
        1,
        "HKCU is not read: {:?}",
        s.read_policy
    );
    assert_eq!(
        s.read_policy[0].note,
        "the HKLM policy key: the policy; managed-settings.json and its drop-ins give none \
         of their settings"
    );
    assert!(s.stops_client().is_none());
}

#[test]
fn hklm_merge_lays_it_over_the_file() {
    let s = windows(
        Some(Held::Sz(
            r#"{"managedSourcesBehavior": "merge", "claudeMdExcludes": ["a"]}"#,
        )),
        None,
        Some(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"]}"#),
    );
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"file\""));
    let mut got = excludes(&s);
    got.sort();
    assert_eq!(got, ["a", "b"]);
}

#[test]
fn hklm_that_is_not_a_json_object_stops_the_client() {
    for held in [
        Held::Sz("{\"claudeMd\":"),
        Held::Sz("[]"),
        Held::Sz(""),
        Held::Sz(" \t "),
        Held::Dword,
    ] {
        let s = windows(Some(held), Some(Held::Sz(r#"{"claudeMd": "hkcu"}"#)), None);
        let stop = s.stops_client().expect("stops the client");
        assert_eq!(stop.origin, HKLM);
        assert!(
            stop.message.contains("refuses to start"),
            "{}",
            stop.message
        );
        assert_eq!(policy(&s, "/claudeMd"), None, "HKCU is kept out");
    }
}

#[test]
fn hklm_without_content_leaves_the_file_and_then_hkcu() {
    for text in ["{}", r#"{"managedSourcesBehavior": "merge"}"#] {
        let s = windows(Some(Held::Sz(text)), None, Some(r#"{"claudeMd": "file"}"#));
        assert_eq!(
            policy(&s, "/claudeMd").as_deref(),
            Some("\"file\""),
            "{text}"
        );
        let s = windows(
            Some(Held::Sz(text)),
            Some(Held::Sz(r#"{"claudeMd": "hkcu"}"#)),
            None,
        );
        assert_eq!(origin(&s, "/claudeMd").as_deref(), Some(HKCU), "{text}");
    }
    // A document with a key of its own (even an empty object) keeps HKCU out, though it is
    // no policy itself.
    let s = windows(
        Some(Held::Sz(r#"{"permissions": {}}"#)),
        Some(Held::Sz(r#"{"claudeMd": "hkcu"}"#)),
        None,
    );
    assert_eq!(policy(&s, "/claudeMd"), None);
}

#[test]
fn hkcu_is_the_policy_only_when_no_administrator_source_holds_settings() {
    let user = || {
        Some(Held::Sz(
            r#"{"claudeMd": "hkcu", "managedSourcesBehavior": "merge"}"#,
        ))
    };
    let s = windows(None, user(), None);
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"hkcu\""));
    assert_eq!(policy(&s, "/managedSourcesBehavior"), None, "never merged");
    assert!(
        s.read_policy[0]
            .note
            .contains("the policy (no administrator")
    );
    // An empty managed-settings.json holds nothing: HKCU still applies.
    let s = windows(None, user(), Some("{}"));
    assert_eq!(origin(&s, "/claudeMd").as_deref(), Some(HKCU));
    // One with settings, or one the client cannot parse, keeps it out.
    for file in [r#"{"claudeMdExcludes": []}"#, "{nope"] {
        let s = windows(None, user(), Some(file));
        assert_ne!(origin(&s, "/claudeMd").as_deref(), Some(HKCU), "{file}");
        assert!(
            s.read_policy[0]
                .note
                .contains("not read: managed-settings.json"),
            "{file}: {:?}",
            s.read_policy
        );
    }
    // Only keys an administrator may set, or none: nothing.
    let s = windows(None, Some(Held::Sz(r#"{"isolation": {"x": 1}}"#)), None);
    assert!(s.layers.is_empty());
    assert_eq!(
        s.read_policy[0].note,
        "the HKCU policy key: holds no policy settings"
    );
}

#[test]
fn a_broken_hkcu_value_is_a_warning_not_a_stop() {
    for held in [Held::Sz("{nope"), Held::Dword] {
        let s = windows(None, Some(held), None);
        assert!(s.stops_client().is_none());
        assert_eq!(s.problems.len(), 1);
        assert!(s.problems[0].message.contains("the client warns"));
        assert!(s.layers.is_empty());
    }
    // A key of the wrong type is dropped alone, as in any policy document.
    let s = windows(
        None,
        Some(Held::Sz(r#"{"claudeMd": "hkcu", "claudeMdExcludes": "x"}"#)),
        None,
    );
    assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"hkcu\""));
    assert!(s.problems[0].message.contains("drops this key"));
}

#[test]
fn an_unreadable_hklm_gives_nothing_and_keeps_hkcu_out() {
    for held in [Held::TooLarge, Held::Denied] {
        let s = windows(
            Some(held),
            Some(Held::Sz(r#"{"claudeMd": "hkcu"}"#)),
            Some(r#"{"claudeMd": "file"}"#),
        );
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"file\""));
        assert!(s.stops_client().is_none());
        assert!(s.problems[0].message.contains("could not be read"));
    }
}

#[test]
fn no_registry_on_other_models() {
    // The Linux model never asks, whatever the fake holds.
    FAKE_REGISTRY.with(|f| *f.borrow_mut() = None);
    assert!(read_os_policy(&env("linux", &[])).read.is_empty());
    assert!(read_user_policy(&env("linux", &[]), false).read.is_empty());
}

#[test]
fn the_registry_is_said_unread_where_ccmem_cannot_read_it() {
    let found = unread_sources(&env("windows", &[]));
    if cfg!(windows) {
        assert!(found.is_empty(), "read on Windows: {found:?}");
    } else {
        assert_eq!(found.len(), 1);
        assert!(found[0].source.starts_with(HKLM));
        assert!(found[0].note.ends_with("unverified"));
    }
    assert!(unread_sources(&env("macos", &[])).is_empty());
    assert!(unread_sources(&env("linux", &[])).is_empty());
}
