//! Judging: results against baselines under the budgets, accepted changes and drift.

pub mod accept;
pub mod compare;
pub mod drift;
pub mod verdict;
