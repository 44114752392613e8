//! Reading a linked x86-64 ELF object, every bound checked: its sections, the relocations
//! `--emit-relocs` kept, its function and data symbols, and its link map; refusing what irgate
//! cannot read (see [`super`]'s "What is refused").

use std::collections::HashMap;

use object::LittleEndian;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Rela, SectionHeader, Sym};
use object::read::{SectionIndex, SymbolIndex};

use super::{Reader, instance, key, map};
use crate::error::{Error, Result};

pub(super) type Elf = elf::FileHeader64<LittleEndian>;
pub(super) const LE: LittleEndian = LittleEndian;

fn machine(number: u16) -> String {
    match number {
        3 => "32-bit x86".into(),
        40 => "arm".into(),
        183 => "aarch64".into(),
        243 => "riscv".into(),
        8 => "mips".into(),
        20 => "powerpc".into(),
        21 => "powerpc64".into(),
        22 => "s390".into(),
        n => format!("machine {n}"),
    }
}

/// One relocation: at `offset` (an address), of `kind`, against symbol `symbol` plus `addend`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reloc {
    pub(super) offset: u64,
    pub(super) kind: u32,
    pub(super) symbol: u32,
    pub(super) addend: i64,
}

pub(super) struct Section<'d> {
    pub(super) name: String,
    pub(super) addr: u64,
    pub(super) size: u64,
    pub(super) alloc: bool,
    pub(super) exec: bool,
    pub(super) tls: bool,
    pub(super) nobits: bool,
    pub(super) data: &'d [u8],
    pub(super) relocs: Vec<Reloc>,
    pub(super) has_rela: bool,
}

impl Section<'_> {
    pub(super) fn end(&self) -> u64 {
        self.addr.saturating_add(self.size)
    }

    /// The relocations whose offset is in `[start, end)`.
    pub(super) fn relocs_in(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        let lo = self.relocs.partition_point(|r| r.offset < start);
        let hi = self.relocs.partition_point(|r| r.offset < end);
        lo..hi.max(lo)
    }
}

/// A function instance: symbol `symbol`, bytes `[start, end)` of section `section`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Function {
    pub(super) symbol: usize,
    pub(super) section: usize,
    pub(super) start: u64,
    pub(super) end: u64,
}

/// A data item: bytes `[start, end)` (addresses) of section `section`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Extent {
    pub(super) section: usize,
    pub(super) start: u64,
    pub(super) end: u64,
}

impl<'d> Reader<'d> {
    pub(super) fn new(
        origin: &str,
        data: &'d [u8],
        map_text: Option<&str>,
        map_origin: &str,
        roots: Vec<Vec<u8>>,
    ) -> Result<Self> {
        let refuse = |message: String| Error::invalid(origin, message);
        if data.len() < 64 || &data[..4] != b"\x7fELF" {
            return Err(refuse(
                "not an ELF file, so irgate cannot read its code".into(),
            ));
        }
        let machine_number = u16::from_le_bytes([data[18], data[19]]);
        if data[4] != 2 || data[5] != 1 || machine_number != 62 {
            let what = if data[4] != 2 || data[5] != 1 {
                "32-bit or big-endian ELF".to_owned()
            } else {
                machine(machine_number)
            };
            return Err(refuse(format!(
                "irgate reads x86-64 code only; {what} is not supported yet"
            )));
        }
        let bad = |e: object::read::Error| refuse(format!("malformed ELF: {e}"));
        let header = Elf::parse(data).map_err(bad)?;
        let file_type = header.e_type(LE).0;
        if file_type != elf::ET_EXEC.0 && file_type != elf::ET_DYN.0 {
            return Err(refuse(format!(
                "not a linked executable or shared object (ELF type {file_type}); irgate reads \
                 linked objects"
            )));
        }
        let table = header.sections(LE, data).map_err(bad)?;
        let symtab = table.symbols(LE, data, elf::SHT_SYMTAB).map_err(bad)?;
        if symtab.is_empty() {
            return Err(refuse(
                "has no symbol table (.symtab): it is stripped, so irgate cannot find its \
                 functions. Build it without stripping"
                    .into(),
            ));
        }
        let mut sections = Vec::with_capacity(table.len());
        for header in table.iter() {
            let flags = header.sh_flags(LE).0;
            let nobits = header.sh_type(LE) == elf::SHT_NOBITS;
            let name = table.section_name(LE, header).unwrap_or(b"?");
            let section_data = if nobits {
                &[][..]
            } else {
                header.data(LE, data).map_err(bad)?
            };
            let size = header.sh_size(LE);
            if !nobits && section_data.len() as u64 != size {
                return Err(refuse(format!(
                    "section {} has {size} bytes but {} in the file",
                    String::from_utf8_lossy(name),
                    section_data.len()
                )));
            }
            sections.push(Section {
                name: String::from_utf8_lossy(name).into_owned(),
                addr: header.sh_addr(LE),
                size,
                alloc: flags & elf::SHF_ALLOC.0 != 0,
                exec: flags & elf::SHF_EXECINSTR.0 != 0,
                tls: flags & elf::SHF_TLS.0 != 0,
                nobits,
                data: section_data,
                relocs: Vec::new(),
                has_rela: false,
            });
        }
        // Relocations against .symtab (the ones --emit-relocs keeps; not .rela.dyn/.rela.plt).
        for header in table.iter() {
            if header.sh_type(LE) != elf::SHT_RELA
                || header.sh_link(LE) as usize != symtab.section().0
            {
                continue;
            }
            let target = header.sh_info(LE) as usize;
            let Some(section) = sections.get_mut(target) else {
                continue;
            };
            if !section.alloc {
                continue;
            }
            let relas: &[elf::Rela64<LittleEndian>] =
                header.data_as_array(LE, data).map_err(bad)?;
            section.has_rela = true;
            section.relocs.extend(relas.iter().map(|r| Reloc {
                offset: r.r_offset(LE),
                kind: Rela::r_type(r, LE, false).0,
                symbol: Rela::r_sym(r, LE, false),
                addend: r.r_addend(LE),
            }));
        }
        for section in &mut sections {
            section.relocs.sort_by_key(|r| r.offset);
        }
        let text_bare = sections
            .iter()
            .any(|s| s.name == ".text" && s.size > 0 && !s.has_rela);
        let any_code_rela = sections.iter().any(|s| s.exec && s.has_rela);
        if text_bare || !any_code_rela {
            return Err(refuse(
                "linked without --emit-relocs (no .rela.text), so irgate cannot tell its \
                 functions' code apart. Link it with `-C link-arg=-Wl,--emit-relocs`"
                    .into(),
            ));
        }
        let mut by_address: Vec<usize> = (0..sections.len())
            .filter(|&i| {
                let s = &sections[i];
                s.alloc && s.size > 0 && !(s.tls && s.nobits)
            })
            .collect();
        by_address.sort_by_key(|&i| (sections[i].addr, i));
        let tls_base = header
            .program_headers(LE, data)
            .map_err(bad)?
            .iter()
            .find(|p| p.p_type(LE) == elf::PT_TLS)
            .map_or(0, |p| p.p_vaddr(LE));

        let mut reader = Reader {
            origin: origin.to_owned(),
            sections,
            by_address,
            symtab,
            keys: Vec::new(),
            tls_base,
            functions: Vec::new(),
            objects: Vec::new(),
            map: None,
            no_map: None,
            roots: roots.into(),
            memo: HashMap::new(),
            stack: Vec::new(),
            work: 0,
            budget: (data.len() as u64)
                .saturating_mul(16)
                .saturating_add(1 << 26),
            coarse: 0,
            coarse_why: None,
        };
        reader.read_symbols()?;
        reader.read_map(map_text, map_origin);
        Ok(reader)
    }

    pub(super) fn refuse(&self, message: String) -> Error {
        Error::invalid(&self.origin, message)
    }

    pub(super) fn symbol_name(&self, index: usize) -> String {
        let name = self
            .symtab
            .symbol(SymbolIndex(index))
            .and_then(|s| self.symtab.symbol_name(LE, s))
            .unwrap_or(b"?");
        String::from_utf8_lossy(name).into_owned()
    }

    /// The section of symbol `index`, `None` for an undefined or absolute one.
    pub(super) fn symbol_section(
        &self,
        index: usize,
        symbol: &elf::Sym64<LittleEndian>,
    ) -> Option<usize> {
        match self.symtab.symbol_section(LE, symbol, SymbolIndex(index)) {
            Ok(Some(SectionIndex(s))) => Some(s),
            _ => None,
        }
    }

    /// The extent of a sized data symbol, checked against its section.
    pub(super) fn symbol_extent(&self, index: usize) -> Result<Option<Extent>> {
        let Ok(symbol) = self.symtab.symbol(SymbolIndex(index)) else {
            return Ok(None);
        };
        let size = symbol.st_size(LE);
        let Some(section) = self.symbol_section(index, symbol) else {
            return Ok(None);
        };
        let tls = symbol.st_type() == elf::STT_TLS;
        let start = symbol
            .st_value(LE)
            .wrapping_add(if tls { self.tls_base } else { 0 });
        let s = self.sections.get(section).ok_or_else(|| {
            self.refuse(format!(
                "symbol {} is in no section",
                self.symbol_name(index)
            ))
        })?;
        match start.checked_add(size) {
            Some(end) if start >= s.addr && end <= s.end() => Ok(Some(Extent {
                section,
                start,
                end,
            })),
            _ => Err(self.refuse(format!(
                "symbol {} (0x{start:x}, {size} bytes) runs past its section {}",
                self.symbol_name(index),
                s.name
            ))),
        }
    }

    fn read_symbols(&mut self) -> Result<()> {
        let count = self.symtab.len();
        let mut keys = vec![None; count];
        let sections = &self.sections;
        let debug = instance::debug_names(|name| {
            sections
                .iter()
                .find(|s| s.name == name && !s.nobits)
                .map_or(&[][..], |s| s.data)
        });
        let mut named = Vec::new();
        let mut functions = Vec::new();
        let mut objects = Vec::new();
        for (index, symbol) in self.symtab.iter().enumerate() {
            let kind = symbol.st_type();
            let section = self.symbol_section(index, symbol);
            let undefined = symbol.st_shndx(LE) == elf::SHN_UNDEF;
            let is_function = kind == elf::STT_FUNC || kind == elf::STT_GNU_IFUNC;
            if index > 0 && (is_function || undefined) {
                let name = self.symtab.symbol_name(LE, symbol).unwrap_or(b"?");
                let name = String::from_utf8_lossy(name);
                // Sized functions are told apart by [`instance::function_keys`], below.
                if undefined || symbol.st_size(LE) == 0 {
                    keys[index] = Some(key(&name));
                } else {
                    named.push((index, name.into_owned(), symbol.st_value(LE)));
                }
            }
            let size = symbol.st_size(LE);
            if size == 0 || section.is_none() {
                continue;
            }
            if is_function {
                let section = section.unwrap_or_default();
                let start = symbol.st_value(LE);
                let s = self.sections.get(section);
                let end = start.checked_add(size);
                match (s, end) {
                    (Some(s), Some(end)) if start >= s.addr && end <= s.end() && !s.nobits => {
                        functions.push(Function {
                            symbol: index,
                            section,
                            start,
                            end,
                        });
                    }
                    _ => {
                        return Err(self.refuse(format!(
                            "function {} (0x{start:x}, {size} bytes) runs past its section",
                            self.symbol_name(index)
                        )));
                    }
                }
            } else if kind == elf::STT_OBJECT {
                if let Some(extent) = self.symbol_extent(index)? {
                    objects.push((extent.start, extent.end));
                }
            } else if kind == elf::STT_TLS {
                self.symbol_extent(index)?;
            }
        }
        let symbols: Vec<(&str, u64)> = named.iter().map(|(_, n, a)| (n.as_str(), *a)).collect();
        for ((index, _, _), function) in named.iter().zip(instance::function_keys(&symbols, &debug))
        {
            keys[*index] = Some(function);
        }
        functions.sort_by_key(|f| (f.start, f.end, f.symbol));
        objects.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(objects.len());
        for (start, end) in objects {
            match merged.last_mut() {
                Some(last) if start < last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        self.keys = keys;
        self.functions = functions;
        self.objects = merged;
        Ok(())
    }

    fn read_map(&mut self, text: Option<&str>, origin: &str) {
        let Some(text) = text else {
            self.no_map = Some(format!("no link map {origin}"));
            return;
        };
        let Some(map) = map::parse(text) else {
            self.no_map = Some(format!(
                "the link map {origin} is in neither lld's nor GNU ld's format"
            ));
            return;
        };
        let mut matched = 0;
        for output in &map.outputs {
            let Some(section) = self
                .sections
                .iter()
                .find(|s| s.alloc && s.name == output.name)
            else {
                continue;
            };
            if section.addr != output.start || section.size != output.size {
                self.no_map = Some(format!(
                    "the link map {origin} does not describe this object (its {} is at 0x{:x}, \
                     0x{:x} bytes; the object's at 0x{:x}, 0x{:x} bytes): a stale map?",
                    output.name, output.start, output.size, section.addr, section.size
                ));
                return;
            }
            matched += 1;
        }
        if matched == 0 {
            self.no_map = Some(format!(
                "the link map {origin} describes none of the object's sections"
            ));
            return;
        }
        let mut map = map;
        // Only the sections with addresses: not .debug_* (whose map addresses are offsets), not
        // .tbss (which takes no address range of its own).
        map.retain_outputs(|name| {
            self.sections
                .iter()
                .any(|s| s.name == name && s.alloc && !(s.tls && s.nobits))
        });
        self.map = Some(map);
    }
}
