//! Callgrind output, read properly and reduced to what a regression gate explains with: self and
//! inclusive cost per function ([`Profile`]), the diff of two profiles with renames and inlining
//! changes recognised ([`explain`]), and differential flame graphs ([`flame`]).
//!
//! ```no_run
//! let file = std::io::BufReader::new(std::fs::File::open("callgrind.out").unwrap());
//! let graph = irgate_callgrind::parse(file).unwrap();
//! let profile = irgate_callgrind::Profile::from_graph(&graph, "Ir", str::to_owned).unwrap();
//! println!("{} Ir in {} functions", profile.total, profile.functions.len());
//! ```

pub mod diff;
pub mod flame;
pub mod graph;
pub mod inline;
pub mod parse;
pub mod profile;
pub mod ranges;

pub use diff::{Explanation, Inclusive, Kind, Mover, Rest, Unattributed, explain};
pub use graph::CallGraph;
pub use parse::{MAX_BYTES, Options, ParseError, demangle, parse, parse_with};
pub use profile::{FLOOR_PARTS, Function, Profile, normalize_file};
pub use ranges::ranges;
