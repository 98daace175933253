//! Merging another writer's added lines into ccmem's own new content.
//!
//! When a concurrent writer changed a file ccmem was replacing (the client appending an entry to
//! MEMORY.md while `tier --write` ran), its change is kept if it only *added* lines: each added
//! run goes after the line it followed, where that line is still in ccmem's version, else at the
//! end. Any other change (a line edited or removed) cannot be merged line by line without
//! guessing, and the caller keeps the other writer's file instead.

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// Lines with their endings.
fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split_inclusive(|c| *c == b'\n').collect()
}

/// A run of lines another writer added: after `base` line `after` (0-based; `None`: at the
/// start), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added<'a> {
    after: Option<usize>,
    lines: Vec<&'a [u8]>,
}

/// The runs of lines `theirs` adds to `base`, when adding lines is all it does.
pub fn added<'a>(base: &[u8], theirs: &'a [u8]) -> Option<Vec<Added<'a>>> {
    let (b, t) = (lines(base), lines(theirs));
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &b, &t) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => out.push(Added {
                after: old_index.checked_sub(1),
                lines: t[new_index..new_index + new_len].to_vec(),
            }),
            DiffOp::Delete { .. } | DiffOp::Replace { .. } => return None,
        }
    }
    Some(out)
}

/// `ours` (ccmem's new version of `base`) with the runs `added` placed in it; the number of
/// lines placed.
pub fn place(base: &[u8], ours: &[u8], added: &[Added<'_>]) -> (Vec<u8>, usize) {
    let (b, o) = (lines(base), lines(ours));
    // base line → ours line, for the lines ccmem kept.
    let mut map = vec![None; b.len()];
    for op in capture_diff_slices(Algorithm::Myers, &b, &o) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    // Insertion points in ours: after line j (None: at the start; usize::MAX: at the end).
    let mut at: Vec<(Option<usize>, usize)> = added
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let spot = a
                .after
                .map(|k| map.get(k).copied().flatten().unwrap_or(usize::MAX));
            (spot, i)
        })
        .collect();
    at.sort();
    let mut out = Vec::with_capacity(ours.len() + 256);
    let mut placed = 0;
    let mut next = at.iter().peekable();
    let mut emit = |out: &mut Vec<u8>, idx: usize| {
        if out.last().is_some_and(|c| *c != b'\n') {
            out.push(b'\n');
        }
        for l in &added[idx].lines {
            out.extend_from_slice(l);
            placed += 1;
        }
    };
    while let Some(&&(None, i)) = next.peek() {
        emit(&mut out, i);
        next.next();
    }
    for (j, line) in o.iter().enumerate() {
        out.extend_from_slice(line);
        while let Some(&&(Some(k), i)) = next.peek() {
            if k != j {
                break;
            }
            emit(&mut out, i);
            next.next();
        }
    }
    for &(_, i) in next {
        emit(&mut out, i);
    }
    (out, placed)
}

/// `ours` with every line `theirs` added to `base`, or `None` when `theirs` did more than add.
pub fn merge(base: &[u8], theirs: &[u8], ours: &[u8]) -> Option<(Vec<u8>, usize)> {
    let added = added(base, theirs)?;
    Some(place(base, ours, &added))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_lines_go_to_the_end_and_inserted_ones_after_their_line() {
        let base = b"# Index\n- a\n- b\n- c\n";
        let ours = b"# Index\n- a\n- [hub](hub.md)\n";
        let appended = b"# Index\n- a\n- b\n- c\n- new\n";
        let (m, n) = merge(base, appended, ours).unwrap();
        assert_eq!(m, b"# Index\n- a\n- [hub](hub.md)\n- new\n");
        assert_eq!(n, 1);
        let inserted = b"# Index\n- a\n- x\n- b\n- c\n";
        let (m, _) = merge(base, inserted, ours).unwrap();
        assert_eq!(m, b"# Index\n- a\n- x\n- [hub](hub.md)\n");
        let first = b"- top\n# Index\n- a\n- b\n- c\n";
        assert_eq!(
            merge(base, first, ours).unwrap().0,
            b"- top\n# Index\n- a\n- [hub](hub.md)\n"
        );
    }

    #[test]
    fn edits_and_removals_are_not_merged() {
        let base = b"- a\n- b\n";
        assert!(merge(base, b"- a\n- B\n", b"- a\n").is_none());
        assert!(merge(base, b"- a\n", b"- a\n").is_none());
        assert_eq!(merge(base, base, b"x").unwrap(), (b"x".to_vec(), 0));
    }

    #[test]
    fn a_missing_final_newline_is_added_before_placed_lines() {
        let (m, _) = merge(b"- a\n", b"- a\n- b\n", b"- z").unwrap();
        assert_eq!(m, b"- z\n- b\n");
        let crlf = merge(b"- a\r\n", b"- a\r\n- b\r\n", b"- y\r\n").unwrap().0;
        assert_eq!(crlf, b"- y\r\n- b\r\n");
    }
}
