//! `[[name]]` clusters of a flat list: entries whose index lines or files link the same note
//! by name belong together, with the note itself (issue 24, rule 4). A person filing
//! `[[class-open-class]]` under the observation form, the visitors' comments and the rehearsal
//! rule made that note their topic, whatever the file names say.

use std::collections::HashMap;

use crate::memory::Library;
use crate::memory::library::{FileLink, Target};
use crate::text::links::Syntax;

/// One flat entry as clustering sees it.
pub(super) struct Member<'a> {
    /// The file it links (index into [`Library::files`]).
    pub file: Option<usize>,
    /// The links of its index line.
    pub links: &'a [FileLink],
    /// Its file-name stem and first title word (empty: none): a cluster that lies inside one
    /// topic they form already is no topic of its own.
    pub stem: &'a str,
    pub word: &'a str,
}

/// The notes (files of the library) that `m` links with `[[name]]`, from its index line and
/// its own file, without itself, once each.
fn notes_linked(lib: &Library, m: &Member) -> Vec<usize> {
    let from_file = m.file.map_or(&[][..], |t| lib.links(t));
    let mut out: Vec<usize> = Vec::new();
    for l in m.links.iter().chain(from_file) {
        if l.link.syntax != Syntax::Wiki {
            continue;
        }
        if let Target::File(t) | Target::Named(t) = l.target
            && Some(t) != m.file
            && !out.contains(&t)
        {
            out.push(t);
        }
    }
    out
}

/// For each of `members` (a flat list's entries, in order), the note whose cluster it joins:
/// a note two entries or more link, with those entries and the note's own entry. The biggest
/// cluster wins an entry that is in several; a cluster whose members all share a file-name
/// stem or a first title word is left to that topic, and one left with fewer than two members
/// dissolves.
pub(super) fn clusters<'a>(lib: &Library, members: &[Member<'a>]) -> Vec<Option<usize>> {
    let linked: Vec<Vec<usize>> = members.iter().map(|m| notes_linked(lib, m)).collect();
    let mut linkers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, notes) in linked.iter().enumerate() {
        for &n in notes {
            linkers.entry(n).or_default().push(k);
        }
    }
    let mut own: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, m) in members.iter().enumerate() {
        if let Some(t) = m.file {
            own.entry(t).or_default().push(k);
        }
    }
    let mut found: Vec<(usize, Vec<usize>)> = Vec::new();
    for (n, mut ks) in linkers {
        if ks.len() < 2 {
            continue;
        }
        ks.extend(own.get(&n).into_iter().flatten());
        ks.sort_unstable();
        ks.dedup();
        let shared = |of: &dyn Fn(&Member<'a>) -> &'a str| {
            let first = of(&members[ks[0]]);
            !first.is_empty() && ks.iter().all(|&k| of(&members[k]) == first)
        };
        if !(shared(&|m| m.stem) || shared(&|m| m.word)) {
            found.push((n, ks));
        }
    }
    // Biggest first, then the one whose first member comes first: the same plan every run.
    found.sort_by_key(|(n, ks)| (std::cmp::Reverse(ks.len()), ks[0], *n));
    let mut of: Vec<Option<usize>> = vec![None; members.len()];
    for (n, ks) in &found {
        let free: Vec<usize> = ks.iter().copied().filter(|&k| of[k].is_none()).collect();
        if free.len() >= 2 {
            for k in free {
                of[k] = Some(*n);
            }
        }
    }
    of
}
