//! Who goes where: every line of MEMORY.md gets a role, every entry a **unit** (the user's
//! section, or a topic of a flat list) and a **rank** (how long it stays).
//!
//! Links are the library's own ([`Library::links`]: the same resolution the audit uses, `~/`,
//! `[[name]]`, code spans and reference links included), so tier and the audit never disagree
//! about what a line links.
//!
//! - Blank lines, prose and plain rule lines (no link: the rule itself, in force because it
//!   loads) stay where they are, and so do lines that only point out of the library.
//! - The title (a leading `# H1`) stays on top and is never a unit.
//! - Crowns ([`super::crown`]: the marks users write, crown headings, `[tier] pins`) stay
//!   where they are, under their own heading: tier never moves them.
//! - A list line linking a hub is a pointer; it stays (or is folded, see `shape`).
//! - Every other list line with a link is an entry of a unit:
//!   1. a section that already has exactly one hub pointer keeps feeding that hub (the user
//!      made it for this section);
//!   2. else the innermost heading it is under: **the user's section is the unit**, whatever
//!      types its entries have (type orders moves, it never forms units);
//!   3. else (a flat list) a topic: a note two entries or more link by `[[name]]`, with them
//!      (see `clusters`), else entries sharing a file-name stem (`feedback_semaphore_*`), else
//!      the first word of their titles; entries that share nothing with another form one unit
//!      per rank, so a user profile never lands beside project notes.
//! - A unit moves in **pieces**, one per rank: project status first, then reference, other,
//!   user, feedback ([`Rank`]). A section headed read-on-demand moves first whatever its lines
//!   say. All pieces of one unit go to the same hub(s), so a section is never split across
//!   hubs except by size: a unit with more entries than one hub may hold (the audit's
//!   `max-group-entries`) fills consecutive hubs.
//! - An entry whose frontmatter does not parse takes its rank from its file-name prefix, else
//!   moves with its unit's first piece: readability never decides what stays.

use std::collections::HashMap;

use jiff::Timestamp;

use naming::{
    first_word, heading_title, hub_key, label, modified, name_hubs, note_label, run_of, stem_of,
    stem_title, title_word,
};

use super::crown;
use super::parse::{Index, Kind, entry_title};
use super::shape::{Limits, MORE_HUBS, Room, assign, part_counts, room_of};
use crate::memory::file::Role as FileRole;
use crate::memory::library::{FileLink, Target};
use crate::memory::{Library, names};

/// What happens to an index line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Stays where it is: blank lines, prose, rule lines, outward links.
    Keep,
    /// The index's title: stays first.
    Title,
    /// A heading: stays while anything of its section stays (see `shape`).
    Heading,
    /// A crown: never moves.
    Crown,
    /// Links a hub: pointer N (into [`Layout::pointers`]).
    Pointer(usize),
    /// An entry of piece N (into [`Layout::pieces`]).
    Entry(usize),
}

/// How long an entry stays: the lowest rank moves first (issue 24, rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    /// In a section the user heads as read on demand.
    OnDemand,
    /// A link-less line of a dated section (a session's notes, a dated log): history.
    History,
    /// `type: project`: status, decisions, session logs.
    Project,
    /// `type: reference`.
    Reference,
    /// No type, or another one.
    Other,
    /// `type: user`: the user profile.
    User,
    /// `type: feedback`: the rules.
    Feedback,
}

impl Rank {
    fn of_type(kind: &str) -> Option<Rank> {
        Some(match kind.trim().to_ascii_lowercase().as_str() {
            "project" | "projects" => Rank::Project,
            "reference" | "references" => Rank::Reference,
            "user" => Rank::User,
            "feedback" => Rank::Feedback,
            _ => return None,
        })
    }

    /// The rank a file name's `<type>_` / `<type>-` prefix says.
    fn of_name(name: &str) -> Option<Rank> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let prefix = base.split(['_', '-']).next()?;
        (prefix.len() < base.len()).then(|| Rank::of_type(prefix))?
    }
}

/// A unit: the user's section, or a topic of a flat list, with its hub(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// ASCII slug used in the hub name.
    pub key: String,
    /// The topic, in the library's own words (a heading's title, a shared title word); empty
    /// when the entries share none (their own titles name the hub then).
    pub title: String,
    /// Its hubs: the first, then one more per `max-group-entries` entries beyond it.
    pub hubs: Vec<String>,
    /// Entry lines (indices into [`Index::lines`]), in order.
    pub lines: Vec<usize>,
    /// Each entry's label (a retrieval key: its title, else its hook's first clause), for the
    /// pointer's hook.
    pub labels: Vec<String>,
    /// The first hub exists already.
    pub hub_exists: bool,
    /// A pointer line of MEMORY.md links the first hub already (pushing generates none).
    pub linked: bool,
    /// The newest `modified` among the entries' files and the hub (`None`: nothing says).
    pub last_used: Option<Timestamp>,
    /// The section's heading (index into [`Index::lines`]) when the unit is a section.
    pub heading: Option<usize>,
    /// What the first hub can still take, when it exists already (`None`: tier creates it).
    pub room: Option<Room>,
    /// For a run of dated sibling sections (one unit): the words their headings share, and
    /// each heading (index into [`Index::lines`]) with its date.
    pub run: Option<Run>,
}

/// A run of dated sibling sections moving as one unit (see [`Group::run`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The words every heading of the run has besides its date (empty: none shared).
    pub shared: String,
    /// The headings and their dates, in order.
    pub dates: Vec<(usize, String)>,
}

impl Run {
    /// The shared words and the span of `dates` (at least one).
    fn title(&self, dates: Vec<&str>) -> String {
        let span = match dates.as_slice() {
            [first, .., last] => format!("{first} → {last}"),
            [one] => (*one).to_owned(),
            [] => String::new(),
        };
        if self.shared.is_empty() {
            span
        } else {
            format!("{} {span}", self.shared)
        }
    }
}

impl Group {
    /// The topic of the hub that receives `lines` (some of the unit's entries): the unit's
    /// title, or, for a run of dated sections, the words they share and the dates of the
    /// sections these lines are in (`会话 2026-06-25 → 2026-07-06`).
    pub fn title_of(&self, idx: &Index, lines: &[usize]) -> String {
        let Some(run) = &self.run else {
            return self.title.clone();
        };
        let dates: Vec<&str> = (run.dates.iter())
            .filter(|(h, _)| lines.iter().any(|&i| idx.headings_of(i).contains(h)))
            .map(|(_, d)| d.as_str())
            .collect();
        if dates.is_empty() {
            return self.title.clone();
        }
        run.title(dates)
    }

    /// The first hub.
    pub fn hub(&self) -> &str {
        &self.hubs[0]
    }
}

/// The entries of one rank of a unit: what tier moves at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The unit (index into [`Layout::groups`]).
    pub group: usize,
    /// Their rank.
    pub rank: Rank,
    /// Entry lines, in order.
    pub lines: Vec<usize>,
    /// Reads of their files in recorded sessions ([`super::Options`]'s usage).
    pub reads: usize,
    /// The unit gathers entries that share nothing (a rule standing alone applies to any
    /// task; one of a topic's cluster to that topic's work): moves after the clusters.
    pub standalone: bool,
}

impl Piece {
    /// The order pieces move in: lowest rank first, clustered before standalone, least read
    /// first, biggest first.
    pub fn order_key(&self) -> (Rank, bool, usize, std::cmp::Reverse<usize>, usize) {
        (
            self.rank,
            self.standalone,
            self.reads,
            std::cmp::Reverse(self.lines.len()),
            self.lines[0],
        )
    }
}

/// An existing line of MEMORY.md that links one or more hubs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// Its line (index into [`Index::lines`]).
    pub line: usize,
    /// The hub files it links, in order.
    pub hubs: Vec<String>,
    /// Its label on the aggregate line: the hub's group.
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

/// A crown tier found, and why it is one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Crowned {
    /// Its line (index into [`Index::lines`]).
    #[serde(skip)]
    pub line: usize,
    /// The marker (`🚨`, `NEVER`, `(엄격 적용)`…), `[tier] pins`, or the crown heading's.
    pub marker: String,
    /// `entry`, `heading` (the line is under a crown heading), or `pin`.
    pub kind: &'static str,
}

/// Every index line's role, the units, their pieces and the pointers.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One per index line.
    pub roles: Vec<Role>,
    /// Units in order of first appearance.
    pub groups: Vec<Group>,
    /// Pieces (one per rank of a unit).
    pub pieces: Vec<Piece>,
    /// Pointer lines in order.
    pub pointers: Vec<Pointer>,
    /// Broken entry lines in order.
    pub broken: Vec<Broken>,
    /// Crowns in order.
    pub crowns: Vec<Crowned>,
    /// Entries whose frontmatter the client cannot read (indices into [`Index::lines`]).
    pub unreadable: Vec<usize>,
    /// An existing heading titled `Hubs`: where aggregate lines go.
    pub hubs_heading: Option<usize>,
    /// The most entries one hub holds (the audit's `max-group-entries`).
    pub max_entries: usize,
    /// The most lines one hub holds (the audit's `max-file-lines`).
    pub max_lines: usize,
    /// The hubs folded pointer lines go to: [`MORE_HUBS`], then as many more as folding
    /// every foldable pointer would fill.
    pub more_hubs: Vec<String>,
    /// What an existing [`MORE_HUBS`] can still take.
    pub more_room: Option<Room>,
}

/// Whether line `i` is a note: a link-less line (prose, a status bullet, a table row without
/// an entry) of a section under a dated heading (`## 2026-06-16 会话`: a session's notes,
/// history) or a read-on-demand one, and under no crown heading. Notes move with their section
/// (the user's section is the unit), as entries do; a marker in them records an incident or
/// stresses a clause, it crowns nothing.
pub fn is_note(idx: &Index, i: usize) -> bool {
    if idx.lines[i].kind != Kind::Text {
        return false;
    }
    let chain = idx.headings_of(i);
    let titles = || {
        chain.iter().filter_map(|&h| match &idx.lines[h].kind {
            Kind::Heading { title, .. } => Some(title.as_str()),
            _ => None,
        })
    };
    titles().any(|t| crown::dated(t) || crown::on_demand(t))
        && titles().all(|t| crown::heading(t).is_none())
}

/// The title of a heading the user keeps hub pointers under.
pub const HUBS_HEADING: &str = "Hubs";

/// Classifies every line of `idx` (MEMORY.md of `lib`); `reads` counts the recorded reads of
/// each file (by name in the memory folder).
pub fn classify(lib: &Library, idx: &Index, reads: &HashMap<String, usize>) -> Layout {
    let by_line = links_by_line(lib);
    let no_links: &[FileLink] = &[];
    let links_of = |i: usize| {
        by_line
            .get(&idx.lines[i].no)
            .map_or(no_links, Vec::as_slice)
    };
    let mut roles = vec![Role::Keep; idx.lines.len()];
    let mut pointers = Vec::new();
    let mut crowns = Vec::new();
    // Crown headings crown their whole section (`###` included); read-on-demand headings.
    let mut crowned_by: Vec<Option<&'static str>> = vec![None; idx.lines.len()];
    let mut on_demand = vec![false; idx.lines.len()];
    // Dated headings (history), and the first heading of each run of dated sibling sections:
    // the run is one unit (the curator's "run of adjacent sections moved whole into one hub").
    let mut dated = vec![false; idx.lines.len()];
    let mut run_head: Vec<usize> = (0..idx.lines.len()).collect();
    let mut last_sibling: HashMap<(Option<usize>, usize), usize> = HashMap::new();
    for (h, line) in idx.lines.iter().enumerate() {
        let Kind::Heading { title, level } = &line.kind else {
            continue;
        };
        if idx.title == Some(h) {
            continue;
        }
        let inherited = line.section.and_then(|p| crowned_by[p]);
        crowned_by[h] = inherited.or_else(|| crown::heading(title));
        on_demand[h] = crown::on_demand(title) || line.section.is_some_and(|p| on_demand[p]);
        let own = crown::dated(title);
        dated[h] = own || line.section.is_some_and(|p| dated[p]);
        if let Some(&prev) = last_sibling.get(&(line.section, *level))
            && own
            && matches!(&idx.lines[prev].kind, Kind::Heading { title, .. } if crown::dated(title))
        {
            run_head[h] = run_head[prev];
        }
        last_sibling.insert((line.section, *level), h);
    }
    // Link-less lines that move with their section (see `Rank::History`).
    let mut notes = vec![false; idx.lines.len()];
    for (i, line) in idx.lines.iter().enumerate() {
        let section = line.section;
        let under_crown = section.and_then(|h| crowned_by[h]);
        let demand = section.is_some_and(|h| on_demand[h]);
        roles[i] = match &line.kind {
            // A line of an entry goes where its entry goes (see `shape::destinations`).
            Kind::Blank | Kind::Part { .. } => Role::Keep,
            Kind::Heading { .. } if idx.title == Some(i) => Role::Title,
            Kind::Heading { .. } => Role::Heading,
            Kind::Text if is_note(idx, i) => {
                // The notes of a dated or read-on-demand section: what happened, or what is
                // looked up; a marker in them is no crown. They move with their section.
                notes[i] = true;
                Role::Entry(usize::MAX)
            }
            Kind::Text => {
                if let Some(m) =
                    under_crown.or_else(|| (!demand).then(|| crown::line(line.text))?)
                {
                    let kind = if under_crown.is_some() {
                        "heading"
                    } else {
                        "entry"
                    };
                    crowns.push(Crowned {
                        line: i,
                        marker: m.to_owned(),
                        kind,
                    });
                }
                Role::Keep
            }
            Kind::Entry => {
                let links = links_of(i);
                let pinned = links.iter().any(|l| match l.target {
                    Target::File(t) => lib.config.tier.pins.contains(&lib.files[t].rel),
                    _ => false,
                });
                let hubs = hubs_linked(lib, links);
                let marked = (!demand).then(|| crown::line(line.text)).flatten();
                if links.is_empty() {
                    // In an HTML comment: the client never shows it.
                    Role::Keep
                } else if !hubs.is_empty() {
                    let last_used = hubs.iter().filter_map(|h| modified(lib, h)).max();
                    let under_title = idx.title.is_some() && section.is_none();
                    pointers.push(Pointer {
                        line: i,
                        title: hub_key(&hubs[0]),
                        hubs,
                        last_used,
                        foldable: !under_title && under_crown.is_none(),
                    });
                    Role::Pointer(pointers.len() - 1)
                } else if let Some((marker, kind)) = (under_crown.map(|m| (m, "heading")))
                    .or_else(|| marked.map(|m| (m, "entry")))
                    .or_else(|| pinned.then_some(("[tier] pins", "pin")))
                {
                    crowns.push(Crowned {
                        line: i,
                        marker: marker.to_owned(),
                        kind,
                    });
                    Role::Crown
                } else {
                    // Decided below, once the sections' hubs are known.
                    Role::Entry(usize::MAX)
                }
            }
        };
    }
    let section_hubs = section_hubs(idx, &roles, &pointers);
    for pointer in &mut pointers {
        if let Some(h) = idx.lines[pointer.line].section
            && section_hubs.get(&h) == Some(&pointer.hubs[0])
        {
            pointer.title = heading_title(idx, h);
        }
    }
    let mut broken = Vec::new();
    let mut unreadable = Vec::new();
    let max_entries = lib.config.audit.max_group_entries.max(2);
    let max_lines = lib.config.audit.max_file_lines;
    // Each entry's unit key, rank (None: unreadable, no prefix), label and file.
    struct Item {
        line: usize,
        unit: UnitKey,
        rank: Option<Rank>,
        label: String,
        file: Option<usize>,
        stem: String,
        word: String,
    }
    #[derive(Clone, PartialEq, Eq, Hash)]
    enum UnitKey {
        Hub(String),
        Section(usize),
        Flat,
    }
    let mut items: Vec<Item> = Vec::new();
    let undecided: Vec<usize> = (0..roles.len())
        .filter(|&i| roles[i] == Role::Entry(usize::MAX))
        .collect();
    for i in undecided {
        let section = idx.lines[i].section;
        let unit_of_section = |h: usize| match section_hubs.get(&h) {
            Some(hub) => UnitKey::Hub(hub.clone()),
            None if dated[h] => UnitKey::Section(run_head[h]),
            None => UnitKey::Section(h),
        };
        if notes[i] {
            let h = section.expect("a note is in a section");
            let rank = if on_demand[h] {
                Rank::OnDemand
            } else {
                Rank::History
            };
            items.push(Item {
                line: i,
                unit: unit_of_section(h),
                rank: Some(rank),
                label: note_label(idx.lines[i].text),
                file: None,
                stem: String::new(),
                word: String::new(),
            });
            continue;
        }
        let links = links_of(i);
        let file = links.iter().find_map(|l| match l.target {
            Target::File(t) | Target::Named(t) => Some(t),
            _ => None,
        });
        if file.is_none() && !links.iter().any(|l| l.target == Target::Missing) {
            // Links only out of the library: an outward pointer, like a rule.
            roles[i] = Role::Keep;
            continue;
        }
        let target = &links[0].link.target;
        if file.is_none() {
            broken.push(Broken {
                line: i,
                targets: links.iter().map(|l| l.link.target.clone()).collect(),
            });
        }
        let name = match file {
            Some(t) => lib.files[t].name().to_owned(),
            None => target.rsplit('/').next().unwrap_or(target).to_owned(),
        };
        let meta = file.and_then(|t| lib.files[t].meta());
        let invalid = file
            .and_then(|t| lib.files[t].parsed())
            .is_some_and(|(_, p)| matches!(p.front, crate::memory::meta::Front::Invalid { .. }));
        if invalid {
            unreadable.push(i);
        }
        let mut rank = meta
            .and_then(|m| m.kind.as_deref())
            .and_then(Rank::of_type)
            .or_else(|| meta.is_some().then_some(Rank::Other))
            .or_else(|| Rank::of_name(&name));
        if section.is_some_and(|h| on_demand[h]) {
            rank = Some(Rank::OnDemand);
        }
        let unit = match section {
            Some(h) => unit_of_section(h),
            None => UnitKey::Flat,
        };
        let title = entry_title(idx.lines[i].text).unwrap_or("");
        items.push(Item {
            line: i,
            unit,
            rank,
            label: label(lib, idx.lines[i].text, file, &name),
            file,
            stem: stem_of(&name),
            word: first_word(title),
        });
    }
    // Flat entries: topics by a `[[name]]` note they link, else shared stem, else shared first
    // title word, else one per rank.
    let flat: Vec<usize> = (0..items.len())
        .filter(|&k| items[k].unit == UnitKey::Flat)
        .collect();
    let members: Vec<clusters::Member> = (flat.iter().map(|&k| &items[k]))
        .map(|it| clusters::Member {
            file: it.file,
            links: links_of(it.line),
            stem: &it.stem,
            word: &it.word,
        })
        .collect();
    let mut note_of: HashMap<usize, usize> = HashMap::new();
    for (&k, note) in flat.iter().zip(clusters::clusters(lib, &members)) {
        if let Some(n) = note {
            note_of.insert(items[k].line, n);
        }
    }
    let mut stems: HashMap<&str, usize> = HashMap::new();
    let mut words: HashMap<&str, usize> = HashMap::new();
    for &k in flat
        .iter()
        .filter(|&&k| !note_of.contains_key(&items[k].line))
    {
        *stems.entry(items[k].stem.as_str()).or_default() += 1;
        *words.entry(items[k].word.as_str()).or_default() += 1;
    }
    #[derive(Clone, PartialEq, Eq, Hash)]
    enum Flat {
        Wiki(usize),
        Stem(String),
        Word(String),
        Single(Option<Rank>),
    }
    let flat_of = |it: &Item| -> Flat {
        if let Some(&n) = note_of.get(&it.line) {
            Flat::Wiki(n)
        } else if !it.stem.is_empty() && stems[it.stem.as_str()] >= 2 {
            Flat::Stem(it.stem.clone())
        } else if !it.word.is_empty() && words[it.word.as_str()] >= 2 {
            Flat::Word(it.word.clone())
        } else {
            Flat::Single(it.rank)
        }
    };
    // A cluster's topic: the note's own title where the list has it, else its description.
    let note_title = |n: usize| {
        (items.iter().find(|it| it.file == Some(n))).map_or_else(
            || label(lib, "", Some(n), lib.files[n].name()),
            |it| it.label.clone(),
        )
    };
    // Units in order of first appearance.
    let mut groups: Vec<Group> = Vec::new();
    let mut standalone: Vec<bool> = Vec::new();
    let mut unit_of: HashMap<(UnitKey, Option<Flat>), usize> = HashMap::new();
    let mut member: Vec<usize> = Vec::with_capacity(items.len());
    for it in &items {
        let flat = (it.unit == UnitKey::Flat).then(|| flat_of(it));
        let key = (it.unit.clone(), flat.clone());
        let g = *unit_of.entry(key).or_insert_with(|| {
            let (title, existing) = match (&it.unit, &flat) {
                (UnitKey::Hub(hub), _) => (hub_key(hub), Some(hub.clone())),
                (UnitKey::Section(h), _) => (heading_title(idx, *h), None),
                (UnitKey::Flat, Some(Flat::Word(_))) => (title_word(idx, it.line), None),
                (UnitKey::Flat, Some(Flat::Stem(s))) => (stem_title(idx, it.line, s), None),
                (UnitKey::Flat, Some(Flat::Wiki(n))) => (note_title(*n), None),
                _ => (String::new(), None),
            };
            let heading = match &it.unit {
                UnitKey::Section(h) => Some(*h),
                _ => None,
            };
            groups.push(Group {
                key: String::new(),
                title,
                hubs: existing.into_iter().collect(),
                lines: Vec::new(),
                labels: Vec::new(),
                hub_exists: false,
                linked: false,
                last_used: None,
                heading,
                room: None,
                run: match &it.unit {
                    UnitKey::Section(h) => run_of(idx, &run_head, *h),
                    _ => None,
                },
            });
            if let Some(g) = groups.last_mut()
                && let Some(run) = &g.run
            {
                g.title = run.title(run.dates.iter().map(|(_, d)| d.as_str()).collect());
            }
            standalone.push(matches!(flat, Some(Flat::Single(_))));
            groups.len() - 1
        });
        groups[g].lines.push(it.line);
        groups[g].labels.push(it.label.clone());
        if let Some(t) = it.file {
            groups[g].last_used = groups[g].last_used.max(lib.files[t].modified());
        }
        member.push(g);
    }
    name_hubs(lib, idx, &pointers, &mut groups, (max_entries, max_lines));
    // Pieces: one per rank of each unit; an entry without a rank goes with the unit's first.
    let mut pieces: Vec<Piece> = Vec::new();
    let mut piece_of: HashMap<(usize, Rank), usize> = HashMap::new();
    for (g, group) in groups.iter().enumerate() {
        let mine: Vec<&Item> = (items.iter().zip(&member))
            .filter(|(_, m)| **m == g)
            .map(|(it, _)| it)
            .collect();
        let lowest = mine
            .iter()
            .filter_map(|it| it.rank)
            .min()
            .unwrap_or(Rank::Other);
        // A flat topic moves whole (its rank: its highest); a section by rank.
        let whole = group.heading.is_none();
        let highest = mine.iter().filter_map(|it| it.rank).max().unwrap_or(lowest);
        for it in mine {
            let rank = if whole {
                highest
            } else {
                it.rank.unwrap_or(lowest)
            };
            let p = *piece_of.entry((g, rank)).or_insert_with(|| {
                pieces.push(Piece {
                    group: g,
                    rank,
                    lines: Vec::new(),
                    reads: 0,
                    standalone: standalone[g],
                });
                pieces.len() - 1
            });
            pieces[p].lines.push(it.line);
            if let Some(t) = it.file {
                pieces[p].reads += reads.get(&lib.files[t].rel).copied().unwrap_or(0);
            }
            roles[it.line] = Role::Entry(p);
        }
    }
    let hubs_heading = (0..idx.lines.len()).find(|&i| {
        roles[i] == Role::Heading
            && matches!(&idx.lines[i].kind, Kind::Heading { title, .. }
                if title.eq_ignore_ascii_case(HUBS_HEADING))
    });
    let (more_hubs, more_room) = more_hubs(lib, idx, &pointers, &groups, (max_entries, max_lines));
    Layout {
        roles,
        groups,
        pieces,
        pointers,
        broken,
        crowns,
        unreadable,
        hubs_heading,
        max_entries,
        max_lines,
        more_hubs,
        more_room,
    }
}

/// The hubs that folded pointer lines go to, enough for every foldable pointer within
/// `max-file-lines` ([`MORE_HUBS`] first, appended to when it exists), and the room an
/// existing [`MORE_HUBS`] has left.
fn more_hubs(
    lib: &Library,
    idx: &Index,
    pointers: &[Pointer],
    groups: &[Group],
    (max_entries, max_lines): (usize, usize),
) -> (Vec<String>, Option<Room>) {
    let room = lib
        .file(MORE_HUBS)
        .map(|f| room_of(f.text().unwrap_or(""), max_entries, max_lines));
    let lines: Vec<usize> = (pointers.iter())
        .filter(|p| p.foldable)
        .map(|p| p.line)
        .collect();
    let limits = Limits {
        entries: usize::MAX,
        lines: max_lines,
        room,
    };
    let chunks = assign(idx, &part_counts(idx), &lines, limits)
        .last()
        .map_or(1, |c| c + 1);
    let mut hubs = vec![MORE_HUBS.to_owned()];
    let mut n = 2;
    while hubs.len() < chunks {
        let hub = names::hub_file(&format!("more-hubs-{n}"));
        n += 1;
        let taken = groups.iter().any(|g| g.hubs.contains(&hub))
            || pointers.iter().any(|p| p.hubs.contains(&hub));
        if !taken && lib.file(&hub).is_none() {
            hubs.push(hub);
        }
    }
    (hubs, room)
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

mod clusters;
mod naming;
#[cfg(test)]
mod tests;
