//! The digests: of a function (its code with every relocated field zeroed, then what each field
//! refers to), of the data items it refers to (memoised, cycles marked, the work bounded), and of
//! a unit of same-named instances; roots in data replaced by a placeholder.

use std::borrow::Cow;
use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::parse::{Extent, Function, Reloc};
use super::reloc::{Target, width};
use super::{Identity, Reader};
use crate::Parts;
use crate::error::Result;

/// How deep data may refer to data before irgate gives up.
const MAX_DEPTH: usize = 400;
/// What replaces a root in data, followed by the root's length in bytes and `>`: a root of
/// another length moves what code reads after it, or how long it reads a NUL-terminated path.
const PLACEHOLDER: &[u8] = b"<root:";

pub(super) type Hash16 = [u8; 16];

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

/// `bytes` with every occurrence of each root replaced by [`PLACEHOLDER`] and its length
/// (`<root:11>`).
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
            replaced.extend_from_slice(format!("{}>", root.len()).as_bytes());
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

/// `digest` bound to the keys of every function at its address (`aliases`, its own included): a
/// change that splits a merged function from the others, or merges one in, changes them all, so
/// a benchmark that callgrind saw execute the code under one of the names is touched by a change
/// to any of them.
fn with_aliases(digest: &[u8], aliases: &std::collections::BTreeSet<String>) -> Hash16 {
    let mut hasher = Sha256::new();
    hasher.update(b"aliases");
    hasher.update(digest);
    update_len(&mut hasher, aliases.len() as u64);
    for key in aliases {
        update_len(&mut hasher, key.len() as u64);
        hasher.update(key.as_bytes());
    }
    finish(hasher)
}

impl Reader<'_> {
    pub(super) fn identity(mut self) -> Result<Identity> {
        let mut units: BTreeMap<String, Vec<Hash16>> = BTreeMap::new();
        let mut single: BTreeMap<String, (u64, Parts)> = BTreeMap::new();
        let mut seen = std::collections::HashSet::new();
        // The keys of the functions at each address: aliases (functions LLVM or the linker merged)
        // are one unit, whose members' digests name each other.
        let mut at: BTreeMap<u64, std::collections::BTreeSet<String>> = BTreeMap::new();
        for function in &self.functions {
            let name = self.keys[function.symbol].clone().unwrap_or_default();
            at.entry(function.start).or_default().insert(name);
        }
        for i in 0..self.functions.len() {
            let function = self.functions[i];
            let name = self.keys[function.symbol].clone().unwrap_or_default();
            if !seen.insert((name.clone(), function.start, function.end)) {
                continue;
            }
            let (mut digest, mut parts) = self.function_digest(function)?;
            if let Some(aliases) = at.get(&function.start).filter(|keys| keys.len() > 1) {
                digest = with_aliases(&digest, aliases);
                parts.code = hex(&with_aliases(parts.code.as_bytes(), aliases));
            }
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
        let constructors = self.constructors()?;
        let unnamed = self.unnamed_digest()?;
        let imprecise = self.coarse_why.map(|why| {
            format!(
                "{why}: {} data reference{} taken up to the neighbouring symbols",
                self.coarse,
                if self.coarse == 1 { "" } else { "s" }
            )
        });
        Ok(Identity {
            functions,
            unnamed,
            imprecise,
            parts,
            constructors,
            addresses,
        })
    }

    /// The digest of every stretch of code no sized function covers ([`Identity::unnamed`]),
    /// each with its relocations resolved as data's are; `None` when there is none.
    fn unnamed_digest(&mut self) -> Result<Option<String>> {
        let stretches = self.unsized_stretches();
        if stretches.is_empty() {
            return Ok(None);
        }
        let mut hasher = Sha256::new();
        hasher.update(b"unnamed");
        update_len(&mut hasher, stretches.len() as u64);
        for extent in stretches {
            let (digest, _) = self.extent_digest(extent)?;
            hasher.update(digest);
        }
        Ok(Some(hex(&finish(hasher))))
    }

    /// The keys of the functions the constructor tables (`.init_array`, `.preinit_array`) point
    /// at, read through their relocations.
    fn constructors(&mut self) -> Result<std::collections::BTreeSet<String>> {
        let mut keys = std::collections::BTreeSet::new();
        let tables: Vec<usize> = (0..self.sections.len())
            .filter(|&i| {
                let s = &self.sections[i];
                s.alloc && (s.name == ".init_array" || s.name == ".preinit_array")
            })
            .collect();
        for table in tables {
            let relocs = self.sections[table].relocs.clone();
            let start = self.sections[table].addr;
            for r in relocs {
                for target in self.targets(r, false, r.offset.wrapping_sub(start))? {
                    if let Target::Key(symbol) = target
                        && let Some(Some(key)) = self.keys.get(symbol)
                    {
                        keys.insert(key.clone());
                    }
                }
            }
        }
        Ok(keys)
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
