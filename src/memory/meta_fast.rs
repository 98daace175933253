//! A fast path for the frontmatter shape the client and most users write: flat `key: value`
//! lines, and a `metadata:` block of two-space-indented `key: value` lines, whose values are
//! plain strings. Parsing that shape with a full YAML parser was the largest single cost of
//! auditing a 20,000-file library (about 16 % of the CPU time). Anything outside the shape
//! (quotes, flow collections, block scalars, comments, anchors, tags, `: ` or ` #` inside a
//! value, values YAML reads as numbers, booleans or null, duplicate keys, tabs, CR) returns
//! `None` and goes to serde-saphyr, so the result is always what the YAML parser gives; a test
//! checks the two agree.

use std::collections::BTreeMap;

/// Flat keys and `metadata` keys with their string values, or `None` when the block is not in
/// the simple shape.
pub(super) type Simple<'a> = (BTreeMap<&'a str, &'a str>, BTreeMap<&'a str, &'a str>);

/// Reads `yaml` if it is in the simple shape.
pub(super) fn parse(yaml: &str) -> Option<Simple<'_>> {
    if yaml.contains(['\r', '\t']) {
        return None;
    }
    let mut top = BTreeMap::new();
    let mut nested = BTreeMap::new();
    let mut in_metadata = false;
    for line in yaml.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let (indented, rest) = match line.strip_prefix("  ") {
            Some(r) => (true, r),
            None => (false, line),
        };
        let (key, value) = rest.split_once(':')?;
        if !is_key(key) {
            return None;
        }
        let value = value.strip_prefix(' ').unwrap_or(value);
        if !value.is_empty() && !rest[key.len() + 1..].starts_with(' ') {
            return None;
        }
        let value = value.trim_end();
        if indented {
            if !in_metadata || value.is_empty() || !is_plain(value) {
                return None;
            }
            if nested.insert(key, value).is_some() {
                return None;
            }
            continue;
        }
        in_metadata = key == "metadata" && value.is_empty();
        if in_metadata {
            if top.contains_key(key) || !nested.is_empty() {
                return None;
            }
            top.insert(key, "");
            continue;
        }
        if (!value.is_empty() && !is_plain(value)) || top.insert(key, value).is_some() {
            return None;
        }
    }
    Some((top, nested))
}

fn is_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A value YAML reads as this exact string.
fn is_plain(v: &str) -> bool {
    let first = v.as_bytes()[0];
    if b"-?:,[]{}#&*!|>'\"%@`~ ".contains(&first) || v.ends_with(':') {
        return false;
    }
    if v.contains(": ") || v.contains(" #") {
        return false;
    }
    let lower = v.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | ".inf" | ".nan"
    ) {
        return false;
    }
    if first.is_ascii_digit() || first == b'+' || first == b'.' {
        return is_date(v);
    }
    true
}

/// `YYYY-MM-DD`, optionally with a time (`T` or space) and a zone: never a number to YAML.
fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10))
    {
        return false;
    }
    b.len() == 10
        || (matches!(b[10], b'T' | b' ')
            && v[11..]
                .bytes()
                .all(|c| c.is_ascii_digit() || b":.+-Z".contains(&c)))
}

#[cfg(test)]
mod tests {
    use super::super::meta::{Front, parse_yaml, parse_yaml_full};

    #[test]
    fn fast_path_agrees_with_the_yaml_parser() {
        let cases = [
            "name: a\ndescription: 浏览器端 supabase.from() 在 tab 切换后死锁,必须用 fetch() 调 REST API\ntype: feedback\nmodified: 2026-10-05T09:00:00Z\n",
            "name: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: project\n  modified: 2026-01-02\n",
            "name: x-y_z\ndescription: uses a:b and c#d, also 'quotes' inside\ntype: user\n",
            "name: a\ntype:\n",
            "name: 123\n",
            "name: true\n",
            "name: 1e3\n",
            "name: ~\n",
            "name: 'quoted'\n",
            "name: a: b\n",
            "name: a #comment\n",
            "name: [x]\n",
            "name: a\nname: b\n",
            "metadata:\n  type: x\nmetadata:\n  type: y\n",
            "name: a\n  type: nested-without-parent\n",
            "description: >\n  folded\n",
            "modified: 2026-10-05 09:00\n",
            "status: superseded\nsuperseded_by: feedback_new\nretired: yes\n",
            "key with space: v\n",
        ];
        for yaml in cases {
            let full = parse_yaml_full(yaml);
            let fast = parse_yaml(yaml);
            if let Front::Parsed(_) = &full {
                assert_eq!(fast, full, "{yaml}");
            } else {
                // The fast path never takes a block the YAML parser rejects; the client's
                // lenient retry may still read it.
                assert!(super::parse(yaml).is_none(), "{yaml}");
            }
        }
        assert!(super::parse(cases[0]).is_some());
        assert!(super::parse(cases[1]).is_some());
        assert!(super::parse(cases[2]).is_some());
        assert!(super::parse(cases[9]).is_none());
    }
}
