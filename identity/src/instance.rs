//! Generic instances told apart. Under Rust's legacy mangling every instance of a generic function
//! (and every closure of one function) demangles to one name, so their keys were one unit. The
//! debug information names each function with its generic arguments (`scale<u8>`, `{closure#1}`),
//! and every irgate build keeps it (`debug = "line-tables-only"`): a legacy symbol's key takes
//! that name where the two differ ([`function_keys`]). Where an object has no such name for a
//! function, its key stays the demangled name, and its instances one unit.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use addr2line::gimli;
use object::LittleEndian;

use crate::error::{Error, Result};
use crate::key;

/// The names the debug information gives an object's functions, by start address: each
/// concrete function's own `DW_AT_name`, or its abstract origin's.
#[derive(Debug, Default)]
pub(crate) struct DebugNames(HashMap<u64, String>);

/// Reads the names of [`DebugNames`] from the sections `section` gives by name (empty for a
/// missing one). Debug information gimli cannot read leaves the names it did not reach out:
/// those functions keep their demangled name, which is sound (their instances stay one unit).
pub(crate) fn debug_names<'d>(section: impl Fn(&str) -> &'d [u8]) -> DebugNames {
    let mut names = HashMap::new();
    let load = |id: gimli::SectionId| -> std::result::Result<_, gimli::Error> {
        Ok(gimli::EndianSlice::new(
            section(id.name()),
            gimli::LittleEndian,
        ))
    };
    let Ok(dwarf) = gimli::Dwarf::load(load) else {
        return DebugNames(names);
    };
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut entries = unit.entries();
        while let Ok(Some(entry)) = entries.next_dfs() {
            if entry.tag() != gimli::DW_TAG_subprogram {
                continue;
            }
            let Some(low) = entry
                .attr_value(gimli::DW_AT_low_pc)
                .and_then(|v| dwarf.attr_address(&unit, v).ok().flatten())
            else {
                continue;
            };
            let own = entry.attr_value(gimli::DW_AT_name);
            // A concrete function that is also inlined elsewhere, or defined out of its
            // declaration, takes its name from the entry it refers to.
            let name = own.or_else(|| {
                [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
                    .into_iter()
                    .find_map(|at| match entry.attr_value(at) {
                        Some(gimli::AttributeValue::UnitRef(offset)) => unit
                            .entry(offset)
                            .ok()
                            .and_then(|origin| origin.attr_value(gimli::DW_AT_name)),
                        _ => None,
                    })
            });
            if let Some(text) = name.and_then(|v| dwarf.attr_string(&unit, v).ok()) {
                names
                    .entry(low)
                    .or_insert_with(|| String::from_utf8_lossy(text.slice()).into_owned());
            }
        }
    }
    DebugNames(names)
}

/// The keys of an object's function symbols, given as (symbol name, start address), in order:
/// [`key`] of each, and, for a legacy-mangled Rust symbol whose demangled name a function at
/// another address of the object shares (the instances of a generic, the closures of one
/// function), the name its debug information gives it where that differs from the demangled
/// name's last segment: its generic arguments when the debug name is the segment with them
/// (`core::hint::black_box` and `black_box<u8>` give `core::hint::black_box<u8>`), else the whole
/// debug name in brackets (`app::run::{{closure}}[{closure#1}]`). A function alone with its name
/// keeps it: which of several identical instances LLVM keeps when it merges them follows their
/// symbols' hashes, which a version bump changes, so the survivor's debug name can change
/// with nothing else. Symbols of other kinds (C, v0 mangling, whose names already tell instances
/// apart) keep [`key`]'s.
pub(crate) fn function_keys(symbols: &[(&str, u64)], names: &DebugNames) -> Vec<String> {
    let units: Vec<String> = symbols.iter().map(|(symbol, _)| key(symbol)).collect();
    let mut places: HashMap<&str, BTreeSet<u64>> = HashMap::new();
    for (unit, (_, address)) in units.iter().zip(symbols) {
        places.entry(unit).or_default().insert(*address);
    }
    let shared = |unit: &str| places.get(unit).is_some_and(|p| p.len() > 1);
    symbols
        .iter()
        .zip(&units)
        .map(|((symbol, address), unit)| {
            let debug = names
                .0
                .get(address)
                .filter(|_| legacy(symbol) && shared(unit));
            match debug {
                Some(debug) => told_apart(unit, debug),
                None => unit.clone(),
            }
        })
        .collect()
}

/// `unit` (a demangled name) told apart by `debug`, the name the debug information gives the
/// function: see [`function_keys`].
fn told_apart(unit: &str, debug: &str) -> String {
    let last = last_segment(unit);
    if debug == last {
        unit.to_owned()
    } else if let Some(arguments) = debug.strip_prefix(last).filter(|a| a.starts_with('<')) {
        format!("{unit}{arguments}")
    } else {
        format!("{unit}[{debug}]")
    }
}

/// The last segment of a demangled path: after its last `::` outside generic arguments
/// (`drop_in_place<app::Frame>` of `core::ptr::drop_in_place<app::Frame>`).
fn last_segment(path: &str) -> &str {
    let (mut depth, mut start, mut previous) = (0usize, 0, ' ');
    for (at, c) in path.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if previous != '-' => depth = depth.saturating_sub(1),
            ':' if depth == 0 && previous == ':' => start = at + 1,
            _ => {}
        }
        previous = c;
    }
    &path[start..]
}

/// Whether `symbol` is a legacy-mangled Rust symbol (`_ZN…17h<16 hex digits>E`), whose
/// demangled name drops what tells a generic's instances apart.
fn legacy(symbol: &str) -> bool {
    if !symbol.starts_with("_ZN") {
        return false;
    }
    // The hash ends the mangled name, before any suffix LLVM adds (`.llvm.123`); a path
    // segment may hold dots of its own (`vtable.shim`).
    symbol.match_indices("17h").any(|(at, _)| {
        let hash = &symbol.as_bytes()[at + 3..];
        hash.len() > 16
            && hash[..16].iter().all(u8::is_ascii_hexdigit)
            && hash[16] == b'E'
            && matches!(hash.get(17), None | Some(b'.'))
    })
}

/// The functions of an object whose keys the crate's rules told apart from their demangled name
/// (generic instances, closures), by that name (what callgrind's files call every instance): for
/// naming the instances that executed at given addresses ([`Instances::at`]).
#[derive(Debug, Default, Clone)]
pub struct Instances {
    /// By demangled name: (start, end, key) of each of its functions, sorted.
    by_name: BTreeMap<String, Vec<(u64, u64, String)>>,
}

impl Instances {
    /// The keys of the functions named `name` (as callgrind's files name a function: every
    /// instance alike) that hold one of `addresses` (the object's own addresses), or of all of
    /// them when none does; `None` when `name` is not a name this object tells instances of
    /// apart, so it is the key.
    pub fn at(
        &self,
        name: &str,
        addresses: impl IntoIterator<Item = u64>,
    ) -> Option<BTreeSet<String>> {
        let functions = self.by_name.get(name)?;
        let mut found = BTreeSet::new();
        for address in addresses {
            for (start, end, key) in functions {
                if (*start..*end).contains(&address) {
                    found.insert(key.clone());
                }
            }
        }
        if found.is_empty() {
            found.extend(functions.iter().map(|(_, _, key)| key.clone()));
        }
        Some(found)
    }
}

/// Reads the [`Instances`] of the object at `path`: its function symbols and its debug names.
pub fn instances(path: &Path) -> Result<Instances> {
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    let file = object::read::elf::ElfFile64::<LittleEndian>::parse(&*data)
        .map_err(|e| Error::invalid(path.display(), format!("not a readable ELF file: {e}")))?;
    let mut by_name: BTreeMap<String, Vec<(u64, u64, String)>> = BTreeMap::new();
    let mut split = BTreeSet::new();
    for (raw, start, size, function) in keyed_functions(&file) {
        let name = key(raw);
        if function != name {
            split.insert(name.clone());
        }
        by_name
            .entry(name)
            .or_default()
            .push((start, start.saturating_add(size), function));
    }
    by_name.retain(|name, functions| {
        functions.sort();
        split.contains(name)
    });
    Ok(Instances { by_name })
}

/// The sized function symbols of `file`, in symbol order, as (symbol name, start address, size,
/// key): the keys [`function_keys`] gives them with the file's debug names.
pub(crate) fn keyed_functions<'d>(
    file: &object::read::elf::ElfFile64<'d, LittleEndian>,
) -> Vec<(&'d str, u64, u64, String)> {
    use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
    let names = debug_names(|name| {
        file.section_by_name(name)
            .and_then(|s| s.data().ok())
            .unwrap_or(&[])
    });
    let functions: Vec<(&str, u64, u64)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| Some((s.name().ok()?, s.address(), s.size())))
        .collect();
    let symbols: Vec<(&str, u64)> = functions.iter().map(|(n, a, _)| (*n, *a)).collect();
    functions
        .into_iter()
        .zip(function_keys(&symbols, &names))
        .map(|((name, start, size), key)| (name, start, size, key))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pairs: &[(u64, &str)]) -> DebugNames {
        DebugNames(pairs.iter().map(|(a, n)| (*a, (*n).to_owned())).collect())
    }

    #[test]
    fn legacy_symbols_shared_by_functions_take_their_debug_names() {
        let debug = names(&[
            (0x10, "scale<u8>"),
            (0x20, "scale<u16>"),
            (0x30, "{closure#1}"),
            (0x40, "{closure#2}"),
            (0x50, "lonely<u8>"),
            (0x60, "black_box<u8>"),
        ]);
        let scale = "_ZN1g5scale17ha2dd05b2dd0945f1E";
        let closure = "_ZN1g4main28_$u7b$$u7b$closure$u7d$$u7d$17hce4fad770b70fd0cE";
        let symbols = [
            (scale, 0x10),
            ("_ZN1g5scale17hdd032614fe9fe2c5E.llvm.123", 0x20),
            // An alias of the first instance: the same address.
            ("_ZN1g5scale17h0000000000000000E", 0x10),
            // No debug name at the address: the demangled name.
            ("_ZN1g5scale17h1111111111111111E", 0x70),
            (closure, 0x30),
            (closure, 0x40),
            // Alone with its name: kept, whatever its debug name.
            ("_ZN1g6lonely17ha2dd05b2dd0945f1E", 0x50),
            // C and v0 symbols keep their names.
            ("black_box", 0x60),
            ("black_box", 0x80),
        ];
        assert_eq!(
            function_keys(&symbols, &debug),
            [
                "g::scale<u8>",
                "g::scale<u16>",
                "g::scale<u8>",
                "g::scale",
                "g::main::{{closure}}[{closure#1}]",
                "g::main::{{closure}}[{closure#2}]",
                "g::lonely",
                "black_box",
                "black_box",
            ]
        );
        assert_eq!(
            last_segment("core::ptr::drop_in_place<app::Frame>"),
            "drop_in_place<app::Frame>"
        );
        assert_eq!(last_segment("<a::B<u8> as c::D>::e"), "e");
        assert_eq!(last_segment("f<fn() -> a::B>::g"), "g");
        assert_eq!(last_segment("plain"), "plain");
        assert_eq!(
            told_apart(
                "core::ptr::drop_in_place<app::Frame>",
                "drop_in_place<app::Frame>"
            ),
            "core::ptr::drop_in_place<app::Frame>"
        );
        assert!(!legacy("_RNvCs1234_1g5scale"));
        assert!(!legacy("_ZN1g5scale17hXYZE"));
        assert!(legacy(
            "_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17h9bcd226f2c9c72d7E"
        ));
    }

    #[test]
    fn instances_are_named_by_the_addresses_that_executed() {
        let instances = Instances {
            by_name: BTreeMap::from([(
                "g::scale".to_owned(),
                vec![
                    (0x10, 0x20, "g::scale<u16>".to_owned()),
                    (0x20, 0x30, "g::scale<u8>".to_owned()),
                ],
            )]),
        };
        let at = |addresses: &[u64]| instances.at("g::scale", addresses.iter().copied());
        assert_eq!(
            at(&[0x24]),
            Some(BTreeSet::from(["g::scale<u8>".to_owned()]))
        );
        assert_eq!(at(&[0x10, 0x2f]).map(|s| s.len()), Some(2));
        // No address inside: every instance, not none.
        assert_eq!(at(&[]).map(|s| s.len()), Some(2));
        assert_eq!(instances.at("g::other", [0x24]), None);
    }
}
