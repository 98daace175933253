//! Tier (placeholder).
