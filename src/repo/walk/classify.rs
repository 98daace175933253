//! What a file is by its place and name: an instruction file the client loads, or a near miss
//! it never loads although its name says it is meant to.

use super::{InstrKind, NearMiss};
use crate::constants::{AGENTS_MD, CLAUDE_DIR, CLAUDE_LOCAL_MD, CLAUDE_MD, RULES_DIR};

/// The directory and kind of an instruction file at `parent/name`, if it is one.
pub(super) fn classify<'a>(
    parent: &'a str,
    name: &str,
    in_dot_claude: bool,
    grand: &'a str,
) -> Option<(&'a str, InstrKind)> {
    if let Some(dir) = rules_dir_of(parent) {
        return name.ends_with(".md").then_some((dir, InstrKind::Rule));
    }
    match (name, in_dot_claude) {
        (CLAUDE_MD, true) => Some((grand, InstrKind::Claude)),
        (AGENTS_MD, true) => Some((grand, InstrKind::Agents)),
        (CLAUDE_MD, false) => Some((parent, InstrKind::Claude)),
        (AGENTS_MD, false) => Some((parent, InstrKind::Agents)),
        (CLAUDE_LOCAL_MD, false) => Some((parent, InstrKind::Local)),
        _ => None,
    }
}

/// The directory holding `.claude/rules` when `parent` is that rules folder or below it
/// (`"a/.claude/rules/x"` → `"a"`).
pub(super) fn rules_dir_of(parent: &str) -> Option<&str> {
    dot_claude_child(parent, RULES_DIR)
}

/// The directory holding `.claude` when `parent` is `D/.claude/CHILD` or below it.
pub(super) fn dot_claude_child<'p>(parent: &'p str, child: &str) -> Option<&'p str> {
    let mut offset = 0;
    let parts: Vec<&str> = parent.split('/').collect();
    for (k, part) in parts.iter().enumerate() {
        if *part == CLAUDE_DIR && parts.get(k + 1) == Some(&child) {
            return Some(parent[..offset.max(1) - 1].trim_end_matches('/'));
        }
        offset += part.len() + 1;
    }
    None
}

/// A file the client never loads although its name says it is meant to.
pub(super) fn near_miss(
    rel: &str,
    parent: &str,
    name: &str,
    in_dot_claude: bool,
    grand: &str,
) -> Option<NearMiss> {
    let join = |d: &str, n: &str| {
        if d.is_empty() {
            n.to_owned()
        } else {
            format!("{d}/{n}")
        }
    };
    let miss = |wanted: String, case_only: bool| {
        Some(NearMiss {
            rel: rel.to_owned(),
            wanted,
            case_only,
        })
    };
    if rules_dir_of(parent).is_some() {
        // A rule must end in `.md`, exact case.
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".md") {
            return miss(
                join(parent, &format!("{}.md", &name[..name.len() - 3])),
                true,
            );
        }
        return None;
    }
    if in_dot_claude {
        if name == CLAUDE_LOCAL_MD {
            return miss(join(grand, CLAUDE_LOCAL_MD), false);
        }
        if name == "rules.md" {
            return miss(join(parent, "rules/rules.md"), false);
        }
        for exact in [CLAUDE_MD, AGENTS_MD] {
            if name.eq_ignore_ascii_case(exact) {
                return miss(join(parent, exact), true);
            }
        }
    }
    if dot_claude_child(parent, "rule").is_some() {
        if name.ends_with(".md") {
            return miss(
                parent.replacen(".claude/rule", ".claude/rules", 1) + "/" + name,
                false,
            );
        }
        return None;
    }
    for exact in [CLAUDE_MD, AGENTS_MD, CLAUDE_LOCAL_MD] {
        if name != exact && name.eq_ignore_ascii_case(exact) && !in_dot_claude {
            return miss(join(parent, exact), true);
        }
    }
    None
}
