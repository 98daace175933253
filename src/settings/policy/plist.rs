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
//!   gives that as the file's layers followed by the plist's ([`crate::settings::Settings::get`] takes the
//!   last, [`crate::settings::Settings::concat`] joins).
//!
//! The plist is read here with the `plist` crate (XML, binary and the old ASCII format, as
//! `plutil` reads them), at most [`MAX_PLIST_BYTES`], streamed into JSON text without recursion
//! and cut at 2 MiB of it as `plutil`'s output is. `CCMEM_MANAGED_PREFERENCES` points the
//! folder elsewhere (tests), as `CCMEM_MANAGED_DIR` does the managed folder.

use std::io::Cursor;
use std::path::Path;

use serde_json::Value;

use super::{OsPolicy, ReadPolicy, judge};
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::settings::Problem;

/// The macOS managed-preferences folder.
pub(crate) const MANAGED_PREFERENCES: &str = "/Library/Managed Preferences";
/// The variable that points it elsewhere (tests).
pub(crate) const MANAGED_PREFERENCES_VAR: &str = "CCMEM_MANAGED_PREFERENCES";
/// The preferences domain the client reads.
const DOMAIN: &str = "com.anthropic.claudecode";
/// The most JSON `plutil` may print before the client gives up on it (`Gqs`, its `maxBuffer`).
const MAX_PLUTIL_OUTPUT: usize = 2 * 1024 * 1024;
/// The largest plist ccmem reads: eight times the JSON the client takes, room for XML's
/// markup around the same values. A larger one is reported as not read.
pub(crate) const MAX_PLIST_BYTES: u64 = 8 * MAX_PLUTIL_OUTPUT as u64;

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

/// Reads the platform's plists as the client does (`o6r` and `vt`).
pub(super) fn read_plists(env: &ClientEnv) -> OsPolicy {
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
mod tests;
