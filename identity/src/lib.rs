//! The code identity of a linked object: for each function, a digest of its machine code that
//! changes when, and only when, what the function does could have changed. A tool that knows which
//! functions a benchmark or a test executed (by their names, made [`key`]s) compares two builds'
//! identities ([`read`], [`Identity::differing`]) to tell whether a change can move it. irgate's
//! selection (`irgate run --only-touched`) is built on it.
//!
//! # Example
//!
//! Two builds of one C program, linked with `--emit-relocs` and a link map as the identity needs,
//! differ in one function's body: their identities differ in that function only, not in its
//! caller.
//!
//! ```
//! use std::path::{Path, PathBuf};
//! use std::process::Command;
//!
//! /// Builds the program with `callee` multiplying by `factor`.
//! fn build(dir: &Path, name: &str, factor: u32) -> PathBuf {
//!     let source = dir.join(format!("{name}.c"));
//!     let text = format!(
//!         "int __attribute__((noipa)) callee(int x) {{ return x * {factor}; }}\n\
//!          int __attribute__((noipa)) caller(int x) {{ return callee(x) + 1; }}\n\
//!          int main(int argc, char **argv) {{ (void)argv; return caller(argc); }}\n"
//!     );
//!     std::fs::write(&source, text).unwrap();
//!     let object = dir.join(name);
//!     let status = Command::new("cc")
//!         .args(["-O2", "-ffunction-sections", "-fdata-sections", "-Wl,--emit-relocs"])
//!         .arg(format!("-Wl,-Map={}.map", object.display()))
//!         .arg("-o")
//!         .arg(&object)
//!         .arg(&source)
//!         .status()
//!         .unwrap();
//!     assert!(status.success());
//!     object
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let a = irgate_identity::read(&build(dir.path(), "a", 7), &[])?;
//! let b = irgate_identity::read(&build(dir.path(), "b", 9), &[])?;
//! assert_eq!(a.differing(&b), ["callee"]);
//! assert_eq!(a.functions["caller"], b.functions["caller"]);
//! assert_eq!(a.imprecise, None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
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
//! `roots` (the workspace, cargo's home) are replaced in data by a placeholder that keeps only
//! their length (`<root:11>`), so paths compiled into panic messages do not make the identity
//! depend on where the checkout is, only on how long its path is: a path of another length changes
//! what code that reads it executes (a NUL-terminated path is walked to its end, with no length
//! stored anywhere else), so it must change the digest.
//!
//! A legacy-mangled Rust symbol whose demangled name another function of the object shares also
//! holds, in its key, the name the debug information gives its function where that differs from
//! the demangled name's last segment: the generic arguments of an instance
//! (`core::hint::black_box<u8>`), a closure's number (`app::run::{{closure}}[{closure#1}]`).
//! Relocations refer to functions by these keys too, so a caller that now calls another instance
//! changes. Symbols that still share a key (an object without debug information, C `static`
//! functions of the same name) form one unit, whose digest is the hash of their sorted digests: a
//! changed or added instance changes the unit. [`instances`] names the instances of a demangled
//! name (callgrind's files give every instance that one) that executed at given addresses.
//! Functions at one address (aliases: bodies LLVM merged, or the linker folded) are bound
//! together: each one's digest also covers the keys of all of them, so a change that splits one
//! off or merges one in changes every one of them, and a tool that saw the code execute under one
//! name is told of a change to any.
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
//! rustc 1.95's lld with `--emit-relocs` and a map): 96 to 131 ms, every extent exact (`cargo run
//! --release -p irgate-identity --example identity -- OBJECT [OTHER]` reads one object and times
//! it, or lists the keys two objects disagree on). On a small Rust binary, a longer string in
//! `main` (which moves every constant after it) changes `main` only. Reading the debug names that
//! tell generic instances apart (rules version 5) added 10 to 25 ms on the demo's 30 MB
//! `callgrind` bench binary (111 to 130 ms against 96 to 107 ms with version 4's rules, 1,108
//! keys against 1,076; three reads each, 2026-11-28, this 2-core VM at a load of 3).

mod error;
mod hash;
mod instance;
mod map;
mod parse;
mod reloc;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod unnamed_tests;

pub use error::{Error, Result};
pub use instance::{Instances, instances};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use object::LittleEndian;
use object::read::elf::SymbolTable;

use hash::Hash16;
use map::Map;
use parse::{Elf, Extent, Function, Section};

/// The code identity of one linked object: for each function key, a digest of its machine code
/// in which every relocated field is replaced by what it refers to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Identity {
    /// By function key ([`key`]): a lowercase hex digest (128 bits = 32 hex chars).
    pub functions: BTreeMap<String, String>,
    /// The digest of all the code no sized function covers (the C runtime's `frame_dummy`,
    /// assembly without `.size`, PLT stubs), relocations resolved; `None` when there is none.
    /// Callgrind names such code by its address (`0x00000000000116c0`): a function of that name
    /// ran the same code in two builds when this digest is equal in both.
    pub unnamed: Option<String>,
    /// Why some data extents were taken coarsely (no link map, a stale map, an address no input
    /// section of the map holds), or `None` when every extent was exact. Coarse extents are still
    /// sound: a function may look changed when a neighbouring constant changed, never the reverse.
    pub imprecise: Option<String>,
    /// For each key of one function only (not a unit of several instances): its digest in two
    /// parts, so that data no executed instruction reads can be told apart.
    pub parts: BTreeMap<String, Parts>,
    /// The keys of the functions the object's constructor tables (`.init_array`,
    /// `.preinit_array`) name: they run before `main` in every process that loads the object, so
    /// whatever a process executes of the object, it ran them too.
    pub constructors: std::collections::BTreeSet<String>,
    /// The start address of each function of [`Identity::parts`].
    addresses: BTreeMap<String, u64>,
}

impl Identity {
    /// The function keys whose digest differs from `other`'s, or that one of the two lacks, in
    /// order.
    pub fn differing(&self, other: &Identity) -> Vec<String> {
        let mut keys: Vec<String> = self
            .functions
            .keys()
            .chain(other.functions.keys())
            .filter(|k| self.functions.get(*k) != other.functions.get(*k))
            .cloned()
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}

/// A function's digest in two parts, so that data no executed instruction reads can be told
/// apart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parts {
    /// The digest of its code: bytes, relocations' places and types, the functions it refers to.
    pub code: String,
    /// By a data reference's offset in the function, the digest of what it reads. In a record,
    /// only the references of instructions that may have executed in some benchmark.
    pub data: BTreeMap<u32, String>,
}

/// The version of the rules that make a digest: digests of two versions do not compare (a code
/// record says which it was taken with). Version 2 binds aliases together; version 3 keeps a
/// root's length in its placeholder; version 4 marks records in which code no recorded instruction
/// ran (a bench harness's listing code, constructors) keeps no [`Parts`] and compares whole;
/// version 5 tells generic instances and closures apart by their debug names.
pub const VERSION: u32 = 5;

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

/// One frame of an instruction's place in the source: a file and line, and the function there
/// as the debug information names it ([`key`] of its linkage name, else its plain name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Frame {
    /// The file, as the line tables spell it.
    pub file: String,
    /// The 1-based line.
    pub line: u32,
    /// The function whose code (or call site, for an outer frame) this is, when named.
    pub function: Option<String>,
}

/// Where one instruction is in the source: its frames, innermost first. Code inlined into a
/// function has one frame per level (the inlined function's line, then each call site), code of
/// the function itself one.
pub type SourceLine = Vec<Frame>;

/// A function's source lines, one per instruction row of its line tables, sorted, without
/// repeats.
pub type SourceLines = Vec<SourceLine>;

/// The source lines of the code of the functions of each key of `keys` in the object at `path`,
/// by key, as its line tables and inlined frames name them, for reports. The object and its line
/// tables are read once; a key with no function or no line tables has no entry.
pub fn source_lines(path: &Path, keys: &[&str]) -> Result<BTreeMap<String, SourceLines>> {
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    let file = object::read::elf::ElfFile64::<LittleEndian>::parse(&*data)
        .map_err(|e| Error::invalid(path.display(), format!("not a readable ELF file: {e}")))?;
    let wanted: std::collections::BTreeSet<&str> = keys.iter().copied().collect();
    let mut ranges: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for (_, start, size, key) in instance::keyed_functions(&file) {
        if wanted.contains(key.as_str()) {
            ranges
                .entry(key)
                .or_default()
                .push((start, start.saturating_add(size)));
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
            for (address, _, location) in locations {
                let frames = frames(&loader, address);
                if !frames.is_empty() {
                    lines.push(frames);
                } else if let (Some(file), Some(line)) = (location.file, location.line) {
                    lines.push(vec![Frame {
                        file: file.to_owned(),
                        line,
                        function: None,
                    }]);
                }
            }
        }
        lines.sort();
        lines.dedup();
        found.insert(key, lines);
    }
    Ok(found)
}

/// The frames at `address`, innermost first, those with a file and line.
fn frames(loader: &addr2line::Loader, address: u64) -> Vec<Frame> {
    let mut found = Vec::new();
    let Ok(mut frames) = loader.find_frames(address) else {
        return found;
    };
    while let Ok(Some(frame)) = frames.next() {
        let function = frame
            .function
            .as_ref()
            .and_then(|f| f.raw_name().ok())
            .map(|name| key(&name));
        if let Some(location) = frame.location
            && let (Some(file), Some(line)) = (location.file, location.line)
        {
            found.push(Frame {
                file: file.to_owned(),
                line,
                function,
            });
        }
    }
    found
}

/// The key of a symbol or of a function name as callgrind prints it with `--demangle=no`: Rust
/// symbols (legacy `_ZN…17h<hash>E` and v0 `_R…`) demangled without their hash / crate
/// disambiguators (rustc_demangle's alternate form `{:#}`), anything else (C) as it is. The one
/// place where names become keys.
pub fn key(symbol: &str) -> String {
    // The same names callgrind's files give, read by irgate-callgrind's reader.
    irgate_callgrind::demangle(symbol)
}

/// One object being read: its sections, symbols and link map ([`parse`]), and the digests of
/// its data taken so far ([`hash`]). What a relocated field refers to is in [`reloc`].
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
