//! `exclude-pattern-relative` (hard).

use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a `claudeMdExcludes` pattern in a project settings file that is relative
    /// (`CLAUDE.md`, `./docs/CLAUDE.md`, `packages/legacy/CLAUDE.md`).
    ///
    /// ## Why it matters
    /// The client matches `claudeMdExcludes` against the file's absolute path, so a relative
    /// pattern never matches and the file it was meant to keep out loads anyway.
    ///
    /// ## Example
    /// ```json
    /// { "claudeMdExcludes": ["packages/legacy/CLAUDE.md"] }
    /// ```
    ///
    /// ## Fix
    /// Anchor it with `**/`: `"**/packages/legacy/CLAUDE.md"`.
    pub const RULE = ("exclude-pattern-relative", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (file, pattern, span) in excludes(ctx) {
        let body = pattern.strip_prefix('!').unwrap_or(&pattern);
        if !is_relative(body) {
            continue;
        }
        let bang = if pattern.starts_with('!') { "!" } else { "" };
        let anchored = body.trim_start_matches("./");
        out.push(ctx.finding_at(
            &RULE,
            &file,
            span,
            format!("`{pattern}` is relative: the client matches claudeMdExcludes against absolute paths, so it never matches"),
            format!("anchor it: `\"{bang}**/{anchored}\"`"),
        ));
    }
}

/// Whether a pattern (without its `!`) can never match an absolute path.
pub fn is_relative(p: &str) -> bool {
    !p.is_empty() && !p.starts_with(['/', '*', '{', '?', '['])
}

/// Every `claudeMdExcludes` string of the repository's project settings files, with the file
/// and the byte range of the JSON string in it.
pub fn excludes(ctx: &Ctx) -> Vec<(String, String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    for file in &ctx.repo.settings {
        let Some(text) = ctx.text(file) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Some(list) = json.get("claudeMdExcludes").and_then(|v| v.as_array()) else {
            continue;
        };
        let mut from = 0;
        for p in list.iter().filter_map(|v| v.as_str()) {
            let quoted = serde_json::to_string(p).unwrap_or_default();
            let at = text[from..].find(&quoted).map_or(0, |i| from + i);
            from = at + quoted.len();
            out.push((file.clone(), p.to_owned(), at..at + quoted.len()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn relative_patterns() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            (
                ".claude/settings.json",
                "{\n  \"claudeMdExcludes\": [\n    \"packages/legacy/CLAUDE.md\",\n    \"**/vendor/**\",\n    \"./CLAUDE.md\"\n  ]\n}\n",
            ),
        ]);
        assert_eq!(
            f.found("exclude-pattern-relative"),
            [
                (".claude/settings.json".to_owned(), 3),
                (".claude/settings.json".to_owned(), 5)
            ]
        );
        assert_eq!(
            f.fixes("exclude-pattern-relative")[1],
            "anchor it: `\"**/CLAUDE.md\"`"
        );
    }
}
