//! `near-duplicate` (soft).

use rayon::prelude::*;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::similar::{self, Sketch};

declare_rule! {
    /// ## What it does
    /// Flags pairs of memory files (entries, not MEMORY.md or hubs) whose description and body
    /// are nearly the same: the MinHash estimate of the Jaccard similarity of their 3-word
    /// shingles (each CJK character is a word) is at least `near-duplicate-similarity` (0.8).
    /// The hash seed is fixed, so the same library always gives the same pairs. `ccmem add`
    /// refuses a new memory by the same comparison and the same threshold. The finding is
    /// on the second file of the pair (by path) and names the first.
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
    // The audit's load found the sketch of each memory's signature as it read the file; one it
    // did not (a file restored from an interrupted write, a library built in memory) gets it
    // here.
    let files = &ctx.lib.files;
    let own: Vec<(usize, Sketch)> = (files.par_iter().enumerate())
        .filter(|(_, f)| f.sketch().is_none())
        .filter_map(|(i, f)| Some((i, similar::of_memory(f)?.sketch())))
        .collect();
    let sketches: Vec<Option<&Sketch>> = (files.iter().enumerate())
        .map(|(i, f)| {
            f.sketch().or_else(|| {
                let k = own.binary_search_by_key(&i, |&(k, _)| k).ok()?;
                Some(&own[k].1)
            })
        })
        .collect();
    let threshold = ctx.cfg.near_duplicate_similarity;
    // The whole signatures of the few files the sketches leave in a pair, found again.
    let whole = |i: usize| similar::of_memory(&files[i]);
    for (i, j, s) in similar::pairs(&sketches, threshold, whole) {
        let first = &files[i].rel;
        out.push(ctx.diag(
            &RULE,
            j,
            files[j].body_line(),
            format!("near-duplicate of `{first}` (similarity {s:.2})"),
        ));
    }
}

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
    }
}
