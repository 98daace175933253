//! The new memory as `add` writes it: its file name, checked against the audit's rules; its
//! text in the library's write spec; its index line; and a hub's text when `add` creates one.

use jiff::Timestamp;

use super::Request;
use crate::constants::{INDEX_LINE_GUIDE_UTF16, MEMORY_TYPES};
use crate::memory::file::{Role, role_of};
use crate::memory::meta::filled;
use crate::memory::names;
use crate::memory::spec::{is_kebab_slug, topic_problem};
use crate::memory::{Library, Spec};
use crate::text::js::utf16_len;
use crate::tier::Refusal;

/// The file name, after checking the request against the rules the audit applies.
pub(super) fn validate(lib: &Library, req: &Request) -> Result<String, Refusal> {
    let file = format!("{}_{}.md", req.kind, req.topic);
    let refuse = |why: String| Refusal {
        file: file.clone(),
        line: None,
        why,
    };
    if !MEMORY_TYPES.contains(&req.kind.as_str()) {
        return Err(refuse(format!(
            "unknown type `{}` (one of {})",
            req.kind,
            MEMORY_TYPES.join(", ")
        )));
    }
    if let Some(problem) = topic_rule(lib.spec(), &req.topic) {
        return Err(refuse(problem));
    }
    if !matches!(role_of(&file), Role::Entry { .. }) {
        return Err(refuse(
            "is a hub's name; add writes memories (tier writes hubs)".into(),
        ));
    }
    if req.description.trim().is_empty() || req.description.contains(['\n', '\r']) {
        return Err(refuse("description must be one non-empty line".into()));
    }
    let body_has_why = req
        .body
        .as_deref()
        .is_some_and(|b| b.lines().any(|l| is_why_line(l.trim_start())));
    let needs_why = req.kind == "feedback" || (req.kind == "project" && lib.spec() == Spec::Client);
    if needs_why && req.why.is_none() && !body_has_why {
        return Err(refuse(format!(
            "a {} memory needs its Why (the audit's missing-why rule): pass --why, or start \
             a line of the body with `**Why:**`",
            req.kind
        )));
    }
    Ok(file)
}

/// Why `topic` breaks the naming rule of the library's spec, with a topic that would not:
/// claude-memory-manager's `bad-file-name` (the topic of `<type>_<topic>.md`), or, in the
/// client's spec, `name-not-slug` (the `name:` add makes from the topic must be a kebab-case
/// slug; a topic that gives one is also a safe file name).
fn topic_rule(spec: Spec, topic: &str) -> Option<String> {
    let problem = match spec {
        Spec::Manager => format!(
            "{} (claude-memory-manager's bad-file-name rule)",
            topic_problem(topic)?
        ),
        Spec::Client if topic_problem(topic).is_none() && is_kebab_slug(&kebab(&[topic])) => {
            return None;
        }
        Spec::Client => "the memory's `name:` is made from the topic, and the client's write \
                         spec asks for a kebab-case slug: a-z and 0-9 in words joined by `-` or \
                         `_` (its name-not-slug rule)"
            .to_owned(),
    };
    let hint = names::key(topic);
    let hint = if hint != topic && !hint.starts_with("group-") {
        format!("; e.g. `--topic {hint}`")
    } else {
        String::new()
    };
    Some(format!("topic `{topic}`: {problem}{hint}"))
}

fn is_why_line(l: &str) -> bool {
    let l = l.to_ascii_lowercase();
    l.starts_with("**why:**")
        || l.starts_with("**why**:")
        || l.starts_with("## why")
        || l.starts_with("why:")
}

/// A YAML scalar the client reads back as written: plain when unambiguous, else
/// double-quoted (JSON escapes are valid YAML), as the client's writer quotes `,` and `: `.
fn yaml_scalar(s: &str) -> String {
    let plain = s.chars().next().is_some_and(char::is_alphanumeric)
        && s.chars()
            .all(|c| c.is_alphanumeric() || " -.()'/".contains(c))
        && !s.ends_with(' ')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// Parts joined as a kebab-case slug (`["feedback", "wild_card"]` → `feedback-wild-card`).
fn kebab(parts: &[&str]) -> String {
    (parts.iter())
        .flat_map(|p| p.split(['-', '_']))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The new memory's `name:`. The client's spec asks for a kebab-case slug of the topic
/// (`deploy-freeze` for `project_deploy_freeze.md`); a library whose own memories mostly
/// carry their type in the name (`project-deploy-freeze`) is followed. claude-memory-manager's
/// names are the file's stem.
pub(super) fn memory_name(lib: &Library, req: &Request, file: &str) -> String {
    if lib.spec() == Spec::Manager {
        return file.trim_end_matches(".md").to_owned();
    }
    let (mut typed, mut plain) = (0, 0);
    for f in &lib.files {
        let (Role::Entry { kind, topic }, Some(name)) =
            (&f.role, f.meta().and_then(|m| m.name.as_deref()))
        else {
            continue;
        };
        if name.trim() == kebab(&[kind, topic]) {
            typed += 1;
        } else if name.trim() == kebab(&[topic]) {
            plain += 1;
        }
    }
    if typed > plain {
        kebab(&[&req.kind, &req.topic])
    } else {
        kebab(&[&req.topic])
    }
}

/// The new memory's text, in `spec`, named `name`.
pub(super) fn entry_text(spec: Spec, req: &Request, name: &str, now: Timestamp) -> String {
    let description = yaml_scalar(req.description.trim());
    let mut t = String::from("---\n");
    match spec {
        Spec::Client => {
            t.push_str(&format!("name: {name}\n"));
            t.push_str(&format!("description: {description}\nmetadata:\n"));
            t.push_str(&format!(
                "  node_type: {}\n",
                crate::constants::NODE_TYPE_MEMORY
            ));
            t.push_str(&format!("  type: {}\n", req.kind));
            if let Some(g) = &req.group {
                t.push_str(&format!("  group: {}\n", yaml_scalar(g)));
            }
            if let Some(s) = req.session.as_deref().filter(|s| !s.trim().is_empty()) {
                t.push_str(&format!("  originSessionId: {}\n", yaml_scalar(s.trim())));
            }
            t.push_str(&format!(
                "  modified: {}\n",
                now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            ));
        }
        Spec::Manager => {
            t.push_str(&format!("name: {name}\n"));
            t.push_str(&format!("description: {description}\ntype: {}\n", req.kind));
            if let Some(g) = &req.group {
                t.push_str(&format!("group: {}\n", yaml_scalar(g)));
            }
            t.push_str(&format!("modified: {}\n", now.strftime("%Y-%m-%d")));
        }
    }
    t.push_str("---\n\n");
    let body = filled(req.body.as_deref());
    t.push_str(body.unwrap_or(req.description.trim()));
    t.push('\n');
    let (why, how) = (filled(req.why.as_deref()), filled(req.how.as_deref()));
    match spec {
        Spec::Client => {
            if why.is_some() || how.is_some() {
                t.push('\n');
            }
            if let Some(w) = why {
                t.push_str(&format!("**Why:** {w}\n"));
            }
            if let Some(h) = how {
                t.push_str(&format!("**How to apply:** {h}\n"));
            }
        }
        Spec::Manager => {
            if let Some(w) = why {
                t.push_str(&format!("\n## Why\n{w}\n"));
            }
            if let Some(h) = how {
                t.push_str(&format!("\n## How to apply\n{h}\n"));
            }
        }
    }
    t
}

/// `- [Title](file.md) — hook`, the hook cut so the line stays under the length the client
/// asks for (150 UTF-16 units).
pub(super) fn index_line(req: &Request, file: &str) -> String {
    let title = match filled(req.title.as_deref()) {
        Some(t) => t.to_owned(),
        None => capitalized(&req.topic.replace(['-', '_'], " ")),
    };
    let head = format!("- [{title}]({file}) — ");
    let mut line = head;
    for c in req.description.trim().chars() {
        if utf16_len(&line) + c.len_utf16() + 1 > INDEX_LINE_GUIDE_UTF16 - 1 {
            line = line.trim_end().to_owned();
            line.push('…');
            return line;
        }
        line.push(c);
    }
    line
}

pub(super) fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
/// A new hub for `group`, in `spec`, stamped `modified`.
pub(super) fn new_hub(spec: Spec, hub: &str, group: &str, now: Timestamp) -> String {
    let description =
        serde_json::to_string(&format!("Hub of the {group} entries")).unwrap_or_default();
    match spec {
        Spec::Client => format!(
            "---\nname: {}\ndescription: {description}\nmetadata:\n  node_type: {}\n  type: reference\n  modified: {}\n---\n\n# {}\n\n",
            names::kebab_name(hub),
            crate::constants::NODE_TYPE_MEMORY,
            now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"),
            capitalized(group)
        ),
        Spec::Manager => format!(
            "---\nname: {}\ndescription: {description}\ntype: reference\nmodified: {}\n---\n\n# {}\n\n",
            hub.trim_end_matches(".md"),
            now.strftime("%Y-%m-%d"),
            capitalized(group)
        ),
    }
}
