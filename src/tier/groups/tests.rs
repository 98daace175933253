use std::collections::HashMap;

use super::super::parse::parse;
use super::super::tests::lib;
use super::*;
use crate::memory::Library;

fn layout_of(l: &Library) -> Layout {
    classify(l, &parse(l.index_text()), &HashMap::new())
}

/// Each unit's title and entry lines.
fn units(layout: &Layout) -> Vec<(&str, &[usize])> {
    (layout.groups.iter())
        .map(|g| (g.title.as_str(), g.lines.as_slice()))
        .collect()
}

fn titles(layout: &Layout) -> Vec<&str> {
    layout.groups.iter().map(|g| g.title.as_str()).collect()
}

#[test]
fn the_users_section_is_the_unit_and_type_only_ranks_its_pieces() {
    let l = lib(
        "# Memory\n## Git branch policy\n- [a](feedback_a.md)\n- [b](project_b.md)\n- [c](reference_c.md)\n## Tools & Co\n- [d](d.md)\n- [d2](d2.md)\n",
        &[
            ("feedback_a.md", "---\ntype: feedback\n---\n"),
            ("project_b.md", "---\nmetadata:\n  type: project\n---\n"),
            ("reference_c.md", "---\ntype: reference\n---\n"),
            ("d.md", "---\n[broken\n---\n"),
            ("d2.md", "---\nname: d2\n---\n"),
        ],
    );
    let layout = layout_of(&l);
    assert_eq!(titles(&layout), ["Git branch policy", "Tools & Co"]);
    assert_eq!(
        layout.groups[0].hubs,
        ["reference_git-branch-policy_hub.md"]
    );
    let ranks: Vec<(usize, Rank)> = (layout.pieces.iter()).map(|p| (p.group, p.rank)).collect();
    assert_eq!(
        ranks,
        [
            (0, Rank::Feedback),
            (0, Rank::Project),
            (0, Rank::Reference),
            (1, Rank::Other)
        ]
    );
    assert_eq!(layout.roles[0], Role::Title, "the H1 title is never a unit");
    assert_eq!(layout.unreadable, [6], "d.md's frontmatter does not parse");
}

#[test]
fn flat_lists_form_topics_by_stem_then_title_word_never_type_buckets() {
    let l = lib(
        "- [Profile](user_profile.md)\n- [Semaphore API](feedback_semaphore_api.md)\n- [Odoo modules](feedback_x.md)\n- [Semaphore vars](feedback_semaphore_vars.md)\n- [Odoo invoices](feedback_y.md)\n- [Ask first](feedback_ask.md)\n- [Status](project_status.md)\n",
        &[
            ("user_profile.md", "---\ntype: user\n---\n"),
            ("feedback_semaphore_api.md", "---\ntype: feedback\n---\n"),
            ("feedback_x.md", "---\ntype: feedback\n---\n"),
            ("feedback_semaphore_vars.md", "---\ntype: feedback\n---\n"),
            ("feedback_y.md", "---\ntype: feedback\n---\n"),
            ("feedback_ask.md", "---\ntype: feedback\n---\n"),
            ("project_status.md", "---\ntype: project\n---\n"),
        ],
    );
    let layout = layout_of(&l);
    let units = units(&layout);
    assert_eq!(
        units,
        [
            ("", &[0][..]),
            ("Semaphore", &[1, 3][..]),
            ("Odoo", &[2, 4][..]),
            ("", &[5][..]),
            ("", &[6][..])
        ],
        "the user profile, the standalone rule and the status are never one bucket"
    );
    let topic = &layout.pieces[1];
    let alone = layout.pieces.iter().find(|p| p.lines == [5]).unwrap();
    assert!(
        topic.order_key() < alone.order_key(),
        "a topic's rules move before a rule alone"
    );
}

#[test]
fn crowns_as_users_write_them_never_move_and_are_listed() {
    let l = lib(
        "## 🚨 Hard rules\n- [a](feedback_a.md)\n### Sub\n- [b](feedback_b.md)\n## Misc\n- [c](feedback_c.md) — NEVER push\n- [d](feedback_d.md)\n- [e](feedback_e.md)\n## 🌡 Warm — 按需读取\n- [f](feedback_f.md) — 禁止 GET+SET\n",
        &[
            ("feedback_a.md", ""),
            ("feedback_b.md", ""),
            ("feedback_c.md", ""),
            ("feedback_d.md", ""),
            ("feedback_e.md", ""),
            ("feedback_f.md", ""),
        ],
    );
    let l = set_pins(l, &["feedback_d.md"]);
    let layout = layout_of(&l);
    let crowns: Vec<(usize, &str, &str)> = (layout.crowns.iter())
        .map(|c| (c.line, c.marker.as_str(), c.kind))
        .collect();
    assert_eq!(
        crowns,
        [
            (1, "\u{1F6A8}", "heading"),
            (3, "\u{1F6A8}", "heading"),
            (5, "NEVER", "entry"),
            (6, "[tier] pins", "pin")
        ]
    );
    assert!(matches!(layout.roles[9], Role::Entry(p) if layout.pieces[p].rank == Rank::OnDemand));
}

fn set_pins(mut l: Library, pins: &[&str]) -> Library {
    l.config.tier.pins = pins.iter().map(|p| (*p).to_owned()).collect();
    l
}

#[test]
fn big_units_get_a_hub_per_max_entries_and_hub_names_never_double() {
    let mut index = String::from("## Reference links\n");
    let mut files = Vec::new();
    for k in 0..20 {
        index.push_str(&format!("- [r{k}](reference_r{k}.md)\n"));
        files.push((
            format!("reference_r{k}.md"),
            "---\ntype: reference\n---\n".to_owned(),
        ));
    }
    let l = lib(&index, &files);
    let layout = layout_of(&l);
    assert_eq!(
        layout.groups[0].hubs,
        [
            "reference_references-links_hub.md",
            "reference_references-links-2_hub.md"
        ]
    );
}

#[test]
fn broken_lines_are_entries_of_their_section() {
    let l = lib(
        "## Archive\n- [gone](feedback_gone.md) — renamed\n- [[lost-name]]\n- [ok](user_ok.md)\n",
        &[("user_ok.md", "---\ntype: user\n---\n")],
    );
    let layout = layout_of(&l);
    let targets: Vec<&str> = (layout.broken.iter())
        .flat_map(|b| b.targets.iter().map(String::as_str))
        .collect();
    assert_eq!(targets, ["feedback_gone.md", "lost-name"]);
    assert!(matches!(layout.roles[1], Role::Entry(_)));
    assert_eq!(layout.groups[0].title, "Archive");
}

#[test]
fn dated_sections_of_link_less_notes_move_as_one_run_and_rules_stay() {
    let l = lib(
        "# Memory\n## Rules\n- Always run the golden model first\n## 2026-06-16 会话\n- rx_fifo 反压：ready 晚一拍\n- ❗门禁脚本误报：超时当失败\n\n## 2026-06-18 会话\n- 待办：traceback 参数化\n## Notes\n- plain line\n## 2026-07-01 会话\n- later\n",
        &[] as &[(&str, &str)],
    );
    let idx = parse(l.index_text());
    let layout = layout_of(&l);
    assert_eq!(
        layout.roles[2],
        Role::Keep,
        "a rule line of an undated section stays"
    );
    assert_eq!(
        layout.roles[10],
        Role::Keep,
        "an undated section's line stays"
    );
    assert!(
        layout.crowns.is_empty(),
        "a marker in a session's note records an incident: {:?}",
        layout.crowns
    );
    let units = units(&layout);
    assert_eq!(
        units,
        [
            ("会话 2026-06-16 → 2026-06-18", &[4, 5, 8][..]),
            ("2026-07-01 会话", &[12][..])
        ],
        "adjacent dated siblings are one unit; a dated section after another is its own"
    );
    assert!((layout.pieces.iter()).all(|p| p.rank == Rank::History));
    assert_eq!(layout.groups[0].title_of(&idx, &[8]), "会话 2026-06-18");
    assert_eq!(
        layout.groups[0].labels,
        ["rx_fifo 反压", "门禁脚本误报", "待办：traceback 参数化"]
    );
    assert!(is_note(&idx, 4) && !is_note(&idx, 2) && !is_note(&idx, 6));
}

#[test]
fn flat_entries_linking_one_note_by_name_form_its_topic_in_any_script() {
    let l = lib(
        "- [Profile](user_profile.md)\n- [Deploy runbook](project_deploy-runbook.md) — steps, owners\n- [Rollback drill](feedback_rollback.md) — rehearse first, see [[deploy-runbook]]\n- [本番監視](reference_monitoring.md) — ダッシュボード\n- [灰度发布](project_canary.md) — 先放 5% 流量 [[deploy-runbook]]\n- [Odoo modules](feedback_x.md)\n- [Odoo invoices](feedback_y.md)\n- [Lone rule](feedback_lone.md) — see [[odoo-notes]]\n- [Deck a](feedback_deck-a.md) — [[deck-b]]\n- [Deck b](feedback_deck-b.md)\n- [Deck c](feedback_deck-c.md) — [[deck-b]]\n- [Deck d](feedback_deck-d.md)\n",
        &[
            ("user_profile.md", "---\ntype: user\n---\n"),
            (
                "project_deploy-runbook.md",
                "---\nname: deploy-runbook\ntype: project\n---\n",
            ),
            ("feedback_rollback.md", "---\ntype: feedback\n---\n"),
            (
                "reference_monitoring.md",
                "---\ntype: reference\n---\n\nアラートは [[deploy-runbook]] の手順で。\n",
            ),
            ("project_canary.md", "---\ntype: project\n---\n"),
            ("feedback_x.md", "---\ntype: feedback\n---\n"),
            ("feedback_y.md", "---\ntype: feedback\n---\n"),
            ("feedback_lone.md", "---\ntype: feedback\n---\n"),
            ("feedback_deck-a.md", "---\ntype: feedback\n---\n"),
            (
                "feedback_deck-b.md",
                "---\nname: deck-b\ntype: feedback\n---\n",
            ),
            ("feedback_deck-c.md", "---\ntype: feedback\n---\n"),
            ("feedback_deck-d.md", "---\ntype: feedback\n---\n"),
        ],
    );
    let layout = layout_of(&l);
    let units = units(&layout);
    assert_eq!(
        units,
        [
            ("", &[0][..]),
            ("Deploy runbook", &[1, 2, 3, 4][..]),
            ("Odoo", &[5, 6][..]),
            ("", &[7][..]),
            ("Deck", &[8, 9, 10, 11][..]),
        ],
        "the note, the entries whose lines or files link it, in English, Japanese and \
         Chinese, are one topic; one link alone makes none, and a stem topic stays whole"
    );
    let piece = (layout.pieces.iter())
        .find(|p| p.lines.contains(&3))
        .unwrap();
    assert_eq!(piece.lines, [1, 2, 3, 4], "the topic moves whole");
    assert!(!piece.standalone);
}
