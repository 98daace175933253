//! Renderers: the client's exact reminder text, and the human and JSON views. Rendering never
//! decides anything; it prints what `load` and the other layers computed.

pub mod audit;
pub mod budget;
pub mod check;
pub mod findings;
pub mod receipt;
pub mod reminder;
pub mod session;
