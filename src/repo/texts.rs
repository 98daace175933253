//! File texts read once per check (rules and renderers share them); a file that cannot be
//! read as text is `None`, never an abort.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Lazily read file texts, keyed by absolute path.
#[derive(Debug, Default)]
pub(crate) struct Texts {
    map: RefCell<HashMap<String, Option<Rc<str>>>>,
}

impl Texts {
    /// The text of `abs` (capped at the client's 4 MiB, decoded as the client decodes).
    pub(crate) fn get(&self, abs: &str) -> Option<Rc<str>> {
        if let Some(hit) = self.map.borrow().get(abs) {
            return hit.clone();
        }
        let text: Option<Rc<str>> = crate::load::instructions::access::read_text(abs)
            .ok()
            .map(Rc::from);
        self.map.borrow_mut().insert(abs.to_owned(), text.clone());
        text
    }
}
