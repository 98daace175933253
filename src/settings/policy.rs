//! The operating system's policy sources. The client reads them before the managed folder's
//! files (`mU`, chunk-ybcm27m2: `cU` remote, then `ve` the MDM source, then `ume` the files), so
//! what they hold decides everything `policySettings` does for memory (the `<managed-settings>`
//! entry from `claudeMd`, `claudeMdExcludes`, `autoMemoryDirectory`, `autoMemoryEnabled`).
//!
//! - macOS: ccmem reads the managed-preferences plists itself ([`read_plists`]), as below.
//! - Windows: the registry value `Settings` (JSON) under `HKLM\SOFTWARE\Policies\ClaudeCode`,
//!   and `HKCU\…` only when no administrator source exists (`Uya`). ccmem cannot look on
//!   another platform, and does not read the registry on Windows yet: it says so
//!   ([`unread_sources`]).
//! - WSL (`Eqs`, `nwe`): `/mnt/c/Program Files/ClaudeCode` (the Windows host's managed
//!   folder) joins the policy walk when a Windows administrator source sets
//!   `wslInheritsWindowsSettings: true` (read through `/mnt/c/Windows/System32/reg.exe`): not
//!   read, said so.
//!
//! The macOS plists, each rule pinned by a case of `tests/oracle/cases-macos/policy-plist-*`
//! (captured with the darwin build, `/usr/bin/plutil` stood in for by a plistlib shim):
//!
//! - Which (`Yed`, chunk-w5bjrt72): `/Library/Managed Preferences/<user>/com.anthropic.claudecode.plist`
//!   (per-user), then `/Library/Managed Preferences/com.anthropic.claudecode.plist` (device).
//!   `<user>` is `os.userInfo().username`, which the client's runtime (Bun) takes from `USER`,
//!   `unknown` when `USER` is unset (measured with the client's binary); the per-user plist is
//!   skipped when the name is empty, `.`, `..`, or holds `/` or a control character.
//! - How (`o6r`, chunk-fm05cs35): a plist that is missing (`ENOENT`/`ENOTDIR` from `access`) is
//!   skipped; each other is converted with `plutil -convert json -o - --` (output at most 2 MiB,
//!   `Gqs`). A conversion that succeeds ends the list: the device plist is not read after a
//!   per-user one that converts (`policy-plist-user-over-device`). One that fails is asked
//!   again with `plutil -lint`: a valid plist (it holds a date or data value, which JSON cannot
//!   hold) is unreadable and the next plist is tried (`policy-plist-date`); an invalid one that
//!   can be opened reads as empty text, which ends the list and, not being a JSON object, stops
//!   the client from starting (`y6r`, "could not be parsed as a JSON object";
//!   `policy-plist-malformed`, `policy-plist-malformed-user`, `policy-plist-array`).
//! - Used when (`vt`, then `mU`): the converted document goes through the policy schema as a
//!   managed-settings file does (a key of the wrong type is dropped alone:
//!   `policy-plist-bad-type`), and is the policy when it holds a key other than
//!   `managedSourcesBehavior` and `wslInheritsWindowsSettings` whose value is not an object of
//!   only empty objects (`Eyt`); then managed-settings.json and its drop-ins give none of their
//!   settings (`policy-plist-over-file`: first source wins, even when only the file sets
//!   `managedSourcesBehavior`, `policy-plist-merge-in-file`). A plist without such a key leaves
//!   the file in charge (`policy-plist-no-policy`).
//! - Merged (`Je`): `managedSourcesBehavior: "merge"` in the plist that is the policy puts
//!   the file's settings beneath it: a scalar of the plist wins, arrays such as
//!   `claudeMdExcludes` are joined (`policy-plist-merge`, `policy-plist-merge-arrays`). ccmem
//!   gives that as the file's layers followed by the plist's ([`super::Settings::get`] takes the
//!   last, [`super::Settings::concat`] joins).
//!
//! The plist is read here with the `plist` crate (XML, binary and the old ASCII format, as
//! `plutil` reads them), at most [`MAX_PLIST_BYTES`], streamed into JSON text without recursion
//! and cut at 2 MiB of it as `plutil`'s output is. `CCMEM_MANAGED_PREFERENCES` points the
//! folder elsewhere (tests), as `CCMEM_MANAGED_DIR` does the managed folder.

use std::io::Cursor;
use std::path::Path;

use serde_json::Value;

use super::Problem;
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::platform::Platform;

/// The macOS managed-preferences folder.
pub(crate) const MANAGED_PREFERENCES: &str = "/Library/Managed Preferences";
/// The variable that points it elsewhere (tests).
pub(crate) const MANAGED_PREFERENCES_VAR: &str = "CCMEM_MANAGED_PREFERENCES";
/// The preferences domain the client reads.
const DOMAIN: &str = "com.anthropic.claudecode";
/// The Windows host's managed folder seen from WSL (`SH`/`yD`).
const WSL_WINDOWS_MANAGED: &str = "/mnt/c/Program Files/ClaudeCode";
/// The most JSON `plutil` may print before the client gives up on it (`Gqs`, its `maxBuffer`).
const MAX_PLUTIL_OUTPUT: usize = 2 * 1024 * 1024;
/// The largest plist ccmem reads: eight times the JSON the client takes, room for XML's
/// markup around the same values. A larger one is reported as not read.
pub(crate) const MAX_PLIST_BYTES: u64 = 8 * MAX_PLUTIL_OUTPUT as u64;
/// The keys that are not policy content (`sAn`).
const NOT_CONTENT: [&str; 2] = ["managedSourcesBehavior", "wslInheritsWindowsSettings"];

/// A policy source the client may read and ccmem does not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnreadPolicy {
    /// The file, folder or registry key.
    pub source: String,
    /// What the client does with it, and what ccmem cannot tell.
    pub note: String,
}

/// An OS policy source ccmem read, and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReadPolicy {
    /// The file.
    pub source: String,
    /// What the client makes of it.
    pub note: String,
}

/// The macOS plists' part in the policy.
#[derive(Debug, Default)]
pub(crate) struct OsPolicy {
    /// The plist that is the policy (its path and settings), if one is.
    pub policy: Option<(String, Value)>,
    /// Whether it asks for the file's settings beneath it (`managedSourcesBehavior: "merge"`).
    pub merge: bool,
    /// Plists the client could not use, worded as settings problems.
    pub problems: Vec<Problem>,
    /// Every plist there, with what the client makes of it (for the receipt).
    pub read: Vec<ReadPolicy>,
}

/// What reading one plist as `o6r` does gave.
enum Plist {
    /// Missing: skipped.
    Missing,
    /// Converted to JSON text: the list ends here.
    Json(String),
    /// Not convertible or not readable (why): the next plist is tried.
    Unread(String),
    /// Not a plist (`plutil -lint` fails) but readable: read as empty text, which ends the
    /// list and stops the client.
    Invalid(String),
}

/// Reads the platform's plists as the client does (`o6r` and `vt`); nothing on other
/// platforms.
pub(crate) fn read_plists(env: &ClientEnv) -> OsPolicy {
    let mut out = OsPolicy::default();
    if env.platform != Platform::Macos {
        return out;
    }
    // The label of the plist that ended the list, once one has.
    let mut ended: Option<&str> = None;
    for (path, label) in plists(env) {
        if let Some(before) = ended {
            if Path::new(&path).exists() {
                out.read.push(ReadPolicy {
                    source: path,
                    note: format!("not read: the client stops at the {before} before it"),
                });
            }
            continue;
        }
        let fail = |message: String| Problem {
            origin: path.clone(),
            message,
        };
        match read_plist(Path::new(&path)) {
            Plist::Missing => {}
            Plist::Unread(why) => {
                out.problems.push(fail(format!(
                    "could not be read: {why}; none of its settings are in effect (the client's \
                     next policy source applies)"
                )));
                out.read.push(ReadPolicy {
                    source: path,
                    note: format!("{label}: could not be read: {why}; not used"),
                });
            }
            Plist::Invalid(why) => {
                ended = Some(label);
                out.problems.push(fail(format!(
                    "not a property list ({why}): the client reads it as empty, which is not a \
                     JSON object, and refuses to start until it is fixed"
                )));
                out.read.push(ReadPolicy {
                    source: path,
                    note: format!("{label}: could not be parsed: the client refuses to start"),
                });
            }
            Plist::Json(text) => {
                ended = Some(label);
                let note = match super::file::parse_policy(&text) {
                    Err(message) => {
                        out.problems.push(fail(format!(
                            "{message}; the client refuses to start until it is fixed"
                        )));
                        format!("{label}: not a JSON object: the client refuses to start")
                    }
                    Ok((value, dropped)) => {
                        out.problems.extend(dropped.into_iter().map(&fail));
                        let value = value.unwrap_or_default();
                        if has_content(&value) {
                            out.merge =
                                value.get("managedSourcesBehavior") == Some(&Value::from("merge"));
                            out.policy = Some((path.clone(), value));
                            if out.merge {
                                format!(
                                    "{label}: the policy, merged over managed-settings.json \
                                     (managedSourcesBehavior \"merge\")"
                                )
                            } else {
                                format!(
                                    "{label}: the policy; managed-settings.json and its \
                                     drop-ins give none of their settings"
                                )
                            }
                        } else {
                            format!(
                                "{label}: holds no policy settings; managed-settings.json applies"
                            )
                        }
                    }
                };
                out.read.push(ReadPolicy { source: path, note });
            }
        }
    }
    out
}

/// Whether a plist's settings make it the policy (`Eyt`: a key outside `sAn` whose value is
/// not an object of only empty objects, `Q6r`).
fn has_content(value: &Value) -> bool {
    fn hollow(v: &Value) -> bool {
        // Iterative: a plist may nest deeply.
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v.as_object() {
                Some(o) => stack.extend(o.values()),
                None => return false,
            }
        }
        true
    }
    value.as_object().is_some_and(|o| {
        o.iter()
            .any(|(k, v)| !NOT_CONTENT.contains(&k.as_str()) && !hollow(v))
    })
}

/// One plist read as `o6r` reads it through `plutil`.
fn read_plist(path: &Path) -> Plist {
    let bytes = match fsread::read_capped(path, MAX_PLIST_BYTES) {
        Ok(bytes) => bytes,
        Err(Unread::Missing) => return Plist::Missing,
        Err(Unread::TooLarge(n)) => {
            return Plist::Unread(format!(
                "{} bytes, more than ccmem reads ({}); the client converts it if plutil's \
                 JSON stays under 2 MiB",
                crate::constants::Count(n as usize),
                crate::constants::Bytes(MAX_PLIST_BYTES)
            ));
        }
        Err(e) => return Plist::Unread(e.to_string()),
    };
    match to_json(&bytes) {
        Ok(text) => Plist::Json(text),
        Err(Convert::Invalid(why)) => Plist::Invalid(why),
        Err(Convert::Unconvertible) => Plist::Unread(
            "it holds a value plutil cannot convert to JSON (a date or data value)".into(),
        ),
        Err(Convert::Oversize) => Plist::Unread("plutil's output exceeded the size limit".into()),
    }
}

/// Why a plist gave no JSON.
#[derive(Debug, PartialEq, Eq)]
enum Convert {
    /// Not a property list.
    Invalid(String),
    /// A valid plist JSON cannot hold: a date, data or UID value, a number JSON has no form
    /// for, or a top level that is not a collection.
    Unconvertible,
    /// The JSON would be longer than [`MAX_PLUTIL_OUTPUT`].
    Oversize,
}

/// The JSON text `plutil -convert json` prints for a plist: the events streamed into text
/// with a stack of open collections (no recursion, so any depth), cut at
/// [`MAX_PLUTIL_OUTPUT`]. The whole plist is read first, so an invalid one is told apart from
/// an unconvertible one as `plutil -lint` does.
fn to_json(bytes: &[u8]) -> Result<String, Convert> {
    use plist::stream::{Event, Reader};
    /// An open collection: a dictionary waiting for a key (`true`) or a value, or an array;
    /// and whether an element was written.
    struct Open {
        dict: bool,
        want_key: bool,
        first: bool,
    }
    let mut out = String::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut unconvertible = false;
    let mut oversize = false;
    let mut done = false;
    for event in Reader::new(Cursor::new(bytes)) {
        let event = event.map_err(|e| Convert::Invalid(e.to_string()))?;
        if done {
            return Err(Convert::Invalid("more than one top-level value".into()));
        }
        let top = stack.is_empty();
        if top && !matches!(event, Event::StartArray(_) | Event::StartDictionary(_)) {
            unconvertible = true;
        }
        // The separator and, in a dictionary, whether this event is a key.
        let mut is_key = false;
        if let Some(open) = stack.last_mut()
            && !matches!(event, Event::EndCollection)
        {
            if open.dict {
                is_key = open.want_key;
                if is_key && !open.first {
                    out.push(',');
                } else if !is_key {
                    out.push(':');
                }
                open.want_key = !open.want_key;
            } else if !open.first {
                out.push(',');
            }
            open.first = false;
        }
        if is_key && !matches!(event, Event::String(_)) {
            return Err(Convert::Invalid(
                "a dictionary key that is not a string".into(),
            ));
        }
        match event {
            Event::StartArray(_) => {
                out.push('[');
                stack.push(Open {
                    dict: false,
                    want_key: false,
                    first: true,
                });
            }
            Event::StartDictionary(_) => {
                out.push('{');
                stack.push(Open {
                    dict: true,
                    want_key: true,
                    first: true,
                });
            }
            Event::EndCollection => {
                let Some(open) = stack.pop() else {
                    return Err(Convert::Invalid("a collection closed twice".into()));
                };
                if open.dict && !open.want_key {
                    return Err(Convert::Invalid("a dictionary key without a value".into()));
                }
                out.push(if open.dict { '}' } else { ']' });
            }
            Event::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
            Event::Integer(i) => match (i.as_signed(), i.as_unsigned()) {
                (Some(n), _) => out.push_str(&n.to_string()),
                (None, Some(n)) => out.push_str(&n.to_string()),
                (None, None) => unconvertible = true,
            },
            Event::Real(r) => match serde_json::Number::from_f64(r) {
                Some(n) => out.push_str(&n.to_string()),
                None => unconvertible = true,
            },
            Event::String(s) => out.push_str(&Value::from(s.as_ref()).to_string()),
            Event::Data(_) | Event::Date(_) | Event::Uid(_) => unconvertible = true,
            _ => unconvertible = true,
        }
        done = stack.is_empty();
        if out.len() > MAX_PLUTIL_OUTPUT {
            // Read on: an invalid plist further down is still told apart.
            oversize = true;
            out.clear();
        }
    }
    if !done {
        return Err(Convert::Invalid("the document ends early".into()));
    }
    if unconvertible {
        return Err(Convert::Unconvertible);
    }
    if oversize {
        return Err(Convert::Oversize);
    }
    Ok(out)
}

/// The unread policy sources of this environment's platform: on Windows the registry, which
/// is never looked at; on WSL the Windows host's managed folder when it exists.
pub(crate) fn unread_sources(env: &ClientEnv) -> Vec<UnreadPolicy> {
    match env.platform {
        Platform::Linux | Platform::Macos => Vec::new(),
        Platform::Windows => vec![UnreadPolicy {
            source: r"HKLM\SOFTWARE\Policies\ClaudeCode (and HKCU\…)".into(),
            note: "the registry's policy, which the client reads before managed-settings.json, \
                   is not read by ccmem: not checked"
                .into(),
        }],
        Platform::Wsl => Path::new(WSL_WINDOWS_MANAGED)
            .exists()
            .then(|| UnreadPolicy {
                source: WSL_WINDOWS_MANAGED.into(),
                note: "the Windows host's managed folder: the client reads it too when Windows \
                       policy sets wslInheritsWindowsSettings (from the registry, through \
                       reg.exe); ccmem does not"
                    .into(),
            })
            .into_iter()
            .collect(),
    }
}

/// The macOS plists the client asks `plutil` for, per user first (`Yed`), with the client's
/// label of each.
fn plists(env: &ClientEnv) -> Vec<(String, &'static str)> {
    let dir = env
        .var(MANAGED_PREFERENCES_VAR)
        .unwrap_or(MANAGED_PREFERENCES);
    plists_in(dir, env.var("USER"))
}

/// [`plists`] of a folder and a `USER` value.
fn plists_in(dir: &str, user_var: Option<&str>) -> Vec<(String, &'static str)> {
    // Bun's `os.userInfo().username`: `USER`, or `unknown` when it is unset.
    let user = user_var.unwrap_or("unknown");
    let usable =
        !matches!(user, "" | "." | "..") && !user.chars().any(|c| c == '/' || c.is_ascii_control());
    let mut out = Vec::new();
    if usable {
        out.push((
            format!("{dir}/{user}/{DOMAIN}.plist"),
            "per-user managed preferences",
        ));
    }
    out.push((
        format!("{dir}/{DOMAIN}.plist"),
        "device-level managed preferences",
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::settings::{Settings, Source};

    fn env(platform: &str, vars: &[(&str, &str)]) -> ClientEnv {
        let mut map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        map.insert("CCMEM_PLATFORM".into(), platform.into());
        ClientEnv::new(PathBuf::from("/p"), map, Default::default())
    }

    fn xml(body: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">{body}</plist>\n"
        )
    }

    /// A folder of managed preferences, a managed folder, and the macOS environment reading
    /// them as user `me`.
    struct Mac {
        t: tempfile::TempDir,
    }

    impl Mac {
        fn new() -> Self {
            let t = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(t.path().join("prefs/me")).unwrap();
            std::fs::create_dir_all(t.path().join("managed")).unwrap();
            Mac { t }
        }
        fn device(&self, text: &str) -> &Self {
            let p = self.t.path().join("prefs/com.anthropic.claudecode.plist");
            std::fs::write(p, text).unwrap();
            self
        }
        fn user(&self, text: &str) -> &Self {
            let p = self
                .t
                .path()
                .join("prefs/me/com.anthropic.claudecode.plist");
            std::fs::write(p, text).unwrap();
            self
        }
        fn file(&self, json: &str) -> &Self {
            let p = self.t.path().join("managed/managed-settings.json");
            std::fs::write(p, json).unwrap();
            self
        }
        fn settings(&self, platform: &str) -> Settings {
            let prefs = self.t.path().join("prefs");
            let managed = self.t.path().join("managed");
            let vars = [
                ("CCMEM_MANAGED_PREFERENCES", prefs.to_str().unwrap()),
                ("CCMEM_MANAGED_DIR", managed.to_str().unwrap()),
                ("USER", "me"),
            ];
            Settings::load(&env(platform, &vars))
        }
    }

    fn policy(s: &Settings, key: &str) -> Option<String> {
        s.get(Source::Policy, key).map(|v| v.to_string())
    }

    fn excludes(s: &Settings) -> Vec<String> {
        s.concat("/claudeMdExcludes")
            .into_iter()
            .map(|(v, _)| v.as_str().unwrap().to_owned())
            .collect()
    }

    const PLIST_MD: &str = "<dict><key>claudeMd</key><string>plist</string>\
        <key>claudeMdExcludes</key><array><string>a</string></array></dict>";

    #[test]
    fn a_plist_with_settings_replaces_the_files_settings() {
        let m = Mac::new();
        m.device(&xml(PLIST_MD))
            .file(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"], "autoMemoryEnabled": false}"#);
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
        assert_eq!(excludes(&s), ["a"]);
        assert_eq!(policy(&s, "/autoMemoryEnabled"), None);
        assert_eq!(s.read_policy.len(), 1);
        assert!(
            s.read_policy[0].note.contains("the policy;"),
            "{:?}",
            s.read_policy
        );
        // The Linux model reads no plist: the file is the policy.
        let linux = m.settings("linux");
        assert_eq!(policy(&linux, "/claudeMd").as_deref(), Some("\"file\""));
        assert!(linux.read_policy.is_empty());
    }

    #[test]
    fn merge_in_the_plist_lays_it_over_the_file() {
        let m = Mac::new();
        m.device(&xml(
            "<dict><key>managedSourcesBehavior</key><string>merge</string>\
             <key>claudeMdExcludes</key><array><string>a</string></array></dict>",
        ))
        .file(r#"{"claudeMd": "file", "claudeMdExcludes": ["b"]}"#);
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"file\""));
        let mut got = excludes(&s);
        got.sort();
        assert_eq!(got, ["a", "b"]);
        // A scalar of the plist wins over the file's.
        m.device(&xml(
            "<dict><key>managedSourcesBehavior</key><string>merge</string>\
             <key>claudeMd</key><string>plist</string></dict>",
        ));
        assert_eq!(
            policy(&m.settings("macos"), "/claudeMd").as_deref(),
            Some("\"plist\"")
        );
    }

    #[test]
    fn merge_asked_only_by_the_file_is_not_a_merge() {
        let m = Mac::new();
        m.device(&xml(PLIST_MD))
            .file(r#"{"claudeMdExcludes": ["b"], "managedSourcesBehavior": "merge"}"#);
        assert_eq!(excludes(&m.settings("macos")), ["a"]);
    }

    #[test]
    fn a_plist_without_policy_content_leaves_the_file_in_charge() {
        for body in [
            "<dict/>",
            "<dict><key>managedSourcesBehavior</key><string>merge</string></dict>",
            "<dict><key>permissions</key><dict><key>x</key><dict/></dict></dict>",
        ] {
            let m = Mac::new();
            m.device(&xml(body)).file(r#"{"claudeMd": "file"}"#);
            let s = m.settings("macos");
            assert_eq!(
                policy(&s, "/claudeMd").as_deref(),
                Some("\"file\""),
                "{body}"
            );
            assert!(s.read_policy[0].note.contains("holds no policy settings"));
        }
    }

    #[test]
    fn the_per_user_plist_comes_first_and_ends_the_list() {
        let m = Mac::new();
        m.user(&xml(
            "<dict><key>claudeMd</key><string>user</string></dict>",
        ))
        .device(&xml(PLIST_MD));
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"user\""));
        assert!(excludes(&s).is_empty());
        assert_eq!(s.read_policy.len(), 2);
        assert_eq!(
            s.read_policy[1].note,
            "not read: the client stops at the per-user managed preferences before it"
        );
    }

    #[test]
    fn an_unconvertible_plist_is_passed_over_and_a_malformed_one_stops_the_client() {
        let m = Mac::new();
        // A date: plutil cannot make JSON of it; the device plist is read next.
        m.user(&xml("<dict><key>claudeMd</key><string>user</string>\
             <key>d</key><date>2026-01-01T00:00:00Z</date></dict>"))
            .device(&xml(PLIST_MD));
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
        assert!(s.problems[0].message.contains("a date or data value"));
        // Not a plist: the client refuses to start, and the device plist is not read.
        m.user("<plist><dict><key>claudeMd</key>\n");
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd"), None);
        assert_eq!(s.problems.len(), 1);
        assert!(s.problems[0].message.contains("refuses to start"));
        assert!(
            s.problems[0]
                .origin
                .ends_with("me/com.anthropic.claudecode.plist")
        );
        // A top-level array converts, to JSON that is not an object.
        m.user(&xml("<array><string>x</string></array>"));
        let s = m.settings("macos");
        assert!(s.problems[0].message.contains("not a JSON object"));
    }

    #[test]
    fn a_wrong_typed_key_is_dropped_alone() {
        let m = Mac::new();
        m.device(&xml("<dict><key>claudeMd</key><string>plist</string>\
             <key>claudeMdExcludes</key><string>a</string></dict>"));
        let s = m.settings("macos");
        assert_eq!(policy(&s, "/claudeMd").as_deref(), Some("\"plist\""));
        assert!(excludes(&s).is_empty());
        assert!(s.problems[0].message.contains("drops this key"));
    }

    #[test]
    fn binary_and_ascii_plists_convert_as_xml_does() {
        let mut dict = plist::Dictionary::new();
        dict.insert("claudeMd".into(), plist::Value::from("bin"));
        dict.insert("n".into(), plist::Value::from(1.5));
        dict.insert("i".into(), plist::Value::from(-3));
        dict.insert("b".into(), plist::Value::from(true));
        let mut bin = Vec::new();
        plist::Value::Dictionary(dict)
            .to_writer_binary(&mut bin)
            .unwrap();
        assert_eq!(
            to_json(&bin).unwrap(),
            r#"{"claudeMd":"bin","n":1.5,"i":-3,"b":true}"#
        );
        assert_eq!(
            to_json(br#"{ claudeMd = "ascii"; a = ( "x", "y" ); }"#).unwrap(),
            r#"{"claudeMd":"ascii","a":["x","y"]}"#
        );
        assert_eq!(
            to_json(xml("<dict><key>a\"\n</key><array/></dict>").as_bytes()).unwrap(),
            r#"{"a\"\n":[]}"#
        );
        assert!(matches!(to_json(b""), Err(Convert::Invalid(_))));
        assert!(matches!(to_json(b"not a plist"), Err(Convert::Invalid(_))));
    }

    #[test]
    fn deep_and_large_plists_are_bounded() {
        let depth = 200_000;
        let deep = xml(&format!(
            "{}{}",
            "<array>".repeat(depth),
            "</array>".repeat(depth)
        ));
        // Converted without recursion; the JSON parser then takes it as any depth.
        assert_eq!(to_json(deep.as_bytes()).unwrap().len(), 2 * depth);
        let big = xml(&format!(
            "<array>{}</array>",
            "<string>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</string>"
                .repeat(40_000)
        ));
        assert_eq!(to_json(big.as_bytes()), Err(Convert::Oversize));
    }

    #[test]
    fn user_names_the_client_skips() {
        for user in ["", ".", "..", "a/b", "a\u{1}", "a\u{7f}"] {
            let got = plists_in("/M", Some(user));
            assert_eq!(got.len(), 1, "{user:?}");
            assert_eq!(got[0].0, "/M/com.anthropic.claudecode.plist");
        }
        // Bun's os.userInfo() names an unset USER `unknown`.
        assert_eq!(
            plists_in("/M", None)[0].0,
            "/M/unknown/com.anthropic.claudecode.plist"
        );
        assert_eq!(
            plists(&env("macos", &[("USER", "me")]))[0].0,
            "/Library/Managed Preferences/me/com.anthropic.claudecode.plist"
        );
    }

    #[test]
    fn windows_always_says_the_registry_is_unread() {
        let found = unread_sources(&env("windows", &[]));
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .source
                .starts_with(r"HKLM\SOFTWARE\Policies\ClaudeCode")
        );
        assert!(unread_sources(&env("macos", &[])).is_empty());
    }
}
