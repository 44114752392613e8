//! irgate: a CI regression gate on callgrind instruction counts.

pub mod model;
