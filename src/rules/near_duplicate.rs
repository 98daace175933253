//! `near-duplicate` (soft).

use rayon::prelude::*;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::similar::{self, Signature};

declare_rule! {
    /// ## What it does
    /// Flags memory files (entries, not MEMORY.md or hubs) whose description and body are
    /// nearly the same: the MinHash estimate of the Jaccard similarity of their 3-word
    /// shingles (each CJK character is a word) is at least `near-duplicate-similarity` (0.8).
    /// The hash seed is fixed, so the same library always gives the same findings. `ccmem add`
    /// refuses a new memory by the same comparison and the same threshold. Files joined by such
    /// pairs are one cluster, reported once: a pair on its second file (by path), naming the
    /// first; a larger cluster on its first file, with how many files it holds, the range of
    /// their similarities and the first few of the others (a template copied into hundreds of
    /// files is one finding, not tens of thousands).
    ///
    /// ## Why it matters
    /// Two files saying the same thing drift apart as one gets updated and the other does not;
    /// the model then reads whichever it finds first, possibly the outdated one.
    ///
    /// ## Example
    /// `feedback_rls_uid.md` and `feedback_rls_auth_uid.md`, written in two sessions about the
    /// same incident.
    ///
    /// ## Fix
    /// Merge them into one file, leave a tombstone in the other (or delete it) and fix the
    /// links.
    pub const RULE = ("near-duplicate", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let files = &ctx.lib.files;
    let sigs: Vec<Option<Signature>> = files.par_iter().map(|f| similar::of_memory(f)).collect();
    let sigs: Vec<Option<&Signature>> = sigs.iter().map(Option::as_ref).collect();
    for c in similar::clusters(&sigs, ctx.cfg.near_duplicate_similarity) {
        let (first, rest) = (c.members[0], &c.members[1..]);
        if let [second] = rest {
            let s = c.links[0].2;
            out.push(ctx.diag(
                &RULE,
                *second,
                files[*second].body_line(),
                format!(
                    "near-duplicate of `{}` (similarity {s:.2})",
                    files[first].rel
                ),
            ));
            continue;
        }
        let low = c.links.iter().map(|l| l.2).fold(1.0, f64::min);
        let high = c.links.iter().map(|l| l.2).fold(0.0, f64::max);
        let named: Vec<String> = (rest.iter().take(NAMED))
            .map(|&k| format!("`{}`", files[k].rel))
            .collect();
        let more = match rest.len().saturating_sub(NAMED) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        out.push(ctx.diag(
            &RULE,
            first,
            files[first].body_line(),
            format!(
                "near-duplicates: {} files say nearly the same as this one (similarity \
                 {low:.2}–{high:.2}): {}{more}",
                rest.len(),
                named.join(", ")
            ),
        ));
    }
}

/// Files of a cluster a finding names; the rest are counted.
const NAMED: usize = 8;

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    #[test]
    fn vectors() {
        let body = "Supabase mutations deadlock after a tab switch because the SDK guards the \
                    session with Web Locks and a hidden tab never gets the lock; use fetch \
                    against the REST API for every write from the browser. Check the network \
                    panel first: a pending lock request shows as a request that never starts. \
                    The fix shipped in the billing page first and then in the profile editor, \
                    and the error rate went from three percent to zero within a day.";
        let e =
            |d: &str, b: &str| format!("---\nname: a\ndescription: {d}\ntype: user\n---\n{b}\n");
        let f = Fixture::new(&[
            ("user_a.md", &e("tab switch deadlock", body)),
            (
                "user_b.md",
                &e(
                    "tab switch deadlock",
                    &body.replace("every write", "each write"),
                ),
            ),
            (
                "user_c.md",
                &e(
                    "stripe",
                    "Stripe webhook replays carry no idempotency key so refunds run twice.",
                ),
            ),
            ("reference_x_hub.md", &e("tab switch deadlock", body)),
        ]);
        assert_eq!(f.found("near-duplicate"), [("user_b.md".to_owned(), 6)]);
        assert!(f.messages("near-duplicate")[0].contains("of `user_a.md` (similarity 0."));
        // Three copies are one cluster, reported once, on its first file.
        let g = Fixture::new(&[
            ("user_a.md", &e("tab switch deadlock", body)),
            (
                "user_b.md",
                &e("tab switch deadlock", &body.replace("every", "each")),
            ),
            (
                "user_c.md",
                &e("tab switch deadlock", &body.replace("hidden", "background")),
            ),
        ]);
        assert_eq!(g.found("near-duplicate"), [("user_a.md".to_owned(), 6)]);
        let m = &g.messages("near-duplicate")[0];
        assert!(
            m.starts_with(
                "near-duplicates: 2 files say nearly the same as this one (similarity 0."
            ),
            "{m}"
        );
        assert!(m.ends_with("): `user_b.md`, `user_c.md`"), "{m}");
    }
}
