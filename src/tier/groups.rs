//! Who goes where: resolving links to files, finding crowns and pointers, and assigning every
//! other index line to a group (the index's own heading, else the linked file's `group`
//! field, else its type prefix `feedback_…`, else its `type`, else `misc`).

use std::collections::{BTreeMap, HashMap};

use super::parse::{Index, Kind, has_crown_mark};
use super::{Refusal, is_hub, topic};
use crate::constants::INDEX_FILE as INDEX;
use crate::memory::Library;

/// Resolves link targets to library files.
#[derive(Debug)]
pub struct Resolver<'a> {
    lib: &'a Library,
    by_name: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Resolver<'a> {
    /// Builds the name table; refuses file names that differ only in case. Files sharing a
    /// frontmatter `name` are refused only where a link uses that name (see
    /// [`Resolver::ambiguous`]).
    pub fn new(lib: &'a Library) -> Result<Self, Refusal> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut folded: HashMap<String, &str> = HashMap::new();
        for f in lib.top_level() {
            let file = f.rel.as_str();
            if let Some(other) = folded.insert(file.to_lowercase(), file) {
                return Err(dup(file, other, "file names differ only in case"));
            }
            if let Some(name) = f.meta().and_then(|m| m.name.as_deref()) {
                by_name.entry(name).or_default().push(file);
            }
        }
        Ok(Resolver { lib, by_name })
    }

    /// The file a link target names: the file itself, `target.md`, a file whose frontmatter
    /// `name` is `target`, or an existing nested path.
    pub fn resolve(&self, target: &str) -> Option<&'a str> {
        if let Some(f) = topic(self.lib, target) {
            return Some(&f.rel);
        }
        if let Some(f) = topic(self.lib, &format!("{target}.md")) {
            return Some(&f.rel);
        }
        if let Some(k) = self.by_name.get(target) {
            return Some(k[0]);
        }
        let nested = target
            .contains('/')
            .then(|| self.lib.file(target))
            .flatten();
        nested.map(|f| f.rel.as_str())
    }
}

impl Resolver<'_> {
    /// A refusal when `target` resolves only through a frontmatter `name` that several files
    /// share (the link is ambiguous).
    pub fn ambiguous(&self, target: &str) -> Option<Refusal> {
        let direct =
            topic(self.lib, target).is_some() || topic(self.lib, &format!("{target}.md")).is_some();
        match self.by_name.get(target) {
            Some(files) if !direct && files.len() > 1 => Some(dup(
                files[1],
                files[0],
                &format!("both are named `{target}`, and a link uses that name"),
            )),
            _ => None,
        }
    }
}

fn dup(file: &str, other: &str, why: &str) -> Refusal {
    Refusal {
        file: file.to_owned(),
        line: None,
        why: format!("duplicate topic name with {other} ({why}); rename one first"),
    }
}

/// What happens to an index line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Stays where it is (blank lines, preamble prose, lines of groups that are not moved).
    Keep,
    /// Goes to the top, verbatim.
    Crown,
    /// Already points to a hub: stays.
    Pointer,
    /// Belongs to group N (moves to its hub if the group is pushed).
    Group(usize),
}

/// A group of index lines sharing one hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Slug used in the hub name.
    pub key: String,
    /// Human title (the heading text, or the key).
    pub title: String,
    /// `reference_<key>_hub.md`.
    pub hub: String,
    /// Line indices (into [`Index::lines`]) that move with the group, in order.
    pub lines: Vec<usize>,
    /// How many of them are entries.
    pub entries: usize,
    /// First linked file of each entry (for the pointer's description).
    pub topics: Vec<String>,
    /// MEMORY.md already has a line linking the hub.
    pub has_pointer: bool,
    /// Those lines (indices into [`Index::lines`]): they stay unless the group is folded.
    pub pointers: Vec<usize>,
    /// Every hub file those lines link, in order.
    pub pointer_hubs: Vec<String>,
    /// The newest `modified` among the group's entry files and hubs: how recently the group
    /// was needed (`None`: nothing says).
    pub last_used: Option<jiff::Timestamp>,
}

impl Group {
    /// The hubs an aggregate line links for this group: those its own pointer lines link, or
    /// the hub this plan gives it.
    pub fn linked_hubs(&self) -> Vec<&str> {
        if self.has_pointer {
            self.pointer_hubs.iter().map(String::as_str).collect()
        } else {
            vec![self.hub.as_str()]
        }
    }
}

/// Every index line's role, and the groups.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One per index line.
    pub roles: Vec<Role>,
    /// Groups in order of first appearance.
    pub groups: Vec<Group>,
}

/// A file-name-safe, lower-case slug (Unicode letters and digits kept).
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 48 {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Classifies every line of `idx`. Refuses entry lines linking files that do not exist, naming
/// every such link at once.
pub fn classify(lib: &Library, idx: &Index, resolver: &Resolver) -> Result<Layout, Refusal> {
    broken_links(idx, resolver)?;
    let mut roles = Vec::with_capacity(idx.lines.len());
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    let mut group_of = |key: String, title: &str, groups: &mut Vec<Group>| -> usize {
        *by_key.entry(key.clone()).or_insert_with(|| {
            groups.push(Group {
                hub: format!("reference_{key}_hub.md"),
                key,
                title: title.to_owned(),
                lines: Vec::new(),
                entries: 0,
                topics: Vec::new(),
                has_pointer: false,
                pointers: Vec::new(),
                pointer_hubs: Vec::new(),
                last_used: None,
            });
            groups.len() - 1
        })
    };
    let heading_key = |i: Option<usize>| -> Option<(String, String)> {
        let Kind::Heading { title } = &idx.lines[i?].kind else {
            return None;
        };
        let key = slug(title);
        (!key.is_empty()).then(|| (key, title.clone()))
    };
    for (i, line) in idx.lines.iter().enumerate() {
        let role = match &line.kind {
            Kind::Blank => Role::Keep,
            Kind::Heading { .. } => match heading_key(Some(i)) {
                Some((key, title)) => Role::Group(group_of(key, &title, &mut groups)),
                None => Role::Keep,
            },
            Kind::Text if has_crown_mark(line.text) => Role::Crown,
            Kind::Text => match heading_key(line.section) {
                Some((key, title)) => Role::Group(group_of(key, &title, &mut groups)),
                None => Role::Keep,
            },
            Kind::Entry { targets } => {
                let mut files = Vec::new();
                for t in targets {
                    if let Some(r) = resolver.ambiguous(t) {
                        return Err(r);
                    }
                    // Every target resolves: `broken_links` checked.
                    files.extend(resolver.resolve(t));
                }
                let pinned = files
                    .iter()
                    .any(|f| lib.config.tier.pins.iter().any(|p| p == f));
                if has_crown_mark(line.text) || pinned {
                    Role::Crown
                } else if let Some(hub) = files.iter().find(|f| is_hub(f)) {
                    // A pointer under a heading names the hub of that heading's group.
                    let g = match heading_key(line.section) {
                        Some((key, title)) => {
                            let g = group_of(key, &title, &mut groups);
                            if !groups[g].has_pointer {
                                groups[g].hub = (*hub).to_owned();
                            }
                            g
                        }
                        None => {
                            let key =
                                hub["reference_".len()..hub.len() - "_hub.md".len()].to_owned();
                            group_of(key.clone(), &key, &mut groups)
                        }
                    };
                    let group = &mut groups[g];
                    group.has_pointer = true;
                    group.pointers.push(i);
                    for f in files.iter().filter(|f| is_hub(f)) {
                        if !group.pointer_hubs.iter().any(|h| h == f) {
                            group.pointer_hubs.push((*f).to_owned());
                        }
                        group.last_used = group.last_used.max(modified(lib, f));
                    }
                    Role::Pointer
                } else {
                    let (key, title) =
                        heading_key(line.section).unwrap_or_else(|| entry_group(lib, files[0]));
                    let g = group_of(key, &title, &mut groups);
                    let group = &mut groups[g];
                    group.entries += 1;
                    group
                        .topics
                        .push(files[0].trim_end_matches(".md").to_owned());
                    for f in &files {
                        group.last_used = group.last_used.max(modified(lib, f));
                    }
                    Role::Group(g)
                }
            }
        };
        if let Role::Group(g) = role {
            groups[g].lines.push(i);
        }
        roles.push(role);
    }
    crown_headings(idx, &mut roles, &mut groups);
    Ok(Layout { roles, groups })
}

/// Refuses an index with links to files that do not exist: the first one, with the others
/// listed after it (up to ten), so one run shows what to fix.
fn broken_links(idx: &Index, resolver: &Resolver) -> Result<(), Refusal> {
    let mut broken = (idx.lines.iter()).flat_map(|line| match &line.kind {
        Kind::Entry { targets } => (targets.iter())
            .filter(|t| resolver.resolve(t).is_none())
            .map(|t| (line.no, t.as_str()))
            .collect(),
        _ => Vec::new(),
    });
    let Some((no, first)) = broken.next() else {
        return Ok(());
    };
    let mut why = format!("links to `{first}`, which is not a file in the memory folder");
    let rest: Vec<(usize, &str)> = broken.collect();
    if !rest.is_empty() {
        let shown: Vec<String> = (rest.iter().take(10))
            .map(|(n, t)| format!("{INDEX}:{n} `{t}`"))
            .collect();
        let more = if rest.len() > 10 { ", …" } else { "" };
        why.push_str(&format!(
            "; {} more broken links: {}{more} (`ccmem audit` lists them all as broken-link)",
            rest.len(),
            shown.join(", ")
        ));
    }
    Err(Refusal::line(INDEX, no, why))
}

/// A heading whose section holds only crowns (e.g. `## ⚠️ Read first`) goes to the top with
/// them instead of staying behind empty.
fn crown_headings(idx: &Index, roles: &mut [Role], groups: &mut [Group]) {
    for h in 0..idx.lines.len() {
        if !matches!(idx.lines[h].kind, Kind::Heading { .. }) {
            continue;
        }
        let marked = has_crown_mark(idx.lines[h].text);
        if marked {
            // A crown-marked heading crowns its whole section.
            for (i, l) in idx.lines.iter().enumerate() {
                if l.section == Some(h) && !matches!(l.kind, Kind::Blank) {
                    if let Role::Group(g) = roles[i] {
                        groups[g].lines.retain(|&x| x != i);
                        if matches!(l.kind, Kind::Entry { .. }) {
                            groups[g].entries -= 1;
                        }
                    }
                    if roles[i] != Role::Pointer {
                        roles[i] = Role::Crown;
                    }
                }
            }
        }
        let mut members = (idx.lines.iter().enumerate())
            .filter(|(_, l)| l.section == Some(h) && !matches!(l.kind, Kind::Blank))
            .peekable();
        let only_crowns = members.peek().is_some() && members.all(|(i, _)| roles[i] == Role::Crown);
        if marked || only_crowns {
            if let Role::Group(g) = roles[h] {
                groups[g].lines.retain(|&i| i != h);
            }
            roles[h] = Role::Crown;
        }
    }
}

/// A file's `modified`, when it has a readable one.
fn modified(lib: &Library, file: &str) -> Option<jiff::Timestamp> {
    topic(lib, file)?.modified()
}

fn entry_group(lib: &Library, file: &str) -> (String, String) {
    let meta = topic(lib, file).and_then(|f| f.meta());
    let from_meta = meta.and_then(|m| m.group.as_deref()).map(slug);
    let prefix = file
        .split_once('_')
        .map(|(p, _)| slug(p))
        .filter(|p| !p.is_empty() && !file.contains('/'));
    let kind = meta.and_then(|m| m.kind.as_deref()).map(slug);
    let key = [from_meta, prefix, kind]
        .into_iter()
        .flatten()
        .find(|k| !k.is_empty())
        .unwrap_or_else(|| "misc".to_owned());
    (key.clone(), key)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::super::tests::lib;
    use super::*;

    #[test]
    fn groups_come_from_headings_then_frontmatter_then_prefix() {
        let l = lib(
            "- [a](feedback_a.md)\n- [b](b.md)\n- [[c]]\n## Tools & Co\n- [d](project_d.md)\n- ⭐ [e](e.md)\n- [h](reference_x_hub.md)\n",
            &[
                ("feedback_a.md", "a"),
                ("b.md", "---\ngroup: Build Stuff\n---\n"),
                ("c.md", "---\ntype: user\n---\n"),
                ("project_d.md", ""),
                ("e.md", ""),
                ("reference_x_hub.md", ""),
            ],
        );
        let idx = parse(l.index_text()).unwrap();
        let r = Resolver::new(&l).unwrap();
        let layout = classify(&l, &idx, &r).unwrap();
        let keys: Vec<_> = layout.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys, ["feedback", "build-stuff", "user", "tools-co"]);
        assert_eq!(layout.roles[5], Role::Crown);
        assert_eq!(layout.roles[6], Role::Pointer);
        assert!(layout.groups[3].has_pointer);
        assert_eq!(
            layout.groups[3].hub, "reference_x_hub.md",
            "a pointer under a heading names the section's hub"
        );
        assert_eq!(
            layout.groups[3].lines,
            [3, 4],
            "heading moves with its entries"
        );
    }

    #[test]
    fn refuses_missing_links_and_duplicate_names() {
        let l = lib("x\n- [a](gone.md)\n", &[] as &[(&str, &str)]);
        let idx = parse(l.index_text()).unwrap();
        let err = classify(&l, &idx, &Resolver::new(&l).unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "MEMORY.md:2: links to `gone.md`, which is not a file in the memory folder"
        );
        let l = lib(
            "- [a](gone.md)\n- [b](b.md) [c](also-gone.md)\n- [[lost]]\n",
            &[("b.md", "")],
        );
        let idx = parse(l.index_text()).unwrap();
        let err = classify(&l, &idx, &Resolver::new(&l).unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "MEMORY.md:1: links to `gone.md`, which is not a file in the memory folder; 2 more \
             broken links: MEMORY.md:2 `also-gone.md`, MEMORY.md:3 `lost` (`ccmem audit` lists \
             them all as broken-link)"
        );
        let l = lib(
            "- [[n]]\n",
            &[
                ("a.md", "---\nname: n\n---\n"),
                ("b.md", "---\nname: n\n---\n"),
            ],
        );
        let r = Resolver::new(&l).expect("shared names alone are fine");
        let err = classify(&l, &parse(l.index_text()).unwrap(), &r).unwrap_err();
        assert!(err.to_string().contains("duplicate topic name"), "{err}");
    }

    #[test]
    fn slugs_keep_unicode_letters() {
        assert_eq!(slug("  Tools & Co!! "), "tools-co");
        assert_eq!(slug("日本語 メモ"), "日本語-メモ");
        assert_eq!(slug("🔧"), "");
    }
}
