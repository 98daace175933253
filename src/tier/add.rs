//! `ccmem add`: a new typed entry `<type>_<topic>.md` with frontmatter, and its index line
//! where the budget allows (MEMORY.md while it stays within the target, else the group's hub,
//! which MEMORY.md is then made to link). Refuses near-duplicates of existing entries.

use serde::Serialize;

use super::budget::measure;
use super::groups::slug;
use super::parse::eol_of;
use super::plan::FilePlan;
use super::{Refusal, Target, is_hub, text_of, topic};
use crate::constants::INDEX_FILE as INDEX;
use crate::memory::Library;
use crate::memory::similar::{Signature, similarity};

/// Similarity from which an existing entry counts as a near-duplicate.
pub const DUPLICATE_AT: f64 = 0.6;

/// What to add.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `user`, `feedback`, `project` or `reference`.
    pub kind: String,
    /// Topic slug (file name part).
    pub topic: String,
    /// One-line description.
    pub description: String,
    /// Why (required for feedback unless the body has a Why section).
    pub why: Option<String>,
    /// Group (hub) when the index is full; defaults to the type.
    pub group: Option<String>,
    /// Body text.
    pub body: Option<String>,
    /// Create even if a near-duplicate exists.
    pub force: bool,
}

/// The files to write for one added entry.
#[derive(Debug, Clone, Serialize)]
pub struct AddPlan {
    /// The new entry file first, then MEMORY.md and/or the hub.
    pub files: Vec<FilePlan>,
    /// The index line.
    pub line: String,
    /// Where the index line goes (MEMORY.md or a hub).
    pub placed_in: String,
    /// The most similar existing entry (kept even with `--force`, for the report).
    pub similar: Option<(String, f64)>,
}

/// Plans the addition; `modified` is the ISO 8601 time stamped in the frontmatter.
pub fn plan_add(
    lib: &Library,
    req: &Request,
    target: Target,
    modified: &str,
) -> Result<AddPlan, Refusal> {
    let file = validate(lib, req)?;
    let text = entry_text(req, modified);
    let similar = nearest(lib, req);
    if let Some((other, s)) = &similar
        && *s >= DUPLICATE_AT
        && !req.force
    {
        return Err(Refusal {
            file: file.clone(),
            line: None,
            why: format!(
                "near-duplicate of {other} (similarity {s:.2}); update that entry instead, or pass --force"
            ),
        });
    }
    let line = format!("- [{}]({file}) — {}", req.topic, req.description);
    let mut files = vec![FilePlan {
        name: file,
        old: None,
        new: text,
    }];
    let index_text = lib.index_text();
    let in_index = append_line(index_text, &line);
    let placed_in = if target.fits(measure(&in_index)) {
        files.push(index_plan(lib, in_index));
        INDEX.to_owned()
    } else {
        let key = slug(req.group.as_deref().unwrap_or(&req.kind));
        let key = if key.is_empty() {
            req.kind.clone()
        } else {
            key
        };
        let hub = format!("reference_{key}_hub.md");
        let old = topic(lib, &hub).map(|f| text_of(f).to_owned());
        let base = old.clone().unwrap_or_else(|| {
            format!(
                "---\nname: {}\ndescription: \"Hub of the {key} entries\"\ntype: reference\n---\n# {key}\n",
                hub.trim_end_matches(".md")
            )
        });
        files.push(FilePlan {
            name: hub.clone(),
            old,
            new: append_line(&base, &line),
        });
        let linked = index_text
            .lines()
            .any(|l| crate::text::links::links(l).iter().any(|k| k.target == hub));
        if !linked {
            let pointer = format!("- [{key}]({hub}) — hub of {key} entries");
            files.push(index_plan(lib, append_line(index_text, &pointer)));
        }
        hub
    };
    Ok(AddPlan {
        files,
        line,
        placed_in,
        similar,
    })
}

fn index_plan(lib: &Library, new: String) -> FilePlan {
    FilePlan {
        name: INDEX.to_owned(),
        old: Some(lib.index_text().to_owned()),
        new,
    }
}

fn validate(lib: &Library, req: &Request) -> Result<String, Refusal> {
    let refuse = |why: String| Refusal {
        file: format!("{}_{}.md", req.kind, req.topic),
        line: None,
        why,
    };
    if !crate::constants::MEMORY_TYPES.contains(&req.kind.as_str()) {
        return Err(refuse(format!(
            "unknown type `{}` (one of {})",
            req.kind,
            crate::constants::MEMORY_TYPES.join(", ")
        )));
    }
    let topic_ok = !req.topic.is_empty()
        && !req.topic.starts_with(['.', '-'])
        && req
            .topic
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !topic_ok {
        return Err(refuse("topic must be letters, digits, `-` or `_`".into()));
    }
    if req.description.trim().is_empty() || req.description.contains(['\n', '\r']) {
        return Err(refuse("description must be one non-empty line".into()));
    }
    let body_has_why = req.body.as_deref().is_some_and(|b| {
        b.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("**Why:**") || l.starts_with("## Why") || l.starts_with("Why:")
        })
    });
    if req.kind == "feedback" && req.why.is_none() && !body_has_why {
        return Err(refuse(
            "feedback needs a Why section: pass --why or put `**Why:**` in the body".into(),
        ));
    }
    let file = format!("{}_{}.md", req.kind, req.topic);
    if topic(lib, &file).is_some() || is_hub(&file) {
        return Err(refuse("already exists; update it instead".into()));
    }
    Ok(file)
}

/// A YAML scalar: plain when unambiguous, else double-quoted (JSON escapes are valid YAML).
fn yaml_scalar(s: &str) -> String {
    let plain = s.chars().next().is_some_and(char::is_alphanumeric)
        && s.chars()
            .all(|c| c.is_alphanumeric() || " -.,()'/".contains(c))
        && !s.ends_with(' ')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

fn entry_text(req: &Request, modified: &str) -> String {
    let mut t = format!(
        "---\nname: {}\ndescription: {}\ntype: {}\n",
        req.topic,
        yaml_scalar(&req.description),
        req.kind
    );
    if let Some(g) = &req.group {
        t.push_str(&format!("group: {}\n", yaml_scalar(g)));
    }
    t.push_str(&format!("modified: {modified}\n---\n\n"));
    if let Some(body) = req
        .body
        .as_deref()
        .map(str::trim_end)
        .filter(|b| !b.is_empty())
    {
        t.push_str(body);
        t.push_str("\n\n");
    }
    if let Some(why) = &req.why {
        t.push_str(&format!("**Why:** {}\n", why.trim()));
    }
    while t.ends_with("\n\n") {
        t.pop();
    }
    t
}

/// The most similar existing entry: the larger of description-to-description and
/// whole-text similarity (a short description is diluted by a long body otherwise).
fn nearest(lib: &Library, req: &Request) -> Option<(String, f64)> {
    let body = req.body.as_deref().unwrap_or("");
    let my_desc = Signature::of(&req.description);
    let my_all = Signature::of(&format!("{} {body}", req.description));
    lib.top_level()
        .filter(|f| !is_hub(&f.rel))
        .map(|f| {
            let (n, text) = (&f.rel, text_of(f));
            let their_body = crate::text::frontmatter::split(text).body;
            let desc = f
                .meta()
                .and_then(|m| m.description.as_deref())
                .unwrap_or("");
            let by_desc = if desc.is_empty() {
                0.0
            } else {
                similarity(&my_desc, &Signature::of(desc))
            };
            let by_all = similarity(&my_all, &Signature::of(&format!("{desc} {their_body}")));
            (n.clone(), by_desc.max(by_all))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// `text` with `line` appended on a line of its own, in `text`'s line ending.
fn append_line(text: &str, line: &str) -> String {
    let eol = eol_of(text);
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(line);
    out.push_str(eol);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Config;

    const T: Target = Target {
        lines: 3,
        utf16: 16_000,
    };

    fn req(kind: &str, topic: &str, desc: &str) -> Request {
        Request {
            kind: kind.into(),
            topic: topic.into(),
            description: desc.into(),
            ..Request::default()
        }
    }

    fn lib(index: &str) -> Library {
        Library::from_texts(
            std::path::Path::new("/m"),
            Config::default(),
            [
                ("MEMORY.md", index.to_owned()),
                ("project_deploy.md", "---\ndescription: deploys go through the staging cluster first\n---\nAlways deploy to staging before production on Fridays.\n".to_owned()),
            ],
        )
    }

    #[test]
    fn writes_frontmatter_and_indexes_in_memory_md_while_it_fits() {
        let mut r = req("feedback", "wild-card", "Globs: use ** not *");
        r.why = Some("it broke twice".into());
        let p = plan_add(
            &lib("- [d](project_deploy.md)\r\n"),
            &r,
            T,
            "2026-11-29T18:00:00.000Z",
        )
        .unwrap();
        assert_eq!(
            p.files[0].new,
            "---\nname: wild-card\ndescription: \"Globs: use ** not *\"\ntype: feedback\nmodified: 2026-11-29T18:00:00.000Z\n---\n\n**Why:** it broke twice\n"
        );
        assert_eq!(p.placed_in, "MEMORY.md");
        assert_eq!(
            p.files[1].new,
            "- [d](project_deploy.md)\r\n- [wild-card](feedback_wild-card.md) — Globs: use ** not *\r\n"
        );
        let Front::Parsed(meta) = crate::memory::meta::parse(&p.files[0].new).front else {
            panic!("the new entry's frontmatter parses");
        };
        assert_eq!(meta.description.as_deref(), Some("Globs: use ** not *"));
    }

    #[test]
    fn goes_to_the_group_hub_when_memory_md_is_full_and_links_the_hub() {
        let p = plan_add(
            &lib("a\nb\nc\n"),
            &req("user", "tz", "Lives in UTC+9"),
            T,
            "t",
        )
        .unwrap();
        assert_eq!(p.placed_in, "reference_user_hub.md");
        assert!(
            p.files[1]
                .new
                .ends_with("# user\n- [tz](user_tz.md) — Lives in UTC+9\n")
        );
        assert_eq!(
            p.files[2].new,
            "a\nb\nc\n- [user](reference_user_hub.md) — hub of user entries\n"
        );
    }

    #[test]
    fn refuses_duplicates_missing_why_bad_names_and_existing_files() {
        let dup = req(
            "project",
            "deploy2",
            "deploys go through the staging cluster first",
        );
        let err = plan_add(&lib(""), &dup, T, "t").unwrap_err();
        assert!(
            err.why.starts_with("near-duplicate of project_deploy.md"),
            "{err}"
        );
        let forced = Request { force: true, ..dup };
        assert!(plan_add(&lib(""), &forced, T, "t").is_ok());
        let err = plan_add(&lib(""), &req("feedback", "x", "d"), T, "t").unwrap_err();
        assert!(err.why.contains("Why section"));
        assert!(plan_add(&lib(""), &req("note", "x", "d"), T, "t").is_err());
        assert!(plan_add(&lib(""), &req("user", "../x", "d"), T, "t").is_err());
        let err = plan_add(&lib(""), &req("project", "deploy", "other"), T, "t").unwrap_err();
        assert!(err.why.contains("already exists"));
    }

    use crate::memory::meta::Front;
}
