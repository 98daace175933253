//! Crowns as users write them: the user's explicit priority marks, which `tier` never moves.
//!
//! A line of MEMORY.md is crowned when a marker **leads** its title (the link text, or the
//! list item's text) or its hook (the text after the link and its ` — ` / ` - ` / `: `),
//! after list markers, blockquote `>`, bold and brackets (`【`, `「`, `[`):
//!
//! - an emoji or sign of alarm or priority: 🚨 🚩 ❗ ‼️ 🔴 ⛔ 🛑 ⚠️ ⭐ ★;
//! - a word of priority written **in upper case** (a sentence-case `Never` is prose):
//!   `CRITICAL`, `IMPORTANT`, `TOP PRIORITY`, `NEVER`, `ALWAYS`, `MUST`, and the same in the
//!   languages real libraries use (`WICHTIG`, `NIEMALS`, `IMMER`, `NOOIT`, `ALTIJD`,
//!   `BELANGRIJK`, `NUNCA`, `SIEMPRE`, `SEMPRE`, `OBRIGATÓRIO`, `OBLIGATORIO`, `JAMAIS`,
//!   `TOUJOURS`, `OBLIGATOIRE`, `НИКОГДА`, `ВСЕГДА`, `ВАЖНО`, `TUYỆT ĐỐI`, `QUAN TRỌNG`);
//! - a word of priority in a script without case: 최상위, 절대, 필수, 중요, 最高优先, 最優先,
//!   必须, 必須, 禁止, 严禁, 絶対, 绝对, 重要, ห้าม, สำคัญ (Thai writes no space after a word;
//!   a Korean word crowns with an ending, 절대로 or 중요한, not inside a compound: 절대좌표,
//!   중요도 and 절대 경로 are terms, not marks);
//! - a whole word of priority in a caseless script that spaces its words (the word ends where
//!   a letter does not follow, so مهمة "task" is not مهم "important"): مهم, هام, ممنوع, إلزامي,
//!   ضروري (Arabic), חשוב, אסור, חובה, לעולם לא (Hebrew), ज़रूरी, अनिवार्य, महत्वपूर्ण,
//!   कभी नहीं (Hindi);
//! - a parenthesised mark trailing the title or a heading: `(strict)`, `(엄격 적용)`,
//!   `（严格）`, `(streng)`, `(estricto)`, `(obligatoire)`, `(إلزامي)`, `(חובה)`, `(अनिवार्य)`.
//!
//! A **heading** is a crown heading when a marker leads it, when it trails a parenthesised
//! mark, or when it names its rules as binding anywhere (`Hard rules`, `reglas duras`,
//! `절대 규칙`, `最高优先`, `TOP PRIORITY`): every entry under it, `###` included, is crowned.
//!
//! Not crowns: the same marker inside the text (必须 in the middle of a title, ★ stressing one
//! clause of a hook), a sentence-case word, and any mark in a section the user heads as read
//! on demand (`按需`, `on demand`, `低频`, `ロードしない`, `archive`): the user's own words say it
//! is not needed in every session. `[tier] pins` in `ccmem.toml` crown files by name.

/// Signs that crown what they lead (variation selectors are skipped before matching).
const SIGNS: &[&str] = &[
    "\u{1F6A8}", // 🚨
    "\u{1F6A9}", // 🚩
    "\u{2757}",  // ❗
    "\u{203C}",  // ‼
    "\u{1F534}", // 🔴
    "\u{26D4}",  // ⛔
    "\u{1F6D1}", // 🛑
    "\u{26A0}",  // ⚠
    "\u{2B50}",  // ⭐
    "\u{2605}",  // ★
];

/// Words that crown what they lead only when written in upper case.
const CASED: &[&str] = &[
    "TOP PRIORITY",
    "CRITICAL",
    "IMPORTANT",
    "NEVER",
    "ALWAYS",
    "MUST",
    "WICHTIG",
    "NIEMALS",
    "IMMER",
    "NOOIT",
    "ALTIJD",
    "BELANGRIJK",
    "NUNCA",
    "SIEMPRE",
    "SEMPRE",
    "OBRIGATÓRIO",
    "OBLIGATORIO",
    "JAMAIS",
    "TOUJOURS",
    "OBLIGATOIRE",
    "НИКОГДА",
    "ВСЕГДА",
    "ВАЖНО",
    "TUYỆT ĐỐI",
    "QUAN TRỌNG",
];

/// Words of scripts without case that crown what they lead.
const UNCASED: &[&str] = &[
    "최상위",
    "절대",
    "필수",
    "중요",
    "最高优先",
    "最優先",
    "必须",
    "必須",
    "禁止",
    "严禁",
    "絶対",
    "绝对",
    "重要",
    "ห้าม",
    "สำคัญ",
];

/// Words of caseless scripts that space their words (Arabic, Hebrew, Devanagari): they crown
/// what they lead as whole words only. Devanagari's nukta letters are listed in both forms
/// (ज़ as ज + ◌़, as users type it, and precomposed).
const SPACED: &[&str] = &[
    "مهم",
    "هام",
    "ممنوع",
    "يمنع",
    "إلزامي",
    "ضروري",
    "חשוב",
    "אסור",
    "חובה",
    "לעולם לא",
    "ज\u{93C}रूरी",
    "\u{95B}रूरी",
    "जरूरी",
    "अनिवार्य",
    "महत्वपूर्ण",
    "कभी नहीं",
];

/// Parenthesised marks that crown the heading or title they trail.
const TRAILING: &[&str] = &[
    "strict",
    "엄격",
    "严格",
    "厳守",
    "streng",
    "estricto",
    "estrito",
    "stricte",
    "obligatoire",
    "verplicht",
    "строго",
    "إلزامي",
    "صارم",
    "חובה",
    "अनिवार्य",
];

/// Phrases that make a heading a crown heading wherever they stand in it.
const HEADING_PHRASES: &[&str] = &[
    "hard rules",
    "reglas duras",
    "regras duras",
    "harte regeln",
    "règles strictes",
    "harde regels",
    "절대 규칙",
    "最高优先",
    "最優先",
    "top priority",
    "non-negotiable",
    "قواعد صارمة",
    "כללי ברזל",
];

/// Heading words that say a section is read on demand: no crown inside it.
const ON_DEMAND: &[&str] = &[
    "按需",
    "on demand",
    "on-demand",
    "低频",
    "ロードしない",
    "archive",
    "归档",
    "archiv",
];

/// The marker that crowns `text` when it leads it (after markup), if any.
fn leading(text: &str) -> Option<&'static str> {
    let t = text.trim_start_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '-' | '*' | '+' | '>' | '_' | '[' | '【' | '「' | '`' | '\u{FE0F}'
            )
    });
    for s in SIGNS {
        if t.starts_with(s) {
            return Some(s);
        }
    }
    for w in CASED {
        if let Some(rest) = t.strip_prefix(w)
            && !rest.starts_with(char::is_alphanumeric)
        {
            return Some(w);
        }
    }
    for w in SPACED {
        if let Some(rest) = t.strip_prefix(w)
            && !rest.starts_with(char::is_alphanumeric)
        {
            return Some(w);
        }
    }
    UNCASED.iter().copied().find(|w| {
        t.strip_prefix(w)
            .is_some_and(|rest| !hangul_compound(w, rest))
    })
}

/// Korean spaces its words but glues endings and compounds to them: 절대로 ("never") and
/// 중요한 ("important") crown, 절대좌표 ("absolute coordinates"), 중요도 ("importance") and
/// 절대 경로 ("absolute path", often written with a space) do not. So a Hangul word crowns
/// only when no Hangul syllable follows it but an adverb or adjective ending (로, 적, 한, 히),
/// and 절대 not before the nouns it makes technical terms of.
fn hangul_compound(word: &str, rest: &str) -> bool {
    /// What 절대 ("absolute") makes a term of: path, coordinates, value, address, position,
    /// reference, time.
    const ABSOLUTE_TERMS: &[&str] = &["경로", "좌표", "값", "주소", "위치", "참조", "시간"];
    let hangul = |c: char| ('\u{AC00}'..='\u{D7A3}').contains(&c);
    if !word.starts_with(hangul) {
        return false;
    }
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if hangul(c) => !matches!(c, '로' | '적' | '한' | '히'),
        Some(' ') if word == "절대" => {
            let next = chars.as_str();
            ABSOLUTE_TERMS.iter().any(|t| next.starts_with(t))
        }
        _ => false,
    }
}

/// The parenthesised crown mark trailing `text`, if any.
fn trailing(text: &str) -> Option<&'static str> {
    let t = text.trim_end();
    let t = t.strip_suffix(')').or_else(|| t.strip_suffix('）'))?;
    let open = t.rfind(['(', '（'])?;
    let inner = t[open..].to_lowercase();
    TRAILING.iter().copied().find(|m| inner.contains(m))
}

/// Why a heading (its title, without `#`) crowns its section, if it does.
pub fn heading(title: &str) -> Option<&'static str> {
    if on_demand(title) {
        return None;
    }
    let lower = title.to_lowercase();
    leading(title)
        .or_else(|| trailing(title))
        .or_else(|| HEADING_PHRASES.iter().copied().find(|p| lower.contains(p)))
}

/// Whether a heading says its section is read on demand.
pub fn on_demand(title: &str) -> bool {
    let lower = title.to_lowercase();
    ON_DEMAND.iter().any(|w| lower.contains(w))
}

/// Whether a heading dates its section (`2026-06-16 会话`, `Sesión 2026/07`, `6月16日`,
/// `2026년 6월`): a session's notes or a dated log, history that is looked up when that past
/// is needed (issue 24: "session logs and dated history move"). Its link-less lines move as
/// a whole with their section, and a marker in them records an incident, not a crown. A date
/// written with dots needs its day (`2024.05.13`): `PyCharm 2023.1` names a version.
pub fn dated(title: &str) -> bool {
    date(title).is_some()
}

/// The date a dated heading holds (see [`dated`]), as written: `2026-06-16`, `6月16日`.
pub fn date(title: &str) -> Option<&str> {
    static DATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?:^|[^0-9])(?:19|20)[0-9]{2}(?:[-/][01]?[0-9](?:$|[^0-9])|\.[01][0-9]\.[0-3][0-9](?:$|[^0-9])|\s*[年년]\s*[01]?[0-9]\s*[月월])|(?:^|[^0-9])[01]?[0-9]\s*[月월]\s*[0-3]?[0-9]\s*[日일]",
        )
        .expect("a valid pattern")
    });
    let m = DATE.find(title)?;
    let from = m.start() + title[m.start()..].find(|c: char| c.is_ascii_digit())?;
    let len = title[from..]
        .find(|c: char| !(c.is_ascii_digit() || "-/. 年月日년월일".contains(c)))
        .unwrap_or(title.len() - from);
    Some(title[from..from + len].trim_end_matches(['-', '/', '.', ' ']))
}

/// The marker that crowns an index line (an entry or a rule line), if any: at the head of its
/// title or its hook, or a parenthesised mark trailing its title.
pub fn line(text: &str) -> Option<&'static str> {
    let body = text.trim_start();
    let body = body
        .strip_prefix(['-', '*', '+', '>'])
        .unwrap_or(body)
        .trim_start();
    if let Some(m) = leading(body) {
        return Some(m);
    }
    let (title, hook) = split_title(body);
    if let Some(m) = trailing(title) {
        return Some(m);
    }
    hook.and_then(leading)
}

/// A list item's title and hook: `[Title](file) — hook` → (`Title`, `hook`); a line without a
/// leading link splits at its first ` — ` / ` - ` / `: `.
fn split_title(body: &str) -> (&str, Option<&str>) {
    let b = body.trim_start_matches(['*', '_']);
    if let Some(inner) = b.strip_prefix("[[") {
        if let Some(end) = inner.find("]]") {
            return (&inner[..end], hook_after(&inner[end + 2..]));
        }
    } else if let Some(inner) = b.strip_prefix('[')
        && let Some(end) = inner.find("](")
        && let Some(close) = inner[end..].find(')')
    {
        return (&inner[..end], hook_after(&inner[end + close + 1..]));
    }
    match [" — ", " – ", " - ", ": "]
        .iter()
        .filter_map(|s| body.find(s).map(|at| (at, s.len())))
        .min()
    {
        Some((at, len)) => (&body[..at], Some(&body[at + len..])),
        None => (body, None),
    }
}

fn hook_after(rest: &str) -> Option<&str> {
    let r = rest.trim_start_matches(['*', '_']).trim_start();
    for sep in ["—", "–", "-", ":", "："] {
        if let Some(h) = r.strip_prefix(sep) {
            return Some(h.trim_start());
        }
    }
    (!r.is_empty()).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_that_lead_the_title_or_the_hook_crown() {
        let crowned = [
            ("- [🚨 Never use destructive previews](a.md) — no rm", "🚨"),
            ("- [Secrets](a.md) — NEVER paste tokens", "NEVER"),
            ("- [CRITICAL: tank is shared](a.md) — x", "CRITICAL"),
            ("- [TOP PRIORITY: no data loss](a.md)", "TOP PRIORITY"),
            ("- [SQL style (strict)](a.md) — lower case", "strict"),
            ("- [❗秘密情報](a.md) — x", "\u{2757}"),
            ("- [【最優先】セキュリティ](a.md) — x", "最優先"),
            ("- [최상위: 시험 문제 보안](a.md) — x", "최상위"),
            ("- [x](a.md) — 禁止直接推送 main", "禁止"),
            (
                "- [feedback_x.md](feedback_x.md) — OBRIGATÓRIO: criar",
                "OBRIGATÓRIO",
            ),
            ("- [x](a.md) — НИКОГДА не копить", "НИКОГДА"),
            ("- [x](a.md) — TUYỆT ĐỐI KHÔNG push", "TUYỆT ĐỐI"),
            ("- ‼️ NOOIT direct op productie", "\u{203C}"),
            ("- BELANGRIJK: eerst laten bevestigen", "BELANGRIJK"),
            ("> ⚠️ 这个文件每个 session 都会载入", "\u{26A0}"),
            ("- [★컴팩션 후 재개 검증](a.md) — x", "\u{2605}"),
            ("- **[WICHTIG: Zertifikate](a.md)** — x", "WICHTIG"),
            ("- [بيانات العملاء](a.md) — مهم جدًا: لا تُرسل", "مهم"),
            ("- [ممنوع رفع ملفات .env](a.md) — x", "ممنوع"),
            ("- [אסור למחוק](a.md) — x", "אסור"),
            ("- [ज\u{93C}रूरी: ग्राहक डेटा](a.md) — x", "ज\u{93C}रूरी"),
            ("- [x](a.md) — कभी नहीं main पर force push", "कभी नहीं"),
            ("- [ห้ามลบฐานข้อมูล](a.md) — x", "ห้าม"),
            ("- [x](a.md) — 절대로 main에 직접 push 금지", "절대"),
            ("- [x](a.md) — 절대 운영 DB 삭제 금지", "절대"),
            ("- [중요한 규칙](a.md) — 커밋 전 테스트", "중요"),
            ("- [필수: 배포 전 확인](a.md) — x", "필수"),
        ];
        for (l, m) in crowned {
            assert_eq!(line(l), Some(m), "{l}");
        }
    }

    #[test]
    fn the_same_marks_inside_the_text_or_in_sentence_case_do_not() {
        for l in [
            "- [Grafana alert levels](a.md) — page on critical only",
            "- [Home Assistant siren 🚨 test](a.md) — monthly",
            "- [feedback_links.md](a.md) — Sempre usar cursor",
            "- [CR 审批流状态必须持久化](a.md) — Redis 只加速读",
            "- [규율 승격](a.md) — 확인은 정본 grep으로. ★해시 일치",
            "- [Never mind](a.md) — Mustard recipe",
            "- [x](a.md) — MUSTARD is yellow",
            "- [مهمة النشر](a.md) — الخطوات",
            "- [x](a.md) — हमेशा ज़रूरी नहीं",
            "- [좌표계](a.md) — 절대좌표는 캔버스 기준, 상대좌표는 부모 기준",
            "- [import 규칙](a.md) — 절대 경로로 import, 상대 경로 금지",
            "- [우선순위](a.md) — 중요도 높음/낮음 라벨로 분류",
            "- [x](a.md) — 필수품 목록은 shopping.md",
        ] {
            assert_eq!(line(l), None, "{l}");
        }
    }

    #[test]
    fn crown_headings_and_read_on_demand_sections() {
        assert_eq!(heading("🚨 Hard rules"), Some("🚨"));
        assert_eq!(heading("배포 (엄격 적용)"), Some("엄격"));
        assert_eq!(
            heading("🔑 Órdenes del operador (reglas duras — se cumplen)"),
            Some("reglas duras")
        );
        assert_eq!(
            heading("🔥 Hot — 最高优先（每个会话必读）"),
            Some("最高优先")
        );
        assert_eq!(
            heading("‼️ Regeln (immer, ohne Ausnahme)"),
            Some("\u{203C}")
        );
        assert_eq!(heading("النشر (إلزامي)"), Some("إلزامي"));
        assert_eq!(heading("Git branch policy"), None);
        assert_eq!(heading("🌡 Warm — 按需读取"), None);
        assert!(on_demand("参照なし（archive/・通常ロードしない）"));
        assert!(!on_demand("Releases"));
    }

    #[test]
    fn dated_headings_are_history() {
        for t in [
            "2026-06-16 会话",
            "Sesión 2026/07/02",
            "Week of 2024.05.13",
            "6月16日のセッション",
            "2026년 6월 작업",
            "2026年6月",
            "Session 2026-07-06 (deploy)",
        ] {
            assert!(dated(t), "{t}");
        }
        assert_eq!(date("2026-06-16 会话"), Some("2026-06-16"));
        assert_eq!(date("Sesión 2026/07/02 (deploy)"), Some("2026/07/02"));
        assert_eq!(date("6月16日のセッション"), Some("6月16日"));
        assert_eq!(date("2026년 6월 작업"), Some("2026년 6월"));
        for t in [
            "Git branch policy",
            "v2.1 notes",
            "Port 2026 forwarding",
            "Build 20260616",
            "PyCharm 2023.1",
            "IntelliJ 2024.2.1 settings",
            "Unity 2022.3 LTS",
            "Rules since 2026",
            "規律 (最優先)",
        ] {
            assert!(!dated(t), "{t}");
        }
    }
}
