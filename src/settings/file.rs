//! One settings file read as the client reads it, all or nothing (the client's `vx`, which
//! reads with `yW` and parses with `TA`; every rule below is pinned by a case in
//! `tests/oracle/cases-captured/mem-off-setting-*` or `instr-excludes-settings-*`):
//!
//! - Size: at most [`crate::constants::MAX_SETTINGS_BYTES`]; a larger file loads none of its settings (`yW`'s
//!   `maxBytes`, checked by `stat` before reading).
//! - Encoding (`Owe`): a file starting with the UTF-16LE BOM (`FF FE`) is UTF-16LE; anything
//!   else is UTF-8, bytes that are not UTF-8 read as U+FFFD (so UTF-16BE, or UTF-16 without a
//!   BOM, is not JSON and is dropped). One leading U+FEFF is then skipped (`ki`, so a UTF-8 BOM
//!   is fine).
//! - Empty: text that is only whitespace (JavaScript's `trim`, which counts U+FEFF) is an empty
//!   layer, not a problem.
//! - Syntax: `JSON.parse` (`et`): strict JSON, any depth, a repeated key's last value wins
//!   ([`json::Doc`]). Comments, trailing commas, `NaN` or anything else drop the whole file.
//! - Shape: the document must be an object, and the client's settings schema must accept the
//!   depth-cut copy (`xje`, then `awe(…).safeParse`): one key of the wrong type drops the whole
//!   file, its other keys included. ccmem checks the keys it reads ([`check_known_keys`]); a
//!   wrong type in a key it does not read (say `"model": 5`) is not detected, and that file
//!   still counts here while the client drops it.

use serde_json::Value;

use super::json;
use crate::text::js;

/// The settings text of a file's bytes, decoded the way `Owe` decides and without the one
/// leading U+FEFF `ki` skips.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let text = if bytes.starts_with(&[0xff, 0xfe]) {
        // The BOM is decoded too (as U+FEFF, skipped below); an odd last byte is dropped.
        char::decode_utf16(
            bytes
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]])),
        )
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    };
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// The settings of one file's text (`Ok(None)`: blank, an empty layer), or why the client
/// loads none of it.
pub(crate) fn parse(text: &str) -> Result<Option<Value>, String> {
    if js::trim(text).is_empty() {
        return Ok(None);
    }
    let doc = json::Doc::parse(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let value = doc.value();
    if !value.is_object() {
        return Err("not a JSON object".into());
    }
    check_known_keys(&value)?;
    Ok(Some(value))
}

/// A policy document's settings (managed-settings.json, a drop-in, a macOS plist's JSON): as
/// [`parse`], except that a key ccmem reads with the wrong type is dropped alone, with a
/// sentence saying so, and the rest of the document counts (the policy schema, `cs` with
/// `io`, chunk-ybcm27m2, removes the keys it cannot accept; cases
/// `cases-macos/policy-plist-bad-type` and `cases-macos/policy-file-bad-type`:
/// `"claudeMdExcludes": "…"` is ignored and the document's `claudeMd` still loads).
pub(crate) fn parse_policy(text: &str) -> Result<(Option<Value>, Vec<String>), String> {
    if js::trim(text).is_empty() {
        return Ok((None, Vec::new()));
    }
    let doc = json::Doc::parse(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let mut value = doc.value();
    if !value.is_object() {
        return Err("not a JSON object".into());
    }
    let mut dropped = Vec::new();
    for (pointer, kind) in KNOWN {
        if let Some(v) = value.pointer(pointer)
            && !kind.holds(v)
        {
            let key = pointer[1..].replace('/', ".");
            dropped.push(format!(
                "{key} is {v}, not {}: the client's policy schema drops this key and keeps the \
                 rest of the document",
                kind.name()
            ));
            let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
            if let Some(obj) = value.pointer_mut(parent).and_then(Value::as_object_mut) {
                obj.remove(last);
            }
        }
    }
    Ok((Some(value), dropped))
}

/// The keys ccmem reads, with the type the client's settings schema gives each (none of them
/// has a fallback there, so a wrong type, `null` included, fails the whole document).
const KNOWN: &[(&str, Kind)] = &[
    ("/autoMemoryEnabled", Kind::Bool),
    ("/autoMemoryDirectory", Kind::String),
    ("/claudeMdExcludes", Kind::Strings),
    ("/permissions", Kind::Object),
    ("/permissions/deny", Kind::Array),
];

#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    String,
    Strings,
    Object,
    /// An array (each rule's own syntax, which the client also checks, is not).
    Array,
}

impl Kind {
    fn holds(self, v: &Value) -> bool {
        match self {
            Kind::Bool => v.is_boolean(),
            Kind::String => v.is_string(),
            Kind::Strings => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            Kind::Object => v.is_object(),
            Kind::Array => v.is_array(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bool => "true or false",
            Kind::String => "a string",
            Kind::Strings => "a list of strings",
            Kind::Object => "an object",
            Kind::Array => "a list",
        }
    }
}

/// Fails when a key ccmem reads has a type the client's schema rejects.
fn check_known_keys(value: &Value) -> Result<(), String> {
    for (pointer, kind) in KNOWN {
        if let Some(v) = value.pointer(pointer)
            && !kind.holds(v)
        {
            let key = pointer[1..].replace('/', ".");
            return Err(format!(
                "{key} is {v}, not {}: the client's settings schema rejects the file and none of \
                 its settings count",
                kind.name()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn utf16le(s: &str, bom: bool) -> Vec<u8> {
        let mut b = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        b.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        b
    }

    #[test]
    fn decoded_as_owe_and_ki_decide() {
        let on = r#"{"autoMemoryEnabled": false}"#;
        assert_eq!(decode(format!("\u{feff}{on}").as_bytes()), on);
        assert_eq!(decode(&utf16le(on, true)), on);
        let mut odd = utf16le(on, true);
        odd.push(b'\n');
        assert_eq!(decode(&odd), on);
        // No BOM, or big-endian: read as UTF-8, so not the JSON it was.
        assert!(parse(&decode(&utf16le(on, false))).is_err());
        let be: Vec<u8> = "\u{feff}{}"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert!(parse(&decode(&be)).is_err());
        // Only one BOM is skipped: a second one is not JSON whitespace.
        assert!(parse(&decode("\u{feff}\u{feff}{}".as_bytes())).is_err());
    }

    #[test]
    fn blank_is_an_empty_layer_and_everything_else_must_be_an_object() {
        assert_eq!(parse(" \n\t\u{feff}\u{a0}"), Ok(None));
        assert!(parse("\u{85}").is_err());
        assert!(parse("[]").unwrap_err().contains("not a JSON object"));
        assert!(parse("null").is_err());
        assert!(parse("{} // c").unwrap_err().starts_with("invalid JSON"));
        assert_eq!(parse(r#"{"a": 1}"#), Ok(Some(json!({"a": 1}))));
    }

    #[test]
    fn a_known_key_of_the_wrong_type_drops_the_file() {
        for bad in [
            r#"{"autoMemoryEnabled": "true"}"#,
            r#"{"autoMemoryEnabled": false, "autoMemoryDirectory": null}"#,
            r#"{"autoMemoryDirectory": 5}"#,
            r#"{"claudeMdExcludes": "x"}"#,
            r#"{"claudeMdExcludes": ["a", 5]}"#,
            r#"{"permissions": 5}"#,
            r#"{"permissions": {"deny": "Read(x)"}}"#,
        ] {
            let err = parse(bad).unwrap_err();
            assert!(err.contains("none of its settings count"), "{bad}: {err}");
        }
        let ok = r#"{"autoMemoryEnabled": true, "autoMemoryDirectory": "~/m",
            "claudeMdExcludes": [], "permissions": {"deny": ["Read(x)"]}, "other": null}"#;
        assert!(parse(ok).unwrap().is_some());
    }
}
