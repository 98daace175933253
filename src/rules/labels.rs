//! The labelled parts of a memory's body (its Why, its How to apply), found the way people write
//! them: a heading (`## Why`), a bold label (`**Why:**`, `**Why**:`), a plain label (`Why:`), each
//! also as a list item (`- **Why**: …`) or in a quote, and in the languages memories are written
//! in (`**Warum:**`, `**이유:**`, `**原因：**`, `**Waarom:**`, `**Por qué:**`, `## 根因` …).
//!
//! The client's template asks for `**Why:**` and `**How to apply:**` lines; the model writes them
//! in the user's language and often as list items. A reason in another form is not missing.

use std::sync::LazyLock;

use regex::Regex;

/// Labels that introduce a reason, lower case (the search ignores case). "Background"
/// (`## 背景`) is context, not a reason: it is not one of them.
const WHY: &[&str] = &[
    // English
    "why",
    "reason",
    "reasons",
    "because",
    "root cause",
    "rationale",
    "motivation",
    // Chinese, Japanese, Korean
    "为什么",
    "為什麼",
    "原因",
    "根因",
    "教训",
    "教訓",
    "理由",
    "缘由",
    "なぜ",
    "이유",
    "원인",
    "왜",
    // German, Dutch
    "warum",
    "grund",
    "begründung",
    "waarom",
    "reden",
    // French, Spanish, Portuguese, Italian
    "pourquoi",
    "raison",
    "por qué",
    "por que",
    "porque",
    "porquê",
    "por quê",
    "motivo",
    "razón",
    "razão",
    "perché",
    // Russian, Polish, Turkish, Vietnamese, Arabic, Hindi
    "почему",
    "причина",
    "зачем",
    "обоснование",
    "dlaczego",
    "powód",
    "neden",
    "gerekçe",
    "tại sao",
    "lý do",
    "لماذا",
    "السبب",
    "क्यों",
    "कारण",
];

/// Labels that introduce where and when a rule applies, lower case.
const HOW: &[&str] = &[
    "how to apply",
    "how-to-apply",
    "how to use",
    "when to apply",
    "apply",
    "applies to",
    "scope",
    "如何应用",
    "如何應用",
    "应用",
    "应用方式",
    "适用",
    "适用范围",
    "適用",
    "適用方法",
    "適用範囲",
    "使い方",
    "적용",
    "적용 방법",
    "적용법",
    "wie anwenden",
    "anwendung",
    "umsetzung",
    "so anwenden",
    "hoe toepassen",
    "toepassing",
    "toepassen",
    "comment appliquer",
    "comment l'appliquer",
    "comment les appliquer",
    "quand l'appliquer",
    "application",
    "mise en œuvre",
    "cómo aplicarlo",
    "cómo aplicar",
    "como aplicar",
    "como aplicá-lo",
    "como aplicar isso",
    "aplicación",
    "aplicação",
    "come applicare",
    "applicazione",
    "как применять",
    "применение",
    "jak stosować",
    "zastosowanie",
    "nasıl uygulanır",
    "uygulama",
    "cách áp dụng",
];

/// One line that opens (after spaces, a quote `>` and a list marker) with one of `labels` as a
/// heading, a bold or underscored label, or a plain label ending in a colon.
fn label_regex(labels: &[&str]) -> Regex {
    let mut sorted: Vec<&str> = labels.to_vec();
    // Longest first, so `root cause` is tried before `reason`-like prefixes.
    sorted.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let alt = sorted
        .iter()
        .map(|l| regex::escape(l).replace(' ', r"[ \t]+"))
        .collect::<Vec<_>>()
        .join("|");
    // After the label: a colon (ASCII or full-width; French puts a space, often a no-break
    // one, before it), a question mark, or the end of a heading.
    let colon = r"[ \t\u{a0}\u{202f}]*[?？]?[ \t\u{a0}\u{202f}]*[:：]";
    let re = r"(?im)^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:#{1,6}[ \t]+(?:ALT)COLON?[ \t]*$|#{1,6}[ \t]+(?:ALT)COLON|(?:\*\*|__)(?:ALT)(?:COLON[ \t]*(?:\*\*|__)|[ \t]*[?？]?(?:\*\*|__)COLON)|(?:ALT)COLON)";
    Regex::new(&re.replace("ALT", &alt).replace("COLON", colon)).expect("valid regex")
}

static WHY_RE: LazyLock<Regex> = LazyLock::new(|| label_regex(WHY));
static HOW_RE: LazyLock<Regex> = LazyLock::new(|| label_regex(HOW));

/// Whether `body` gives a reason in any of the forms and languages above.
pub(super) fn has_why(body: &str) -> bool {
    WHY_RE.is_match(body)
}

/// Whether `line` opens with a reason's label (`**Why:** …`, `- **Warum:** …`, `## 根因`).
pub(super) fn is_why_line(line: &str) -> bool {
    WHY_RE.is_match(line)
}

/// Whether `body` says how to apply its rule in any of the forms and languages above.
pub(super) fn has_how_to_apply(body: &str) -> bool {
    HOW_RE.is_match(body)
}

/// Words that open a clause saying when a rule applies (a condition, a moment, a repetition),
/// in the languages memories are written in, lower case, matched whole at the start of a line
/// or a sentence.
const SCOPE_OPENERS: &[&str] = &[
    // English
    "when",
    "whenever",
    "after",
    "before",
    "if",
    "once",
    "every time",
    "each time",
    "any time",
    "on every",
    "for every",
    "for each",
    "in every",
    // German, Dutch
    "wenn",
    "sobald",
    "bevor",
    "nach",
    "vor",
    "bei",
    "immer wenn",
    "jedes mal",
    "wanneer",
    "als",
    "voordat",
    "na",
    "bij",
    "elke keer",
    "telkens",
    // French, Spanish, Portuguese, Italian
    "quand",
    "lorsque",
    "lorsqu'",
    "après",
    "avant",
    "si",
    "à chaque",
    "chaque fois",
    "cuando",
    "después de",
    "antes de",
    "cada vez",
    "siempre que",
    "al",
    "quando",
    "depois de",
    "se",
    "sempre que",
    "ao",
    "toda vez",
    "dopo",
    "prima di",
    "ogni volta",
    // Russian, Polish
    "когда",
    "перед",
    "после",
    "если",
    "при",
    "каждый раз",
    "kiedy",
    "przed",
    "po",
    "jeśli",
    "gdy",
];

/// Words of scripts that do not space them, marking when a rule applies, matched anywhere.
const SCOPE_CJK: &str = "場合|とき|際に|際は|前に|後に|たびに|毎回|每次|之前|之后|之後|的时候|的時候|如果|할 때|경우|전에|후에|마다";

/// Whether the rule part of a feedback memory's `body` (what comes before its first labelled
/// line: **Why:**, **How to apply:**) already says when or where it applies: a clause opening
/// with one of [`SCOPE_OPENERS`] or [`SCOPE_CJK`], or a path in a code span (`` `k8s/charts/` ``)
/// naming where. A curator does not ask such a rule for a How to apply line: "Après `manage.py
/// makemigrations`, relire la migration" says when; "values go in `k8s/charts/<chart>/values-<env>.yaml`"
/// says where.
pub(super) fn names_its_scope(body: &str) -> bool {
    static OPENER: LazyLock<Regex> = LazyLock::new(|| {
        let words = SCOPE_OPENERS
            .iter()
            .map(|w| regex::escape(w).replace(' ', r"[ \t]+"))
            .collect::<Vec<_>>()
            .join("|");
        Regex::new(&format!(
            r"(?im)(?:^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{{1,3}}[.)])[ \t]+)?|[.!?;:。！？][ \t]+)(?:{words})(?:\b|[ \t])|{SCOPE_CJK}"
        ))
        .expect("valid regex")
    });
    let rule: String = body
        .split_inclusive('\n')
        .take_while(|l| !is_why_line(l) && !HOW_RE.is_match(l))
        .collect();
    OPENER.is_match(&rule)
        || rule.lines().any(|l| {
            super::prose::code_spans(l)
                .into_iter()
                .any(|r| l[r].trim_matches('`').contains('/'))
        })
}

/// Words that mark a decision (a choice made, a thing replaced or dropped), in the languages
/// memories are written in. A project memory that records a decision owes its reason; one that
/// records a state (a sprint list, an on-call rota, a map of paths, a log) does not. Words of
/// scripts that space them are matched whole (between word boundaries), CJK ones anywhere.
const DECISION_WORDS: &str = r"decid\w*|chose|chosen|choose|replac\w*|switch(?:ed|ing)? (?:to|from)|migrat(?:e|ed|es|ing)|moves? (?:from|to)|instead of|in favou?r of|deprecat\w*|dropp?(?:ed|ing)? (?:the |support )|adopt\w*|going with|settled on|rather than|decidimos|decidiu|decidió|reemplaz\w*|substitu\w*|migr(?:amos|ar|ou|aram|ieren|iert|eren|eerd)|en (?:lugar|vez) de|em vez de|no lugar de|sin pasar|entschied\w*|ersetz\w*|statt|umgestellt|umstellung|besloten|vervang\w*|in plaats van|overgestapt|décid\w*|remplac\w*|au lieu de|abbiamo deciso|sostitu\w*|invece di|решил\w*|замен\w*|вместо|перешл\w*|перейти|отказал\w*";
/// The CJK words that mark a decision (see [`DECISION_WORDS`]).
const DECISION_CJK: &str = "決定|決めた|採用|移行|置き換|撤去|廃止|やめ|决定|采用|替换|替代|迁移|改用|弃用|废弃|결정|도입|교체|전환|대신|폐기|바꾼|바꿨|바꾸기로";

/// [`DECISION_WORDS`] whole, or [`DECISION_CJK`].
static DECISION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:{DECISION_WORDS})\b|{DECISION_CJK}")).expect("valid regex")
});

/// [`DECISION`] without its word boundaries: it matches wherever `DECISION` does (and more).
/// The regex crate's fast engines give up on Unicode word boundaries in text that is not
/// ASCII, leaving the slowest one to read all of it; this one has none, so it rules out most
/// text fast.
static DECISION_LOOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(?:{DECISION_WORDS})|{DECISION_CJK}")).expect("valid regex")
});

/// Whether a memory is a work-in-progress note, by its file name or `name:` (`session_wip.md`,
/// `todo_release.md`): a state, soon done or abandoned.
pub(super) fn wip_note(file: &crate::memory::file::MemFile) -> bool {
    static WIP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[^a-z])(?:wip|session|todo|handoff|hand-off|progress|scratch|draft|in[_ -]?flight)(?:[^a-z]|$)")
            .expect("valid regex")
    });
    let stem = file.name().trim_end_matches(".md");
    WIP.is_match(stem)
        || file
            .meta()
            .and_then(|m| m.name.as_deref())
            .is_some_and(|n| WIP.is_match(n))
}

/// Whether `body` records a decision (see [`DECISION`]).
///
/// No match of it spans a line (no word, gap or `\w` in it matches a line break, and a line
/// break is no word character), so a text that is not ASCII is searched a line at a time, and
/// only its lines that [`DECISION_LOOSE`] matches and that are not ASCII need the slow engine.
pub(super) fn states_a_decision(body: &str) -> bool {
    if !DECISION_LOOSE.is_match(body) {
        return false;
    }
    if body.is_ascii() {
        return DECISION.is_match(body);
    }
    body.split('\n')
        .any(|line| (line.is_ascii() || DECISION_LOOSE.is_match(line)) && DECISION.is_match(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_in_every_form_and_language() {
        for ok in [
            "## Why",
            "## Why:",
            "### why",
            "# Why",
            "## Root cause",
            "## 根因:",
            "## 教训",
            "**Why**: because",
            "**Why:** because",
            "**根因**:x",
            "Why: because",
            "  ## 为什么",
            "- **Why**: autogenerate misses defaults",
            "- **Why:** sem cache",
            "* Why: x",
            "1. **Why**: x",
            "> **Why:** x",
            "**Warum:** per --set gesetzte Werte",
            "**이유:** x",
            "**原因：** x",
            "**Waarom:** x",
            "**Por qué:** reintentos",
            "**Por quê:** x",
            "**Почему:** x",
            "__Why__: x",
            "**Reason**: x",
            "- **Pourquoi :** je relis chaque diff",
            "**Pourquoi\u{a0}:** un arrondi",
            "## Pourquoi ?",
            "Причина: x",
        ] {
            assert!(has_why(ok), "{ok}");
        }
        for bad in [
            "## Whyever",
            "## How to apply",
            "the why is",
            "Nobody knows why: x",
            "**Whyever:** x",
            "`why:` in code",
            "## 背景",
            "## Background",
        ] {
            assert!(!has_why(bad), "{bad}");
        }
    }

    #[test]
    fn how_to_apply_in_every_form_and_language() {
        for ok in [
            "**How to apply:** x",
            "**How to apply**: x",
            "## How to apply",
            "How to apply: x",
            "- **How to apply**: every revision",
            "**Cómo aplicarlo:** x",
            "**Wie anwenden:** x",
            "**적용:** x",
            "**適用:** x",
            "**Как применять:** x",
            "**Comment l'appliquer :** tout nouveau champ",
        ] {
            assert!(has_how_to_apply(ok), "{ok}");
        }
        assert!(!has_how_to_apply("how to apply it is unclear"));
    }

    #[test]
    fn decisions_and_states() {
        for d in [
            "Stripe Charges are replaced by PaymentIntents",
            "Decidimos ir directo de Postgres 13 a 16",
            "Photon は 8 月に撤去済み。",
            "Wir haben uns für Helm entschieden.",
            "决定改用 pnpm",
        ] {
            assert!(states_a_decision(d), "{d}");
        }
        for s in [
            "- This week (Nov 30 – Dec 6): Dana Okafor",
            "El job corre todos los días a las 23:00",
            "- リザルト画面のアニメーション調整(自分)",
            "- Migrations: `alembic/versions/`",
        ] {
            assert!(!states_a_decision(s), "{s}");
        }
    }

    proptest::proptest! {
        #[test]
        fn deciding_a_line_at_a_time_finds_what_one_search_finds(
            text in "(decided|replaced|instead of|statt|décidé|Ersetzt|вместо|决定|결정|撤去|\\n|\\r\\n| |é|ñ|x|_|1|-|。|部署|Ü)*",
        ) {
            proptest::prop_assert_eq!(states_a_decision(&text), DECISION.is_match(&text));
        }
    }
}
