//! The reader's state between the lines of a callgrind file: the header, name and position
//! compression, the current function, object and file, the part being read, and the bytes held.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Options, ParseError, demangle};
use crate::graph::{Call, CallGraph, Node, ObjectFile, add, merge_calls};

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
pub(super) struct Parser {
    options: Options,
    pub(super) graph: CallGraph,
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
    pub(super) held: usize,
    /// With [`Options::lines`]: the lines with a cost, by object and file, as read (a line
    /// repeated only when its cost lines were not consecutive).
    lines: HashMap<ObjectFile, Vec<u32>>,
}

impl Parser {
    /// A reader that keeps what `options` say.
    pub(super) fn new(options: Options) -> Parser {
        Parser {
            options,
            ..Parser::default()
        }
    }

    pub(super) fn line(&mut self, line: &str) -> Result<(), String> {
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

    pub(super) fn finish(mut self) -> Result<CallGraph, ParseError> {
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
            .map(|(key, lines)| (key, runs(lines)))
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

/// A decimal or `0x` hexadecimal number.
fn number(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("`{}` is not a number", excerpt(text)))
}

/// `1024 MiB`, or `100000 bytes` below a MiB.
pub(super) fn size(bytes: usize) -> String {
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

/// Line numbers as sorted, disjoint, non-adjacent runs, duplicates dropped: `[3, 1, 2, 7]` as
/// `1..=3, 7..=7`.
fn runs(mut lines: Vec<u32>) -> Vec<std::ops::RangeInclusive<u32>> {
    lines.sort_unstable();
    lines.dedup();
    let mut runs: Vec<std::ops::RangeInclusive<u32>> = Vec::new();
    for line in lines {
        match runs.last_mut() {
            // Sorted and deduplicated: `line` is above the end, so the end is below u32::MAX.
            Some(last) if *last.end() + 1 == line => *last = *last.start()..=line,
            _ => runs.push(line..=line),
        }
    }
    runs
}
