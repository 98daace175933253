//! What a unit is called: the topic a flat list's entries share (the note they link, their
//! file-name stem, else their titles' first word), the labels on its pointer line, and its
//! hubs' names.

use jiff::Timestamp;

use super::super::crown;
use super::super::parse::{Index, Kind, entry_title};
use super::super::shape::{Limits, assign, part_counts, room_of};
use super::super::shape::{cut_words, first_clause};
use super::{Group, Pointer, Rank};
use crate::memory::Library;
use crate::memory::file::{Role as FileRole, role_of};
use crate::memory::names;

/// Type names are no topic: a pointer says what the hub holds, not how it was filed.
const TYPE_WORDS: [&str; 10] = [
    "user",
    "users",
    "feedback",
    "feedbacks",
    "project",
    "projects",
    "reference",
    "references",
    "other",
    "others",
];

/// Gives every unit its key and hubs: the section's own hub when it has one, else
/// `reference_<key>_hub.md` from its topic (never `reference_reference_hub.md`, never a name
/// another unit or a file of the folder has), then as many more as [`assign`] fills: an
/// existing hub takes only what its [`Room`] leaves within the audit's limits, each new one at
/// most `max-group-entries` entries and `max-file-lines` lines.
pub(super) fn name_hubs(
    lib: &Library,
    idx: &Index,
    pointers: &[Pointer],
    groups: &mut [Group],
    (max, max_lines): (usize, usize),
) {
    let parts = part_counts(idx);
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for g in groups.iter() {
        taken.extend(g.hubs.iter().cloned());
    }
    for g in groups.iter_mut() {
        let base = if g.hubs.is_empty() {
            let words =
                if g.title.is_empty() || TYPE_WORDS.contains(&g.title.to_lowercase().as_str()) {
                    g.labels.first().cloned().unwrap_or_default()
                } else {
                    g.title.clone()
                };
            let mut key = names::key(&words);
            key = key.split('-').take(4).collect::<Vec<_>>().join("-");
            if key == "reference" || key.starts_with("reference-") {
                key = format!("references{}", &key["reference".len()..]);
            }
            key
        } else {
            hub_key(&g.hubs[0])
        };
        g.key = base.clone();
        // The next free hub name: `base` for a unit's first hub (appended to when the file
        // exists), else `base-n`, never a name taken or, beyond the first, a file's.
        let mut n = 1;
        let mut pick = |hubs: &[String]| loop {
            let key = if hubs.is_empty() && n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            n += 1;
            let hub = names::hub_file(&key);
            if taken.contains(&hub) || (lib.file(&hub).is_some() && !hubs.is_empty()) {
                continue;
            }
            taken.insert(hub.clone());
            return hub;
        };
        if g.hubs.is_empty() {
            let hub = pick(&g.hubs);
            g.hubs.push(hub);
        }
        g.room = (lib.file(&g.hubs[0])).map(|f| room_of(f.text().unwrap_or(""), max, max_lines));
        let limits = Limits {
            entries: max,
            lines: max_lines,
            room: g.room,
        };
        let chunks = assign(idx, &parts, &g.lines, limits)
            .last()
            .map_or(1, |c| c + 1);
        while g.hubs.len() < chunks {
            let hub = pick(&g.hubs);
            g.hubs.push(hub);
        }
        g.hub_exists = lib.file(&g.hubs[0]).is_some();
        g.linked = pointers.iter().any(|p| p.hubs.contains(&g.hubs[0]));
        if g.hub_exists {
            g.last_used = g.last_used.max(modified(lib, &g.hubs[0]));
        }
    }
}

/// A file name's topic stem: without `<type>_`, the first `_`-separated part, else the first
/// `-`-separated word (`feedback_semaphore_api.md` → `semaphore`, `project_class-2c.md` →
/// `class`).
pub(super) fn stem_of(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    let base = base.strip_suffix(".md").unwrap_or(base);
    let rest = match base.split_once(['_', '-']) {
        Some((p, rest)) if Rank::of_type(p).is_some() => rest,
        _ => base,
    };
    let first = match rest.split_once('_') {
        Some((f, _)) => f,
        None => rest.split('-').next().unwrap_or(rest),
    };
    if first == rest && !rest.contains('-') {
        // A name of one word is its own topic, no stem to share.
        return rest.to_lowercase();
    }
    first.to_lowercase()
}

/// A title's first word, lower-cased, without trailing punctuation (empty for none).
pub(super) fn first_word(title: &str) -> String {
    let w = title.split_whitespace().next().unwrap_or("");
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    if w.chars().count() < 2 || w.len() == title.trim().len() {
        return String::new();
    }
    w.to_lowercase()
}

/// The topic of a unit formed by a shared first title word: that word as the user wrote it.
pub(super) fn title_word(idx: &Index, line: usize) -> String {
    let title = entry_title(idx.lines[line].text).unwrap_or("");
    let w = title.split_whitespace().next().unwrap_or("");
    w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned()
}

/// The topic of a unit formed by a shared stem: the first title word when it is the stem
/// (`Nextcloud occ` for `nextcloud`), else the stem.
pub(super) fn stem_title(idx: &Index, line: usize, stem: &str) -> String {
    let w = title_word(idx, line);
    if w.to_lowercase() == stem {
        w
    } else {
        stem.to_owned()
    }
}

/// An entry's label on its unit's pointer: its link text, unless that is a file name; else
/// the first clause of its hook, else its file's description, else its name's words.
pub(super) fn label(lib: &Library, line: &str, file: Option<usize>, name: &str) -> String {
    // A file name or a `[[name]]` slug is no retrieval key: the hook says more.
    let looks_like_file = |t: &str| {
        t.ends_with(".md") || (!t.contains(char::is_whitespace) && t.contains(['_', '-']))
    };
    if let Some(title) = entry_title(line)
        && !looks_like_file(title)
    {
        return title.to_owned();
    }
    let row = line.trim();
    if row.starts_with('|')
        && let Some(title) = entry_title(line)
    {
        // A table row's other cells are columns (a path, a role), not a hook: its name says
        // what it is.
        return title.trim_end_matches(".md").replace(['_', '-'], " ");
    }
    let hook = line
        .split_once(" — ")
        .map(|(_, h)| h.trim())
        .or_else(|| line.split_once(" – ").map(|(_, h)| h.trim()))
        .or_else(|| line.split_once(" - ").map(|(_, h)| h.trim()))
        .or_else(|| line.split_once(": ").map(|(_, h)| h.trim()));
    let desc = file
        .and_then(|t| lib.files[t].meta())
        .and_then(|m| m.description.as_deref());
    if let Some(text) = hook.filter(|h| !h.is_empty()).or(desc) {
        return super::super::shape::first_clause(text).to_owned();
    }
    let base = name.strip_suffix(".md").unwrap_or(name);
    let rest = match base.split_once(['_', '-']) {
        Some((p, rest)) if Rank::of_type(p).is_some() => rest,
        _ => base,
    };
    rest.replace(['_', '-'], " ")
}

/// A note's label on its unit's pointer (a link-less line of a dated or read-on-demand
/// section): its first clause, without list marks, emphasis or leading signs.
pub(super) fn note_label(line: &str) -> String {
    let t = line.trim_start();
    let t = t.strip_prefix(['-', '*', '+', '>']).unwrap_or(t);
    let t = t.trim_start_matches(|c: char| {
        !(c.is_alphanumeric() || c == '`' || c == '(' || c == '（' || c == '[')
    });
    let t = t.replace("**", "").replace("__", "");
    let head = first_clause(&t);
    // A lead-in (`待办：…`, `TODO: …`) says little: the clause it introduces goes with it.
    if head.chars().count() <= 3
        && let Some(rest) = t.get(head.len()..)
        && let Some(after) = rest.strip_prefix(['：', ':'])
    {
        let after = after.trim_start();
        let next = first_clause(after);
        if !next.is_empty() {
            let sep = &rest[..rest.len() - after.len()];
            return cut_words(&format!("{head}{sep}{next}"), 60);
        }
    }
    cut_words(head, 60)
}

/// The run of dated sibling sections that `head` opens, when it holds two sections or more
/// (see [`Group::run`](super::Group::run)).
pub(super) fn run_of(idx: &Index, run_head: &[usize], head: usize) -> Option<super::Run> {
    let heads: Vec<usize> = (head..idx.lines.len())
        .filter(|&h| run_head[h] == head && matches!(idx.lines[h].kind, Kind::Heading { .. }))
        .collect();
    if heads.len() < 2 {
        return None;
    }
    let mut dates = Vec::new();
    let mut shared: Option<String> = None;
    let mut same = true;
    for h in heads {
        let title = heading_title(idx, h);
        let date = crown::date(&title)?.to_owned();
        let rest = title
            .replacen(&date, "", 1)
            .trim_matches(|c: char| c.is_whitespace() || "-–—:：·|".contains(c))
            .to_owned();
        same &= shared.as_ref().is_none_or(|s| *s == rest);
        shared.get_or_insert(rest);
        dates.push((h, date));
    }
    Some(super::Run {
        shared: shared.filter(|_| same).unwrap_or_default(),
        dates,
    })
}

pub(super) fn hub_key(hub: &str) -> String {
    match role_of(hub) {
        FileRole::Hub { group } => group,
        _ => hub.trim_end_matches(".md").to_owned(),
    }
}

pub(super) fn heading_title(idx: &Index, h: usize) -> String {
    match &idx.lines[h].kind {
        Kind::Heading { title, .. } => title.clone(),
        _ => String::new(),
    }
}

/// A hub's `modified`, when it has a readable one.
pub(super) fn modified(lib: &Library, file: &str) -> Option<Timestamp> {
    lib.file(file)?.modified()
}
