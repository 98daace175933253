//! What the client attaches when it reads a file during the session (`nested_memory`).

use super::Session;
use super::model::Loaded;
use crate::env::ClientEnv;

/// For each read path, in order, the files the client would attach (each is one block).
pub fn load(_env: &ClientEnv, _session: &Session, reads: &[String]) -> Vec<Vec<Loaded>> {
    reads.iter().map(|_| Vec::new()).collect()
}
