//! Renderers: every view ccmem prints, human and JSON (the client's own reminder text is the
//! loader's, `load::reminder`). Rendering never decides anything; it prints what `load` and
//! the other layers computed.

pub mod add;
pub mod audit;
pub mod budget;
pub mod check;
pub mod context;
pub mod error;
pub mod explain;
pub mod findings;
pub mod history;
pub(crate) mod hook_install;
pub mod json;
pub mod receipt;
pub mod session;
pub(crate) mod statusline;
mod style;
pub mod tier;
pub mod undo;
pub mod verify;
pub mod writes;
