//! The code identity of a linked object (issue #32): for each function, a digest of its machine
//! code that changes when, and only when, what the function does could have changed.
//!
//! # The rule
//!
//! A function is every defined `STT_FUNC` (or `STT_GNU_IFUNC`) symbol of `.symtab` with a nonzero
//! size, local or global. Its digest covers its bytes with every relocated field set to zero, and,
//! for each relocation inside it (from the `.rela.*` sections `--emit-relocs` keeps), the field's
//! offset, the relocation type, and what the field refers to:
//!
//! - a function, or an undefined symbol (an import such as `memcpy`): its [`key`], never its
//!   address, so a change in a callee does not change its callers;
//! - data: its content over the exact extent of the object referred to, with the relocations
//!   inside the data followed the same way (a vtable names its functions by key; a `&str` in a
//!   panic location hashes the string's bytes). A data item met again while it is being hashed (a
//!   cycle) hashes as a marker and its distance from the cycle's start.
//!
//! A PC-relative field (`lea`, `mov`, `call`) points `4 + k` bytes past its end, `k` being the
//! size of an immediate after it (0, 1, 2 or 4); without decoding instructions every object at one
//! of those four addresses is taken. A data item's extent is, in order: the sized `STT_OBJECT` or
//! `STT_TLS` symbol holding the address; the input section of the link map (`<object>.map`, lld's
//! or GNU ld's `-Map` format) holding it, which is exact for rustc's anonymous constants (each in
//! its own `.rodata..Lanon.*` section), an `N`-byte entry in a merged `.cstN` section, a string up
//! to and including its terminating zero in a merged `.strN` section; failing both, everything
//! from the previous sized symbol to the next one (or the section's ends), which is sound but
//! coarse: [`Identity::imprecise`] then says why. `.bss` content is zeros. The directory prefixes
//! `roots` (the workspace, cargo's home) are replaced in data by one placeholder, so paths compiled
//! into panic messages do not make the identity depend on where the checkout is.
//!
//! Symbols with the same key (generic instances under legacy mangling, closures, C `static`
//! functions of the same name) form one unit, whose digest is the hash of their sorted digests: a
//! changed or added instance changes the unit.
//!
//! # What is refused
//!
//! A file that is not ELF, not 64-bit little-endian x86-64 (aarch64 and others are not supported
//! yet), not linked (a `.o`), stripped (no `.symtab`), or linked without `--emit-relocs` (no
//! `.rela.text`); a relocation type whose width irgate does not know; a symbol or relocation that
//! points outside its section or function; data that refers to itself too deeply. Each with an
//! error naming the file and the reason; no input makes the reader panic, and its work and memory
//! are bounded by the file's size.
//!
//! # Cost
//!
//! One pass over the symbols and relocations, sorted once; extents are found by binary search and
//! each data item is hashed once. Measured in release mode on the largest demo bench binary
//! (`demo/benches`' criterion bench, 43 MB with debug line tables, 2,451 function keys, linked by
//! rustc 1.95's lld with `--emit-relocs` and a map): 96 to 131 ms, every extent exact. On a small
//! Rust binary, a longer string in `main` (which moves every constant after it) changes `main`
//! only.

mod map;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use object::LittleEndian;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Rela, SectionHeader, Sym, SymbolTable};
use object::read::{SectionIndex, SymbolIndex};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::code::Parts;

use map::{Kind, Map};

/// The code identity of one linked object: for each function key, a digest of its machine code
/// in which every relocated field is replaced by what it refers to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Identity {
    /// By function key ([`key`]): a lowercase hex digest (128 bits = 32 hex chars).
    pub functions: BTreeMap<String, String>,
    /// Why some data extents were taken coarsely (no link map, a stale map, an address no input
    /// section of the map holds), or `None` when every extent was exact. Coarse extents are still
    /// sound: a function may look changed when a neighbouring constant changed, never the reverse.
    pub imprecise: Option<String>,
    /// For each key of one function only (not a unit of several instances): its digest in two
    /// parts, so that data no executed instruction reads can be told apart.
    pub parts: BTreeMap<String, Parts>,
    /// The start address of each function of [`Identity::parts`].
    addresses: BTreeMap<String, u64>,
}

/// The version of the rules that make a digest: digests of two versions do not compare (a code
/// record says which it was taken with).
pub const VERSION: u32 = 1;

/// The longest x86-64 instruction: a reference at most this far past an executed instruction's
/// start may belong to it.
const MAX_INSTRUCTION: u64 = 15;

/// [`read`], with the addresses of the instructions that executed (callgrind's `--dump-instr`,
/// the object's own addresses): [`Parts::data`] then keeps only the references that an executed
/// instruction may hold. A reference belongs to the last executed instruction at or before it
/// when that is at most `MAX_INSTRUCTION` bytes back, unless that instruction is a jump, a
/// return or a trap whose encoding gives its exact length and it ends before the reference: this
/// errs towards keeping.
pub fn read_executed(
    path: &Path,
    roots: &[PathBuf],
    executed: &std::collections::BTreeSet<u64>,
) -> Result<Identity> {
    let mut identity = read(path, roots)?;
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    let code = Code::new(&data);
    let addresses = identity.addresses.clone();
    for (key, parts) in identity.parts.iter_mut() {
        let Some(&start) = addresses.get(key) else {
            continue;
        };
        parts.data.retain(|offset, _| {
            let place = start + u64::from(*offset);
            let Some(&last) = executed
                .range(place.saturating_sub(MAX_INSTRUCTION - 1)..=place)
                .next_back()
            else {
                return false;
            };
            code.terminator_length(last)
                .is_none_or(|length| place < last + length)
        });
    }
    Ok(identity)
}

/// The executable bytes of an object, by address, for reading an instruction's first bytes.
struct Code<'d> {
    /// (address, bytes) of each executable section.
    sections: Vec<(u64, &'d [u8])>,
}

impl<'d> Code<'d> {
    fn new(data: &'d [u8]) -> Code<'d> {
        use object::{Object, ObjectSection, SectionKind};
        let mut sections = Vec::new();
        if let Ok(file) = object::read::elf::ElfFile64::<LittleEndian>::parse(data) {
            for section in file.sections() {
                if section.kind() == SectionKind::Text
                    && let Ok(bytes) = section.data()
                {
                    sections.push((section.address(), bytes));
                }
            }
        }
        Code { sections }
    }

    /// The exact length of the instruction at `address` when it is a jump, a return or a trap
    /// whose encoding says its length without doubt (`ret`, `jmp` and `jcc` with 8- or 32-bit
    /// displacements, `int3`, `ud2`), else `None`.
    fn terminator_length(&self, address: u64) -> Option<u64> {
        let (base, bytes) = self
            .sections
            .iter()
            .find(|(base, bytes)| address >= *base && address - base < bytes.len() as u64)?;
        let at = usize::try_from(address - base).ok()?;
        match *bytes.get(at)? {
            0xc3 | 0xcc => Some(1),
            0xeb | 0x70..=0x7f => Some(2),
            0xe9 => Some(5),
            0x0f => match *bytes.get(at + 1)? {
                0x0b => Some(2),
                0x80..=0x8f => Some(6),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Reads the object at `path` (and its link map at `<path>.map`, when there is one). `roots` are
/// directory prefixes (the workspace root, cargo's home) replaced by a fixed placeholder wherever
/// they occur in data, so the identity does not depend on where the checkout is.
pub fn read(path: &Path, roots: &[PathBuf]) -> Result<Identity> {
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    let mut map_path = path.as_os_str().to_owned();
    map_path.push(".map");
    let map_path = PathBuf::from(map_path);
    let map = match std::fs::read(&map_path) {
        Ok(bytes) => Some(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::read(&map_path, e)),
    };
    let mut roots: Vec<Vec<u8>> = roots
        .iter()
        .map(|r| r.as_os_str().as_encoded_bytes().to_vec())
        .filter(|r| !r.is_empty())
        .collect();
    // The longest first, so a root inside another is not replaced first.
    roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    let origin = path.display().to_string();
    let map_origin = map_path.display().to_string();
    Reader::new(&origin, &data, map.as_deref(), &map_origin, roots)?.identity()
}

/// Source lines as line tables name them: (file, line).
pub type SourceLines = Vec<(String, u32)>;

/// The source lines of the code of the functions of each key of `keys` in the object at `path`,
/// by key, as its line tables name them (file, line; inlined code under its own file), for
/// reports. The object and its line tables are read once; a key with no function or no line
/// tables has no entry.
pub fn source_lines(path: &Path, keys: &[&str]) -> Result<BTreeMap<String, SourceLines>> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    let file = object::read::elf::ElfFile64::<LittleEndian>::parse(&*data)
        .map_err(|e| Error::invalid(path.display(), format!("not a readable ELF file: {e}")))?;
    let wanted: std::collections::BTreeSet<&str> = keys.iter().copied().collect();
    let mut ranges: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        let key = self::key(name);
        if wanted.contains(key.as_str()) {
            let start = symbol.address();
            ranges
                .entry(key)
                .or_default()
                .push((start, start.saturating_add(symbol.size())));
        }
    }
    if ranges.is_empty() {
        return Ok(BTreeMap::new());
    }
    let loader = addr2line::Loader::new(path)
        .map_err(|e| Error::invalid(path.display(), format!("line tables: {e}")))?;
    let mut found = BTreeMap::new();
    for (key, spans) in ranges {
        let mut lines = Vec::new();
        for (low, high) in spans {
            let Ok(locations) = loader.find_location_range(low, high) else {
                continue;
            };
            for (_, _, location) in locations {
                if let (Some(file), Some(line)) = (location.file, location.line) {
                    lines.push((file.to_owned(), line));
                }
            }
        }
        lines.sort();
        lines.dedup();
        found.insert(key, lines);
    }
    Ok(found)
}

/// The key of a symbol or of a function name as callgrind prints it with `--demangle=no`: Rust
/// symbols (legacy `_ZN…17h<hash>E` and v0 `_R…`) demangled without their hash / crate
/// disambiguators (rustc_demangle's alternate form `{:#}`), anything else (C) as it is. The one
/// place where names become keys.
pub fn key(symbol: &str) -> String {
    // The same names callgrind's files give, read by irgate-callgrind's reader.
    irgate_callgrind::parse::demangle(symbol)
}

type Elf = elf::FileHeader64<LittleEndian>;
const LE: LittleEndian = LittleEndian;

/// How deep data may refer to data before irgate gives up.
const MAX_DEPTH: usize = 400;
/// What replaces a root in data.
const PLACEHOLDER: &[u8] = b"<root>";

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
fn width(kind: u32) -> Option<u64> {
    match kind {
        R_NONE => Some(0),
        R_PC32 | R_PLT32 | R_GOTPCREL | R_GOTPCRELX | R_REX_GOTPCRELX | R_32 | R_32S
        | R_TPOFF32 | R_GOTTPOFF | R_TLSGD | R_TLSLD | R_DTPOFF32 => Some(4),
        R_64 | R_PC64 | R_DTPOFF64 | R_TPOFF64 => Some(8),
        _ => None,
    }
}

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
struct Reloc {
    offset: u64,
    kind: u32,
    symbol: u32,
    addend: i64,
}

struct Section<'d> {
    name: String,
    addr: u64,
    size: u64,
    alloc: bool,
    exec: bool,
    tls: bool,
    nobits: bool,
    data: &'d [u8],
    relocs: Vec<Reloc>,
    has_rela: bool,
}

impl Section<'_> {
    fn end(&self) -> u64 {
        self.addr.saturating_add(self.size)
    }

    /// The relocations whose offset is in `[start, end)`.
    fn relocs_in(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        let lo = self.relocs.partition_point(|r| r.offset < start);
        let hi = self.relocs.partition_point(|r| r.offset < end);
        lo..hi.max(lo)
    }
}

/// A function instance: symbol `symbol`, bytes `[start, end)` of section `section`.
#[derive(Debug, Clone, Copy)]
struct Function {
    symbol: usize,
    section: usize,
    start: u64,
    end: u64,
}

/// A data item: bytes `[start, end)` (addresses) of section `section`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Extent {
    section: usize,
    start: u64,
    end: u64,
}

/// What a relocated field refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    /// The function or import of this symbol index, by its key.
    Key(usize),
    /// Data, at this offset into it.
    Data(Extent, u64),
    /// Something with no content of its own (the TLS module).
    Marker(&'static str),
}

type Hash16 = [u8; 16];

fn finish(hasher: Sha256) -> Hash16 {
    let full = hasher.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}

fn hex(digest: &Hash16) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn update_len(hasher: &mut Sha256, n: u64) {
    hasher.update(n.to_le_bytes());
}

/// `bytes` with every occurrence of each root replaced by [`PLACEHOLDER`].
fn normalize<'a>(bytes: &'a [u8], roots: &[Vec<u8>]) -> Cow<'a, [u8]> {
    let mut out = Cow::Borrowed(bytes);
    for root in roots {
        let Some(first) = find(&out, root) else {
            continue;
        };
        let mut replaced = Vec::with_capacity(out.len());
        let mut rest: &[u8] = &out;
        let mut at = Some(first);
        while let Some(i) = at {
            replaced.extend_from_slice(&rest[..i]);
            replaced.extend_from_slice(PLACEHOLDER);
            rest = &rest[i + root.len()..];
            at = find(rest, root);
        }
        replaced.extend_from_slice(rest);
        out = Cow::Owned(replaced);
    }
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, tail) = needle.split_first()?;
    let mut from = 0;
    while from + needle.len() <= haystack.len() {
        let i = from + haystack[from..].iter().position(|&b| b == first)?;
        if haystack.get(i + 1..i + needle.len()) == Some(tail) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

struct Reader<'d> {
    origin: String,
    sections: Vec<Section<'d>>,
    /// Allocated sections with an address range (not `.tbss`), sorted by address.
    by_address: Vec<usize>,
    symtab: SymbolTable<'d, Elf>,
    /// The key of every function and undefined symbol, by symbol index.
    keys: Vec<Option<String>>,
    tls_base: u64,
    /// Function instances sorted by address.
    functions: Vec<Function>,
    /// Sized data symbols (not TLS), overlapping ones merged, sorted by address.
    objects: Vec<(u64, u64)>,
    map: Option<Map>,
    /// Why the map cannot be used (missing, unparseable, stale).
    no_map: Option<String>,
    roots: std::rc::Rc<[Vec<u8>]>,
    memo: HashMap<Extent, Hash16>,
    stack: Vec<Extent>,
    work: u64,
    budget: u64,
    coarse: usize,
    coarse_why: Option<String>,
}

impl<'d> Reader<'d> {
    fn new(
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

    fn refuse(&self, message: String) -> Error {
        Error::invalid(&self.origin, message)
    }

    fn symbol_name(&self, index: usize) -> String {
        let name = self
            .symtab
            .symbol(SymbolIndex(index))
            .and_then(|s| self.symtab.symbol_name(LE, s))
            .unwrap_or(b"?");
        String::from_utf8_lossy(name).into_owned()
    }

    /// The section of symbol `index`, `None` for an undefined or absolute one.
    fn symbol_section(&self, index: usize, symbol: &elf::Sym64<LittleEndian>) -> Option<usize> {
        match self.symtab.symbol_section(LE, symbol, SymbolIndex(index)) {
            Ok(Some(SectionIndex(s))) => Some(s),
            _ => None,
        }
    }

    /// The extent of a sized data symbol, checked against its section.
    fn symbol_extent(&self, index: usize) -> Result<Option<Extent>> {
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
        let mut functions = Vec::new();
        let mut objects = Vec::new();
        for (index, symbol) in self.symtab.iter().enumerate() {
            let kind = symbol.st_type();
            let section = self.symbol_section(index, symbol);
            let undefined = symbol.st_shndx(LE) == elf::SHN_UNDEF;
            let is_function = kind == elf::STT_FUNC || kind == elf::STT_GNU_IFUNC;
            if index > 0 && (is_function || undefined) {
                let name = self.symtab.symbol_name(LE, symbol).unwrap_or(b"?");
                keys[index] = Some(key(&String::from_utf8_lossy(name)));
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

    fn identity(mut self) -> Result<Identity> {
        let mut units: BTreeMap<String, Vec<Hash16>> = BTreeMap::new();
        let mut single: BTreeMap<String, (u64, Parts)> = BTreeMap::new();
        let mut seen = std::collections::HashSet::new();
        for i in 0..self.functions.len() {
            let function = self.functions[i];
            let name = self.keys[function.symbol].clone().unwrap_or_default();
            if !seen.insert((name.clone(), function.start, function.end)) {
                continue;
            }
            let (digest, parts) = self.function_digest(function)?;
            let unit = units.entry(name.clone()).or_default();
            unit.push(digest);
            if unit.len() == 1 {
                single.insert(name, (function.start, parts));
            } else {
                single.remove(&name);
            }
        }
        let addresses = single.iter().map(|(k, (a, _))| (k.clone(), *a)).collect();
        let parts = single.into_iter().map(|(k, (_, p))| (k, p)).collect();
        let functions = units
            .into_iter()
            .map(|(name, mut digests)| {
                digests.sort_unstable();
                let mut hasher = Sha256::new();
                hasher.update(b"unit");
                update_len(&mut hasher, digests.len() as u64);
                for d in &digests {
                    hasher.update(d);
                }
                (name, hex(&finish(hasher)))
            })
            .collect();
        let imprecise = self.coarse_why.map(|why| {
            format!(
                "{why}: {} data reference{} taken up to the neighbouring symbols",
                self.coarse,
                if self.coarse == 1 { "" } else { "s" }
            )
        });
        Ok(Identity {
            functions,
            imprecise,
            parts,
            addresses,
        })
    }

    /// The function's digest, and the same in two parts (its code; the data each reference
    /// reads).
    fn function_digest(&mut self, function: Function) -> Result<(Hash16, Parts)> {
        let section = &self.sections[function.section];
        let from = (function.start - section.addr) as usize;
        let to = (function.end - section.addr) as usize;
        let mut code = section.data[from..to].to_vec();
        let range = section.relocs_in(function.start, function.end);
        let mut records = Sha256::new();
        let mut functions_only = Sha256::new();
        let mut data: BTreeMap<u32, String> = BTreeMap::new();
        for index in range {
            let r = self.sections[function.section].relocs[index];
            let Some(width) = width(r.kind) else {
                return Err(self.refuse(format!(
                    "relocation type {} at 0x{:x} in {}: irgate does not know its width, so it \
                     cannot read this object",
                    r.kind,
                    r.offset,
                    self.symbol_name(function.symbol)
                )));
            };
            if width == 0 {
                continue;
            }
            let offset = r.offset - function.start;
            let field = offset as usize..(offset + width) as usize;
            let Some(bytes) = code.get_mut(field) else {
                return Err(self.refuse(format!(
                    "relocation at 0x{:x} runs past the end of function {}",
                    r.offset,
                    self.symbol_name(function.symbol)
                )));
            };
            bytes.fill(0);
            let reads_data = self
                .targets(r, true, 0)?
                .iter()
                .any(|t| matches!(t, Target::Data(..)));
            let mut one = Sha256::new();
            self.hash_reloc(&mut one, r, true, 0)?;
            let referred = one.finalize();
            records.update(b"R");
            update_len(&mut records, offset);
            records.update(r.kind.to_le_bytes());
            records.update(referred);
            functions_only.update(b"R");
            update_len(&mut functions_only, offset);
            functions_only.update(r.kind.to_le_bytes());
            if reads_data {
                // What a data reference reads is kept apart; its place and type are code.
                let mut digest = Sha256::new();
                digest.update(referred);
                data.insert(
                    u32::try_from(offset).unwrap_or(u32::MAX),
                    hex(&finish(digest)),
                );
            } else {
                functions_only.update(referred);
            }
        }
        let mut hasher = Sha256::new();
        hasher.update(b"code");
        update_len(&mut hasher, code.len() as u64);
        hasher.update(&code);
        let mut code_only = hasher.clone();
        hasher.update(records.finalize());
        code_only.update(functions_only.finalize());
        let parts = Parts {
            code: hex(&finish(code_only)),
            data,
        };
        Ok((finish(hasher), parts))
    }

    /// Hashes what relocation `r` refers to; `place` is the field's offset in the data item that
    /// holds it (for data).
    fn hash_reloc(
        &mut self,
        hasher: &mut Sha256,
        r: Reloc,
        in_code: bool,
        place: u64,
    ) -> Result<usize> {
        let targets = self.targets(r, in_code, place)?;
        let mut low = usize::MAX;
        for target in targets {
            match target {
                Target::Key(symbol) => {
                    let name = self.keys[symbol].as_deref().unwrap_or("");
                    hasher.update(b"F");
                    update_len(hasher, name.len() as u64);
                    hasher.update(name.as_bytes());
                }
                Target::Data(extent, offset) => {
                    let (digest, back) = self.extent_digest(extent)?;
                    low = low.min(back);
                    hasher.update(b"D");
                    hasher.update(digest);
                    update_len(hasher, offset);
                }
                Target::Marker(marker) => {
                    hasher.update(b"M");
                    hasher.update(marker.as_bytes());
                }
            }
        }
        Ok(low)
    }

    fn targets(&mut self, r: Reloc, in_code: bool, place: u64) -> Result<Vec<Target>> {
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
            return self.functions[..at]
                .iter()
                .rev()
                .take(8)
                .find(|f| address < f.end)
                .map(|f| Target::Key(f.symbol));
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

    /// The digest of a data item, and the lowest stack depth a cycle inside it reached back to
    /// (`usize::MAX` for none), in which case the digest depends on where the walk entered the
    /// cycle and is not memoised.
    fn extent_digest(&mut self, extent: Extent) -> Result<(Hash16, usize)> {
        if let Some(digest) = self.memo.get(&extent) {
            return Ok((*digest, usize::MAX));
        }
        if let Some(at) = self.stack.iter().position(|e| *e == extent) {
            let mut hasher = Sha256::new();
            hasher.update(b"cycle");
            update_len(&mut hasher, (self.stack.len() - at) as u64);
            return Ok((finish(hasher), at));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.refuse(format!(
                "its data refers to data more than {MAX_DEPTH} levels deep; irgate gives up"
            )));
        }
        let depth = self.stack.len();
        self.stack.push(extent);
        let result = self.hash_extent(extent);
        self.stack.pop();
        let (digest, low) = result?;
        if low >= depth {
            self.memo.insert(extent, digest);
            Ok((digest, usize::MAX))
        } else {
            Ok((digest, low))
        }
    }

    fn hash_extent(&mut self, extent: Extent) -> Result<(Hash16, usize)> {
        let size = extent.end.saturating_sub(extent.start);
        self.work = self.work.saturating_add(size + 64);
        if self.work > self.budget {
            return Err(self.refuse(
                "its data refers to itself in too many ways; irgate gives up rather than run \
                 unbounded"
                    .into(),
            ));
        }
        let section = &self.sections[extent.section];
        let mut hasher = Sha256::new();
        hasher.update(b"data");
        if section.nobits {
            hasher.update(b"zeros");
            update_len(&mut hasher, size);
            return Ok((finish(hasher), usize::MAX));
        }
        let data = section.data;
        let base = section.addr;
        let range = section.relocs_in(extent.start, extent.end);
        let mut low = usize::MAX;
        let mut cursor = extent.start;
        let roots = std::rc::Rc::clone(&self.roots);
        let chunk = |hasher: &mut Sha256, from: u64, to: u64| {
            let bytes = data
                .get((from - base) as usize..(to - base) as usize)
                .unwrap_or(&[]);
            let bytes = normalize(bytes, &roots);
            update_len(hasher, bytes.len() as u64);
            hasher.update(&bytes);
        };
        let mut outcome = Ok(());
        for index in range {
            let r = self.sections[extent.section].relocs[index];
            let Some(width) = width(r.kind) else {
                outcome = Err(self.refuse(format!(
                    "relocation type {} at 0x{:x} in section {}: irgate does not know its width, \
                     so it cannot read this object",
                    r.kind, r.offset, self.sections[extent.section].name
                )));
                break;
            };
            if width == 0 {
                continue;
            }
            if r.offset >= cursor {
                chunk(&mut hasher, cursor, r.offset);
                cursor = r.offset.saturating_add(width).min(extent.end);
            }
            hasher.update(b"R");
            hasher.update(r.kind.to_le_bytes());
            match self.hash_reloc(&mut hasher, r, false, r.offset - extent.start) {
                Ok(back) => low = low.min(back),
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        if outcome.is_ok() {
            chunk(&mut hasher, cursor, extent.end);
        }
        outcome?;
        Ok((finish(hasher), low))
    }
}
