//! `stray-tool-tag` (soft).

use std::sync::LazyLock;

use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule, prose};

declare_rule! {
    /// ## What it does
    /// Flags a memory file whose text holds tool-call markup outside code: `</invoke>`,
    /// `<parameter name="…">`, `</parameter>`, `<function_calls>`, `<function_results>`, and
    /// `<content>`, `</content>`, `<result>`, `</result>` at the start of a line (where a write
    /// leaves them). Markup in a fenced code block or in a code span (`` `<parameter>` ``) is an
    /// example, not a finding; so is HTML such as `<details>` or `<br>`.
    ///
    /// ## Why it matters
    /// A tool write that went wrong (the model closed its call inside the file's content, or an
    /// edit pasted its own call into the body) leaves these tags in the memory. The client loads
    /// them into every session as they are: the model reads the fragment of a call as part of
    /// what it remembers, and the file no longer says what was meant to be saved.
    ///
    /// ## Example
    /// ```text
    /// **How to apply:** run the clean build first.
    /// </content>
    /// </invoke>
    /// ```
    ///
    /// ## Fix
    /// Delete the tool-call tags from the file and check that the text between them is the memory you meant to keep.
    pub const RULE = ("stray-tool-tag", Soft, Both, Check::File(check));
}

/// Tags of the client's tool-call format, with an optional namespace prefix. `content` and
/// `result` are also words of HTML-like prose, so they count only at the start of a line.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"</?(?:[a-z]+:)?(invoke|parameter|function_calls|function_results|content|result)(?:\s+name=[^>]*)?\s*>",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// Tags listed in a finding at most (the count says how many more).
const SHOWN: usize = 3;

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let Some((text, parsed)) = file.parsed() else {
        return;
    };
    let body = &text[parsed.body_start.min(text.len())..];
    // Most files hold no `<` followed by one of the names: nothing more to do.
    if !TAG.is_match(body) {
        return;
    }
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    for line in prose::lines(text, parsed.body_start, file.body_line()) {
        let spans = prose::code_spans(line.text);
        for m in TAG.captures_iter(line.text) {
            let (Some(whole), Some(name)) = (m.get(0), m.get(1)) else {
                continue;
            };
            if spans.iter().any(|s| s.contains(&whole.start())) {
                continue;
            }
            let generic = matches!(name.as_str(), "content" | "result");
            if generic && !line.text[..whole.start()].trim().is_empty() {
                continue;
            }
            found.push((line.number, line.offset + whole.start(), whole.as_str()));
        }
    }
    let Some(&(_, first, _)) = found.first() else {
        return;
    };
    let mut listed: Vec<String> = found
        .iter()
        .take(SHOWN)
        .map(|(n, _, tag)| format!("`{}` (line {n})", shorten(tag)))
        .collect();
    if found.len() > SHOWN {
        listed.push(format!("{} more", found.len() - SHOWN));
    }
    let msg = format!(
        "tool-call markup left in the memory by a tool write: {}",
        listed.join(", ")
    );
    let end = first + found[0].2.len();
    out.push(ctx.diag_at(&RULE, i, first..end, msg));
}

/// A tag as shown in a message: at most 60 characters.
fn shorten(tag: &str) -> String {
    match tag.char_indices().nth(60) {
        Some((k, _)) => format!("{}…", &tag[..k]),
        None => tag.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let ko_tail = fm("feedback", "")
            + "Gradle 캐시가 깨지면 `./gradlew --stop` 후 `~/.gradle/caches` 를 지운다.\n\n\
               **How to apply:** 빌드 에러가 코드 변경과 무관해 보이면 먼저 확인한다.\n\
               </content>\n</invoke>\n";
        let ja_wrapped = fm("feedback", "")
            + "<parameter name=\"content\">PR を出す前に EditMode テストを通す。\n\n\
               **Why:** 夜間ビルドが 3 日連続で落ちた。\n</parameter>\n";
        let en_pasted = fm("feedback", "")
            + "`app/billing/` runs under `mypy --strict`.\n<function_calls>\n\
               <invoke name=\"Edit\">\n<parameter name=\"file_path\">/home/mk/x.md</parameter>\n\
               No `Any`.\n";
        let de_namespaced = fm("feedback", "")
            + "Vor `terraform apply` immer einen Plan zeigen.\n\n**Warum:** Prod.\n"
            + &format!("</{}:parameter>\n", "ns");
        // Traps: markup as an example, HTML, words in prose.
        let xml_in_fence = fm("feedback", "")
            + "화면 문자열은 `stringResource(R.string.…)` 로.\n\n```xml\n\
               <string name=\"stats_empty_month\">이번 달은 지출이 없어요</string>\n\
               <parameter name=\"x\">1</parameter>\n```\n";
        let tags_in_spans = fm("reference", "")
            + "The tool protocol wraps arguments in `<parameter name=\"…\">` and closes with \
               `</invoke>`; ``<content>`` is the Write tool's field.\n";
        let jsx_and_html = fm("feedback", "")
            + "<details><summary>Warum</summary>\n\nWeil `<Result>` in React ein Fehler ist.\n</details>\n\
               Der Parser gibt ein <result> zurück, kein Tupel.\n\
               Le champ content</content> reste vide.\n";
        let zh_tilde_fence = fm("project", "")
            + "部署脚本的输出示例:\n\n~~~\n<function_results>\nok\n</function_results>\n~~~\n";
        let f = Fixture::new(&[
            ("MEMORY.md", "- [a](feedback_a.md)\n"),
            ("feedback_gradle_cache.md", &ko_tail),
            ("feedback_precommit.md", &ja_wrapped),
            ("feedback_typing.md", &en_pasted),
            ("feedback_plan.md", &de_namespaced),
            ("feedback_strings.md", &xml_in_fence),
            ("reference_protocol.md", &tags_in_spans),
            ("feedback_react.md", &jsx_and_html),
            ("project_deploy.md", &zh_tilde_fence),
        ]);
        assert_eq!(
            f.paths("stray-tool-tag"),
            [
                "feedback_gradle_cache.md",
                "feedback_plan.md",
                "feedback_precommit.md",
                "feedback_typing.md",
            ]
        );
        let lines = f.found("stray-tool-tag");
        assert_eq!(lines[0].1, 10, "the first tag's line");
        let msgs = f.messages("stray-tool-tag");
        assert!(
            msgs.iter()
                .any(|m| m.ends_with("`<function_calls>` (line 8), `<invoke name=\"Edit\">` (line 9), `<parameter name=\"file_path\">` (line 10), 1 more")),
            "{msgs:?}"
        );
    }
}
