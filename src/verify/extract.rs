//! The memory reminder inside a captured request, and path normalization for cases.
//!
//! The rule is the oracle's (`capture.py`): in the first Messages request that has messages,
//! the first text block (string content counts as one text block) that starts with
//! `<system-reminder>\nCodebase and user instructions`. No such block means the client sent no
//! memory reminder, which is the empty string.

use serde_json::Value;

use super::stub::Recorded;

/// How the client's memory reminder starts.
pub const MARK: &str = "<system-reminder>\nCodebase and user instructions";

/// The first request that is a Messages API call with messages.
pub fn first_messages_call(requests: &[Recorded]) -> Option<&Recorded> {
    requests.iter().find(|r| r.is_messages_call())
}

/// The memory reminder of one request body, or `""` when it carries none.
pub fn reminder(body: &Value) -> String {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return String::new();
    };
    for message in messages {
        let found = match message.get("content") {
            Some(Value::String(s)) => s.starts_with(MARK).then(|| s.clone()),
            Some(Value::Array(blocks)) => blocks.iter().find_map(|b| {
                let text = b.get("text").and_then(Value::as_str)?;
                (b.get("type").and_then(Value::as_str) == Some("text") && text.starts_with(MARK))
                    .then(|| text.to_owned())
            }),
            _ => None,
        };
        if let Some(text) = found {
            return text;
        }
    }
    String::new()
}

/// The client's project slug of a path (`J$`: one `-` per UTF-16 unit outside `[A-Za-z0-9]`,
/// a hash suffix past 200 units), the one the loader uses, so a captured root of any length
/// or script is written `{ROOT_SLUG}` wherever the client put its folder name.
pub use crate::load::automem::slug::slug;

/// Writes `root` as `{ROOT}` and its slug as `{ROOT_SLUG}` (in that order, as `capture.py`).
pub fn normalize(text: &str, root: &str) -> String {
    if root.is_empty() {
        return text.to_owned();
    }
    text.replace(root, "{ROOT}")
        .replace(&slug(root), "{ROOT_SLUG}")
}

/// The inverse of [`normalize`]: puts a concrete root back.
pub fn denormalize(text: &str, root: &str) -> String {
    text.replace("{ROOT_SLUG}", &slug(root))
        .replace("{ROOT}", root)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_the_first_marked_text_block() {
        let body = json!({"messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "text": format!("{MARK} not text")},
                {"type": "text", "text": format!("{MARK} one")},
                {"type": "text", "text": format!("{MARK} two")},
            ]},
        ]});
        assert_eq!(reminder(&body), format!("{MARK} one"));
    }

    #[test]
    fn string_content_counts_and_absence_is_empty() {
        let body = json!({"messages": [{"role": "user", "content": format!("{MARK}!")}]});
        assert_eq!(reminder(&body), format!("{MARK}!"));
        let none = json!({"messages": [{"role": "user", "content": "<system-reminder>\nOther"}]});
        assert_eq!(reminder(&none), "");
        assert_eq!(reminder(&json!(null)), "");
        assert_eq!(reminder(&json!({"messages": 3})), "");
    }

    #[test]
    fn normalize_roundtrips_root_and_slug() {
        let root = "/tmp/ccv.ab_c";
        let text = "Contents of /tmp/ccv.ab_c/CLAUDE.md in projects/-tmp-ccv-ab-c/memory";
        let norm = normalize(text, root);
        assert_eq!(
            norm,
            "Contents of {ROOT}/CLAUDE.md in projects/{ROOT_SLUG}/memory"
        );
        assert_eq!(denormalize(&norm, root), text);
        assert_eq!(slug("/a é"), "-a--");
        // Per UTF-16 unit (an emoji is two) and hashed past 200 units, as the client names its
        // folder: the root of a long path is still found in the text.
        assert_eq!(slug("/a😀"), "-a--");
        let long = format!("/{}", "r".repeat(230));
        let text = format!("projects/{}/memory", slug(&long));
        assert_eq!(normalize(&text, &long), "projects/{ROOT_SLUG}/memory");
    }
}
