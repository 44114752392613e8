//! `[[suite]]`: a callgrind suite as gate.toml declares it (or as the workspace holds it): one
//! bench target, run by `cargo bench` under gungraun or iai-callgrind.

/// A suite as `gate.toml` declares it (or as the workspace holds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The cargo package.
    pub package: String,
    /// The bench target (`cargo bench --bench NAME`).
    pub bench: String,
    /// Cargo features to build it with.
    pub features: Vec<String>,
    /// More runner arguments, after irgate's own.
    pub args: Vec<String>,
}

impl Suite {
    /// The suite's name in messages and results: `package/bench`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.package, self.bench)
    }
}
