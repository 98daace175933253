//! The hubs' new texts: an existing hub with the moved lines appended, a new one with its
//! frontmatter and title, each moved line under copies of the headings it was under.

use jiff::Timestamp;

use super::Dest;
use super::words::{description, topic_of};
use crate::memory::names;
use crate::memory::{Library, Spec};
use crate::tier::groups::Layout;
use crate::tier::parse::{Index, Kind, eol_of};
use crate::tier::plan::FilePlan;
use crate::tier::{text_of, topic};

/// What a new hub says about itself.
struct About {
    title: String,
    description: String,
}

/// The new texts of every hub that receives lines under `dest`, in order of first line, and
/// the lines they generated (frontmatter, titles, heading copies).
pub(crate) fn hub_files(
    lib: &Library,
    idx: &Index,
    layout: &Layout,
    dest: &[Dest],
    now: Timestamp,
) -> (Vec<FilePlan>, Vec<String>) {
    let mut order: Vec<&str> = Vec::new();
    for d in dest {
        if let Dest::Hub(h) = d
            && !order.contains(h)
        {
            order.push(h);
        }
    }
    let mut files = Vec::new();
    let mut generated = Vec::new();
    for hub in order {
        let about = match layout
            .groups
            .iter()
            .find(|g| g.hubs.iter().any(|h| h == hub))
        {
            Some(g) => {
                let labels: Vec<&str> = (g.lines.iter().zip(&g.labels))
                    .filter(|(i, _)| dest[**i] == Dest::Hub(hub))
                    .map(|(_, l)| l.as_str())
                    .collect();
                let mine: Vec<usize> = (g.lines.iter().copied())
                    .filter(|&i| dest[i] == Dest::Hub(hub))
                    .collect();
                let topic = g.title_of(idx, &mine);
                About {
                    title: topic_of(&topic, &labels).0,
                    description: description(&topic, &labels),
                }
            }
            None => About {
                title: "More hubs".to_owned(),
                description:
                    "Hubs whose pointer lines were folded out of MEMORY.md, with their descriptions"
                        .to_owned(),
            },
        };
        let moved = moved_lines(idx, dest, hub, &mut generated);
        let old = topic(lib, hub).map(|f| text_of(f).to_owned());
        let eol = old.as_deref().map_or(idx.eol, eol_of);
        let mut text = match &old {
            Some(old) => {
                let mut t = old.clone();
                if !t.is_empty() && !t.ends_with('\n') {
                    t.push_str(eol);
                }
                t
            }
            None => {
                let head = new_hub_head(lib.spec(), hub, &about, now);
                let mut t = String::new();
                for l in head {
                    t.push_str(&l);
                    t.push_str(eol);
                    generated.push(l);
                }
                t.push_str(eol);
                if !moved
                    .first()
                    .is_some_and(|l| l.trim_start().starts_with('#'))
                {
                    let title = format!("# {}", about.title);
                    t.push_str(&title);
                    t.push_str(eol);
                    t.push_str(eol);
                    generated.push(title);
                }
                t
            }
        };
        let mut last_blank = text.is_empty() || text.ends_with(&format!("{eol}{eol}"));
        for (i, line) in moved.iter().enumerate() {
            let heading = line.trim_start().starts_with('#');
            if heading && (i > 0 || old.is_some()) && !last_blank {
                text.push_str(eol);
            }
            text.push_str(line);
            text.push_str(eol);
            last_blank = line.trim().is_empty();
        }
        files.push(FilePlan {
            name: hub.to_owned(),
            old,
            new: text,
        });
    }
    (files, generated)
}

/// The lines `hub` receives, in index order, each under copies of the headings it was under
/// (a heading moving into this hub comes verbatim instead of as a copy).
fn moved_lines(idx: &Index, dest: &[Dest], hub: &str, generated: &mut Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (i, line) in idx.lines.iter().enumerate() {
        if dest[i] != Dest::Hub(hub) || matches!(line.kind, Kind::Heading { .. }) {
            continue;
        }
        let chain = idx.headings_of(i);
        let same = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
        for &h in &chain[same..] {
            let text = idx.lines[h].text.to_owned();
            if dest[h] != Dest::Hub(hub) {
                generated.push(text.clone());
            }
            out.push(text);
        }
        open = chain;
        out.push(line.text.to_owned());
    }
    out
}

/// The frontmatter of a new hub, in the library's write spec, stamped `modified`.
fn new_hub_head(spec: Spec, hub: &str, about: &About, now: Timestamp) -> Vec<String> {
    let description = serde_json::to_string(&about.description).unwrap_or_default();
    match spec {
        Spec::Client => vec![
            "---".to_owned(),
            format!("name: {}", names::kebab_name(hub)),
            format!("description: {description}"),
            "metadata:".to_owned(),
            format!("  node_type: {}", crate::constants::NODE_TYPE_MEMORY),
            "  type: reference".to_owned(),
            format!("  modified: {}", now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")),
            "---".to_owned(),
        ],
        Spec::Manager => vec![
            "---".to_owned(),
            format!("name: {}", hub.trim_end_matches(".md")),
            format!("description: {description}"),
            "type: reference".to_owned(),
            format!("modified: {}", now.strftime("%Y-%m-%d")),
            "---".to_owned(),
        ],
    }
}
