//! Judging: results against baselines under the budgets, accepted changes and drift.

pub mod accept;
pub mod changes;
pub mod compare;
pub mod drift;
