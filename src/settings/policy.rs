//! The operating system's policy sources. The client reads them before the managed folder's
//! files (`mU`, chunk-ybcm27m2: `cU` remote, then `ve` the MDM source, then `ume` the files), so
//! what they hold decides everything `policySettings` does for memory (the `<managed-settings>`
//! entry from `claudeMd`, `claudeMdExcludes`, `autoMemoryDirectory`, `autoMemoryEnabled`).
//!
//! - macOS: ccmem reads the managed-preferences plists itself ([`read_plists`]), as below.
//! - Windows: the registry value `Settings` (JSON text) under `HKLM\SOFTWARE\Policies\ClaudeCode`
//!   is the administrator's source, and the one under `HKCU\…` counts only when no
//!   administrator source holds anything (`ii`, chunk-dagnsb7p of the Windows build). On a
//!   Windows host ccmem reads both itself (`crate::sys::registry_value`, bounded at the
//!   client's 2 MiB), as below; elsewhere, under `CCMEM_PLATFORM=windows`, it cannot, and
//!   says so ([`unread_sources`]).
//! - WSL (`Eqs`, `nwe`): the client (the Linux build) reads the Windows host's registry through
//!   `/mnt/c/Windows/System32/reg.exe` and, when an administrator source there sets
//!   `wslInheritsWindowsSettings: true`, applies it and adds `/mnt/c/Program Files/ClaudeCode`
//!   (the host's managed folder) to the policy walk. ccmem runs no subprocess for it: not
//!   read, said so.
//!
//! The registry, from the Windows build's bundle (`n2o` reads the value with the runtime's
//! native `windowsPolicyValue`, or `reg.exe query … /v Settings`; `ii` judges it; `m$` and `Je`
//! rank it; no capture: the build cannot be run against a registry here, so these rules are
//! held by unit tests of that code's reading, not by cases):
//!
//! - The text (`Zr`): a `REG_SZ` or `REG_EXPAND_SZ` value's text (unexpanded), with the
//!   spaces and tabs before it and all whitespace after it trimmed; a value of any other type
//!   is empty text ([`value_text`]).
//! - `HKLM` ([`read_machine_value`]) is judged as a plist is (`sn`, the same schema: not a JSON
//!   object, empty text included, stops the client; a wrong-typed key is dropped alone), and
//!   takes the plist's place in the precedence: the policy when it holds content, merged over
//!   the managed folder's files with `managedSourcesBehavior: "merge"`. One that cannot be read
//!   (access denied, over 2 MiB) gives none of its settings (`Xr`).
//! - `HKCU` ([`read_user_policy`]) is read only when `HKLM` holds nothing (no key outside
//!   `sAn` with a value, and read and parsed) and no managed-folder document does either, or
//!   failed to read or parse (`Ma`, `ln`). The user can write it, so a broken one is only a
//!   warning, and `managedSourcesBehavior`, `wslInheritsWindowsSettings` and the keys only an
//!   administrator may set are dropped; what is left is the policy, alone (`Po`).
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
use crate::sys::{Hive, RegValue};

/// The macOS managed-preferences folder.
pub(crate) const MANAGED_PREFERENCES: &str = "/Library/Managed Preferences";
/// The variable that points it elsewhere (tests).
pub(crate) const MANAGED_PREFERENCES_VAR: &str = "CCMEM_MANAGED_PREFERENCES";
/// The preferences domain the client reads.
const DOMAIN: &str = "com.anthropic.claudecode";
/// The Windows host's managed folder seen from WSL (`SH`/`yD`).
const WSL_WINDOWS_MANAGED: &str = "/mnt/c/Program Files/ClaudeCode";
/// The `reg.exe` the client runs from WSL to read the Windows host's policy (`T2o`).
const WSL_REG_EXE: &str = "/mnt/c/Windows/System32/reg.exe";
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

/// The OS's administrator source's part in the policy: the macOS plists, or the Windows
/// registry's `HKLM` value.
#[derive(Debug, Default)]
pub(crate) struct OsPolicy {
    /// The source that is the policy (its path and settings), if one is.
    pub policy: Option<(String, Value)>,
    /// Whether it asks for the file's settings beneath it (`managedSourcesBehavior: "merge"`).
    pub merge: bool,
    /// Plists the client could not use, worded as settings problems.
    pub problems: Vec<Problem>,
    /// Every source there, with what the client makes of it (for the receipt).
    pub read: Vec<ReadPolicy>,
    /// Whether it keeps the `HKCU` value out (`ii`: the `HKLM` document holds content, or
    /// could not be parsed or read, `ECn`).
    pub blocks_user: bool,
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

/// Reads the platform's administrator source as the client does: the macOS plists
/// ([`read_plists`]), the Windows `HKLM` value ([`read_machine_value`]); nothing elsewhere.
pub(crate) fn read_os_policy(env: &ClientEnv) -> OsPolicy {
    match env.platform {
        Platform::Macos => read_plists(env),
        Platform::Windows => match registry(env, Hive::Machine) {
            Some(value) => read_machine_value(value),
            None => OsPolicy::default(),
        },
        Platform::Linux | Platform::Wsl => OsPolicy::default(),
    }
}

/// Reads the platform's plists as the client does (`o6r` and `vt`).
fn read_plists(env: &ClientEnv) -> OsPolicy {
    let mut out = OsPolicy::default();
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
            stops_client: false,
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
                out.problems.push(Problem {
                    stops_client: true,
                    ..fail(format!(
                        "not a property list ({why}): the client reads it as empty, which is not \
                         a JSON object, and refuses to start until it is fixed"
                    ))
                });
                out.read.push(ReadPolicy {
                    source: path,
                    note: format!("{label}: could not be parsed: the client refuses to start"),
                });
            }
            Plist::Json(text) => {
                ended = Some(label);
                judge(&mut out, path, label, &text);
            }
        }
    }
    out
}

/// What the client makes of an administrator source's JSON text (`sn`, then `mU`/`m$`): a
/// document that is not a JSON object stops the client (`y2o`, `startupFatal`); a key of the
/// wrong type is dropped alone; the document is the policy when it holds content
/// ([`has_content`]), merged over the managed folder's files when it asks for it.
fn judge(out: &mut OsPolicy, path: String, label: &str, text: &str) {
    let fail = |message: String| Problem {
        origin: path.clone(),
        message,
        stops_client: false,
    };
    out.blocks_user = true;
    // `sn` parses the text as it is: blank text (an empty value) is not a JSON object.
    let parsed = if crate::text::js::trim(text).is_empty() {
        Err("empty: not a JSON object".to_owned())
    } else {
        super::file::parse_policy(text)
    };
    let note = match parsed {
        Err(message) => {
            out.problems.push(Problem {
                stops_client: true,
                ..fail(format!(
                    "{message}; the client refuses to start until it is fixed"
                ))
            });
            format!("{label}: not a JSON object: the client refuses to start")
        }
        Ok((value, dropped)) => {
            out.problems.extend(dropped.into_iter().map(&fail));
            let value = value.unwrap_or_default();
            out.blocks_user = has_document_content(&value);
            if has_content(&value) {
                out.merge = value.get("managedSourcesBehavior") == Some(&Value::from("merge"));
                out.policy = Some((path.clone(), value));
                if out.merge {
                    format!(
                        "{label}: the policy, merged over managed-settings.json \
                         (managedSourcesBehavior \"merge\")"
                    )
                } else {
                    format!(
                        "{label}: the policy; managed-settings.json and its drop-ins give none \
                         of their settings"
                    )
                }
            } else {
                format!("{label}: holds no policy settings; managed-settings.json applies")
            }
        }
    };
    out.read.push(ReadPolicy { source: path, note });
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

/// Whether an administrator document counts as present for the `HKCU` value (`TNt` through
/// `$Ql`): a key outside `sAn` whose value is not `null`. (The client also leaves out a
/// restrictive key whose value restricts nothing, `oo`; no such key is one ccmem reads.)
fn has_document_content(value: &Value) -> bool {
    value.as_object().is_some_and(|o| {
        o.iter()
            .any(|(k, v)| !NOT_CONTENT.contains(&k.as_str()) && !v.is_null())
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
    // Events read on past an oversize output: a plist that shares no object gives at most one
    // event per byte, so this reads any such plist to its end; a binary plist's objects can be
    // referenced many times over (an array of eight references to an array of eight … forty
    // deep is 8^40 events in 400 bytes), and that one is oversize with no end in sight.
    let mut past_oversize = (bytes.len() as u64).saturating_add(MAX_PLUTIL_OUTPUT as u64);
    for event in Reader::new(Cursor::new(bytes)) {
        let event = event.map_err(|e| Convert::Invalid(e.to_string()))?;
        if oversize {
            past_oversize = past_oversize.saturating_sub(1);
            if past_oversize == 0 {
                return Err(Convert::Oversize);
            }
        }
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

/// The Windows registry key the client reads its policy from, under `HKLM` and `HKCU`
/// (`sXt`, `v2o`), and the value in it (`iXt`).
const POLICY_KEY: &str = r"SOFTWARE\Policies\ClaudeCode";
const POLICY_VALUE: &str = "Settings";
/// The largest registry value ccmem reads: the client's own bound (`Uqs`, 2 MiB: `reg.exe`'s
/// output buffer, and the size past which the native read reports "the value exceeds 2 MiB").
/// The native read's unit (bytes of UTF-16 or characters) is not visible in the bundle: a value
/// between 1 and 2 MiB of text may be read by one and not the other (unverified).
pub(crate) const MAX_REGISTRY_BYTES: usize = 2 * 1024 * 1024;
/// `REG_SZ` and `REG_EXPAND_SZ`, the types the client takes text from (`Zr`, and the native
/// read's `kind` 1 or 2).
const REG_SZ: u32 = 1;
const REG_EXPAND_SZ: u32 = 2;
/// The keys a value the user can write may not set (`g2o` and `Oa`, removed by `sn` with
/// `userWritable`); none is one ccmem reads, but a value holding only these holds nothing.
const ADMIN_ONLY: [&str; 5] = [
    "managedMcpServers",
    "isolation",
    "attributionProjectPolicy",
    "prependPlugins",
    "appendPlugins",
];

/// The name the receipt gives a registry value.
fn registry_name(hive: Hive) -> String {
    let root = match hive {
        Hive::Machine => "HKLM",
        Hive::User => "HKCU",
    };
    format!(r"{root}\{POLICY_KEY}\{POLICY_VALUE}")
}

/// The policy value of one hive, when ccmem can read the registry: a Windows model on a Windows
/// host (`None` otherwise: [`unread_sources`] says so).
fn registry(env: &ClientEnv, hive: Hive) -> Option<RegValue> {
    #[cfg(test)]
    if let Some(fake) = tests::FAKE_REGISTRY.with(|f| f.borrow().as_ref().map(|f| f(hive))) {
        return fake;
    }
    if env.platform != Platform::Windows {
        return None;
    }
    #[cfg(windows)]
    {
        Some(crate::sys::registry_value(
            hive,
            POLICY_KEY,
            POLICY_VALUE,
            MAX_REGISTRY_BYTES,
        ))
    }
    #[cfg(not(windows))]
    {
        let _ = hive;
        None
    }
}

/// A registry value as the client reads it.
#[derive(Debug, PartialEq, Eq)]
enum RegText {
    /// No key, or no `Settings` value: skipped.
    Missing,
    /// The text the client parses.
    Text(String),
    /// Not a string value (its `REG_*` type): the client reads it as empty text.
    NotText(u32),
    /// Not read (why, in the client's words where it has them).
    Unread(String),
}

/// The text the client takes from a value: the native read (`windowsPolicyValue`, chunk
/// `5vyb8tbr`) prints `    Settings    REG_SZ    <text>` for a string value (`REG_SZ` or
/// `REG_EXPAND_SZ`, left unexpanded as `reg.exe` prints it) and `REG_NONE` for any other type,
/// and `Zr` takes what follows `REG_SZ` and its run of spaces and tabs, with the end trimmed
/// (`trimEnd`); no match is empty text. The UTF-16 is cut at its first NUL, as `reg.exe`
/// prints it (the native read's handling of an inner NUL is not visible: unverified).
fn value_text(value: RegValue) -> RegText {
    match value {
        RegValue::Missing => RegText::Missing,
        RegValue::TooLarge(n) => RegText::Unread(format!(
            "the value exceeds {} MiB ({} bytes)",
            MAX_REGISTRY_BYTES / (1024 * 1024),
            crate::constants::Count(n)
        )),
        RegValue::Error(e) => RegText::Unread(e.to_string()),
        RegValue::Data { ty, bytes } if ty == REG_SZ || ty == REG_EXPAND_SZ => {
            let units = bytes
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .take_while(|&u| u != 0);
            let text: String = char::decode_utf16(units)
                .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            let text = text.trim_start_matches([' ', '\t']);
            RegText::Text(crate::text::js::trim_end(text).to_owned())
        }
        RegValue::Data { ty, .. } => RegText::NotText(ty),
    }
}

/// The registry's name of a value type.
fn type_name(ty: u32) -> String {
    match ty {
        0 => "REG_NONE".into(),
        3 => "REG_BINARY".into(),
        4 => "REG_DWORD".into(),
        7 => "REG_MULTI_SZ".into(),
        11 => "REG_QWORD".into(),
        n => format!("type {n}"),
    }
}

/// What the client makes of the `HKLM` value (`ii`, chunk `dagnsb7p`): read, it is judged as
/// any administrator document ([`judge`]); a value of another type is empty text, which stops
/// the client; one that cannot be read gives none of its settings and still keeps `HKCU` out.
fn read_machine_value(value: RegValue) -> OsPolicy {
    let mut out = OsPolicy::default();
    let path = registry_name(Hive::Machine);
    let label = "the HKLM policy key";
    match value_text(value) {
        RegText::Missing => {}
        RegText::Text(text) => judge(&mut out, path, label, &text),
        RegText::NotText(ty) => {
            out.blocks_user = true;
            out.problems.push(Problem {
                origin: path.clone(),
                message: format!(
                    "a {} value, not a string: the client reads it as empty text, which is not a \
                     JSON object, and refuses to start until it is fixed",
                    type_name(ty)
                ),
                stops_client: true,
            });
            out.read.push(ReadPolicy {
                source: path,
                note: format!("{label}: not a string value: the client refuses to start"),
            });
        }
        RegText::Unread(why) => {
            // `Xr`: "could not be read: <why>; none of its settings are in effect", and the
            // document counts as not loaded (`ECn`), so HKCU is not read. What the client does
            // next (it reports the error as fatal) is not captured: unverified.
            out.blocks_user = true;
            out.problems.push(Problem {
                origin: path.clone(),
                message: format!(
                    "could not be read: {why}; none of its settings are in effect, and the \
                     HKCU value is not used (what the client does then is unverified)"
                ),
                stops_client: false,
            });
            out.read.push(ReadPolicy {
                source: path,
                note: format!("{label}: could not be read: {why}; not used"),
            });
        }
    }
    out
}

/// The `HKCU` value's part in the policy (`ii`): read only when no administrator source holds
/// anything (`HKLM`, checked by the caller, and the managed folder's documents, `files_block`,
/// `Ma`). The user can write it, so a document that is not JSON is a warning and not a reason to
/// stop (`uqs`), the keys only an administrator may set are dropped (`sn`), and so are
/// `managedSourcesBehavior` and `wslInheritsWindowsSettings`: it is never merged. It is the
/// policy when anything else is left (`Po`, `Ds`: `Object.keys(settings).length > 0`).
pub(crate) fn read_user_policy(env: &ClientEnv, files_block: bool) -> OsPolicy {
    match registry(env, Hive::User) {
        Some(value) => read_user_value(value, files_block),
        None => OsPolicy::default(),
    }
}

/// [`read_user_policy`] of a value read.
fn read_user_value(value: RegValue, files_block: bool) -> OsPolicy {
    let mut out = OsPolicy::default();
    let path = registry_name(Hive::User);
    let label = "the HKCU policy key";
    let text = match value_text(value) {
        RegText::Missing => return out,
        _ if files_block => {
            out.read.push(ReadPolicy {
                source: path,
                note: format!(
                    "{label}: not read: managed-settings.json or a drop-in holds settings, and an \
                     administrator's settings keep the user's key out"
                ),
            });
            return out;
        }
        RegText::Unread(why) => {
            out.read.push(ReadPolicy {
                source: path,
                note: format!("{label}: could not be read: {why}; not used"),
            });
            return out;
        }
        RegText::NotText(_) => String::new(),
        RegText::Text(text) => text,
    };
    let warn = |message: String| Problem {
        origin: path.clone(),
        message,
        stops_client: false,
    };
    let parsed = if crate::text::js::trim(&text).is_empty() {
        Err("empty or not a string value: not a JSON object".to_owned())
    } else {
        super::file::parse_policy(&text)
    };
    let note = match parsed {
        Err(message) => {
            out.problems.push(warn(format!(
                "{message}; the client warns and uses none of it (the user's key does not stop \
                 it)"
            )));
            format!("{label}: not a JSON object: not used")
        }
        Ok((value, dropped)) => {
            out.problems.extend(dropped.into_iter().map(&warn));
            let mut value = value.unwrap_or_default();
            if let Some(o) = value.as_object_mut() {
                for key in NOT_CONTENT.iter().chain(&ADMIN_ONLY) {
                    o.remove(*key);
                }
            }
            if value.as_object().is_some_and(|o| !o.is_empty()) {
                out.policy = Some((path.clone(), value));
                format!(
                    "{label}: the policy (no administrator source holds settings; the user's key \
                     is never merged)"
                )
            } else {
                format!("{label}: holds no policy settings")
            }
        }
    };
    out.read.push(ReadPolicy { source: path, note });
    out
}

/// Whether a managed-folder document keeps the `HKCU` value out (`ei`: it holds content,
/// [`has_document_content`]; one that failed to read or parse does too, and is counted by the
/// caller from its problems).
pub(crate) fn counts_for_user(value: &Value) -> bool {
    has_document_content(value)
}

/// The unread policy sources of this environment's platform: the Windows registry when the
/// Windows model runs on another host (ccmem reads it only on Windows); on WSL, the Windows
/// host's registry (through `reg.exe`) and its managed folder.
pub(crate) fn unread_sources(env: &ClientEnv) -> Vec<UnreadPolicy> {
    match env.platform {
        Platform::Linux | Platform::Macos => Vec::new(),
        Platform::Windows if cfg!(windows) => Vec::new(),
        Platform::Windows => vec![UnreadPolicy {
            source: format!(r"HKLM\{POLICY_KEY}\{POLICY_VALUE} and HKCU\…"),
            note: "the client reads this registry value (JSON) before managed-settings.json, and \
                   the HKCU one when no administrator source holds settings; ccmem reads the \
                   registry only when it runs on Windows, so the policy predicted here leaves \
                   it out: unverified"
                .into(),
        }],
        Platform::Wsl => {
            let mut out = Vec::new();
            if Path::new(WSL_REG_EXE).exists() {
                out.push(UnreadPolicy {
                    source: format!(
                        r"HKLM\{POLICY_KEY}\{POLICY_VALUE} and HKCU\… (through {WSL_REG_EXE})"
                    ),
                    note: "the Windows host's policy: the client applies it in WSL when an \
                           administrator source (this HKLM value, or the host's \
                           managed-settings.json) sets wslInheritsWindowsSettings: true; ccmem \
                           cannot read the registry from WSL, so the policy predicted here \
                           leaves it out: unverified"
                        .into(),
                });
            }
            if Path::new(WSL_WINDOWS_MANAGED).exists() {
                out.push(UnreadPolicy {
                    source: WSL_WINDOWS_MANAGED.into(),
                    note: "the Windows host's managed folder: the client reads it too when \
                           Windows policy sets wslInheritsWindowsSettings: true; ccmem does not: \
                           unverified"
                        .into(),
                });
            }
            out
        }
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
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    /// A registry for [`registry`] in tests: what each hive holds.
    type Fake = Box<dyn Fn(Hive) -> Option<RegValue>>;

    thread_local! {
        pub(super) static FAKE_REGISTRY: RefCell<Option<Fake>> = RefCell::new(None);
    }

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

    /// A binary plist of forty arrays, each of eight references to the next: 8^40 events in
    /// 400 bytes (the receipt and the session-start hook never ended).
    #[test]
    fn a_binary_plist_of_shared_references_is_oversize_at_once() {
        let (depth, k) = (40u8, 8u8);
        let mut out = b"bplist00".to_vec();
        let mut offsets: Vec<u16> = Vec::new();
        offsets.push(out.len() as u16);
        out.extend([0xD1, 1, 2]); // { key 1: value 2 }
        offsets.push(out.len() as u16);
        out.extend(b"\x53env");
        for i in 0..depth {
            offsets.push(out.len() as u16);
            out.push(0xA0 | k);
            out.extend(std::iter::repeat_n(3 + i, usize::from(k)));
        }
        offsets.push(out.len() as u16);
        out.extend([0x10, 0]);
        let table = out.len() as u64;
        for o in &offsets {
            out.extend(o.to_be_bytes());
        }
        out.extend([0, 0, 0, 0, 0, 0, 2, 1]);
        out.extend((offsets.len() as u64).to_be_bytes());
        out.extend(0u64.to_be_bytes());
        out.extend(table.to_be_bytes());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(to_json(&out)));
        let got = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(got, Ok(Err(Convert::Oversize)));
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
                Held::Denied => {
                    RegValue::Error(std::io::Error::from_raw_os_error(if cfg!(windows) {
                        5
                    } else {
                        13
                    }))
                }
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
}
