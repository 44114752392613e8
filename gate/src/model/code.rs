//! The code record: what each benchmark's process executed, function by function, and the code
//! identity of those functions in the build that ran them. A change is then judged by the code
//! the compiler produced, not by the source lines (docs/selection.md).

use std::collections::{BTreeMap, BTreeSet};

use irgate_identity::Parts;

/// The digest a record gives a function it saw executed in an object whose symbols do not hold
/// it: never equal to anything, so the function always counts as changed.
pub const UNKNOWN_DIGEST: &str = "00000000000000000000000000000000";

/// The key under which a run's object keeps the digest of its code that no symbol names
/// ([`irgate_identity::Identity::unnamed`]): no function key has this form, and a record keeps
/// it under the names callgrind gives that code instead ([`is_address`]).
pub const UNNAMED: &str = "<code without a symbol>";

/// Whether `name` is callgrind's name for code no symbol covers: its address, `0x` and 16
/// hexadecimal digits (`0x00000000000116c0`; the C runtime's `frame_dummy`, PLT stubs).
pub fn is_address(name: &str) -> bool {
    name.strip_prefix("0x")
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// An identity's function digests, with [`irgate_identity::Identity::unnamed`] under
/// [`UNNAMED`] when the object has such code.
pub fn with_unnamed(
    mut functions: BTreeMap<String, String>,
    unnamed: Option<String>,
) -> BTreeMap<String, String> {
    if let Some(digest) = unnamed {
        functions.insert(UNNAMED.to_owned(), digest);
    }
    functions
}

/// What starts a whole dependency ([`Executed::whole`]) that is a file of the repository, not an
/// object cargo built (a prebuilt shared library committed and loaded): `file:PATH`, its path from
/// the workspace root. It has no [`Object`]: the change's files say whether it changed.
pub const FILE_PREFIX: &str = "file:";

/// The digest an observed input has when the path did not exist ([`Observed::inputs`]).
pub const ABSENT: &str = "absent";

/// The digest an observed input has when its path is not UTF-8: a record cannot name it again,
/// so it always counts as changed.
pub const UNNAMED_PATH: &str = "unnamed";

/// What an observed input holds besides a digest: its absence, its name's, or (looked at only,
/// never opened) its kind.
pub const INPUT_WORDS: &[&str] = &[ABSENT, UNNAMED_PATH, "file", "dir", "special"];

/// One linked object's code identity, as kept in a record: only the functions some benchmark of
/// the record executed (or every function, for a run's own objects when nothing narrows them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Object {
    /// By function key (`irgate_identity::key`): the digest of its machine code.
    pub functions: BTreeMap<String, String>,
    /// The digest of the whole object's code (every function's digest), for benchmarks that
    /// depend on all of it (a binary benchmark's harness, whose setup runs outside valgrind).
    pub whole: String,
    /// Why the identity is less precise than it could be (sound, but more benchmarks count as
    /// touched), when it is.
    pub imprecise: Option<String>,
    /// The digests of single-instance functions in two parts (code, and the data each reference
    /// reads), by key: a function whose code is the same may differ only in data that no
    /// executed instruction reads.
    pub parts: BTreeMap<String, Parts>,
    /// The file it was read from, for a run's own objects (the baselines keep none): where its
    /// line tables name the source of a changed function.
    pub path: Option<std::path::PathBuf>,
    /// The functions its constructor tables name, which run before `main` (where the record
    /// starts) in every process that loads it; a run's own objects only (not kept in a file).
    pub constructors: BTreeSet<String>,
}

impl Object {
    /// Whether function `name` runs the same code reading the same data here as in `base`, for
    /// the references `base` keeps (a record keeps those its benchmarks may have executed):
    /// equal digests, or equal code and equal data at every reference `base` keeps.
    pub fn same_as(&self, base: &Object, name: &str) -> bool {
        match (base.functions.get(name), self.functions.get(name)) {
            (Some(a), _) if a == UNKNOWN_DIGEST => return false,
            (Some(a), Some(b)) if a == b => return true,
            (Some(_), Some(_)) => {}
            // Code no symbol names, at an address this side does not name: the same when all such
            // code of the object is (its digest, under `UNNAMED` or another address's name).
            (Some(a), None) if is_address(name) => {
                let from = (std::ops::Bound::Included("0x"), std::ops::Bound::Unbounded);
                let mut addresses = (self.functions.range::<str, _>(from))
                    .take_while(|(k, _)| k.starts_with("0x"))
                    .filter(|(k, _)| is_address(k));
                return self.functions.get(UNNAMED) == Some(a) || addresses.any(|(_, d)| d == a);
            }
            _ => return false,
        }
        let (Some(old), Some(new)) = (base.parts.get(name), self.parts.get(name)) else {
            return false;
        };
        old.code == new.code
            && old
                .data
                .iter()
                .all(|(offset, digest)| new.data.get(offset) == Some(digest))
    }

    /// Joins what `base`, an earlier record's object in which function `name` ran the same code,
    /// kept of it: its digest where this object lacks the function, the data references either
    /// kept (both read the same data there), and no two-part digest where either compares it by
    /// its whole digest (listing code, constructors, several instances).
    pub fn join(&mut self, base: &Object, name: &str) {
        let had = self.functions.contains_key(name);
        if let (false, Some(digest)) = (had, base.functions.get(name)) {
            self.functions.insert(name.to_owned(), digest.clone());
        }
        match base.parts.get(name) {
            Some(parts) if !had || self.parts.contains_key(name) => {
                let joined = self
                    .parts
                    .entry(name.to_owned())
                    .or_insert_with(|| parts.clone());
                for (offset, digest) in &parts.data {
                    joined.data.entry(*offset).or_insert_with(|| digest.clone());
                }
            }
            Some(_) => {}
            None => {
                self.parts.remove(name);
            }
        }
    }
}

/// What one benchmark's process executed from its start to the end of the measured region.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Executed {
    /// The functions executed, by object key (a path under the target directory with cargo's
    /// hash suffix dropped, e.g. `release/deps/callgrind`).
    pub functions: BTreeMap<String, BTreeSet<String>>,
    /// Objects the benchmark depends on as a whole (the bench binary of a binary benchmark).
    pub whole: BTreeSet<String>,
    /// Why the benchmark may read files at run time (a call to a file-system function from any code
    /// of its process but the start-up's, or a binary benchmark), when it may: then a changed file that no
    /// `[change] inert` glob names can move it.
    pub reads_files: Option<String>,
    /// The counts its run measured (empty in a record of schema_version 1, which kept none): the
    /// record describes the baseline only while the baseline's counts are these.
    pub counts: crate::model::Counts,
    /// What its processes were seen to read (`None` in a record taken without observing them:
    /// then [`Executed::reads_files`] decides).
    pub observed: Option<Observed>,
}

/// The paths a benchmark's processes named while the record pass observed them, and what each
/// held (docs/selection.md, "Observed inputs").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observed {
    /// By path (relative to the workspace root inside it, else absolute; ending in `/` for a
    /// directory's listing): the digest of what it held, or `absent`
    /// (`crate::measure::observe::digest`).
    pub inputs: BTreeMap<String, String>,
    /// How many paths of the environment (the system's libraries and files, `/proc`, `/sys`,
    /// `/dev`, valgrind's and the runner's own) they named: the fingerprint's, not compared.
    pub environment: u64,
}

/// The code record of a build: identities of its objects and, when recorded, what each
/// benchmark executed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodeRecord {
    /// The commit whose build this is (`<hash>-dirty` for a working tree with changes).
    pub commit: String,
    /// The version of the identity's rules its digests were made with: records of two versions
    /// do not compare.
    pub identity: u32,
    /// By object key.
    pub objects: BTreeMap<String, Object>,
    /// By benchmark id (empty when the run did not record).
    pub benchmarks: BTreeMap<String, Executed>,
    /// Why a benchmark of the run has no record, by id.
    pub unrecorded: BTreeMap<String, String>,
}

/// What `irgate run --record` may keep of the baselines' code record instead of recording again.
#[derive(Debug, Clone, Default)]
pub struct Keep {
    /// The baselines' code record, as selection trusts it.
    pub record: CodeRecord,
    /// Its benchmarks that executed none of the code that changed since it and read no changed
    /// file.
    pub untouched: BTreeSet<String>,
}

impl CodeRecord {
    /// Takes the entries of `ids` from `earlier`, a trusted record of an earlier build in which
    /// these benchmarks executed the same code (none of it changed since) and measured the same
    /// counts, instead of recording them again: what a record pass would record, since the same
    /// code runs the same way. Their functions are joined with what `earlier` kept of them
    /// ([`Object::join`]): its data references are equal here, since the function's code and the
    /// data it reads there are unchanged. Call it once the objects' identities are read, with
    /// the addresses the record pass saw (an object only kept entries executed code of is read
    /// with none), and before constructors, listing code and narrowing are added.
    pub fn keep_from(&mut self, earlier: &CodeRecord, ids: &BTreeSet<String>) {
        for id in ids {
            let Some(entry) = earlier.benchmarks.get(id) else {
                continue;
            };
            for (key, names) in &entry.functions {
                let (Some(object), Some(old)) =
                    (self.objects.get_mut(key), earlier.objects.get(key))
                else {
                    continue;
                };
                for name in names {
                    object.join(old, name);
                }
            }
            self.benchmarks.insert(id.clone(), entry.clone());
        }
    }

    /// Gives every function a benchmark executed that its object's identity does not hold the
    /// [`UNKNOWN_DIGEST`], so that it is kept and always counts as changed; one named by its
    /// address ([`is_address`]) gets the digest of the object's code no symbol names
    /// ([`UNNAMED`]) when the identity has it. A benchmark that
    /// executed code of an object without an identity (`failed`: why, by key; e.g. a shared
    /// library linked without relocations) has its entry moved to `unrecorded`, the object
    /// named: it counts as touched, and the rest of the record stands.
    pub fn mark_unknown(&mut self, failed: &BTreeMap<String, String>) {
        let entries = std::mem::take(&mut self.benchmarks);
        for (id, executed) in entries {
            let mut used = executed.functions.keys().chain(&executed.whole);
            match used.find_map(|key| Some((key, failed.get(key)?))) {
                Some((key, why)) => {
                    let why = format!(
                        "it executed code of `{key}`, which has no code identity ({why}): it \
                         counts as touched while that object cannot be read"
                    );
                    self.unrecorded.insert(id, why);
                }
                None => {
                    self.benchmarks.insert(id, executed);
                }
            }
        }
        for executed in self.benchmarks.values() {
            for (key, names) in &executed.functions {
                if let Some(object) = self.objects.get_mut(key) {
                    let unnamed = object.functions.get(UNNAMED).cloned();
                    for name in names {
                        let digest = match &unnamed {
                            Some(digest) if is_address(name) => digest,
                            _ => UNKNOWN_DIGEST,
                        };
                        object
                            .functions
                            .entry(name.clone())
                            .or_insert_with(|| digest.to_owned());
                    }
                }
            }
        }
    }

    /// Counts the constructors of every object a benchmark executed code of as executed by it: they
    /// ran before `main`, where the record starts, and what they set up can move its count. No
    /// benchmark's record holds their instructions, so it cannot tell which of their data
    /// references they read: their parts are dropped, and they compare by their whole digest
    /// (code and every reference's data).
    pub fn add_constructors(&mut self) {
        for executed in self.benchmarks.values_mut() {
            for (key, names) in executed.functions.iter_mut() {
                if let Some(object) = self.objects.get(key) {
                    names.extend(object.constructors.iter().cloned());
                }
            }
        }
        for object in self.objects.values_mut() {
            let constructors = &object.constructors;
            object.parts.retain(|name, _| !constructors.contains(name));
        }
    }

    /// Counts the code of each bench binary (object keys ending in a name of `bench_crates`, the
    /// crates cargo builds of the bench targets) that no benchmark's process executed as executed
    /// by every benchmark that ran code of that binary. That code runs in the harness's listing
    /// process, which builds each benchmark's configuration (its `env`, arguments, tool options)
    /// and hands it to the measured one: a change to it may move any of them. That process is not
    /// recorded, so no executed instruction says which data references of that code are read (a
    /// configuration built from a table in read-only data changes only data): its parts are
    /// dropped, and it compares by its whole digest (code and every reference's data).
    ///
    /// A record of some benchmarks of a binary (`irgate run --record FILTER`) learns what the
    /// others executed from `earlier` (the baselines' record): a function that some but not all of
    /// their entries hold was executed by a benchmark, not the listing process (which every entry
    /// holds), so another benchmark's wrapper does not become every recorded one's listing code.
    pub fn add_listing(&mut self, bench_crates: &BTreeSet<String>, earlier: Option<&CodeRecord>) {
        let mut listings: Vec<(String, Vec<String>)> = Vec::new();
        for (key, object) in &self.objects {
            let Some(name) = key.rsplit('/').next().filter(|n| bench_crates.contains(*n)) else {
                continue;
            };
            let (path, qualified) = (format!("{name}::"), format!("<{name}::"));
            let own = |function: &&String| {
                function.starts_with(&path) || function.starts_with(&qualified)
            };
            let mut executed: BTreeSet<&String> = self
                .benchmarks
                .values()
                .filter_map(|e| e.functions.get(key))
                .flatten()
                .collect();
            if let Some(earlier) = earlier {
                executed.extend(earlier.executed_alone(key, &self.benchmarks));
            }
            let listing: Vec<String> = object
                .functions
                .keys()
                .filter(own)
                .filter(|f| !executed.contains(f))
                .cloned()
                .collect();
            listings.push((key.clone(), listing));
        }
        for (key, listing) in listings {
            for executed in self.benchmarks.values_mut() {
                if let Some(names) = executed.functions.get_mut(&key) {
                    names.extend(listing.iter().cloned());
                }
            }
            if let Some(object) = self.objects.get_mut(&key) {
                for name in &listing {
                    object.parts.remove(name);
                }
            }
        }
    }

    /// The functions of object `key` that the entries not in `besides` hold and some entry of
    /// this record does not: what some of those benchmarks executed, not the code every entry of
    /// a binary holds (its listing code, or what every benchmark ran).
    fn executed_alone<'a>(
        &'a self,
        key: &str,
        besides: &BTreeMap<String, Executed>,
    ) -> BTreeSet<&'a String> {
        let all: Vec<&BTreeSet<String>> = self
            .benchmarks
            .values()
            .filter_map(|e| e.functions.get(key))
            .collect();
        let held_by_all = |name: &String| all.iter().all(|names| names.contains(name));
        self.benchmarks
            .iter()
            .filter(|(id, _)| !besides.contains_key(*id))
            .filter_map(|(_, e)| e.functions.get(key))
            .flatten()
            .filter(|name| !held_by_all(name))
            .collect()
    }

    /// Keeps only the functions some benchmark executed, in the objects they executed them in
    /// (whole objects keep their digest), and the objects benchmarks use.
    pub fn narrow_to_executed(&mut self) {
        let mut used: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut whole: BTreeSet<&str> = BTreeSet::new();
        for executed in self.benchmarks.values() {
            for (object, functions) in &executed.functions {
                used.entry(object)
                    .or_default()
                    .extend(functions.iter().map(String::as_str));
            }
            whole.extend(executed.whole.iter().map(String::as_str));
        }
        let objects = std::mem::take(&mut self.objects);
        for (key, mut object) in objects {
            let Some(keep) = used.get(key.as_str()) else {
                if whole.contains(key.as_str()) {
                    object.functions.clear();
                    object.parts.clear();
                    object.path = None;
                    self.objects.insert(key, object);
                }
                continue;
            };
            object
                .functions
                .retain(|name, _| keep.contains(name.as_str()));
            object.parts.retain(|name, _| keep.contains(name.as_str()));
            object.path = None;
            self.objects.insert(key, object);
        }
    }
}

#[cfg(test)]
mod tests;
