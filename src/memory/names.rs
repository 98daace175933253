//! Hub names: `reference_<key>_hub.md`, where the key is an ASCII slug of the group's title,
//! so that every hub tier creates passes the audit's `bad-file-name` and is a hub to the
//! library model ([`crate::memory::file::role_of`]). `tier`, `add` and the audit's `large-group`
//! fix name hubs with it.
//!
//! Titles in other scripts are transliterated with `deunicode` (`移动端 Mobile` →
//! `yi-dong-duan-mobile`, `배포` → `baepo`); a title with nothing left to spell (`🔧` alone
//! is `wrench`, but some symbols have no spelling) gets `group-` and 8 hex digits of a
//! fixed-seed hash of the title. Both are pure functions of the title: the same heading gives
//! the same hub on every run and every machine.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::memory::file::{Role, role_of};

/// Longest key, in ASCII characters (a hub name stays well under any file-name limit).
const MAX_KEY: usize = 40;
/// Seed of the fallback hash (fixed: names must be stable across runs).
const SEED: u64 = 0x00cc_3e3a_0007_1e25;

/// Whether a line carries a crown mark (⭐ or ⚠, with or without a variation selector). `tier`
/// keeps crown entries, and every entry of a section under a crowned heading, at the top of
/// MEMORY.md and never moves them to a hub; the audit's `large-group` says so for such a section.
pub fn has_crown_mark(text: &str) -> bool {
    text.contains('\u{2B50}') || text.contains('\u{26A0}')
}

/// The key of a group titled `title`: lower-case ASCII letters and digits in words joined by
/// `-`, at most [`MAX_KEY`] characters.
pub fn key(title: &str) -> String {
    let ascii = deunicode::deunicode_with_tofu(title, " ");
    let mut out = String::new();
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            if out.len() >= MAX_KEY {
                break;
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        format!(
            "group-{:08x}",
            xxh3_64_with_seed(title.as_bytes(), SEED) as u32
        )
    } else {
        out.to_owned()
    }
}

/// The hub file of key `key`.
pub fn hub_file(key: &str) -> String {
    let name = format!("reference_{key}_hub.md");
    debug_assert!(matches!(role_of(&name), Role::Hub { .. }), "{name}");
    name
}

/// The `name:` a hub gets in the client's spec: a kebab-case slug of its file name.
pub fn kebab_name(file: &str) -> String {
    file.trim_end_matches(".md").replace('_', "-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::spec::is_kebab_slug;

    #[test]
    fn keys_are_ascii_slugs_in_every_script() {
        let cases = [
            ("  Tools & Co!! ", "tools-co"),
            ("移动端 Mobile", "yi-dong-duan-mobile"),
            ("배포", "baepo"),
            ("テスト", "tesuto"),
            ("Tiếng Việt", "tieng-viet"),
            ("Übergabe", "ubergabe"),
            ("2026-07-16", "2026-07-16"),
        ];
        for (title, want) in cases {
            assert_eq!(key(title), want, "{title}");
        }
        let long = key(&"word ".repeat(30));
        assert!(long.len() <= MAX_KEY && !long.ends_with('-'), "{long}");
    }

    #[test]
    fn titles_without_letters_hash_stably() {
        let a = key("\u{E000}");
        assert!(a.starts_with("group-") && a.len() == 14, "{a}");
        assert_eq!(a, key("\u{E000}"), "same title, same key");
        assert_ne!(a, key("\u{E001}"));
    }

    #[test]
    fn every_key_makes_a_hub_the_audit_accepts() {
        for title in [
            "日本語のメモ",
            "🔧",
            "Build & Test",
            "\u{E000}",
            "x",
            "数据 / データ",
        ] {
            let hub = hub_file(&key(title));
            assert!(matches!(role_of(&hub), Role::Hub { .. }), "{hub}");
            assert!(is_kebab_slug(&kebab_name(&hub)), "{hub}");
        }
    }
}
