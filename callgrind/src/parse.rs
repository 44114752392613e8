//! The callgrind profile format (valgrind's "Callgrind Format Specification"), read into a
//! [`CallGraph`]: every function's self cost per event and its calls with their inclusive cost.
//!
//! Handled: the header (`version:`, `creator:`, `positions:`, `events:`, `summary:`, `totals:`,
//! other `key: value` lines ignored), name compression (`fn=(3) name` defines id 3, `fn=(3)` uses
//! it; files share one id space across `fl= fi= fe= cfi= cfl=`, objects across `ob= cob=`,
//! functions across `fn= cfn=`), position compression (`+N`, `-N`, `*`, hexadecimal `0x..`),
//! inlined code (`fi=`/`fe=`), calls (`calls=` and the cost line after it, the call's inclusive
//! cost), jumps (`jump=`/`jcnd=` and the position line after them), several parts in one file.
//! Anything else is an error naming the line, never a panic: a file is untrusted input.
//!
//! **What the costs add up to.** The format says `totals:` "must give the total of all cost
//! lines, to allow for a consistency check", and `summary:` "should be equal or larger than a
//! total over all self costs", larger when "the cost lines may not represent all cost of the
//! program run". Callgrind ends every part with `totals:`, and in a whole-program run (a binary
//! benchmark) its `summary:` is 2 Ir above the cost lines: instructions counted before the first
//! function is entered. So each part's self costs must equal its `totals:` exactly (a part
//! without one is cut off), must not exceed its `summary:`, and what the summary holds beyond
//! them is [`CallGraph::unattributed`]. gungraun counts a benchmark's Ir from `totals:` too.
//!
//! **Bounded memory.** The file is read line by line, names are held once ([`Arc<str>`]), costs
//! are summed per function, call and instruction address as they are read, [`Options::event`]
//! keeps one event's costs only, and the reader refuses a file whose graph would hold more than
//! [`Options::max_bytes`] ([`MAX_BYTES`] by default).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Read};
use std::ops::RangeInclusive;
use std::sync::Arc;

use thiserror::Error;

/// Why a callgrind file cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    /// The file could not be read (I/O error or not UTF-8).
    #[error("cannot read: {0}")]
    Io(String),
    /// A line breaks the format.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file as a whole is inconsistent (empty, cut off, costs that do not add up, too large).
    #[error("{0}")]
    File(String),
}

/// A function's costs and calls, as the file states them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    /// Demangled name (a Rust symbol's hash suffix dropped).
    pub name: Arc<str>,
    /// The source file of the function (its `fl=`), as written in the file.
    pub file: Arc<str>,
    /// The object (executable or shared library) it is in; functions of the same name in two
    /// objects are two nodes.
    pub object: Arc<str>,
    /// Self cost, one entry per event of [`CallGraph::events`].
    pub self_cost: Vec<u64>,
    /// The part of the self cost that comes from code inlined from other files (`fi=`), by file
    /// ([`crate::inline::resolve`] turns it into by inlined function).
    pub inlined: BTreeMap<Arc<str>, Vec<u64>>,
    /// Self cost by instruction address, when the file has `instr` positions.
    pub by_address: Addresses,
    /// Calls made, by callee index into [`CallGraph::nodes`]: sorted by callee, one entry each.
    pub calls: Vec<(usize, Call)>,
}

impl Node {
    /// The calls to `callee`, if any.
    pub fn call(&self, callee: usize) -> Option<&Call> {
        let found = self.calls.binary_search_by_key(&callee, |(c, _)| *c);
        found.ok().map(|i| &self.calls[i].1)
    }
}

/// Self cost by instruction address, held flat (an address and its costs, per event): in the
/// order read, an address repeated when its cost lines were not consecutive.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Addresses {
    events: usize,
    addresses: Vec<u64>,
    costs: Vec<u64>,
}

impl Addresses {
    /// Each address with its costs.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &[u64])> {
        self.addresses
            .iter()
            .copied()
            .zip(self.costs.chunks_exact(self.events.max(1)))
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    /// No address.
    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }

    /// Adds `costs` at `address`; returns whether that took a new entry.
    fn add(&mut self, address: u64, costs: &[u64]) -> Result<bool, String> {
        self.events = costs.len();
        if self.addresses.last() == Some(&address) {
            let at = self.costs.len() - costs.len();
            add(&mut self.costs[at..], costs)?;
            return Ok(false);
        }
        grow(&mut self.addresses, 1);
        grow(&mut self.costs, costs.len());
        self.addresses.push(address);
        self.costs.extend_from_slice(costs);
        Ok(true)
    }
}

/// Makes room for `more` items in `vector`, doubling from its exact size (a vector's own growth
/// starts at 4, too much for the one address of most functions).
fn grow<T>(vector: &mut Vec<T>, more: usize) {
    if vector.capacity() - vector.len() < more {
        vector.reserve_exact(vector.len().max(more));
    }
}

/// The calls from one function to another.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    /// How many times.
    pub count: u64,
    /// The inclusive cost of those calls, per event.
    pub cost: Vec<u64>,
}

/// An object (`ob=`) and a source file (`fl=`, `fi=`, `fe=`).
pub type ObjectFile = (Arc<str>, Arc<str>);

/// A parsed callgrind file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CallGraph {
    /// Event names, e.g. `["Ir", "Dr", ...]` (only [`Options::event`] when one is chosen).
    pub events: Vec<String>,
    /// The totals the file declares (`totals:`), per event, summed over parts: the sum of every
    /// function's self cost.
    pub totals: Vec<u64>,
    /// Per event, what the file's `summary:` lines hold beyond the totals: cost callgrind counted
    /// outside any function (the start of a whole-program run), in no function's self cost.
    pub unattributed: Vec<u64>,
    /// Every function that has a cost or is called, in order of appearance.
    pub nodes: Vec<Node>,
    /// With [`Options::lines`]: the source lines that had a cost (in the kept events), by object
    /// and file (`fi=`/`fe=` for inlined code), as sorted, disjoint ranges. Line 0 is code without
    /// line tables.
    pub lines: BTreeMap<ObjectFile, Vec<RangeInclusive<u32>>>,
}

impl CallGraph {
    /// The index of event `name`.
    pub fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }

    /// The index of the (first) function named `name` (demangled).
    pub fn node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| &*n.name == name)
    }
}

/// The demangled form of a symbol: Rust's legacy and v0 manglings are decoded without the hash
/// suffix; anything else (already demangled by valgrind, C symbols) is kept as it is.
pub fn demangle(symbol: &str) -> String {
    match rustc_demangle::try_demangle(symbol) {
        Ok(demangled) => format!("{demangled:#}"),
        Err(_) => symbol.to_owned(),
    }
}

/// The longest line read; callgrind writes lines of a few hundred bytes.
const MAX_LINE: usize = 64 * 1024;

/// The most memory the reader holds by default: 1 GiB, a seventh of a hosted CI runner's 7 GB.
pub const MAX_BYTES: usize = 1 << 30;

/// What the reader keeps, and how much memory it may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Keep only this event's costs (a file that does not record it is refused); every event's
    /// when `None`.
    pub event: Option<String>,
    /// The most bytes the graph (with the reader's tables) may hold; a file that needs more is
    /// refused, naming the limit. Counted conservatively (every allocation the graph makes, with
    /// the slack of growing collections), so the process's peak stays below it plus one line.
    pub max_bytes: usize,
    /// Record which source lines had a cost ([`CallGraph::lines`]); needs `line` positions.
    pub lines: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            event: None,
            max_bytes: MAX_BYTES,
            lines: false,
        }
    }
}

/// Parses a callgrind file, every event, within [`MAX_BYTES`].
pub fn parse(reader: impl BufRead) -> Result<CallGraph, ParseError> {
    parse_with(reader, &Options::default())
}

/// Parses a callgrind file as `options` say.
pub fn parse_with(mut reader: impl BufRead, options: &Options) -> Result<CallGraph, ParseError> {
    let mut parser = Parser {
        options: options.clone(),
        ..Parser::default()
    };
    let mut buffer = Vec::new();
    for number in 1.. {
        buffer.clear();
        // Never more than one line's worth in memory, however long a hostile line is.
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buffer)
            .map_err(|e| ParseError::Io(format!("line {number}: {e}")))?;
        if read == 0 {
            break;
        }
        if buffer.last() == Some(&b'\n') {
            buffer.pop();
        } else if buffer.len() > MAX_LINE {
            return Err(ParseError::Line {
                line: number,
                message: format!("longer than the {MAX_LINE} bytes of a callgrind line"),
            });
        }
        let line = std::str::from_utf8(&buffer)
            .map_err(|e| ParseError::Io(format!("line {number}: not UTF-8: {e}")))?;
        parser.line(line).map_err(|message| ParseError::Line {
            line: number,
            message,
        })?;
        if parser.held > options.max_bytes {
            return Err(ParseError::File(format!(
                "too large: at line {number} the call graph already needs more than the {} \
                 this reader may hold ({} functions); a benchmark's file is a few MB",
                size(options.max_bytes),
                parser.graph.nodes.len()
            )));
        }
    }
    parser.finish()
}

/// What the next line must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Expect {
    #[default]
    Any,
    /// The cost line of a call: to this callee, this many times.
    CallCost { callee: usize, count: u64 },
    /// The source position of a jump.
    JumpPosition,
}

/// One part's declared and counted costs.
#[derive(Default)]
struct Part {
    /// Anything seen in it (a cost line, `summary:` or `totals:`).
    started: bool,
    summary: Option<Vec<u64>>,
    totals: Option<Vec<u64>>,
    /// The sum of its self costs so far.
    sum: Vec<u64>,
}

/// Bytes charged per allocation beyond its size: the allocator's header and rounding.
const SLACK: usize = 32;

/// How many times its size an item of a growing vector or hash table is charged: the spare
/// capacity of a doubled table (a hash table is at most 7/8 full), and the old table while it
/// is copied.
const GROWTH: usize = 3;

/// How many times its size an entry of a B-tree is charged: its nodes are at least half full.
const TREE: usize = 2;

#[derive(Default)]
struct Parser {
    options: Options,
    graph: CallGraph,
    /// The columns of a cost line that are kept (indices into the file's events).
    keep: Vec<usize>,
    /// The number of events the file declares.
    declared: usize,
    seen_header: bool,
    positions: Vec<String>,
    /// The last value of each position, for relative positions.
    last: Vec<u64>,
    files: HashMap<u64, Arc<str>>,
    objects: HashMap<u64, Arc<str>>,
    functions: HashMap<u64, Arc<str>>,
    /// Every name held, once.
    names: HashSet<Arc<str>>,
    by_name: HashMap<(Arc<str>, Arc<str>), usize>,
    /// The current object (`ob=`) and the callee's (`cob=`, for the next call only).
    ob: Arc<str>,
    cob: Option<Arc<str>>,
    /// The current function's file (`fl=`) and the file of the next cost lines (`fi=`/`fe=`).
    fl: Arc<str>,
    fi: Arc<str>,
    current: Option<usize>,
    callee: Option<usize>,
    expect: Expect,
    part: Part,
    part_number: usize,
    /// The bytes held, counted as items are added.
    held: usize,
    /// With [`Options::lines`]: the lines with a cost, by object and file, as read (a line
    /// repeated only when its cost lines were not consecutive).
    lines: HashMap<ObjectFile, Vec<u32>>,
}

impl Parser {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let expect = std::mem::take(&mut self.expect);
        let line = line.trim_end_matches('\r');
        if let Expect::CallCost { callee, count } = expect {
            return self.call_cost(line, callee, count);
        }
        if expect == Expect::JumpPosition {
            return self.positions_of(line).map(|_| ());
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Ok(());
        }
        let first = trimmed.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            return self.cost(trimmed);
        }
        if let Some((key, value)) = trimmed.split_once('=')
            && key.chars().all(|c| c.is_ascii_lowercase())
        {
            return self.spec(key, value);
        }
        if let Some((key, value)) = trimmed.split_once(':') {
            return self.header(key.trim(), value.trim());
        }
        Err(format!("not a callgrind line: `{}`", excerpt(trimmed)))
    }

    fn header(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "version" if value != "1" => {
                return Err(format!(
                    "format version {} is not the 1 this reader knows",
                    excerpt(value)
                ));
            }
            "positions" => {
                if self.seen_header {
                    return Err("`positions:` after the first cost line".into());
                }
                let kinds: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
                if kinds.is_empty()
                    || kinds
                        .iter()
                        .any(|k| !matches!(k.as_str(), "line" | "instr"))
                {
                    return Err(format!(
                        "unknown positions `{}` (expected `line` and/or `instr`)",
                        excerpt(value)
                    ));
                }
                self.positions = kinds;
            }
            "events" => self.events(value)?,
            "summary" => {
                let summary = self.numbers(value)?;
                self.part.started = true;
                self.part.summary = Some(summary);
            }
            "totals" => {
                let totals = self.numbers(value)?;
                self.part.started = true;
                self.part.totals = Some(totals);
            }
            "part" => self.end_part()?,
            _ => {}
        }
        Ok(())
    }

    fn events(&mut self, value: &str) -> Result<(), String> {
        let events: Vec<&str> = value.split_whitespace().collect();
        if events.is_empty() {
            return Err("`events:` names no event".into());
        }
        if self.seen_header {
            if events.len() != self.declared
                || self
                    .keep
                    .iter()
                    .zip(&self.graph.events)
                    .any(|(i, e)| events[*i] != e)
            {
                return Err("`events:` changes the events after costs were given".into());
            }
            return Ok(());
        }
        self.keep = match &self.options.event {
            None => (0..events.len()).collect(),
            Some(event) => vec![events.iter().position(|e| e == event).ok_or_else(|| {
                format!(
                    "records no {event} (its events: {})",
                    excerpt(&events.join(" "))
                )
            })?],
        };
        self.declared = events.len();
        self.graph.events = self.keep.iter().map(|i| events[*i].to_owned()).collect();
        Ok(())
    }

    /// Checks the part that ends against its `totals:` and `summary:` and adds it to the graph.
    fn end_part(&mut self) -> Result<(), String> {
        let part = std::mem::take(&mut self.part);
        if !part.started {
            return Ok(());
        }
        self.part_number += 1;
        let events = self.graph.events.len();
        let sum = if part.sum.is_empty() {
            vec![0; events]
        } else {
            part.sum
        };
        let Some(totals) = part.totals else {
            return Err(format!(
                "cut off: part {} ends without the `totals:` line callgrind ends every part with",
                self.part_number
            ));
        };
        for (event, name) in self.graph.events.iter().enumerate() {
            if sum[event] != totals[event] {
                return Err(format!(
                    "cut off or corrupt: the functions' {name} add up to {}, the file's `totals:` \
                     says {}",
                    sum[event], totals[event]
                ));
            }
            if let Some(summary) = &part.summary
                && summary[event] < sum[event]
            {
                return Err(format!(
                    "corrupt: the functions' {name} add up to {}, more than the file's \
                     `summary:` of {}",
                    sum[event], summary[event]
                ));
            }
        }
        let unattributed = match part.summary {
            Some(summary) => summary.iter().zip(&sum).map(|(s, t)| s - t).collect(),
            None => vec![0; events],
        };
        for (all, part) in [
            (&mut self.graph.totals, &sum),
            (&mut self.graph.unattributed, &unattributed),
        ] {
            all.resize(events, 0);
            add(all, part).map_err(|_| "totals overflow 64 bits".to_owned())?;
        }
        Ok(())
    }

    fn spec(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "fl" => {
                self.fl = self.name(Space::File, value)?;
                self.fi = self.fl.clone();
            }
            "fi" | "fe" => self.fi = self.name(Space::File, value)?,
            "fn" => {
                let name = self.name(Space::Function, value)?;
                let index = self.node(self.ob.clone(), name);
                if self.graph.nodes[index].file.is_empty() {
                    self.graph.nodes[index].file = self.fl.clone();
                }
                self.current = Some(index);
                self.callee = None;
                self.cob = None;
                self.fi = self.fl.clone();
            }
            "ob" => self.ob = self.name(Space::Object, value)?,
            "cob" => self.cob = Some(self.name(Space::Object, value)?),
            "cfi" | "cfl" => {
                self.name(Space::File, value)?;
            }
            "cfn" => {
                let name = self.name(Space::Function, value)?;
                let object = self.cob.take().unwrap_or_else(|| self.ob.clone());
                self.callee = Some(self.node(object, name));
            }
            "calls" => {
                if self.current.is_none() {
                    return Err("`calls=` before any `fn=`".into());
                }
                let callee = self
                    .callee
                    .ok_or("`calls=` without a `cfn=` naming the callee")?;
                let count = value
                    .split_whitespace()
                    .next()
                    .ok_or("`calls=` without a count")?;
                let count = number(count)?;
                self.expect = Expect::CallCost { callee, count };
            }
            "jump" | "jcnd" => self.expect = Expect::JumpPosition,
            _ => return Err(format!("unknown specification `{key}=`")),
        }
        Ok(())
    }

    /// Resolves a possibly compressed name: `(id) name` defines, `(id)` refers, `name` is plain.
    /// Every name is held once, however often the file repeats it.
    fn name(&mut self, space: Space, value: &str) -> Result<Arc<str>, String> {
        let value = value.trim();
        // `(12)` and `(12) name` are compressed; a name like `(below main)` is not.
        let compressed = value
            .strip_prefix('(')
            .and_then(|rest| rest.split_once(')'));
        let Some((id, name)) = compressed.filter(|(id, name)| {
            !id.is_empty()
                && id.bytes().all(|b| b.is_ascii_digit())
                && (name.is_empty() || name.starts_with(' '))
        }) else {
            return Ok(self.intern(space, value));
        };
        let id: u64 = id
            .parse()
            .map_err(|_| format!("bad compressed name id `({})`", excerpt(id)))?;
        let name = name.trim();
        if name.is_empty() {
            return self
                .table(space)
                .get(&id)
                .cloned()
                .ok_or_else(|| format!("{} ({id}) is used before it is defined", space.what()));
        }
        let name = self.intern(space, name);
        self.held += GROWTH * (size_of::<(u64, Arc<str>)>() + 1);
        self.table(space).insert(id, name.clone());
        Ok(name)
    }

    fn table(&mut self, space: Space) -> &mut HashMap<u64, Arc<str>> {
        match space {
            Space::File => &mut self.files,
            Space::Object => &mut self.objects,
            Space::Function => &mut self.functions,
        }
    }

    /// The held copy of a name (demangled when it is a function's): one per distinct name.
    fn intern(&mut self, space: Space, value: &str) -> Arc<str> {
        let demangled;
        let name = match space {
            Space::Function => {
                demangled = demangle(value);
                demangled.as_str()
            }
            _ => value,
        };
        if let Some(held) = self.names.get(name) {
            return held.clone();
        }
        // The text with its header, and its slot in the set.
        self.held += name.len() + SLACK + GROWTH * (size_of::<Arc<str>>() + 1);
        let held: Arc<str> = Arc::from(name);
        self.names.insert(held.clone());
        held
    }

    fn node(&mut self, object: Arc<str>, name: Arc<str>) -> usize {
        let key = (object, name);
        if let Some(&index) = self.by_name.get(&key) {
            return index;
        }
        let index = self.graph.nodes.len();
        let events = self.graph.events.len();
        // The node, its costs and its key.
        self.held += GROWTH * size_of::<Node>()
            + events * 8
            + SLACK
            + GROWTH * (size_of::<(Arc<str>, Arc<str>, usize)>() + 1);
        self.graph.nodes.push(Node {
            name: key.1.clone(),
            object: key.0.clone(),
            self_cost: vec![0; events],
            ..Node::default()
        });
        self.by_name.insert(key, index);
        index
    }

    fn begin_costs(&mut self) -> Result<(), String> {
        if self.graph.events.is_empty() {
            return Err("a cost line before `events:`".into());
        }
        if !self.seen_header {
            self.seen_header = true;
            if self.positions.is_empty() {
                self.positions = vec!["line".into()];
            }
            self.last = vec![0; self.positions.len()];
            let events = self.graph.events.len();
            for node in &mut self.graph.nodes {
                node.self_cost.resize(events, 0);
            }
        }
        Ok(())
    }

    /// Reads the positions at the start of a cost line; returns the rest.
    fn positions_of<'l>(&mut self, line: &'l str) -> Result<std::str::SplitWhitespace<'l>, String> {
        self.begin_costs()?;
        let mut fields = line.split_whitespace();
        for slot in 0..self.positions.len() {
            let field = fields.next().ok_or_else(|| {
                format!("a cost line without its {} position", self.positions[slot])
            })?;
            let previous = self.last[slot];
            self.last[slot] = if field == "*" {
                previous
            } else if let Some(delta) = field.strip_prefix('+') {
                previous
                    .checked_add(number(delta)?)
                    .ok_or("a relative position overflows")?
            } else if let Some(delta) = field.strip_prefix('-') {
                previous
                    .checked_sub(number(delta)?)
                    .ok_or("a relative position goes below zero")?
            } else {
                number(field)?
            };
        }
        Ok(fields)
    }

    /// The kept costs of a cost line (every column checked, missing ones 0).
    fn costs(&mut self, line: &str) -> Result<Vec<u64>, String> {
        let fields = self.positions_of(line)?;
        let mut all = Vec::with_capacity(self.declared);
        for field in fields {
            if all.len() == self.declared {
                return Err(format!(
                    "{} costs on a line, but {} events are declared",
                    line.split_whitespace().count() - self.positions.len(),
                    self.declared
                ));
            }
            all.push(number(field)?);
        }
        Ok(self
            .keep
            .iter()
            .map(|i| all.get(*i).copied().unwrap_or(0))
            .collect())
    }

    fn cost(&mut self, line: &str) -> Result<(), String> {
        let costs = self.costs(line)?;
        let index = self.current.ok_or("a cost line before any `fn=`")?;
        let inlined = self.fi != self.fl;
        if self.options.lines {
            self.line_cost(&costs);
        }
        let address = self
            .positions
            .iter()
            .position(|p| p == "instr")
            .map(|slot| self.last[slot]);
        self.part.started = true;
        self.part.sum.resize(costs.len(), 0);
        add(&mut self.part.sum, &costs)?;
        let node = &mut self.graph.nodes[index];
        add(&mut node.self_cost, &costs)?;
        if let Some(address) = address
            && node.by_address.add(address, &costs)?
        {
            self.held += GROWTH * (8 + 8 * costs.len());
        }
        if inlined {
            let entry_size = TREE * size_of::<(Arc<str>, Vec<u64>)>() + costs.len() * 8 + 2 * SLACK;
            let entry = node.inlined.entry(self.fi.clone()).or_insert_with(|| {
                self.held += entry_size;
                vec![0; costs.len()]
            });
            add(entry, &costs)?;
        }
        Ok(())
    }

    /// Notes the current line as executed when `costs` are not all 0.
    fn line_cost(&mut self, costs: &[u64]) {
        let Some(slot) = self.positions.iter().position(|p| p == "line") else {
            return;
        };
        if costs.iter().all(|c| *c == 0) {
            return;
        }
        let line = u32::try_from(self.last[slot]).unwrap_or(u32::MAX);
        let key = (self.ob.clone(), self.fi.clone());
        let lines = self.lines.entry(key).or_insert_with(|| {
            self.held += GROWTH * size_of::<(ObjectFile, Vec<u32>)>() + SLACK;
            Vec::new()
        });
        if lines.last() != Some(&line) {
            if lines.capacity() == lines.len() {
                // The doubled buffer, the old one while copied, and the ranges made of it.
                self.held += GROWTH * 4 * lines.len().max(4);
            }
            lines.push(line);
        }
    }

    fn call_cost(&mut self, line: &str, callee: usize, count: u64) -> Result<(), String> {
        let trimmed = line.trim();
        if trimmed.is_empty()
            || !trimmed.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c))
        {
            return Err("`calls=` is not followed by the call's cost line".into());
        }
        let costs = self.costs(trimmed)?;
        let caller = self.current.ok_or("`calls=` before any `fn=`")?;
        let calls = &mut self.graph.nodes[caller].calls;
        // One entry per callee: the last one again, or a new one (merged in `finish`).
        if calls.last().is_none_or(|(last, _)| *last != callee) {
            self.held += GROWTH * size_of::<(usize, Call)>() + costs.len() * 8 + SLACK;
            calls.push((callee, Call::default()));
        }
        let call = &mut calls.last_mut().expect("pushed").1;
        call.count = call
            .count
            .checked_add(count)
            .ok_or("a call count overflows 64 bits")?;
        call.cost.resize(costs.len(), 0);
        add(&mut call.cost, &costs)
    }

    fn finish(mut self) -> Result<CallGraph, ParseError> {
        match self.expect {
            Expect::Any => {}
            Expect::CallCost { .. } => {
                return Err(ParseError::File(
                    "cut off: the file ends after `calls=`, before the call's cost".into(),
                ));
            }
            Expect::JumpPosition => {
                return Err(ParseError::File(
                    "cut off: the file ends after a jump".into(),
                ));
            }
        }
        if self.graph.events.is_empty() {
            return Err(ParseError::File(
                "not a callgrind file: no `events:` line".into(),
            ));
        }
        self.end_part().map_err(ParseError::File)?;
        let events = self.graph.events.len();
        if self.graph.totals.is_empty() {
            return Err(ParseError::File(
                "cut off: no `totals:` line (callgrind ends every part with one)".into(),
            ));
        }
        for node in &mut self.graph.nodes {
            node.self_cost.resize(events, 0);
            merge_calls(&mut node.calls).map_err(ParseError::File)?;
        }
        self.graph.lines = self
            .lines
            .into_iter()
            .map(|(key, lines)| (key, ranges(lines)))
            .collect();
        Ok(self.graph)
    }
}

#[derive(Clone, Copy)]
enum Space {
    File,
    Object,
    Function,
}

impl Space {
    fn what(self) -> &'static str {
        match self {
            Space::File => "file",
            Space::Object => "object",
            Space::Function => "function",
        }
    }
}

impl Parser {
    /// The kept columns of a `summary:` or `totals:` line.
    fn numbers(&self, value: &str) -> Result<Vec<u64>, String> {
        if self.graph.events.is_empty() {
            return Err("totals before `events:`".into());
        }
        let values: Vec<u64> = value
            .split_whitespace()
            .map(number)
            .collect::<Result<_, _>>()?;
        if values.len() > self.declared {
            return Err(format!(
                "{} totals, but {} events are declared",
                values.len(),
                self.declared
            ));
        }
        Ok(self
            .keep
            .iter()
            .map(|i| values.get(*i).copied().unwrap_or(0))
            .collect())
    }
}

/// `lines` as sorted, disjoint, non-adjacent ranges.
fn ranges(mut lines: Vec<u32>) -> Vec<RangeInclusive<u32>> {
    lines.sort_unstable();
    lines.dedup();
    let mut ranges: Vec<RangeInclusive<u32>> = Vec::new();
    for line in lines {
        match ranges.last_mut() {
            Some(last) if last.end().checked_add(1) == Some(line) => {
                *last = *last.start()..=line;
            }
            _ => ranges.push(line..=line),
        }
    }
    ranges
}

/// Sorts `calls` by callee and merges the entries of one callee.
fn merge_calls(calls: &mut Vec<(usize, Call)>) -> Result<(), String> {
    if calls.is_sorted_by(|a, b| a.0 < b.0) {
        return Ok(());
    }
    calls.sort_by_key(|(callee, _)| *callee);
    let mut merged: Vec<(usize, Call)> = Vec::with_capacity(calls.len());
    for (callee, call) in calls.drain(..) {
        match merged.last_mut() {
            Some((last, into)) if *last == callee => {
                into.count = into
                    .count
                    .checked_add(call.count)
                    .ok_or("a call count overflows 64 bits")?;
                into.cost.resize(into.cost.len().max(call.cost.len()), 0);
                add(&mut into.cost, &call.cost)?;
            }
            _ => merged.push((callee, call)),
        }
    }
    *calls = merged;
    Ok(())
}

fn add(sum: &mut [u64], costs: &[u64]) -> Result<(), String> {
    for (s, c) in sum.iter_mut().zip(costs) {
        *s = s.checked_add(*c).ok_or("a cost overflows 64 bits")?;
    }
    Ok(())
}

/// A decimal or `0x` hexadecimal number.
fn number(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("`{}` is not a number", excerpt(text)))
}

/// `1024 MiB`, or `100000 bytes` below a MiB.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// At most 60 characters of `text`, for messages: control characters (a terminal's escapes, line
/// breaks) written as escapes, since the text comes from the file.
fn excerpt(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(60) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if text.chars().nth(60).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> CallGraph {
        parse(text.as_bytes()).unwrap()
    }

    fn error(text: &str) -> String {
        parse(text.as_bytes()).unwrap_err().to_string()
    }

    const COMPRESSED: &str = "\
# callgrind format
version: 1
positions: instr line
events: Ir Dr

summary: 21 4
ob=(1) /bin/prog
fl=(1) src/main.rs
fn=(1) main
0x10 3 5 1
+4 +1 2
cfl=(2) src/lib.rs
cfn=(2) _ZN4demo6helper17h0123456789abcdefE
calls=2 0x40 10
* * 14 3
fl=(2)
fn=(2)
0x40 10 10 2
fi=(3) src/inlined.rs
+2 +3 4 1
fe=(2)
-2 -3 0
totals: 21 4
";

    #[test]
    fn reads_compressed_names_positions_and_calls() {
        let graph = graph(COMPRESSED);
        assert_eq!(graph.events, ["Ir", "Dr"]);
        assert_eq!(graph.totals, [21, 4]);
        assert_eq!(graph.unattributed, [0, 0]);
        let main = &graph.nodes[graph.node("main").unwrap()];
        assert_eq!(main.self_cost, [7, 1]);
        assert_eq!(&*main.file, "src/main.rs");
        let helper = graph.node("demo::helper").expect("demangled without hash");
        assert_eq!(
            *main.call(helper).unwrap(),
            Call {
                count: 2,
                cost: vec![14, 3]
            }
        );
        let helper = &graph.nodes[helper];
        assert_eq!(&*helper.file, "src/lib.rs");
        assert_eq!(helper.self_cost, [14, 3]);
        assert_eq!(helper.inlined["src/inlined.rs"], [4, 1]);
    }

    #[test]
    fn records_the_lines_with_a_cost_by_object_and_file_when_asked() {
        assert!(graph(COMPRESSED).lines.is_empty(), "not asked");
        let options = Options {
            lines: true,
            ..Options::default()
        };
        let graph = parse_with(COMPRESSED.as_bytes(), &options).unwrap();
        let lines: Vec<(&str, &str, Vec<RangeInclusive<u32>>)> = graph
            .lines
            .iter()
            .map(|((object, file), lines)| (&**object, &**file, lines.clone()))
            .collect();
        // The call's cost line is not an executed line of its own, nor is a line costing 0.
        assert_eq!(
            lines,
            [
                ("/bin/prog", "src/inlined.rs", vec![13..=13]),
                ("/bin/prog", "src/lib.rs", vec![10..=10]),
                ("/bin/prog", "src/main.rs", vec![3..=4]),
            ]
        );
        assert_eq!(ranges(vec![7, 1, 2, 2, 9, 3, 8, 0]), [0..=3, 7..=9]);
        assert_eq!(
            ranges(vec![u32::MAX, u32::MAX - 1]),
            [u32::MAX - 1..=u32::MAX]
        );
    }

    #[test]
    fn a_name_in_parentheses_is_not_a_compressed_one() {
        let graph =
            graph("events: Ir\nfn=(below main)\n1 1\nfn=(12)x\n1 1\nfn=(3 f\n1 1\ntotals: 3\n");
        let names: Vec<&str> = graph.nodes.iter().map(|n| &*n.name).collect();
        assert_eq!(names, ["(below main)", "(12)x", "(3 f"]);
    }

    #[test]
    fn reads_jumps_and_several_parts() {
        let text = "\
events: Ir
part: 1
summary: 5
fn=f
1 5
jump=1 +3
2
totals: 5
part: 2
fn=f
3 2
totals: 2
";
        let graph = graph(text);
        assert_eq!(graph.totals, [7]);
        assert_eq!(graph.nodes[0].self_cost, [7]);
    }

    #[test]
    fn refuses_broken_files_with_the_line() {
        let cases = [
            ("", "not a callgrind file: no `events:` line"),
            ("fn=f\n1 2\n", "line 2: a cost line before `events:`"),
            ("events: Ir\n1 2\n", "line 2: a cost line before any `fn=`"),
            (
                "events: Ir\nfn=(3)\n",
                "line 2: function (3) is used before it is defined",
            ),
            (
                "events: Ir\nfn=(99999999999999999999) f\n",
                "line 2: bad compressed name id `(99999999999999999999)`",
            ),
            (
                "events: Ir\nfn=f\n1 2 3\n",
                "line 3: 2 costs on a line, but 1 events are declared",
            ),
            ("events: Ir\nfn=f\n1 x\n", "line 3: `x` is not a number"),
            (
                "events: Ir\nfn=f\n-1 1\n",
                "line 3: a relative position goes below zero",
            ),
            (
                "events: Ir\nfn=f\ncalls=1 2\n3 4\n",
                "line 3: `calls=` without a `cfn=` naming the callee",
            ),
            (
                "events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=g\n",
                "line 5: `calls=` is not followed by the call's cost line",
            ),
            (
                "events: Ir\nfn=f\ncfn=g\ncalls=1 2\n",
                "cut off: the file ends after `calls=`, before the call's cost",
            ),
            (
                "events: Ir\nsummary: 10\nfn=f\n1 4\ntotals: 10\n",
                "cut off or corrupt: the functions' Ir add up to 4, the file's `totals:` says 10",
            ),
            (
                "events: Ir\nsummary: 3\nfn=f\n1 4\ntotals: 4\n",
                "corrupt: the functions' Ir add up to 4, more than the file's `summary:` of 3",
            ),
            (
                "events: Ir\nsummary: 10\nfn=f\n1 4\n",
                "cut off: part 1 ends without the `totals:` line callgrind ends every part with",
            ),
            (
                "events: Ir\nfn=f\n1 4\n",
                "cut off: part 1 ends without the `totals:` line callgrind ends every part with",
            ),
            (
                "events: Ir\npart: 1\nfn=f\n1 4\npart: 2\nfn=f\n1 4\ntotals: 4\n",
                "line 5: cut off: part 1 ends without the `totals:` line callgrind ends every part \
                 with",
            ),
            (
                "events: Ir\n",
                "cut off: no `totals:` line (callgrind ends every part with one)",
            ),
            (
                "events: Ir\nfn=f\n1 18446744073709551615\n1 1\n",
                "line 4: a cost overflows 64 bits",
            ),
            (
                "version: 2\n",
                "line 1: format version 2 is not the 1 this reader knows",
            ),
            (
                "events: Ir\nxyz=1\n",
                "line 2: unknown specification `xyz=`",
            ),
            ("events: Ir\n!!\n", "line 2: not a callgrind line: `!!`"),
            (
                "events: Ir\n\u{1b}[2J\n",
                "line 2: not a callgrind line: `\\u{1b}[2J`",
            ),
            (
                "positions: column\n",
                "line 1: unknown positions `column` (expected `line` and/or `instr`)",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(error(text), expected, "for {text:?}");
        }
    }

    #[test]
    fn refuses_binary_and_overlong_lines() {
        let bytes: &[u8] = b"events: Ir\n\xff\xfe\n";
        assert!(matches!(parse(bytes), Err(ParseError::Io(_))));
        let long = format!("events: Ir\nfn={}\n", "a".repeat(MAX_LINE + 1));
        assert_eq!(
            error(&long),
            "line 2: longer than the 65536 bytes of a callgrind line"
        );
    }

    #[test]
    fn what_the_summary_holds_beyond_the_totals_is_unattributed() {
        // As callgrind writes a whole-program run: `summary:` 2 Ir above the cost lines.
        let text = "events: Ir Dr\nsummary: 12 5\nfn=main\n1 10 5\ntotals: 10 5\n";
        let graph = graph(text);
        assert_eq!(graph.totals, [10, 5]);
        assert_eq!(graph.unattributed, [2, 0]);
        assert_eq!(graph.nodes[0].self_cost, [10, 5]);
    }

    #[test]
    fn keeps_one_event_when_asked() {
        let options = Options {
            event: Some("Dr".into()),
            ..Options::default()
        };
        let graph = parse_with(COMPRESSED.as_bytes(), &options).unwrap();
        assert_eq!(graph.events, ["Dr"]);
        assert_eq!(graph.totals, [4]);
        let main = &graph.nodes[graph.node("main").unwrap()];
        assert_eq!(main.self_cost, [1]);
        assert_eq!(main.by_address.iter().next(), Some((0x10, &[1][..])));
        let helper = graph.node("demo::helper").unwrap();
        assert_eq!(main.call(helper).unwrap().cost, [3]);
        let options = Options {
            event: Some("Bc".into()),
            ..Options::default()
        };
        assert_eq!(
            parse_with(COMPRESSED.as_bytes(), &options)
                .unwrap_err()
                .to_string(),
            "line 4: records no Bc (its events: Ir Dr)"
        );
    }

    #[test]
    fn refuses_a_file_larger_than_its_memory_limit() {
        let mut text = String::from("events: Ir\n");
        for i in 0..1_000 {
            text.push_str(&format!("fn=function_number_{i}\n1 1\n"));
        }
        text.push_str("totals: 1000\n");
        assert_eq!(graph(&text).nodes.len(), 1_000);
        let options = Options {
            event: None,
            max_bytes: 100_000,
            ..Options::default()
        };
        let error = parse_with(text.as_bytes(), &options)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("too large: at line ")
                && error.contains("more than the 100000 bytes this reader may hold"),
            "{error}"
        );
    }

    #[test]
    fn merges_the_calls_to_one_callee_and_the_costs_of_one_address() {
        let text = "positions: instr\nevents: Ir\nfn=f\n0x10 1\n0x10 2\n0x14 1\n0x10 1\n\
                    cfn=g\ncalls=1 0x20\n0x10 5\ncfn=h\ncalls=2 0x30\n0x10 7\n\
                    cfn=g\ncalls=3 0x20\n0x14 6\nfn=g\n0x20 11\nfn=h\n0x30 7\ntotals: 23\n";
        let graph = graph(text);
        let f = &graph.nodes[0];
        let calls: Vec<(usize, u64, Vec<u64>)> = f
            .calls
            .iter()
            .map(|(callee, call)| (*callee, call.count, call.cost.clone()))
            .collect();
        assert_eq!(calls, [(1, 4, vec![11]), (2, 2, vec![7])]);
        let addresses: Vec<(u64, Vec<u64>)> =
            f.by_address.iter().map(|(a, c)| (a, c.to_vec())).collect();
        assert_eq!(
            addresses,
            [(0x10, vec![3]), (0x14, vec![1]), (0x10, vec![1])]
        );
        assert_eq!(f.self_cost, [5]);
    }

    #[test]
    fn holds_each_name_once() {
        let graph =
            graph("events: Ir\nfl=a.rs\nfn=f\n1 1\ncfn=g\ncalls=1 1\n1 1\nfn=g\n1 1\ntotals: 2\n");
        let [f, g] = [0, 1].map(|i| &graph.nodes[i]);
        assert!(Arc::ptr_eq(&f.file, &g.file));
        assert_eq!(&*g.name, "g");
    }

    #[test]
    fn demangles_rust_symbols_and_keeps_others() {
        assert_eq!(
            demangle("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write"
        );
        assert_eq!(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
        assert_eq!(demangle("memcpy@@GLIBC_2.14"), "memcpy@@GLIBC_2.14");
        assert_eq!(demangle("<T as core::Trait>::f"), "<T as core::Trait>::f");
    }
}
