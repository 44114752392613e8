//! What a relocated field refers to: the x86-64 relocation types and their widths, the
//! addresses a field may point at, and what lies there (a function by its key, or a data item,
//! its extent exact from a sized symbol or the link map, else coarse).

use object::elf;
use object::read::SymbolIndex;
use object::read::elf::Sym;

use super::Reader;
use super::map::Kind;
use super::parse::{Extent, LE, Reloc};
use crate::error::Result;

// x86-64 relocation types (the psABI's numbers).
const R_NONE: u32 = 0;
const R_64: u32 = 1;
const R_PC32: u32 = 2;
const R_PLT32: u32 = 4;
const R_GOTPCREL: u32 = 9;
const R_32: u32 = 10;
const R_32S: u32 = 11;
const R_DTPOFF64: u32 = 17;
const R_TPOFF64: u32 = 18;
const R_TLSGD: u32 = 19;
const R_TLSLD: u32 = 20;
const R_DTPOFF32: u32 = 21;
const R_GOTTPOFF: u32 = 22;
const R_TPOFF32: u32 = 23;
const R_PC64: u32 = 24;
const R_GOTPCRELX: u32 = 41;
const R_REX_GOTPCRELX: u32 = 42;

/// The width in bytes of a relocated field, `None` for a type irgate does not know.
pub(super) fn width(kind: u32) -> Option<u64> {
    match kind {
        R_NONE => Some(0),
        R_PC32 | R_PLT32 | R_GOTPCREL | R_GOTPCRELX | R_REX_GOTPCRELX | R_32 | R_32S
        | R_TPOFF32 | R_GOTTPOFF | R_TLSGD | R_TLSLD | R_DTPOFF32 => Some(4),
        R_64 | R_PC64 | R_DTPOFF64 | R_TPOFF64 => Some(8),
        _ => None,
    }
}

/// What a relocated field refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// The function or import of this symbol index, by its key.
    Key(usize),
    /// Data, at this offset into it.
    Data(Extent, u64),
    /// Something with no content of its own (the TLS module).
    Marker(&'static str),
}

impl Reader<'_> {
    pub(super) fn targets(&mut self, r: Reloc, in_code: bool, place: u64) -> Result<Vec<Target>> {
        let index = r.symbol as usize;
        let mut s = 0u64;
        if index != 0 {
            let symbol = self.symtab.symbol(SymbolIndex(index)).map_err(|_| {
                self.refuse(format!(
                    "relocation at 0x{:x} names symbol #{index}, past the symbol table's {}",
                    r.offset,
                    self.symtab.len()
                ))
            })?;
            let kind = symbol.st_type();
            if r.kind == R_TLSLD {
                return Ok(vec![Target::Marker("tls-module")]);
            }
            if self.keys.get(index).is_some_and(Option::is_some) {
                return Ok(vec![Target::Key(index)]);
            }
            if let Some(whole) = self.section_bound(index, symbol.st_value(LE)) {
                return Ok(vec![Target::Data(
                    whole.0,
                    whole.1.wrapping_add(r.addend as u64),
                )]);
            }
            let section = self.symbol_section(index, symbol);
            if (kind == elf::STT_OBJECT || kind == elf::STT_TLS)
                && symbol.st_size(LE) > 0
                && let Some(extent) = self.symbol_extent(index)?
            {
                // A named object: the compiler referred to it; the addend says where in it.
                return Ok(vec![Target::Data(extent, r.addend as u64)]);
            }
            if matches!(
                r.kind,
                R_TPOFF32 | R_GOTTPOFF | R_TLSGD | R_DTPOFF32 | R_DTPOFF64 | R_TPOFF64
            ) {
                // Thread-local data by section: the whole section.
                return Ok(
                    match section.and_then(|i| self.sections.get(i).map(|s| (i, s))) {
                        Some((i, sec)) => vec![Target::Data(
                            Extent {
                                section: i,
                                start: sec.addr,
                                end: sec.end(),
                            },
                            r.addend as u64,
                        )],
                        None => vec![Target::Marker("tls")],
                    },
                );
            }
            s = symbol.st_value(LE);
            if kind == elf::STT_TLS {
                s = s.wrapping_add(self.tls_base);
            }
        }
        let target = s.wrapping_add(r.addend as u64);
        let points: Vec<u64> = match r.kind {
            R_GOTPCREL | R_GOTPCRELX | R_REX_GOTPCRELX => vec![s],
            R_PC32 | R_PLT32 if in_code => [4, 5, 6, 8]
                .iter()
                .map(|k| target.wrapping_add(*k))
                .collect(),
            R_PC64 if in_code => [8, 9, 10, 12]
                .iter()
                .map(|k| target.wrapping_add(*k))
                .collect(),
            // In data, relative to the field itself or to the table that holds it.
            R_PC32 | R_PLT32 | R_PC64 => vec![target, target.wrapping_sub(place)],
            _ => vec![target],
        };
        let mut targets: Vec<Target> = Vec::with_capacity(points.len());
        for point in points {
            let Some(found) = self.resolve(point) else {
                continue;
            };
            let duplicate = targets.iter().any(|t| match (t, &found) {
                (Target::Data(a, _), Target::Data(b, _)) => a == b,
                (a, b) => a == b,
            });
            if !duplicate {
                targets.push(found);
            }
        }
        Ok(targets)
    }

    /// For a symbol the linker defines at a bound of an output section (`__start_X` and
    /// `__stop_X`, through which code walks a registry of entries placed in section `X`, as the
    /// `linkme` crate does): the whole section and the symbol's offset in it. Code that reads one
    /// entry through the bound may read them all.
    fn section_bound(&self, index: usize, value: u64) -> Option<(Extent, u64)> {
        let symbol = self.symtab.symbol(SymbolIndex(index)).ok()?;
        let name = self.symtab.symbol_name(LE, symbol).ok()?;
        let section = name
            .strip_prefix(b"__start_")
            .or_else(|| name.strip_prefix(b"__stop_"))?;
        let (i, found) = self
            .sections
            .iter()
            .enumerate()
            .find(|(_, s)| s.alloc && s.name.as_bytes() == section)?;
        let extent = Extent {
            section: i,
            start: found.addr,
            end: found.end(),
        };
        Some((extent, value.wrapping_sub(found.addr)))
    }

    /// Code at `address` of executable section `index` that no sized function covers (assembly
    /// without `.size`, such as `global_asm!`'s): the stretch from the end of the function before
    /// it (or the section's start) to the start of the next one (or the section's end), hashed as
    /// data, so whatever refers to it changes when it does. `at` is the index of the first function
    /// starting after `address`. Alignment padding (only `int3`, `nop` and zero bytes) is no code.
    fn unsized_code(&self, index: usize, at: usize, address: u64) -> Option<Target> {
        let section = &self.sections[index];
        let start = self.functions[..at]
            .iter()
            .rev()
            .take(8)
            .filter(|f| f.section == index)
            .map(|f| f.end)
            .max()
            .unwrap_or(section.addr)
            .max(section.addr);
        let end = self
            .functions
            .get(at)
            .filter(|f| f.section == index)
            .map_or(section.end(), |f| f.start)
            .min(section.end());
        let from = usize::try_from(start - section.addr).ok()?;
        let to = usize::try_from(end - section.addr).ok()?;
        if is_padding(section.data.get(from..to)?) {
            return None;
        }
        let extent = Extent {
            section: index,
            start,
            end,
        };
        Some(Target::Data(extent, address - start))
    }

    /// Every stretch of executable code that no sized function covers (the C runtime's
    /// `frame_dummy` and `__do_global_dtors_aux`, assembly without `.size`, PLT stubs), alignment
    /// padding left out, in address order.
    pub(super) fn unsized_stretches(&self) -> Vec<Extent> {
        let mut stretches = Vec::new();
        for (index, section) in self.sections.iter().enumerate() {
            if !section.exec || !section.alloc || section.nobits {
                continue;
            }
            let mut cursor = section.addr;
            let covered = self.functions.iter().filter(|f| f.section == index);
            let ends = covered
                .map(|f| (f.start, f.end))
                .chain([(section.end(), section.end())]);
            for (start, end) in ends {
                if start > cursor {
                    let from = (cursor - section.addr) as usize;
                    let to = (start - section.addr) as usize;
                    if !section.data.get(from..to).is_none_or(is_padding) {
                        stretches.push(Extent {
                            section: index,
                            start: cursor,
                            end: start,
                        });
                    }
                }
                cursor = cursor.max(end);
            }
        }
        stretches.sort_by_key(|e| e.start);
        stretches
    }

    /// What lies at `address`: a function (by key), a data item, or nothing.
    fn resolve(&mut self, address: u64) -> Option<Target> {
        let at = self
            .by_address
            .partition_point(|&i| self.sections[i].addr <= address);
        let index = *self.by_address.get(at.checked_sub(1)?)?;
        let section = &self.sections[index];
        if address >= section.end() {
            return None;
        }
        if section.exec {
            let at = self.functions.partition_point(|f| f.start <= address);
            if let Some(f) = self.functions[..at]
                .iter()
                .rev()
                .take(8)
                .find(|f| address < f.end)
            {
                return Some(Target::Key(f.symbol));
            }
            return self.unsized_code(index, at, address);
        }
        let clip = |start: u64, end: u64| Extent {
            section: index,
            start: start.max(section.addr),
            end: end.min(section.end()),
        };
        let at = self.objects.partition_point(|o| o.0 <= address);
        if let Some(&(start, end)) = at.checked_sub(1).and_then(|i| self.objects.get(i))
            && address < end
        {
            return Some(Target::Data(clip(start, end), address - start));
        }
        if let Some(input) = self.map.as_ref().and_then(|m| m.input(address)) {
            let input_end = input.start.saturating_add(input.size);
            let extent = match input.kind {
                Kind::Whole => clip(input.start, input_end),
                Kind::Constants(n) => {
                    let start = input.start + (address - input.start) / n * n;
                    clip(start, start.saturating_add(n).min(input_end))
                }
                Kind::Strings(unit) => {
                    let start = input.start + (address - input.start) / unit * unit;
                    let extent = clip(start, input_end);
                    let end = if section.nobits {
                        extent.start.saturating_add(unit).min(extent.end)
                    } else {
                        let from = (extent.start - section.addr) as usize;
                        let to = (extent.end - section.addr) as usize;
                        let bytes = section.data.get(from..to).unwrap_or(&[]);
                        self.work = self.work.saturating_add(bytes.len() as u64 / 8);
                        bytes
                            .chunks(unit as usize)
                            .position(|c| c.iter().all(|&b| b == 0))
                            .map_or(extent.end, |i| extent.start + (i as u64 + 1) * unit)
                    };
                    Extent {
                        end: end.min(extent.end),
                        ..extent
                    }
                }
            };
            return Some(Target::Data(extent, address - extent.start));
        }
        if let Some(map) = &self.map
            && map
                .outputs
                .iter()
                .any(|o| address >= o.start && address - o.start < o.size)
        {
            // Between the input sections of an output section the map lists: alignment padding,
            // which is no object.
            return None;
        }
        // Coarse: from the previous sized object (or the section's start) to the next one.
        let previous = at
            .checked_sub(1)
            .and_then(|i| self.objects.get(i))
            .map_or(0, |o| o.1);
        let next = self.objects.get(at).map_or(u64::MAX, |o| o.0);
        let extent = clip(previous, next);
        self.coarse += 1;
        if self.coarse_why.is_none() {
            self.coarse_why = Some(match &self.no_map {
                Some(why) => why.clone(),
                None => format!(
                    "address 0x{address:x} in {} is in no input section of the link map",
                    section.name
                ),
            });
        }
        Some(Target::Data(extent, address - extent.start))
    }
}

/// Whether `bytes` are alignment padding only (`int3`, `nop`s and zeros): no code.
fn is_padding(bytes: &[u8]) -> bool {
    const PADDING: &[u8] = &[
        0x00, 0x90, 0xcc, 0x66, 0x2e, 0x0f, 0x1f, 0x40, 0x44, 0x80, 0x84,
    ];
    bytes.iter().all(|b| PADDING.contains(b))
}
