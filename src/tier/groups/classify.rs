//! Classifying MEMORY.md: every line's role (kept, title, heading, crown, pointer, entry), then
//! each entry's unit (its section, its hub's section, or a flat list's topic) and rank, and the
//! pieces the units move in.

use std::collections::HashMap;

use super::clusters;
use super::naming::{
    first_word, heading_title, hub_key, label, modified, name_hubs, note_label, run_of, stem_of,
    stem_title, title_word,
};
use super::pointers::{hubs_linked, more_hubs, section_hubs};
use super::{Broken, Crowned, Group, HUBS_HEADING, Layout, Piece, Pointer, Rank, Role, is_note};
use crate::memory::Library;
use crate::memory::library::{FileLink, Target};
use crate::tier::crown;
use crate::tier::parse::{Index, Kind, entry_title};

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
