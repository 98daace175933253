//! WSL's inheritance of the Windows host's managed settings. The client (its Linux build, which
//! says `wsl` when `WSL_DISTRO_NAME` or `WSL_INTEROP` is set or `/proc/version` names Microsoft or
//! WSL: `A()`, `KQn`) looks at the Windows host's managed folder, `/mnt/c/Program
//! Files/ClaudeCode` (`yD`), whatever the rest of its policy says. Each rule is pinned by a case
//! of `tests/oracle/cases-wsl/` (captured with the Linux build, WSL told by `WSL_DISTRO_NAME`,
//! both managed folders made in the setup and removed after).
//!
//! - The flag (`Ua`, chunk-xygbzv11): `managed-settings.json` there, then the drop-ins of
//!   `managed-settings.d/` (files or links, `*.json`, not starting with `.`, in the folder's
//!   own order: the client does not sort this listing), each read until one sets
//!   `wslInheritsWindowsSettings` to `true` or `"true"` (`xSa`, `AA`: armed,
//!   `wsl-inherit-armed`, `wsl-inherit-dropin`). `false` or `"false"` or no key leaves it off
//!   (`wsl-inherit-false`, `wsl-inherit-off`); any other value is unreadable and, when no file
//!   arms it, counts as armed (`J = H !== "disarmed"`, `wsl-inherit-unreadable`).
//! - A file there that cannot be read, or is not a JSON object, while nothing arms the flag, is
//!   one of the administrator's documents that failed (`d2o`, `EGr`, fatal): the client refuses
//!   to start (`wsl-inherit-broken`), even though it would not have read that folder's settings.
//! - Inheriting (`vn`, chunk-fwa49gns): the Windows folder's `managed-settings.json` and drop-ins
//!   are the managed files, in place of `/etc/claude-code`'s, when they hold a policy setting
//!   or one of them failed to load (`gAn`); when they hold nothing but the flag, the client reads
//!   `/etc/claude-code`'s beneath (`wsl-inherit-flag-only`). An unreadable flag always keeps the
//!   Windows folder (`r` holds), and is itself fatal when that folder holds no setting (`pya`,
//!   withheld when `gn(yD)` finds one).
//! - Only settings: `CLAUDE.md` and `.claude/rules` still come from `/etc/claude-code` (`pr()`),
//!   never from the Windows folder (every case above has both there).
//! - Outside WSL the Windows folder is never read (`wsl-inherit-not-wsl`).
//!
//! The registry (`HKLM\SOFTWARE\Policies\ClaudeCode`, which can arm the flag too, and whose
//! value then is the policy) is read through `reg.exe`, a subprocess ccmem does not run: the
//! receipt says so ([`super::policy::unread_sources`]). `CCMEM_WSL_WINDOWS_MANAGED` points the
//! Windows folder elsewhere (tests).

use std::path::Path;

use serde_json::Value;

use super::{Problem, file, json};
use crate::constants::{MANAGED_SETTINGS_DIR, MANAGED_SETTINGS_FILE, MAX_SETTINGS_BYTES};
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::text::js;

/// The Windows host's managed folder seen from WSL (`yD`).
pub(crate) const WINDOWS_MANAGED: &str = "/mnt/c/Program Files/ClaudeCode";
/// The variable that points it elsewhere (tests).
pub(crate) const WINDOWS_MANAGED_VAR: &str = "CCMEM_WSL_WINDOWS_MANAGED";
/// The key (`wslInheritsWindowsSettings`).
const KEY: &str = "wslInheritsWindowsSettings";

/// The Windows folder of this environment.
pub(crate) fn windows_dir(env: &ClientEnv) -> String {
    env.var(WINDOWS_MANAGED_VAR)
        .unwrap_or(WINDOWS_MANAGED)
        .to_owned()
}

/// What the Windows folder's files say of inheriting (`Ua`'s `flag`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Flag {
    /// No file arms it (the files that failed are in `records`).
    Off,
    /// `true` or `"true"` in this file.
    Armed(String),
    /// A value that is not a boolean in this file, and no file arms it.
    Unreadable(String),
}

/// The flag and the documents that failed on the way (`records`: fatal when the flag is off).
#[derive(Debug)]
pub(crate) struct Reading {
    pub flag: Flag,
    pub records: Vec<Problem>,
}

/// One file's flag (`y` inside `Ua`).
enum One {
    Missing,
    Failed(Problem),
    Flag(Option<bool>, bool),
}

/// Reads the flag from the Windows folder `dir` as `Ua` does.
pub(crate) fn read_flag(dir: &str) -> Reading {
    let mut records = Vec::new();
    let mut unreadable: Option<String> = None;
    let mut one = |path: String, records: &mut Vec<Problem>| -> Option<Flag> {
        match read_one(&path) {
            One::Missing | One::Flag(Some(false) | None, true) => None,
            One::Failed(p) => {
                records.push(p);
                None
            }
            One::Flag(Some(true), _) => Some(Flag::Armed(path)),
            One::Flag(_, false) => {
                unreadable.get_or_insert(path);
                None
            }
        }
    };
    if let Some(armed) = one(format!("{dir}/{MANAGED_SETTINGS_FILE}"), &mut records) {
        return Reading {
            flag: armed,
            records,
        };
    }
    let drop_ins = format!("{dir}/{MANAGED_SETTINGS_DIR}");
    match std::fs::read_dir(&drop_ins) {
        Ok(entries) => {
            for e in entries.flatten() {
                let usable = e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink());
                let Ok(name) = e.file_name().into_string() else {
                    continue;
                };
                if !usable || !name.ends_with(".json") || name.starts_with('.') {
                    continue;
                }
                if let Some(armed) = one(format!("{drop_ins}/{name}"), &mut records) {
                    return Reading {
                        flag: armed,
                        records,
                    };
                }
            }
        }
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) => {}
        Err(e) => records.push(fatal(
            &drop_ins,
            format!("Managed settings drop-in directory could not be read: {e}"),
        )),
    }
    Reading {
        flag: unreadable.map_or(Flag::Off, Flag::Unreadable),
        records,
    }
}

/// One file: missing, failed, or its flag (`Some(bool)` when `AA` gives a boolean, `None` when
/// unset) with whether it was readable (`xSa` is `"unreadable"` for any other value).
fn read_one(path: &str) -> One {
    let bytes = match fsread::read_capped(Path::new(path), MAX_SETTINGS_BYTES) {
        Ok(bytes) => bytes,
        Err(Unread::Missing) => return One::Missing,
        Err(e) => {
            return One::Failed(fatal(path, format!("Settings file could not be read: {e}")));
        }
    };
    let text = file::decode(&bytes);
    if js::trim(&text).is_empty() {
        return One::Flag(None, true);
    }
    let value = match json::Doc::parse(&text) {
        Ok(doc) => doc.value(),
        Err(_) => Value::Null,
    };
    let Some(object) = value.as_object() else {
        return One::Failed(fatal(
            path,
            "Managed settings document could not be parsed as a JSON object; none of its \
             settings are in effect"
                .into(),
        ));
    };
    match object.get(KEY) {
        None | Some(Value::Null) => One::Flag(None, true),
        Some(Value::Bool(b)) => One::Flag(Some(*b), true),
        Some(Value::String(s)) if s == "true" => One::Flag(Some(true), true),
        Some(Value::String(s)) if s == "false" => One::Flag(Some(false), true),
        Some(_) => One::Flag(None, false),
    }
}

/// A document of the administrator that failed: the client refuses to start.
fn fatal(origin: &str, message: String) -> Problem {
    Problem {
        origin: origin.to_owned(),
        message: format!(
            "{message} (the Windows host's managed folder, read on WSL for \
             {KEY}); the client refuses to start until it is fixed"
        ),
        stops_client: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn flag_of(files: &[(&str, &str)]) -> Reading {
        let tmp = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = tmp.path().join(name);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let mut r = read_flag(tmp.path().to_str().unwrap());
        let root = tmp.path().to_str().unwrap().to_owned();
        let strip = |s: &str| s.replace(&root, "W");
        r.flag = match r.flag {
            Flag::Armed(p) => Flag::Armed(strip(&p)),
            Flag::Unreadable(p) => Flag::Unreadable(strip(&p)),
            Flag::Off => Flag::Off,
        };
        for p in &mut r.records {
            p.origin = strip(&p.origin);
        }
        r
    }

    #[test]
    fn the_flag_is_read_as_ua_reads_it() {
        let j = "managed-settings.json";
        let armed = |p: &str| Flag::Armed(format!("W/{p}"));
        assert_eq!(flag_of(&[]).flag, Flag::Off);
        assert_eq!(
            flag_of(&[(j, r#"{"wslInheritsWindowsSettings":true}"#)]).flag,
            armed(j)
        );
        assert_eq!(
            flag_of(&[(j, r#"{"wslInheritsWindowsSettings":"true"}"#)]).flag,
            armed(j)
        );
        for off in ["false", r#""false""#, "null", r#""TRUE""#] {
            let text = format!(r#"{{"wslInheritsWindowsSettings":{off}}}"#);
            let r = flag_of(&[(j, &text)]);
            let want = if off == r#""TRUE""# {
                Flag::Unreadable(format!("W/{j}"))
            } else {
                Flag::Off
            };
            assert_eq!(r.flag, want, "{off}");
        }
        assert_eq!(flag_of(&[(j, "  \n")]).flag, Flag::Off);
        // A drop-in arms it; one that is unreadable gives way to a later one that arms.
        let d = "managed-settings.d/a.json";
        assert_eq!(
            flag_of(&[
                (j, r#"{"wslInheritsWindowsSettings":1}"#),
                (d, r#"{"wslInheritsWindowsSettings":true}"#)
            ])
            .flag,
            armed(d)
        );
        // Not `*.json`, or hidden: not read.
        for name in ["managed-settings.d/a.txt", "managed-settings.d/.a.json"] {
            assert_eq!(
                flag_of(&[(name, r#"{"wslInheritsWindowsSettings":true}"#)]).flag,
                Flag::Off
            );
        }
    }

    #[test]
    fn a_broken_document_is_a_record_even_when_another_arms() {
        let r = flag_of(&[("managed-settings.json", "{nope")]);
        assert_eq!(r.flag, Flag::Off);
        assert_eq!(r.records.len(), 1);
        assert!(r.records[0].stops_client && r.records[0].origin == "W/managed-settings.json");
        let r = flag_of(&[
            ("managed-settings.json", "[1]"),
            (
                "managed-settings.d/a.json",
                r#"{"wslInheritsWindowsSettings":true}"#,
            ),
        ]);
        assert_eq!(r.flag, Flag::Armed("W/managed-settings.d/a.json".into()));
        assert_eq!(r.records.len(), 1);
    }
}

/// What [`super::Settings::load`] makes of the Windows folder on WSL (`vn`).
#[cfg(test)]
mod settings_tests {
    use std::collections::BTreeMap;
    use std::fs;
    use std::path::PathBuf;

    use crate::env::ClientEnv;
    use crate::settings::{Settings, Source};

    /// Settings of a WSL (or other) environment with the Windows folder's and the managed
    /// folder's `managed-settings.json` as given.
    fn load(platform: &str, windows: &str, managed: &str) -> Settings {
        let tmp = tempfile::tempdir().unwrap();
        let (w, m) = (tmp.path().join("w"), tmp.path().join("m"));
        for (dir, text) in [(&w, windows), (&m, managed)] {
            fs::create_dir_all(dir).unwrap();
            fs::write(dir.join("managed-settings.json"), text).unwrap();
        }
        let vars: BTreeMap<String, String> = [
            ("CCMEM_PLATFORM", platform),
            ("HOME", tmp.path().join("home").to_str().unwrap()),
            ("CCMEM_MANAGED_DIR", m.to_str().unwrap()),
            (super::WINDOWS_MANAGED_VAR, w.to_str().unwrap()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let env = ClientEnv::new(PathBuf::from("/p"), vars, Default::default());
        Settings::load(&env)
    }

    fn claude_md(s: &Settings) -> Option<&str> {
        s.get(Source::Policy, "/claudeMd").and_then(|v| v.as_str())
    }

    #[test]
    fn the_windows_folder_takes_the_managed_folders_place_when_armed_and_holding_settings() {
        let etc = r#"{"claudeMd":"E"}"#;
        let armed = r#"{"wslInheritsWindowsSettings":true,"claudeMd":"W"}"#;
        assert_eq!(claude_md(&load("wsl", armed, etc)), Some("W"));
        // Outside WSL, or without the flag, the managed folder's.
        assert_eq!(claude_md(&load("linux", armed, etc)), Some("E"));
        assert_eq!(
            claude_md(&load("wsl", r#"{"claudeMd":"W"}"#, etc)),
            Some("E")
        );
        // The flag alone: the managed folder's beneath.
        let s = load("wsl", r#"{"wslInheritsWindowsSettings":true}"#, etc);
        assert_eq!(claude_md(&s), Some("E"));
        assert!(s.stops_client().is_none());
        assert!(s.read_policy[0].note.contains("beneath"));
    }

    #[test]
    fn an_unreadable_flag_keeps_the_windows_folder_and_is_fatal_when_it_holds_nothing() {
        let etc = r#"{"claudeMd":"E"}"#;
        let s = load(
            "wsl",
            r#"{"wslInheritsWindowsSettings":2,"claudeMd":"W"}"#,
            etc,
        );
        assert_eq!(claude_md(&s), Some("W"));
        assert!(s.stops_client().is_none());
        // `pya`: nothing beside the flag, and `/etc/claude-code` is not read beneath it.
        let s = load("wsl", r#"{"wslInheritsWindowsSettings":[]}"#, etc);
        assert_eq!(claude_md(&s), None);
        assert!(
            s.stops_client()
                .is_some_and(|p| p.origin.ends_with("w/managed-settings.json"))
        );
    }

    #[test]
    fn a_key_of_the_wrong_type_leaves_the_windows_document_loaded() {
        // Only the flag and a dropped key: nothing held, the managed folder's beneath.
        let s = load(
            "wsl",
            r#"{"wslInheritsWindowsSettings":true,"claudeMdExcludes":"x"}"#,
            r#"{"claudeMd":"E"}"#,
        );
        assert_eq!(claude_md(&s), Some("E"));
    }

    #[test]
    fn a_broken_windows_document_stops_the_client_even_unarmed() {
        let s = load("wsl", "{nope", r#"{"claudeMd":"E"}"#);
        assert_eq!(claude_md(&s), None);
        assert!(s.stops_client().is_some());
        assert!(load("linux", "{nope", "{}").stops_client().is_none());
    }
}
