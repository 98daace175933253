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

use super::{NOT_CONTENT, OsPolicy, ReadPolicy, judge};
use crate::env::ClientEnv;
use crate::platform::Platform;
use crate::settings::Problem;
use crate::sys::{Hive, RegValue};

/// The Windows registry key the client reads its policy from, under `HKLM` and `HKCU`
/// (`sXt`, `v2o`), and the value in it (`iXt`).
pub(super) const POLICY_KEY: &str = r"SOFTWARE\Policies\ClaudeCode";
pub(super) const POLICY_VALUE: &str = "Settings";
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
/// host (`None` otherwise: [`super::unread_sources`] says so).
pub(super) fn registry(env: &ClientEnv, hive: Hive) -> Option<RegValue> {
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
pub(super) fn read_machine_value(value: RegValue) -> OsPolicy {
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
        crate::settings::file::parse_policy(&text)
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

#[cfg(test)]
mod tests;
