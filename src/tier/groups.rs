//! Who goes where: every line of MEMORY.md gets a role, and every entry a group (its hub).
//!
//! Links are the library's own ([`Library::links`]: the same resolution the audit uses, `~/`,
//! `[[name]]`, code spans and reference links included), so tier and the audit never disagree
//! about what a line links.
//!
//! - Blank lines, prose and plain rule lines (no link: the rule itself, in force because it
//!   loads) stay where they are, and so do lines that only point out of the library.
//! - The title (a leading `# H1`) stays on top and is never a group.
//! - Crowns (⭐ / ⚠️, or a file pinned in `[tier] pins`) go to the top, verbatim.
//! - A list line linking a hub is a pointer; it stays (or is folded, see `shape`).
//! - Every other list line with a link is an entry of a group:
//!   1. a section that already has exactly one hub pointer keeps feeding that hub (the user
//!      made it for this section);
//!   2. else the linked file's frontmatter: `group:`, then its `type` as the client reads it;
//!   3. else the heading it is under (the title excluded);
//!   4. else its file-name prefix (`feedback_…`);
//!   5. else `misc`.
//!
//!   An entry whose links all lead nowhere is a broken line: it is grouped by 1, 3, 4, 5 and
//!   moves verbatim like any other (the plan reports it).
//! - A group with one entry and no hub of its own joins the `Other` group: tier never makes a
//!   hub for a single entry.

use std::collections::HashMap;

use jiff::Timestamp;

use super::parse::{Index, Kind, has_crown_mark};
use crate::memory::Library;
use crate::memory::file::{Role as FileRole, role_of};
use crate::memory::library::{FileLink, Target};
use crate::memory::names;

/// What happens to an index line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Stays where it is: blank lines, prose, rule lines, outward links.
    Keep,
    /// The index's title: stays first.
    Title,
    /// A heading: stays while anything of its section stays (see `shape`).
    Heading,
    /// Goes to the top, verbatim.
    Crown,
    /// Links a hub: pointer N (into [`Layout::pointers`]).
    Pointer(usize),
    /// An entry of group N (into [`Layout::groups`]).
    Entry(usize),
}

/// A group of entries sharing one hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// ASCII slug used in the hub name.
    pub key: String,
    /// Human title (the heading, `group:` or type).
    pub title: String,
    /// The hub file (`reference_<key>_hub.md`, or the section's own hub).
    pub hub: String,
    /// Entry lines (indices into [`Index::lines`]), in order.
    pub lines: Vec<usize>,
    /// Each entry's title (its link text, else its file's topic), for the pointer's hook.
    pub topics: Vec<String>,
    /// The hub file exists already.
    pub hub_exists: bool,
    /// A pointer line of MEMORY.md links the hub already (pushing generates no pointer).
    pub linked: bool,
    /// The newest `modified` among the entries' files and the hub (`None`: nothing says).
    pub last_used: Option<Timestamp>,
}

impl Group {
    /// Whether tier may move this group into its hub: never a new hub for one entry.
    pub fn pushable(&self) -> bool {
        self.lines.len() >= 2 || (!self.lines.is_empty() && (self.hub_exists || self.linked))
    }
}

/// An existing line of MEMORY.md that links one or more hubs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// Its line (index into [`Index::lines`]).
    pub line: usize,
    /// The hub files it links, in order.
    pub hubs: Vec<String>,
    /// Its label on the aggregate line: its section's heading when it is the section's only
    /// pointer, else the hub's group.
    pub title: String,
    /// The newest `modified` among those hubs.
    pub last_used: Option<Timestamp>,
    /// It may be folded onto the aggregate line: not a crown's, not right under the title.
    pub foldable: bool,
}

/// An entry line none of whose links leads to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// Its line (index into [`Index::lines`]).
    pub line: usize,
    /// The targets, as written.
    pub targets: Vec<String>,
}

/// Every index line's role, the groups and the pointers.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One per index line.
    pub roles: Vec<Role>,
    /// Groups in order of first appearance.
    pub groups: Vec<Group>,
    /// Pointer lines in order.
    pub pointers: Vec<Pointer>,
    /// Broken entry lines in order.
    pub broken: Vec<Broken>,
    /// An existing heading titled `Hubs`: where tier puts the pointers it writes.
    pub hubs_heading: Option<usize>,
}

/// The title of the heading under which tier writes its pointers.
pub const HUBS_HEADING: &str = "Hubs";

/// The group single entries join.
const OTHER: &str = "Other";

/// Classifies every line of `idx` (MEMORY.md of `lib`).
pub fn classify(lib: &Library, idx: &Index) -> Layout {
    let by_line = links_by_line(lib);
    let no_links: &[FileLink] = &[];
    let links_of = |i: usize| {
        by_line
            .get(&idx.lines[i].no)
            .map_or(no_links, Vec::as_slice)
    };
    let mut roles = vec![Role::Keep; idx.lines.len()];
    let mut pointers = Vec::new();
    for (i, line) in idx.lines.iter().enumerate() {
        roles[i] = match &line.kind {
            Kind::Blank => Role::Keep,
            Kind::Heading { .. } if idx.title == Some(i) => Role::Title,
            Kind::Heading { .. } => Role::Heading,
            Kind::Text if has_crown_mark(line.text) => Role::Crown,
            Kind::Text => Role::Keep,
            Kind::Entry => {
                let links = links_of(i);
                let pinned = links.iter().any(|l| match l.target {
                    Target::File(t) => lib.config.tier.pins.contains(&lib.files[t].rel),
                    _ => false,
                });
                let hubs = hubs_linked(lib, links);
                if links.is_empty() {
                    // In an HTML comment: the client never shows it.
                    Role::Keep
                } else if has_crown_mark(line.text) || pinned {
                    Role::Crown
                } else if !hubs.is_empty() {
                    let last_used = hubs.iter().filter_map(|h| modified(lib, h)).max();
                    let under_title = idx.title.is_some() && line.section.is_none();
                    pointers.push(Pointer {
                        line: i,
                        title: hub_key(&hubs[0]),
                        hubs,
                        last_used,
                        foldable: !under_title,
                    });
                    Role::Pointer(pointers.len() - 1)
                } else {
                    // Decided below, once the sections' hubs are known.
                    Role::Entry(usize::MAX)
                }
            }
        };
    }
    crown_sections(idx, &mut roles, &mut pointers);
    let section_hubs = section_hubs(idx, &roles, &pointers);
    for p in &mut pointers {
        if let Some(h) = idx.lines[p.line].section
            && section_hubs.contains_key(&h)
        {
            p.title = heading_title(idx, h);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut broken = Vec::new();
    let undecided: Vec<usize> = (0..roles.len())
        .filter(|&i| roles[i] == Role::Entry(usize::MAX))
        .collect();
    for i in undecided {
        let links = links_of(i);
        let file = links.iter().find_map(|l| match l.target {
            Target::File(t) | Target::Named(t) => Some(t),
            _ => None,
        });
        let Some(file) = file.or_else(|| {
            let missing = links.iter().any(|l| l.target == Target::Missing);
            missing.then_some(usize::MAX)
        }) else {
            // Links only out of the library: an outward pointer, like a rule.
            roles[i] = Role::Keep;
            continue;
        };
        let file = (file != usize::MAX).then_some(file);
        if file.is_none() {
            broken.push(Broken {
                line: i,
                targets: links.iter().map(|l| l.link.target.clone()).collect(),
            });
        }
        let (key, title, hub) = match idx.lines[i].section.and_then(|h| section_hubs.get(&h)) {
            Some(hub) => {
                let h = idx.lines[i].section.unwrap_or(i);
                (hub_key(hub), heading_title(idx, h), hub.clone())
            }
            None => {
                let (key, title) = group_of(lib, idx, i, file, &links[0].link.target);
                let hub = names::hub_file(&key);
                (key, title, hub)
            }
        };
        let g = *by_key.entry(hub.clone()).or_insert_with(|| {
            groups.push(new_group(lib, &pointers, key, title, hub));
            groups.len() - 1
        });
        let group = &mut groups[g];
        group.lines.push(i);
        group
            .topics
            .push(label(lib, idx.lines[i].text, file, &links[0].link.target));
        if let Some(t) = file {
            group.last_used = group.last_used.max(lib.files[t].modified());
        }
        roles[i] = Role::Entry(g);
    }
    join_singles(lib, &pointers, &mut groups, &mut roles);
    let hubs_heading = (0..idx.lines.len()).find(|&i| {
        roles[i] == Role::Heading
            && matches!(&idx.lines[i].kind, Kind::Heading { title, .. }
                if title.eq_ignore_ascii_case(HUBS_HEADING))
    });
    Layout {
        roles,
        groups,
        pointers,
        broken,
        hubs_heading,
    }
}

/// MEMORY.md's links, by 1-based line.
fn links_by_line(lib: &Library) -> HashMap<usize, Vec<FileLink>> {
    let mut by_line: HashMap<usize, Vec<FileLink>> = HashMap::new();
    if let Some(index) = lib.index() {
        for l in lib.links(index) {
            by_line.entry(l.line).or_default().push(l.clone());
        }
    }
    by_line
}

/// The hub files among `links`' targets, in order, once each.
fn hubs_linked(lib: &Library, links: &[FileLink]) -> Vec<String> {
    let mut hubs: Vec<String> = Vec::new();
    for l in links {
        if let Target::File(t) = l.target
            && matches!(lib.files[t].role, FileRole::Hub { .. })
            && !lib.files[t].rel.contains('/')
            && !hubs.contains(&lib.files[t].rel)
        {
            hubs.push(lib.files[t].rel.clone());
        }
    }
    hubs
}

/// A heading marked as a crown (`## ⚠️ Read first`) crowns its whole section; a heading whose
/// own lines are all crowns goes to the top with them instead of staying behind empty. A
/// pointer in a crown section stays a pointer but is never folded.
fn crown_sections(idx: &Index, roles: &mut [Role], pointers: &mut [Pointer]) {
    for h in 0..idx.lines.len() {
        if roles[h] != Role::Heading {
            continue;
        }
        let end = idx.section_end(h);
        if has_crown_mark(idx.lines[h].text) {
            roles[h] = Role::Crown;
            let lines = &idx.lines[h + 1..end];
            for (role, line) in roles[h + 1..end].iter_mut().zip(lines) {
                match role {
                    Role::Pointer(p) => pointers[*p].foldable = false,
                    Role::Keep if matches!(line.kind, Kind::Blank) => {}
                    other => *other = Role::Crown,
                }
            }
            continue;
        }
        let mut own = (h + 1..end).filter(|&i| !matches!(idx.lines[i].kind, Kind::Blank));
        let first = own.next();
        if first.is_some()
            && first
                .into_iter()
                .chain(own)
                .all(|i| roles[i] == Role::Crown)
        {
            roles[h] = Role::Crown;
        }
    }
}

/// Sections (headings) with exactly one pointer line among their own lines, linking exactly
/// one hub: the hub the section's entries go to.
fn section_hubs(idx: &Index, roles: &[Role], pointers: &[Pointer]) -> HashMap<usize, String> {
    let mut count: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, role) in roles.iter().enumerate() {
        if let (Role::Pointer(p), Some(h)) = (role, idx.lines[i].section) {
            count.entry(h).or_default().push(*p);
        }
    }
    count
        .into_iter()
        .filter_map(|(h, ps)| match ps.as_slice() {
            [p] if pointers[*p].hubs.len() == 1 => Some((h, pointers[*p].hubs[0].clone())),
            _ => None,
        })
        .collect()
}

fn hub_key(hub: &str) -> String {
    match role_of(hub) {
        FileRole::Hub { group } => group,
        _ => hub.trim_end_matches(".md").to_owned(),
    }
}

fn heading_title(idx: &Index, h: usize) -> String {
    match &idx.lines[h].kind {
        Kind::Heading { title, .. } => title.clone(),
        _ => String::new(),
    }
}

/// The group `(key, title)` of entry line `i` linking `file` (`None`: broken, first target
/// `target`).
fn group_of(
    lib: &Library,
    idx: &Index,
    i: usize,
    file: Option<usize>,
    target: &str,
) -> (String, String) {
    let meta = file.and_then(|t| lib.files[t].meta());
    if let Some(g) = meta.and_then(|m| m.group.as_deref()).map(str::trim)
        && !g.is_empty()
    {
        return (names::key(g), g.to_owned());
    }
    if let Some(kind) = meta.and_then(|m| m.kind.as_deref()).map(str::trim)
        && !kind.is_empty()
    {
        return (names::key(kind), capitalized(kind));
    }
    if let Some(h) = idx.lines[i].section {
        let title = heading_title(idx, h);
        if !title.is_empty() {
            return (names::key(&title), title);
        }
    }
    let name = match file {
        Some(t) => lib.files[t].name(),
        None => target.rsplit('/').next().unwrap_or(target),
    };
    if let Some((prefix, _)) = name.split_once('_')
        && !prefix.is_empty()
    {
        return (names::key(prefix), capitalized(prefix));
    }
    ("misc".to_owned(), "Misc".to_owned())
}

/// An entry's label on its group's pointer: its link text, else the linked file's topic (the
/// name without `<type>_` and `.md`).
fn label(lib: &Library, line: &str, file: Option<usize>, target: &str) -> String {
    if let Some(title) = super::parse::entry_title(line) {
        return title.to_owned();
    }
    let name = match file {
        Some(t) => lib.files[t].name(),
        None => target.rsplit('/').next().unwrap_or(target),
    };
    let stem = name.strip_suffix(".md").unwrap_or(name);
    match role_of(name) {
        FileRole::Entry { topic, .. } => topic,
        _ => stem.to_owned(),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn new_group(
    lib: &Library,
    pointers: &[Pointer],
    key: String,
    title: String,
    hub: String,
) -> Group {
    let hub_exists = lib.file(&hub).is_some();
    let linked = pointers.iter().any(|p| p.hubs.contains(&hub));
    Group {
        last_used: if hub_exists {
            modified(lib, &hub)
        } else {
            None
        },
        key,
        title,
        hub,
        lines: Vec::new(),
        topics: Vec::new(),
        hub_exists,
        linked,
    }
}

/// Groups of one entry without a hub of their own join [`OTHER`] (which may stay a single
/// entry, and then is never pushed).
fn join_singles(lib: &Library, pointers: &[Pointer], groups: &mut Vec<Group>, roles: &mut [Role]) {
    let single = |g: &Group| g.lines.len() == 1 && !g.hub_exists && !g.linked;
    if groups.iter().filter(|g| single(g)).count() < 2 {
        return;
    }
    let other_key = names::key(OTHER);
    let other_hub = names::hub_file(&other_key);
    let mut other = match groups.iter().position(|g| g.hub == other_hub) {
        Some(k) => groups.remove(k),
        None => new_group(lib, pointers, other_key, OTHER.to_owned(), other_hub),
    };
    let mut kept = Vec::new();
    for g in std::mem::take(groups) {
        if single(&g) {
            other.lines.extend(g.lines);
            other.topics.extend(g.topics);
            other.last_used = other.last_used.max(g.last_used);
        } else {
            kept.push(g);
        }
    }
    let mut order: Vec<usize> = (0..other.lines.len()).collect();
    order.sort_by_key(|&k| other.lines[k]);
    other.lines = order.iter().map(|&k| other.lines[k]).collect();
    other.topics = order.iter().map(|&k| other.topics[k].clone()).collect();
    kept.push(other);
    kept.sort_by_key(|g| g.lines.first().copied().unwrap_or(usize::MAX));
    *groups = kept;
    for (g, group) in groups.iter().enumerate() {
        for &i in &group.lines {
            roles[i] = Role::Entry(g);
        }
    }
}

/// A hub's `modified`, when it has a readable one.
fn modified(lib: &Library, file: &str) -> Option<Timestamp> {
    lib.file(file)?.modified()
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::super::tests::lib;
    use super::*;

    fn layout_of(l: &Library) -> Layout {
        classify(l, &parse(l.index_text()))
    }

    fn keys(layout: &Layout) -> Vec<&str> {
        layout.groups.iter().map(|g| g.key.as_str()).collect()
    }

    #[test]
    fn frontmatter_first_then_headings_then_prefixes() {
        let l = lib(
            "# Memory\n- [a](feedback_a.md)\n- [a2](feedback_a2.md)\n- [b](b.md)\n- [b2](b2.md)\n## Tools & Co\n- [d](d.md)\n- [d2](d2.md)\n- [e](project_e.md)\n- [e2](project_e2.md)\n",
            &[
                ("feedback_a.md", "---\ntype: project\n---\n"),
                ("feedback_a2.md", "---\nmetadata:\n  type: project\n---\n"),
                ("b.md", "---\ngroup: Build Stuff\ntype: user\n---\n"),
                ("b2.md", "---\ngroup: Build Stuff\n---\n"),
                ("d.md", "no frontmatter"),
                ("d2.md", "---\nname: d2\n---\n"),
                ("project_e.md", "---\n[broken\n---\n"),
                ("project_e2.md", ""),
            ],
        );
        let layout = layout_of(&l);
        assert_eq!(keys(&layout), ["project", "build-stuff", "tools-co"]);
        assert_eq!(
            layout.groups[0].title, "Project",
            "frontmatter wins over the prefix"
        );
        assert_eq!(layout.groups[2].lines, [6, 7, 8, 9]);
        assert_eq!(
            layout.roles[0],
            Role::Title,
            "the H1 title is never a group"
        );
        assert_eq!(layout.roles[5], Role::Heading);
    }

    #[test]
    fn rule_lines_outward_links_and_comments_stay() {
        let l = lib(
            "- Always answer in Korean.\n- Deploy with `make ship` only.\n- See [runbook](~/notes/run.md)\n<!--\n- [x](user_x.md)\n-->\n1. [y](user_y.md) and [z](user_z.md)\n",
            &[("user_x.md", ""), ("user_y.md", ""), ("user_z.md", "")],
        );
        let layout = layout_of(&l);
        let roles: Vec<Role> = layout.roles.clone();
        assert_eq!(
            &roles[..6],
            &[Role::Keep; 6],
            "rules, ~/ (no HOME: outside), a comment"
        );
        assert!(matches!(roles[6], Role::Entry(_)));
    }

    #[test]
    fn pointers_crowns_and_section_hubs() {
        let l = lib(
            "## ⚠️ Read first\n- [must](user_m.md)\n- [crown hub](reference_c_hub.md)\n## Build\n- [Build hub](reference_b_hub.md) — all\n- [b1](user_b1.md)\n- [b2](user_b2.md)\n## Hubs\n- [x](reference_x_hub.md)\n- [y](reference_y_hub.md)\n",
            &[
                ("user_m.md", ""),
                ("reference_c_hub.md", ""),
                ("reference_b_hub.md", "---\nmodified: 2026-01-02\n---\n"),
                ("user_b1.md", "---\ntype: user\n---\n"),
                ("user_b2.md", "---\ntype: user\n---\n"),
                ("reference_x_hub.md", ""),
                ("reference_y_hub.md", ""),
            ],
        );
        let layout = layout_of(&l);
        assert_eq!(&layout.roles[..2], &[Role::Crown, Role::Crown]);
        assert_eq!(layout.roles[2], Role::Pointer(0));
        assert!(
            !layout.pointers[0].foldable,
            "a crown section's pointer stays"
        );
        let g = &layout.groups[0];
        assert_eq!(
            (g.hub.as_str(), g.title.as_str(), g.linked, g.hub_exists),
            ("reference_b_hub.md", "Build", true, true),
            "a section with its own hub keeps feeding it, whatever the frontmatter says"
        );
        assert!(g.last_used.is_some());
        assert_eq!(layout.hubs_heading, Some(7));
        assert!(layout.pointers[2].foldable);
    }

    #[test]
    fn single_entries_join_other_and_a_lone_single_is_never_pushed() {
        let l = lib(
            "- [a](user_a.md)\n- [b](project_b.md)\n- [c](feedback_c.md)\n- [c2](feedback_c2.md)\n",
            &[
                ("user_a.md", ""),
                ("project_b.md", ""),
                ("feedback_c.md", ""),
                ("feedback_c2.md", ""),
            ],
        );
        let layout = layout_of(&l);
        assert_eq!(keys(&layout), ["other", "feedback"]);
        assert_eq!(layout.groups[0].lines, [0, 1]);
        assert!(layout.groups.iter().all(Group::pushable));
        let l = lib(
            "- [a](user_a.md)\n- [c](feedback_c.md)\n- [c2](feedback_c2.md)\n",
            &[
                ("user_a.md", ""),
                ("feedback_c.md", ""),
                ("feedback_c2.md", ""),
            ],
        );
        let layout = layout_of(&l);
        assert_eq!(keys(&layout), ["user", "feedback"]);
        assert!(!layout.groups[0].pushable(), "one entry never makes a hub");
    }

    #[test]
    fn broken_lines_are_entries_grouped_without_frontmatter() {
        let l = lib(
            "## Archive\n- [gone](feedback_gone.md) — renamed\n- [[lost-name]]\n- [ok](user_ok.md)\n",
            &[("user_ok.md", "---\ntype: user\n---\n")],
        );
        let layout = layout_of(&l);
        let targets: Vec<&str> = (layout.broken.iter())
            .flat_map(|b| b.targets.iter().map(String::as_str))
            .collect();
        assert_eq!(targets, ["feedback_gone.md", "lost-name"]);
        assert!(matches!(layout.roles[1], Role::Entry(_)));
        assert_eq!(layout.groups[0].key, "archive");
    }
}
