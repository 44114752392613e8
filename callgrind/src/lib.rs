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

//!
//! Each type has one path: the crate's root. [`flame`] (flame graphs) and [`inline`] (inlined
//! code charged to its own function) are modules of functions.

mod diff;
pub mod flame;
mod graph;
pub mod inline;
mod parse;
mod profile;

pub use diff::{Explanation, Inclusive, Kind, Mover, Rest, Unattributed, explain};
pub use graph::{Addresses, Call, CallGraph, Node, ObjectFile};
pub use parse::{Options, ParseError, demangle, parse, parse_with, recursion_level};
pub use profile::{FLOOR_PARTS, Function, Profile, normalize_file, program_cost};
