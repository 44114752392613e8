//! The link map a linker writes with `-Map=<file>`: where each input section landed. Two formats:
//! lld's (the default linker of rustc on x86-64 Linux; columns `VMA LMA Size Align Out In Symbol`)
//! and GNU ld's (`Linker script and memory map`). Only addresses, sizes and section names are read.

/// How the bytes of one input section divide into the objects code can refer to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// One object: the whole input section (rustc's `.rodata..Lanon.<hash>.<n>`, C's `.rodata.tab`).
    Whole,
    /// A merged constant section (`.rodata.cst16`): entries of this many bytes.
    Constants(u64),
    /// A merged string section (`.rodata.str1.1`): strings of units of this many bytes, each up to
    /// and including its terminating zero unit.
    Strings(u64),
}

/// One input section of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Input {
    /// Its address.
    pub start: u64,
    /// Its size in bytes.
    pub size: u64,
    /// How it divides.
    pub kind: Kind,
    /// The output section holding it (an index into [`Map::outputs`]).
    pub output: usize,
}

/// One output section of the map: `name` at `start`, `size` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    pub name: String,
    pub start: u64,
    pub size: u64,
}

/// A parsed map: input sections sorted by address (none of size zero), and output sections.
#[derive(Debug, Default)]
pub(crate) struct Map {
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
}

impl Map {
    /// Keeps the output sections `keep` accepts (by name) and their input sections, sorted; of
    /// overlapping input sections (a malformed map) the first.
    pub fn retain_outputs(&mut self, keep: impl Fn(&str) -> bool) {
        let outputs = &self.outputs;
        self.inputs
            .retain(|i| i.size > 0 && outputs.get(i.output).is_some_and(|o| keep(&o.name)));
        self.inputs.sort_by_key(|i| (i.start, i.size));
        let mut end = 0u64;
        self.inputs.retain(|i| {
            let keep = i.start >= end;
            if keep {
                end = i.start.saturating_add(i.size);
            }
            keep
        });
        self.outputs.retain(|o| keep(&o.name));
    }

    /// The input section holding `address`, if any.
    pub fn input(&self, address: u64) -> Option<&Input> {
        let at = self.inputs.partition_point(|i| i.start <= address);
        let input = self.inputs.get(at.checked_sub(1)?)?;
        (address - input.start < input.size).then_some(input)
    }
}

/// The kind of an input section by its name: `…cstN` constants, `…strK.A` strings, or whole.
pub(crate) fn kind(name: &str) -> Kind {
    let mut parts = name.rsplit('.');
    let last = parts.next().unwrap_or("");
    let number = |s: &str| s.parse::<u64>().ok().filter(|n| (1..=64).contains(n));
    if let Some(n) = last.strip_prefix("cst").and_then(number) {
        return Kind::Constants(n);
    }
    if last.parse::<u64>().is_ok()
        && let Some(k) = parts
            .next()
            .and_then(|p| p.strip_prefix("str"))
            .and_then(number)
    {
        return Kind::Strings(k);
    }
    Kind::Whole
}

/// Parses `text` as an lld or a GNU ld map. `None` when it is neither.
pub(crate) fn parse(text: &str) -> Option<Map> {
    let first = text.lines().next().unwrap_or("");
    let map = if first
        .split_whitespace()
        .eq(["VMA", "LMA", "Size", "Align", "Out", "In", "Symbol"])
    {
        parse_lld(text)
    } else if let Some(at) = text.find("\nLinker script and memory map") {
        parse_gnu(&text[at..])
    } else {
        return None;
    };
    (!map.outputs.is_empty()).then_some(map)
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

/// lld: `%16x %16x %8x %5u ` then the Out column, the In column 8 spaces further, the Symbol
/// column 16 further. An input section is `file:(name)` or `<internal>:(name)`.
fn parse_lld(text: &str) -> Map {
    let mut map = Map::default();
    for line in text.lines().skip(1) {
        let mut rest = line;
        let mut tokens = [""; 4];
        for token in &mut tokens {
            let trimmed = rest.trim_start_matches(' ');
            let end = trimmed.find(' ').unwrap_or(trimmed.len());
            *token = &trimmed[..end];
            rest = &trimmed[end..];
        }
        let (Some(start), Some(_), Some(size)) = (hex(tokens[0]), hex(tokens[1]), hex(tokens[2]))
        else {
            continue;
        };
        if tokens[3].parse::<u64>().is_err() {
            continue;
        }
        let Some(column) = rest.strip_prefix(' ') else {
            continue;
        };
        let indent = column.len() - column.trim_start_matches(' ').len();
        let name = column.trim();
        match indent {
            0 => map.outputs.push(Output {
                name: name.to_owned(),
                start,
                size,
            }),
            8 => {
                let Some(open) = name.rfind(":(") else {
                    continue;
                };
                let inner = name[open + 2..].trim_end_matches(')');
                let section = inner.split('+').next().unwrap_or(inner);
                let Some(output) = map.outputs.len().checked_sub(1) else {
                    continue;
                };
                map.inputs.push(Input {
                    start,
                    size,
                    kind: kind(section),
                    output,
                });
            }
            _ => {}
        }
    }
    map
}

/// GNU ld: after `Linker script and memory map`, an output section starts at column 0, an input
/// section at column 1 (` .rodata.tab 0x… 0x… file`); a long name puts the address and size on
/// the next line. Lines of patterns (` *(…)`), fill and symbols are skipped.
fn parse_gnu(text: &str) -> Map {
    let mut map = Map::default();
    // A name whose address and size are on the next line: (name, is output).
    let mut pending: Option<(&str, bool)> = None;
    for line in text.lines().skip(2) {
        let tokens: Vec<&str> = line.split_whitespace().take(4).collect();
        let numbers = |at: usize| {
            Some((hex(tokens.get(at)?)?, hex(tokens.get(at + 1)?)?))
                .filter(|_| tokens[at].starts_with("0x") && tokens[at + 1].starts_with("0x"))
        };
        if let Some((name, output)) = pending.take()
            && let Some((start, size)) = numbers(0)
        {
            record(&mut map, name, output, start, size);
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let (output, body) = match line.strip_prefix(' ') {
            None => (true, line),
            Some(body) if !body.starts_with(' ') => (false, body),
            Some(_) => continue,
        };
        if body.starts_with("*fill*") {
            // Padding after the previous input section: it ends here at the latest.
            if let Some((start, _)) = numbers(1) {
                clip_last(&mut map, start);
            }
            continue;
        }
        if body.starts_with('*') || tokens.is_empty() {
            continue;
        }
        let name = tokens[0];
        if !output && !name.starts_with('.') && name != "COMMON" {
            continue;
        }
        match numbers(1) {
            Some((start, size)) => record(&mut map, name, output, start, size),
            None if tokens.len() == 1 => pending = Some((name, output)),
            None => {}
        }
    }
    map
}

/// Ends the last input section at `start` when it claims to reach past it. GNU ld lists an input
/// section whose strings were merged into an earlier one with its size before merging, at the
/// place where the next input section (or padding) then starts: it holds nothing of its own.
fn clip_last(map: &mut Map, start: u64) {
    if let Some(last) = map.inputs.last_mut()
        && Some(last.output) == map.outputs.len().checked_sub(1)
        && last.start <= start
        && start - last.start < last.size
    {
        last.size = start - last.start;
    }
}

fn record(map: &mut Map, name: &str, output: bool, start: u64, size: u64) {
    if !output {
        clip_last(map, start);
    }
    if output {
        map.outputs.push(Output {
            name: name.to_owned(),
            start,
            size,
        });
    } else if let Some(output) = map.outputs.len().checked_sub(1) {
        map.inputs.push(Input {
            start,
            size,
            kind: kind(name),
            output,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name() {
        assert_eq!(kind(".rodata.cst16"), Kind::Constants(16));
        assert_eq!(kind(".rodata.str1.1"), Kind::Strings(1));
        assert_eq!(kind(".rodata.msg.str1.1"), Kind::Strings(1));
        assert_eq!(kind(".rodata.str4.4"), Kind::Strings(4));
        assert_eq!(kind(".rodata..Lanon.abc.3"), Kind::Whole);
        assert_eq!(kind(".rodata.cst0"), Kind::Whole);
        assert_eq!(kind(".rodata.tab"), Kind::Whole);
    }

    #[test]
    fn lld_map() {
        let text = "             VMA              LMA     Size Align Out     In      Symbol
             600              600       70    32 .rodata
             600              600        4     4         <internal>:(.rodata.cst4)
             604              604       1e     1         <internal>:(.rodata.msg.str1.1)
             640              640       20    32         /tmp/x.o:(.rodata.tab)
             640              640       20     1                 tab
             670              670       2c     1         /a/Scrt1.o:(.eh_frame+0x0)
               0                0   107995     1 .debug_info
             5f0              5f0     1000     1         /a/b.o:(.debug_info)
";
        let mut map = parse(text).unwrap();
        assert_eq!(map.outputs.len(), 2);
        // .debug_info's addresses are offsets in it: dropped, or it would hide .rodata.
        map.retain_outputs(|name| name == ".rodata");
        assert_eq!(map.outputs.len(), 1);
        assert_eq!(map.outputs[0].name, ".rodata");
        assert_eq!(map.inputs.len(), 4);
        assert_eq!(map.input(0x605).unwrap().kind, Kind::Strings(1));
        assert_eq!(map.input(0x65f).unwrap().start, 0x640);
        assert!(map.input(0x660).is_none());
    }

    #[test]
    fn gnu_map() {
        let text = "Discarded input sections

 .text          0x0000000000000000        0x0 /tmp/x.o

Linker script and memory map

.rodata         0x0000000000002000       0x70
 *(.rodata .rodata.* .gnu.linkonce.r.*)
 .rodata.cst4   0x0000000000002000        0x4 /usr/lib/Scrt1.o
                0x0000000000002000                _IO_stdin_used
 .rodata.msg.str1.1
                0x0000000000002004       0x14 /tmp/x.o
 *fill*         0x0000000000002022       0x1e 
 .rodata.tab    0x0000000000002040       0x20 /tmp/x.o
";
        let mut map = parse(text).unwrap();
        map.retain_outputs(|name| name == ".rodata");
        assert_eq!(map.outputs[0].start, 0x2000);
        assert_eq!(map.inputs.len(), 3, "{map:?}");
        assert_eq!(map.input(0x2005).unwrap().kind, Kind::Strings(1));
        assert!(map.input(0x2030).is_none());
        assert_eq!(map.input(0x2041).unwrap().size, 0x20);
    }

    /// GNU ld 2.44 (Debian trixie) lists an input section whose strings were merged into the
    /// first one with its size before merging, overlapping what follows: it ends where the next
    /// input section or padding starts (here: nothing of its own), so the constants after it are
    /// found as constants, not as the tail of a string.
    #[test]
    fn gnu_map_with_strings_merged_away() {
        let map = |second: &str, after: &str| {
            let text = format!(
                "Discarded input sections

Linker script and memory map

.rodata         0x0000000000002000       0x50
 *(.rodata .rodata.* .gnu.linkonce.r.*)
 .rodata.first.str1.1
                0x0000000000002004       0x35 /tmp/cc1.o
                                         0x1a (size before relaxing)
 .rodata.second.str1.1
                {second} /tmp/cc1.o
{after}"
            );
            let mut map = parse(&text).unwrap();
            map.retain_outputs(|name| name == ".rodata");
            map
        };
        // Padding follows at the merged-away section's own address.
        let padded = map(
            "0x0000000000002039       0x1b",
            " *fill*         0x0000000000002039        0x7 \n .rodata.cst8   0x0000000000002040       0x10 /tmp/cc1.o\n",
        );
        assert_eq!(padded.input(0x2040).unwrap().kind, Kind::Constants(8));
        assert_eq!(padded.input(0x2039), None);
        assert_eq!(padded.input(0x2010).unwrap().kind, Kind::Strings(1));
        // The next input section starts at the same address.
        let packed = map(
            "0x0000000000002038       0x1a",
            " .rodata.cst8   0x0000000000002038       0x10 /tmp/cc1.o\n",
        );
        assert_eq!(packed.input(0x2038).unwrap().kind, Kind::Constants(8));
        assert_eq!(packed.input(0x2040).unwrap().start, 0x2038);
    }

    #[test]
    fn neither_format() {
        assert!(parse("").is_none());
        assert!(parse("hello\nworld").is_none());
    }
}
