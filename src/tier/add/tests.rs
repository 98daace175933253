use super::*;
use crate::config::Config;
use crate::constants::INDEX_LINE_GUIDE_UTF16;
use crate::memory::meta::Front;
use crate::text::js::utf16_len;

const T: Target = Target {
    lines: 3,
    utf16: 16_000,
};

fn now() -> Timestamp {
    "2026-11-29T18:00:00Z".parse().unwrap()
}

fn req(kind: &str, topic: &str, desc: &str) -> Request {
    Request {
        kind: kind.into(),
        topic: topic.into(),
        description: desc.into(),
        ..Request::default()
    }
}

/// A client-spec library: MEMORY.md and one nested-metadata memory.
fn lib(index: &str) -> Library {
    lib_with(index, &[])
}

fn lib_with(index: &str, more: &[(&str, &str)]) -> Library {
    let deploy = "---\nname: project-deploy\ndescription: deploys go through the staging cluster first\nmetadata:\n  type: project\n---\nAlways deploy to staging before production on Fridays.\n";
    let files = [("MEMORY.md", index), ("project_deploy.md", deploy)]
        .into_iter()
        .chain(more.iter().copied())
        .map(|(n, t)| (n, t.to_owned()));
    Library::from_texts(std::path::Path::new("/m"), Config::default(), files)
}

fn manager(index: &str) -> Library {
    let config = Config {
        spec: crate::config::SpecChoice::Manager,
        ..Config::default()
    };
    Library::from_texts(
        std::path::Path::new("/m"),
        config,
        [("MEMORY.md", index.to_owned())],
    )
}

#[test]
fn writes_the_clients_own_format_and_indexes_in_memory_md_while_it_fits() {
    let mut r = req("feedback", "wild_card", "Globs: use ** not *");
    r.why = Some("it broke twice".into());
    r.how = Some("every glob in CI config".into());
    r.session = Some("0f8e7c1a-3b2d".into());
    let p = plan_add(&lib("- [d](project_deploy.md)\r\n"), &r, T, now()).unwrap();
    assert_eq!(p.spec, Spec::Client);
    assert_eq!(
        p.files[0].new,
        "---\nname: feedback-wild-card\ndescription: \"Globs: use ** not *\"\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 0f8e7c1a-3b2d\n  modified: 2026-11-29T18:00:00.000Z\n---\n\nGlobs: use ** not *\n\n**Why:** it broke twice\n**How to apply:** every glob in CI config\n"
    );
    assert_eq!(p.placement, Placement::Index);
    assert_eq!(
        p.files[1].new,
        "- [d](project_deploy.md)\r\n- [Wild card](feedback_wild_card.md) — Globs: use ** not *\r\n"
    );
    let Front::Parsed(meta) = crate::memory::meta::parse(&p.files[0].new).front else {
        panic!("the new entry's frontmatter parses");
    };
    assert_eq!(meta.description.as_deref(), Some("Globs: use ** not *"));
    assert_eq!(meta.kind.as_deref(), Some("feedback"));
    assert_eq!(meta.name.as_deref(), Some("feedback-wild-card"));
    assert!(meta.modified.is_some());
}

#[test]
fn writes_claude_memory_managers_format_in_such_a_library() {
    let mut r = req("feedback", "flyway", "Migrations only through Flyway");
    r.why = Some("a hand edit broke prod".into());
    let p = plan_add(&manager("# M\n"), &r, T, now()).unwrap();
    assert_eq!(p.spec, Spec::Manager);
    assert_eq!(
        p.files[0].new,
        "---\nname: feedback_flyway\ndescription: Migrations only through Flyway\ntype: feedback\nmodified: 2026-11-29\n---\n\nMigrations only through Flyway\n\n## Why\na hand edit broke prod\n"
    );
}

/// The audit finds nothing hard about what add wrote, in either spec.
#[test]
fn what_add_writes_passes_the_audit() {
    for l in [lib("- [d](project_deploy.md)\n"), manager("# M\n")] {
        let mut r = req(
            "project",
            "api-v3",
            "API v3 from 2026-10-01, v2 until the end of 2026",
        );
        r.why = Some("the partners asked for a year".into());
        r.how = Some("new endpoints only in v3".into());
        let p = plan_add(
            &l,
            &r,
            Target {
                lines: 100,
                utf16: 16_000,
            },
            now(),
        )
        .unwrap();
        let after = l.with(
            p.files
                .iter()
                .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
        );
        let audit = crate::rules::run::audit(after, now()).unwrap();
        let on_new: Vec<&str> = (audit.diagnostics.iter())
            .filter(|d| d.path == "project_api-v3.md")
            .map(|d| d.rule)
            .collect();
        assert!(on_new.is_empty(), "{:?}: {on_new:?}", l.spec());
    }
}

#[test]
fn goes_to_a_loaded_hub_when_memory_md_is_full() {
    let hub = "---\nname: reference-user-hub\ndescription: d\nmetadata:\n  type: reference\n---\n# User\n";
    let l = lib_with(
        "a\nb\n- [User](reference_user_hub.md) — who I am\n",
        &[("reference_user_hub.md", hub)],
    );
    let p = plan_add(&l, &req("user", "tz", "Lives in UTC+9"), T, now()).unwrap();
    assert_eq!(
        p.placement,
        Placement::Hub {
            hub: "reference_user_hub.md".into(),
            pointer_added: false
        }
    );
    assert_eq!(p.files.len(), 2, "MEMORY.md is not touched");
    assert!(
        p.files[1]
            .new
            .ends_with("# User\n- [Tz](user_tz.md) — Lives in UTC+9\n")
    );
}

#[test]
fn over_the_target_but_under_the_cap_the_line_still_goes_where_it_loads() {
    let p = plan_add(
        &lib("a\nb\nc\n"),
        &req("user", "tz", "Lives in UTC+9"),
        T,
        now(),
    )
    .unwrap();
    assert_eq!(p.placement, Placement::Index);
    assert!(
        p.files[1]
            .new
            .ends_with("c\n- [Tz](user_tz.md) — Lives in UTC+9\n")
    );
}

#[test]
fn past_the_cap_it_refuses_unless_a_loaded_hub_takes_the_entry() {
    let full = "- rule\n".repeat(205);
    let err = plan_add(&lib(&full), &req("user", "tz", "Lives in UTC+9"), T, now()).unwrap_err();
    assert!(
        matches!(
            err,
            AddError::Dark {
                lines: 205,
                tier_makes_room: false,
                ..
            }
        ),
        "{err:?}"
    );
    // Rules fill it, and tier keeps rules: the message does not send the user to tier.
    assert!(!err.to_string().contains("run `ccmem tier`"), "{err}");
    assert!(err.to_string().contains("CLAUDE.md"), "{err}");
    // The same index with the user hub linked on line 1: the hub takes it.
    let hub = "---\nname: reference-user-hub\ndescription: d\nmetadata:\n  type: reference\n---\n";
    let index = format!("- [User](reference_user_hub.md) — who\n{full}");
    let l = lib_with(&index, &[("reference_user_hub.md", hub)]);
    let p = plan_add(&l, &req("user", "tz", "Lives in UTC+9"), T, now()).unwrap();
    assert_eq!(p.placed_in(), "reference_user_hub.md");
    // Linked only past the cut: that hub is dark too.
    let index = format!("{full}- [User](reference_user_hub.md) — who\n");
    let l = lib_with(&index, &[("reference_user_hub.md", hub)]);
    assert!(matches!(
        plan_add(&l, &req("user", "tz", "Lives in UTC+9"), T, now()),
        Err(AddError::Dark { .. })
    ));
}

#[test]
fn past_the_cap_with_entry_lines_it_sends_the_user_to_tier() {
    let mut index = String::new();
    let mut files = Vec::new();
    for i in 0..230 {
        index.push_str(&format!("- [Entry {i}](project_e{i}.md) — about {i}\n"));
        files.push((
            format!("project_e{i}.md"),
            format!("---\nname: e{i}\ndescription: about {i}\ntype: project\n---\nbody {i}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let err = plan_add(
        &lib_with(&index, &files),
        &req("user", "tz", "Lives in UTC+9"),
        T,
        now(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            AddError::Dark {
                lines: 230,
                tier_makes_room: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("run `ccmem tier`"), "{err}");
}

#[test]
fn a_line_that_would_push_another_into_the_dark_is_not_written() {
    // 200 lines exactly: everything loads; one more line would be cut (it is the new one),
    // and a pointer above it would push line 200 out instead. Neither is allowed.
    let mut index = String::from("- [d](project_deploy.md)\n");
    index.push_str(&"- rule\n".repeat(199));
    let err = plan_add(&lib(&index), &req("user", "tz", "Lives in UTC+9"), T, now()).unwrap_err();
    assert!(matches!(err, AddError::Dark { lines: 200, .. }), "{err:?}");
}

#[test]
fn lines_go_before_tiers_hubs_section_and_stay_under_the_guide_length() {
    let index = "# M\n- [d](project_deploy.md)\n\n## Hubs\n- [x](reference_x_hub.md) — x\n";
    let l = lib_with(index, &[("reference_x_hub.md", "")]);
    let desc = "word ".repeat(40);
    let wide = Target {
        lines: 100,
        utf16: 16_000,
    };
    let p = plan_add(&l, &req("user", "tz", desc.trim()), wide, now()).unwrap();
    let new = &p.files[1].new;
    assert!(
        new.starts_with("# M\n- [d](project_deploy.md)\n- [Tz](user_tz.md) — word word"),
        "{new}"
    );
    assert!(
        new.ends_with("\n\n## Hubs\n- [x](reference_x_hub.md) — x\n"),
        "{new}"
    );
    assert!(utf16_len(&p.line) <= INDEX_LINE_GUIDE_UTF16 && p.line.ends_with('…'));
}

#[test]
fn topics_are_the_audits_and_so_is_the_duplicate_threshold() {
    for bad in ["MyTopic", "../x", "移动端", "-x", ""] {
        let err = plan_add(&lib(""), &req("user", bad, "d"), T, now()).unwrap_err();
        assert!(
            err.to_string().contains("the client's write spec")
                && err.to_string().contains("name-not-slug"),
            "the client's rule in a client library: {bad}: {err}"
        );
        let err = plan_add(&manager(""), &req("user", bad, "d"), T, now()).unwrap_err();
        assert!(
            err.to_string()
                .contains("claude-memory-manager's bad-file-name rule"),
            "{bad}: {err}"
        );
    }
    let err = plan_add(&lib(""), &req("user", "移动端", "d"), T, now()).unwrap_err();
    assert!(
        err.to_string().contains("e.g. `--topic yi-dong-duan`"),
        "{err}"
    );
    let err = plan_add(&lib(""), &req("reference", "db_hub", "d"), T, now()).unwrap_err();
    assert!(err.to_string().contains("hub"), "{err}");
    // The audit's threshold, from ccmem.toml: the same pair is a duplicate or not for both. The
    // texts are long enough that the added Why line leaves them clearly alike (a signature of a
    // dozen shingles is too coarse to sit reliably on either side of 0.8).
    let body = "Always deploy to staging before production on Fridays, wait for the smoke \
                tests and the error budget dashboard, then promote the same image by digest; \
                never rebuild between the two clusters, or the tested bytes are not the shipped \
                bytes.";
    let release = format!(
        "---\nname: project-release\ndescription: deploys go through the staging cluster \
         first\nmetadata:\n  type: project\n---\n{body}\n"
    );
    let lib = |index: &str| lib_with(index, &[("project_release.md", &release)]);
    let mut dup = req(
        "project",
        "deploy2",
        "deploys go through the staging cluster first",
    );
    dup.why = Some("x".into());
    dup.body = Some(body.into());
    let err = plan_add(&lib(""), &dup, T, now()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("project_deploy2.md: near-duplicate of project_release.md"),
        "{err}"
    );
    assert!(
        matches!(&err, AddError::Duplicate { of, .. } if of.file == "project_release.md"),
        "a finding, not a usage error: {err:?}"
    );
    let mut relaxed = lib("");
    relaxed.config.audit.near_duplicate_similarity = 1.01;
    assert!(plan_add(&relaxed, &dup, T, now()).is_ok());
    let forced = Request { force: true, ..dup };
    assert!(plan_add(&lib(""), &forced, T, now()).is_ok());
}

#[test]
fn why_is_required_where_the_audit_requires_it() {
    let err = plan_add(&lib(""), &req("feedback", "x", "d"), T, now()).unwrap_err();
    assert!(err.to_string().contains("missing-why"), "{err}");
    let err = plan_add(&lib(""), &req("project", "x", "d"), T, now()).unwrap_err();
    assert!(
        err.to_string().contains("missing-why"),
        "client spec: project too"
    );
    assert!(plan_add(&manager(""), &req("project", "x", "d"), T, now()).is_ok());
    let mut body = req("feedback", "y", "d");
    body.body = Some("Rule.\n\n**Why:** because".into());
    assert!(plan_add(&lib(""), &body, T, now()).is_ok());
    assert!(plan_add(&lib(""), &req("note", "x", "d"), T, now()).is_err());
    let err = plan_add(&lib(""), &req("project", "deploy", "other"), T, now());
    assert!(
        err.unwrap_err().to_string().contains("Why"),
        "validated before existence"
    );
}

#[test]
fn existing_files_are_never_replaced() {
    let mut r = req("project", "deploy", "other");
    r.why = Some("w".into());
    let err = plan_add(&lib(""), &r, T, now()).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
}

#[test]
fn names_follow_the_librarys_own_and_default_to_the_topic_slug() {
    let name = |l: &Library| {
        let p = plan_add(l, &req("user", "time_zone", "Lives in UTC+9"), T, now()).unwrap();
        let Front::Parsed(meta) = crate::memory::meta::parse(&p.files[0].new).front else {
            panic!("parses");
        };
        meta.name.unwrap()
    };
    let empty = Library::from_texts(
        std::path::Path::new("/m"),
        Config::default(),
        [("MEMORY.md", String::new())],
    );
    assert_eq!(
        name(&empty),
        "time-zone",
        "the client's spec: a slug of the topic"
    );
    let plain = |name: &str| {
        format!("---\nname: {name}\ndescription: d\nmetadata:\n  type: project\n---\nx\n")
    };
    let (ci, db) = (plain("ci"), plain("db"));
    let l = lib_with("", &[("project_ci.md", &ci), ("project_db.md", &db)]);
    assert_eq!(name(&l), "time-zone");
    // `lib`'s own memory is named `project-deploy`: the library's habit is followed.
    assert_eq!(name(&lib("")), "user-time-zone");
}

#[test]
fn nothing_alike_is_no_closest_memory() {
    let p = plan_add(&lib(""), &req("user", "tz", "Lives in UTC+9"), T, now()).unwrap();
    assert!(p.similar.is_none(), "{:?}", p.similar);
}

#[test]
fn the_entry_goes_under_the_heading_of_its_kind_else_in_a_section_of_its_own() {
    let index = "# M\n\n## Database\n- [Pool](feedback_db_pool.md) — small\n- [Deploy](project_deploy.md) — staging\n\n## Security\n- [Keys](feedback_keys.md) — rotate\n\n## Hubs\n- [x](reference_x_hub.md) — x\n";
    let wide = Target {
        lines: 100,
        utf16: 16_000,
    };
    let mut r = req("feedback", "db_index", "Index every foreign key");
    r.why = Some("slow joins".into());
    let p = plan_add(&lib(index), &r, wide, now()).unwrap();
    assert!(
        p.files[1].new.contains("- [Pool](feedback_db_pool.md) — small\n- [Deploy](project_deploy.md) — staging\n- [Db index](feedback_db_index.md)"),
        "under the heading whose entries share `feedback_db`: {}",
        p.files[1].new
    );
    let p = plan_add(
        &lib(index),
        &req("user", "tz", "Lives in UTC+9"),
        wide,
        now(),
    )
    .unwrap();
    assert!(
        p.files[1].new.ends_with("- [Keys](feedback_keys.md) — rotate\n\n## User\n- [Tz](user_tz.md) — Lives in UTC+9\n\n## Hubs\n- [x](reference_x_hub.md) — x\n"),
        "a section of its own before ## Hubs: {}",
        p.files[1].new
    );
}

#[test]
fn a_feedback_memory_without_a_why_line_is_refused_and_told_where_it_goes() {
    let mut r = req("feedback", "fridays", "No deploys on Fridays");
    // The audit reads a Why only at the start of a line: mid-sentence it is not one.
    r.body = Some("Rule body. **Why:** outages.\n".into());
    let err = plan_add(&lib("# M\n"), &r, T, now()).unwrap_err();
    assert!(
        err.to_string()
            .contains("start a line of the body with `**Why:**`"),
        "{err}"
    );
    r.body = Some("Rule body.\n**Why:** outages.\n".into());
    assert!(plan_add(&lib("# M\n"), &r, T, now()).is_ok());
}

#[test]
fn a_secret_is_refused_where_it_would_be_written() {
    let lib = lib("- [Deploy](project_deploy.md) — staging first\n");
    let key = format!("sk_{}_{}", "live", "51HxQ2eZvKYlo2C8Nq3Ub7Wd0Rf");
    let refused = |r: &Request| match plan_add(&lib, r, T, now()) {
        Err(AddError::Secret { refusal }) => Some(refusal),
        _ => None,
    };
    // In the body: refused at its line of the new file, the value never in the message.
    let mut body = req("reference", "billing", "Billing webhooks");
    body.body = Some(format!(
        "Webhooks post to /hooks/stripe.\n\nsecret_key = {key}\n"
    ));
    let r = refused(&body).expect("a key in the body is refused");
    assert!(r.line.is_some() && !r.why.contains(&key), "{r:?}");
    // In the title only: it is the index line that would hold it.
    let mut title = req("reference", "billing", "Billing webhooks");
    title.title = Some(format!("Billing {key}"));
    let r = refused(&title).expect("a key in the title is refused");
    assert_eq!(r.line, None);
    assert!(r.why.contains("MEMORY.md"), "{r:?}");
    // Allowed on request; prose about passwords is no secret.
    assert!(
        refused(&Request {
            allow_secret: true,
            ..body
        })
        .is_none()
    );
    let prose = req(
        "feedback",
        "rotate",
        "Never paste passwords into chat; rotate them",
    );
    assert!(
        refused(&Request {
            why: Some("leaked once".into()),
            ..prose
        })
        .is_none()
    );
}
