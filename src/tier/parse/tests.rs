use super::*;

#[test]
fn kinds_sections_and_line_numbers() {
    let t = "---\nname: x\n---\n- ⭐ [a](a.md)\r\n\r\n## Tools 🔧\n- [b](b.md) — b\n```\n- [c](c.md)\n```\nprose\n";
    let idx = parse(t);
    assert_eq!(idx.frontmatter, "---\nname: x\n---\n");
    let kinds: Vec<_> = idx
        .lines
        .iter()
        .map(|l| (l.no, l.text, l.section))
        .collect();
    assert_eq!(kinds[0], (4, "- ⭐ [a](a.md)", None));
    assert_eq!(
        idx.lines[2].kind,
        Kind::Heading {
            title: "Tools 🔧".into(),
            level: 2
        }
    );
    assert_eq!(kinds[3], (7, "- [b](b.md) — b", Some(2)));
    assert_eq!(
        idx.lines[5].kind,
        Kind::Text,
        "fenced lines are not entries"
    );
    assert_eq!(idx.lines[7].kind, Kind::Text);
    assert!(has_crown_mark(idx.lines[0].text));
    assert_eq!(idx.title, None, "a title is a leading `# H1`");
}

#[test]
fn the_title_opens_no_section_and_headings_nest() {
    let idx = parse("\n# Memory\n- [a](a.md)\n## A\n### A1\n- [b](b.md)\n## B\nrule\n# Other\nx\n");
    assert_eq!(idx.title, Some(1));
    assert_eq!(
        idx.lines[2].section, None,
        "entries under the title are in no section"
    );
    assert_eq!(idx.lines[4].section, Some(3));
    assert_eq!(idx.headings_of(5), [3, 4]);
    assert_eq!(idx.section_end(3), 6);
    assert_eq!(idx.section_end(4), 6);
    assert_eq!(idx.lines[7].section, Some(6));
    assert_eq!(idx.lines[9].section, Some(8), "a later H1 is a section");
    assert_eq!(idx.section_end(8), idx.lines.len());
}

#[test]
fn entries_start_with_their_link_and_rules_that_cite_a_file_are_text() {
    let idx = parse(
        "- ⭐ **[Title](a.md)** — hook\n3. Ask first ([why](feedback_x.md)).\n- [ ] [[b|Bee]]\n* `c.md` — code\n- see [d](d.md)\n",
    );
    let kinds: Vec<&Kind> = idx.lines.iter().map(|l| &l.kind).collect();
    assert_eq!(
        kinds,
        [
            &Kind::Entry,
            &Kind::Text,
            &Kind::Entry,
            &Kind::Entry,
            &Kind::Text
        ]
    );
    let titles: Vec<Option<&str>> = idx.lines.iter().map(|l| entry_title(l.text)).collect();
    assert_eq!(titles, [Some("Title"), None, Some("Bee"), None, None]);
}

fn kinds(text: &str) -> Vec<Kind> {
    parse(text).lines.into_iter().map(|l| l.kind).collect()
}

#[test]
fn wiki_links_table_rows_and_labelled_links_are_entries() {
    let text = concat!(
        "[[user-profile]] — 数字 IC 工程师，回答要给出波形\n",
        "[[ofdm-sync-status]]\n",
        "- 2024-05 deploy: [Rollback drill](project_rollback.md) — 回滚演练\n",
        "- W12 [Audit log export](memory/project_w12.md) — MERGED #88\n",
        "* **Sprint 3:** [Checkout](project_checkout.md)\n",
        "- v2.1 [Notas de versión](reference_notas.md): cambios de API\n",
        "| [[algorithm-engineer]] | agents/domain/ — 算法建模 |\n",
        "| **[Grafana](reference_grafana.md)** | Dashboards |\n",
    );
    assert_eq!(kinds(text), vec![Kind::Entry; 8]);
    let titles: Vec<Option<&str>> = (text.lines()).map(entry_title).collect();
    assert_eq!(
        titles,
        [
            Some("user-profile"),
            Some("ofdm-sync-status"),
            Some("Rollback drill"),
            Some("Audit log export"),
            Some("Checkout"),
            Some("Notas de versión"),
            Some("algorithm-engineer"),
            Some("Grafana")
        ]
    );
}

#[test]
fn rules_and_prose_that_cite_a_file_stay_text() {
    let text = concat!(
        "- Immer zuerst fragen, siehe [Begründung](feedback_fragen.md)\n",
        "- see [d](d.md)\n",
        "- Runbook: [deploy](~/notes/deploy.md)\n",
        "3. Ask first ([why](feedback_x.md)).\n",
        "[Docs](reference_docs.md) explain how the deploy works.\n",
        "- Nunca hagas push a main (ver [regla](feedback_main.md))\n",
        "| 2024-05 | [Rollback](project_rollback.md) |\n",
        "- これは長い説明の文で途中に [リンク](feedback_x.md) があるだけ\n",
    );
    assert_eq!(kinds(text), vec![Kind::Text; 8]);
}

#[test]
fn continuation_lines_and_table_heads_belong_to_their_entry() {
    let idx = parse(concat!(
        "## Recent Phases\n",
        "- W12 [Audit log](project_w12.md) — MERGED #88\n",
        "  Keywords: AD-Export-1 · async job\n",
        "\tpresigned URL · 24h expiry\n",
        "- Immer Tests laufen lassen\n",
        "  (auch bei kleinen Änderungen)\n",
        "\n",
        "| 文件 | 角色 |\n",
        "|:-----|:------|\n",
        "| [[logic-engineer]] | RTL 编码 |\n",
        "| [[verification-engineer]] | 覆盖率 |\n",
    ));
    let kinds: Vec<&Kind> = idx.lines.iter().map(|l| &l.kind).collect();
    assert_eq!(
        kinds,
        [
            &Kind::Heading {
                title: "Recent Phases".into(),
                level: 2
            },
            &Kind::Entry,
            &Kind::Part { entry: 1 },
            &Kind::Part { entry: 1 },
            &Kind::Text,
            &Kind::Text,
            &Kind::Blank,
            &Kind::Part { entry: 9 },
            &Kind::Part { entry: 9 },
            &Kind::Entry,
            &Kind::Entry,
        ],
        "a rule's continuation is text; the table's head goes with its first row"
    );
    assert_eq!(idx.lines[2].section, Some(0));
}

#[test]
fn unclosed_links_are_text_not_refusals() {
    let idx = parse("# T\n- [a](a.md\n- [[a\n- plain [text] (not a link)\n");
    assert!(idx.lines[1..].iter().all(|l| l.kind == Kind::Text));
}

#[test]
fn eol_and_splitting() {
    assert_eq!(eol_of("a\r\nb\r\nc\n"), "\r\n");
    assert_eq!(eol_of("a\nb\r\n"), "\n");
    assert_eq!(split_lines("a\r\nb").collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(split_lines("").count(), 0);
    assert_eq!(split_lines("\n").collect::<Vec<_>>(), [""]);
}
