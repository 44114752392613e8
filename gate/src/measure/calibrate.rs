//! Calibration's builds: the working tree copied into one scratch directory whose path is as long
//! as the checkout's ([`scratch_path`]: a count moves with the length of the paths compiled into
//! the binary and handed to it), each [`Variant`] built there cold (its own target directory,
//! inside the copy, emptied first) with the measurement build and run; the benchmarks whose counts
//! differ between two cold builds of the same tree ([`Variant::Rebuild`]: not reproducible, never
//! budgeted) and what differed between them (the data build scripts wrote into `OUT_DIR`, the
//! code identity of the functions a benchmark executed); which benchmarks each perturbed build
//! left untouched, by the code identity; the spread of each benchmark's count over the builds,
//! with the budget it suggests; and the address budget (`[layout]`) learned from the benchmarks a
//! perturbed build left untouched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::change::{self, Change, ChangedFunction, How};
use crate::config::Config;
use crate::config::budgets::DEFAULT_LAYOUT_BUDGET;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::collect::{self, Place, Selection};
use crate::measure::fingerprint;
use crate::measure::paths::Resolved;
use crate::measure::workspace::Workspace;
use crate::model::code::CodeRecord;
use crate::model::{Results, Touch};

/// A build of the working tree that differs from it only in code no benchmark runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The working tree as it is.
    Base,
    /// The working tree as it is, built again from nothing at the same path: a benchmark whose
    /// count differs from `base`'s has a build that is not reproducible.
    Rebuild,
    /// Every workspace member's version one patch release higher, as a release bumps it: other
    /// symbol hashes, so another order of functions and data in the binary.
    Version,
    /// A function no benchmark calls appended to every member's library.
    Unrelated,
}

/// What a code-free perturbation adds to a library: a function nothing calls.
const UNRELATED_CODE: &str = "
/// Added by `irgate calibrate` to a scratch copy of this crate: code no benchmark runs.
#[doc(hidden)]
#[inline(never)]
pub fn __irgate_calibrate_unrelated(seed: u64) -> u64 {
    let mut x = seed;
    let mut i = 0;
    while i < 64 {
        x = x.rotate_left(7) ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        i += 1;
    }
    x
}
";

impl Variant {
    /// The builds `irgate calibrate` makes by default.
    pub const DEFAULT: &[Variant] = &[
        Variant::Base,
        Variant::Rebuild,
        Variant::Version,
        Variant::Unrelated,
    ];

    /// The reproducibility check alone: the tree built twice from nothing at one path.
    pub const REPRODUCIBILITY: &[Variant] = &[Variant::Base, Variant::Rebuild];

    /// Its name, which names its results file too.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Base => "base",
            Variant::Rebuild => "rebuild",
            Variant::Version => "version",
            Variant::Unrelated => "unrelated",
        }
    }

    /// The files of the copy this variant changes, relative to its root (what a benchmark that
    /// reads files at run time may read differently): the manifests and the lock file for
    /// `version`, the libraries' root files for `unrelated`.
    fn changed_files(self, members: &[Member]) -> Vec<String> {
        let shown = |path: &Path| path.display().to_string();
        match self {
            Variant::Base | Variant::Rebuild => Vec::new(),
            Variant::Version => ["Cargo.toml", "Cargo.lock"]
                .into_iter()
                .map(str::to_owned)
                .chain(members.iter().map(|m| shown(&m.manifest)))
                .collect(),
            Variant::Unrelated => members
                .iter()
                .filter_map(|m| m.lib.as_deref())
                .map(shown)
                .collect(),
        }
    }

    /// Perturbs the copy of the workspace at `src`, whose members are `members`.
    fn apply(self, src: &Path, members: &[Member]) -> Result<()> {
        match self {
            Variant::Base | Variant::Rebuild => Ok(()),
            Variant::Version => {
                bump_version(
                    &src.join("Cargo.toml"),
                    &["workspace", "package", "version"],
                )?;
                for member in members {
                    bump_version(&src.join(&member.manifest), &["package", "version"])?;
                }
                Ok(())
            }
            Variant::Unrelated => {
                for lib in members.iter().filter_map(|m| m.lib.as_ref()) {
                    let path = src.join(lib);
                    let mut text =
                        std::fs::read_to_string(&path).map_err(|e| Error::read(&path, e))?;
                    text.push_str(UNRELATED_CODE);
                    std::fs::write(&path, text).map_err(|e| Error::write(&path, e))?;
                }
                Ok(())
            }
        }
    }
}

/// A workspace member, by paths relative to the workspace root.
#[derive(Debug, Clone)]
struct Member {
    /// Its package name.
    name: String,
    /// Its version.
    version: semver::Version,
    /// Its `Cargo.toml`.
    manifest: PathBuf,
    /// Its library's root source file, if it has a library.
    lib: Option<PathBuf>,
}

/// Calls `f` with the name (its `package` key, else its key) and the table of every dependency
/// of a manifest given as a table: `[dependencies]`, `[dev-dependencies]`,
/// `[build-dependencies]`, the same under `[target.*]`, `[workspace.dependencies]` and every
/// `[patch.*]`. A dependency given as a bare version string has no table and is skipped.
fn each_dependency(
    doc: &mut toml_edit::DocumentMut,
    f: &mut dyn FnMut(&str, &mut dyn toml_edit::TableLike),
) {
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    fn deps(
        item: Option<&mut toml_edit::Item>,
        f: &mut dyn FnMut(&str, &mut dyn toml_edit::TableLike),
    ) {
        let Some(table) = item.and_then(toml_edit::Item::as_table_like_mut) else {
            return;
        };
        for (key, dep) in table.iter_mut() {
            if let Some(dep) = dep.as_table_like_mut() {
                let name = dep
                    .get("package")
                    .and_then(toml_edit::Item::as_str)
                    .unwrap_or(key.get())
                    .to_owned();
                f(&name, dep);
            }
        }
    }
    fn nested(item: Option<&mut toml_edit::Item>) -> Vec<&mut toml_edit::Item> {
        item.and_then(toml_edit::Item::as_table_like_mut)
            .map(|t| t.iter_mut().map(|(_, item)| item).collect())
            .unwrap_or_default()
    }
    // `TableLike::get_mut` finds without inserting (`Item::get_mut` would add an empty table).
    fn get<'a>(item: &'a mut toml_edit::Item, key: &str) -> Option<&'a mut toml_edit::Item> {
        item.as_table_like_mut()?.get_mut(key)
    }
    let root = doc.as_item_mut();
    for kind in KINDS {
        deps(get(root, kind), f);
    }
    for target in nested(get(root, "target")) {
        for kind in KINDS {
            deps(get(target, kind), f);
        }
    }
    deps(
        get(root, "workspace").and_then(|w| get(w, "dependencies")),
        f,
    );
    for registry in nested(get(root, "patch")) {
        deps(Some(registry), f);
    }
}

/// Rewrites the manifests of the copy at `src` of the workspace at `root` (its root manifest and
/// `members`'), so that the copy builds where it is: a relative `path` dependency that leaves the
/// workspace (`path = "../shared"`) points to the same directory by its absolute path (cargo
/// compiles such a crate by its absolute path either way, so its code does not change); with
/// `bumped` (the `version` variant), a requirement on a member that its raised version no
/// longer meets (`version = "=0.1.0"`) becomes `=` the raised version.
fn rewrite_manifests(src: &Path, root: &Path, members: &[Member], bumped: bool) -> Result<()> {
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let mut manifests = vec![PathBuf::from("Cargo.toml")];
    manifests.extend(members.iter().map(|m| m.manifest.clone()));
    manifests.dedup();
    for manifest in manifests {
        let copy = src.join(&manifest);
        let Ok(text) = std::fs::read_to_string(&copy) else {
            continue;
        };
        let mut doc: toml_edit::DocumentMut = text
            .parse()
            .map_err(|e: toml_edit::TomlError| Error::invalid(copy.display(), e.to_string()))?;
        let dir = root.join(manifest.parent().unwrap_or(Path::new("")));
        let mut changed = false;
        each_dependency(&mut doc, &mut |name, dep| {
            if let Some(path) = dep.get("path").and_then(toml_edit::Item::as_str)
                && Path::new(path).is_relative()
            {
                let original = dir.join(path);
                let real = original.canonicalize().unwrap_or(original);
                if !real.starts_with(&real_root) {
                    dep.insert("path", toml_edit::value(real.display().to_string()));
                    changed = true;
                }
            }
            let member = members.iter().find(|m| m.name == name);
            if let (true, Some(member)) = (bumped, member) {
                let mut raised = member.version.clone();
                raised.patch += 1;
                let requirement = dep
                    .get("version")
                    .and_then(toml_edit::Item::as_str)
                    .and_then(|v| semver::VersionReq::parse(v).ok());
                if requirement.is_some_and(|r| !r.matches(&raised)) {
                    dep.insert("version", toml_edit::value(format!("={raised}")));
                    changed = true;
                }
            }
        });
        if changed {
            std::fs::write(&copy, doc.to_string()).map_err(|e| Error::write(&copy, e))?;
        }
    }
    Ok(())
}

/// The members of the workspace at `root` (`cargo metadata`), those inside it.
fn members(root: &Path) -> Result<Vec<Member>> {
    let metadata = cargo_metadata::MetadataCommand::new()
        .current_dir(root)
        .no_deps()
        .exec()
        .map_err(|e| Error::Tool(format!("cargo metadata in {}: {e}", root.display())))?;
    let inside = |path: &Path| path.strip_prefix(root).ok().map(Path::to_owned);
    Ok(metadata
        .workspace_packages()
        .into_iter()
        .filter_map(|package| {
            let lib = package
                .targets
                .iter()
                .find(|t| {
                    t.kind.iter().any(|k| {
                        matches!(
                            k,
                            cargo_metadata::TargetKind::Lib | cargo_metadata::TargetKind::RLib
                        )
                    })
                })
                .and_then(|t| inside(t.src_path.as_std_path()));
            Some(Member {
                name: package.name.to_string(),
                version: package.version.clone(),
                manifest: inside(package.manifest_path.as_std_path())?,
                lib,
            })
        })
        .collect())
}

/// Raises the version at `key` of the manifest at `manifest` by one patch release, when it holds
/// one there (a member that inherits its version has none: the workspace's is raised).
fn bump_version(manifest: &Path, key: &[&str]) -> Result<()> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Error::read(manifest, e))?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::invalid(manifest.display(), e.to_string()))?;
    let Some((last, tables)) = key.split_last() else {
        return Ok(());
    };
    let mut item = doc.as_item_mut();
    for name in tables {
        match item.get_mut(name) {
            Some(inner) => item = inner,
            None => return Ok(()),
        }
    }
    let Some(value) = item.get_mut(last).and_then(toml_edit::Item::as_value_mut) else {
        return Ok(());
    };
    let Some(version) = value.as_str().map(str::to_owned) else {
        return Ok(());
    };
    let mut parsed = semver::Version::parse(&version)
        .map_err(|e| Error::invalid(manifest.display(), format!("version {version:?}: {e}")))?;
    parsed.patch += 1;
    let decor = value.decor().clone();
    *value = parsed.to_string().into();
    *value.decor_mut() = decor;
    std::fs::write(manifest, doc.to_string()).map_err(|e| Error::write(manifest, e))
}

/// Refuses fewer than 2 variants (nothing to compare), more than 10, or one twice.
pub fn check_count(variants: &[Variant]) -> Result<()> {
    if let Some(twice) = variants
        .iter()
        .enumerate()
        .find_map(|(i, v)| variants[..i].contains(v).then_some(v))
    {
        return Err(Error::invalid(
            "irgate calibrate",
            format!("`{}` is named twice", twice.name()),
        ));
    }
    if (2..=10).contains(&variants.len()) {
        return Ok(());
    }
    Err(Error::invalid(
        "irgate calibrate",
        format!(
            "{} variants: calibration compares 2 to 10 builds",
            variants.len()
        ),
    ))
}

/// The scratch directory calibration copies the checkout at `root` into: a path exactly as long
/// as `root`, so that the paths compiled into the binaries (panic locations, `file!()`,
/// `CARGO_MANIFEST_DIR`) and those the benchmark process sees keep their lengths. A binary
/// benchmark measured 297,472 Ir in a checkout and 301,151 Ir in a copy whose path was 34 bytes
/// longer, so a copy at another length measures the path, not layout. `<temp>/igc/s` padded
/// with `x` to the length, else (a short checkout path, such as the pinned container's
/// `/irgate`) a sibling of the checkout whose name ends in `~` in place of its last character.
pub fn scratch_path(root: &Path) -> Result<PathBuf> {
    let length = root.as_os_str().len();
    let base = std::env::temp_dir().join("igc").join("s");
    let base_length = base.as_os_str().len();
    if length >= base_length {
        let mut path = base.into_os_string();
        path.push("x".repeat(length - base_length));
        let mut path = PathBuf::from(path);
        if path == root {
            // The checkout is the scratch path itself: its neighbour `t...`.
            path.set_file_name(format!("t{}", "x".repeat(length - base_length)));
        }
        return Ok(path);
    }
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match (root.parent(), name.chars().count()) {
        (Some(parent), 2..) if name.is_ascii() => {
            Ok(parent.join(format!("{}~", &name[..name.len() - 1])))
        }
        _ => Err(Error::Tool(format!(
            "calibration copies the checkout to a path of the same length as {} (counts move with \
             the path's length), and finds none: move the checkout to a path of at least {} bytes",
            root.display(),
            base_length
        ))),
    }
}

/// One calibration build: its variant's name, its counts, a digest of every file the build
/// scripts wrote into `OUT_DIR` (by path below the target directory, the package's hash
/// stripped), so two builds of one tree can say which build script wrote other data, and its code.
#[derive(Debug, Clone)]
pub struct Build {
    /// The variant's name.
    pub name: String,
    /// Its counts.
    pub results: Results,
    /// `OUT_DIR` files: `<package>/out/<file>` to a digest of the content.
    pub out_dir: BTreeMap<String, String>,
    /// Its code: for the reference build ([`reference`]) the record of what each benchmark
    /// executed, for the others the identity of their objects; `None` when not known (results
    /// of a build made elsewhere with no code record beside them).
    pub code: Option<CodeRecord>,
    /// The files this build changed against the reference build, relative to the workspace root
    /// (what a benchmark that reads files at run time may read differently); `None` when not
    /// known.
    pub changed_files: Option<Vec<String>>,
}

/// The build the others are compared with, by code and by count: `base`, else the first.
pub fn reference(builds: &[Build]) -> Option<&Build> {
    builds
        .iter()
        .find(|b| b.name == Variant::Base.name())
        .or(builds.first())
}

/// Builds and runs each of `variants`, one after the other, in one scratch copy of the working
/// tree at `paths.root` whose path is as long as the checkout's ([`scratch_path`]); each build
/// starts from nothing (the copy's own target directory is emptied), writes its results beside
/// the workspace's (`<target>/irgate/calibrate/<variant>.json`), and is returned.
pub fn measure(
    config: &Config,
    paths: &Resolved,
    selection: &Selection,
    variants: &[Variant],
) -> Result<Vec<Build>> {
    check_count(variants)?;
    // The copy builds in a target directory of its own, inside it, at the same place relative
    // to the copy as the checkout's. Sharing the workspace's was tried and is unsound: cargo
    // hashes a member by its path relative to the workspace root, so a copy's artifacts took the
    // member's place, with dep-info pointing into the copy, and the next `irgate run` kept
    // running the copy's code after the member changed.
    let workspace = Workspace::load(&paths.root)?;
    let results_dir = workspace.target_dir.join("irgate").join("calibrate");
    let src = scratch_path(&paths.root)?;
    let target = match workspace.target_dir.strip_prefix(&paths.root) {
        Ok(inside) => src.join(inside),
        Err(_) => src.join("target"),
    };
    let lock = lock(&src)?;
    let members = members(&paths.root)?;
    // The reference build records what each benchmark executed (a second, recording pass of
    // its benchmarks); the others only hash their objects.
    let recorded = if variants.contains(&Variant::Base) {
        Variant::Base
    } else {
        variants[0]
    };
    let mut builds = Vec::new();
    let started = Instant::now();
    for (index, variant) in variants.iter().enumerate() {
        // The mirror removes every file git does not list, the copy's target directory with
        // them: each build starts from nothing.
        crate::measure::ab::mirror(&paths.root, &src)?;
        remove_dir(&target)?;
        variant.apply(&src, &members)?;
        rewrite_manifests(&src, &paths.root, &members, *variant == Variant::Version)?;
        eprintln!(
            "irgate: calibrate: build {} of {}, `{}`, in {}{}",
            index + 1,
            variants.len(),
            variant.name(),
            src.display(),
            estimate(started.elapsed(), index, variants.len())
        );
        let label = format!("{:<10}", variant.name());
        let variant_paths = Resolved {
            root: src.clone(),
            ..paths.clone()
        };
        let place = Place {
            target: target.clone(),
            home: None,
            label: &label,
        };
        let one = Instant::now();
        let variant_selection = Selection {
            record: *variant == recorded,
            ..*selection
        };
        let (mut results, code) = collect::run_with_code(
            config,
            &variant_selection,
            &variant_paths,
            None,
            Some(&place),
        )
        .map_err(|e| Error::Tool(format!("calibration build `{}`: {e}", variant.name())))?;
        results.fingerprint.commit = fingerprint::commit(&paths.root);
        results.fingerprint.workspace_root = paths.root.display().to_string();
        let file = results_dir.join(format!("{}.json", variant.name()));
        crate::formats::results::write(&file, &results)?;
        eprintln!(
            "irgate: calibrate: `{}` built and ran in {:.0} s; wrote {}",
            variant.name(),
            one.elapsed().as_secs_f64(),
            file.display()
        );
        builds.push(Build {
            name: variant.name().to_owned(),
            results,
            out_dir: out_dir_digests(&target),
            code: Some(code),
            changed_files: Some(variant.changed_files(&members)),
        });
    }
    // Nothing of the copy is reused (every build starts from nothing): its space is given back.
    remove_dir(&src)?;
    drop(lock);
    narrow_to_reference(&mut builds);
    for build in &builds {
        if let Some(code) = &build.code {
            let file = results_dir.join(format!("{}.json", build.name));
            crate::formats::code::write(&crate::paths::code_record_of(&file), code)?;
        }
    }
    Ok(builds)
}

/// Keeps, of every build's code but the reference's, only the functions the reference's
/// benchmarks executed: all that is compared, and the files written beside the results stay
/// small.
fn narrow_to_reference(builds: &mut [Build]) {
    let Some(executed) = reference(builds)
        .and_then(|b| b.code.as_ref())
        .map(|c| c.benchmarks.clone())
    else {
        return;
    };
    let name = reference(builds).map(|b| b.name.clone());
    for build in builds.iter_mut() {
        if Some(&build.name) == name.as_ref() {
            continue;
        }
        if let Some(code) = &mut build.code {
            code.benchmarks = executed.clone();
            code.narrow_to_executed();
            code.benchmarks.clear();
        }
    }
}

/// ", about N min left" after `done` of `total` builds took `elapsed` (the first build is the
/// estimate of each; nothing before it).
pub fn estimate(elapsed: std::time::Duration, done: usize, total: usize) -> String {
    if done == 0 {
        return String::new();
    }
    let left = elapsed.as_secs_f64() / done as f64 * (total - done) as f64;
    format!(
        " (about {} left, at {:.0} s a build so far)",
        crate::text::duration(left),
        elapsed.as_secs_f64() / done as f64
    )
}

/// Holds the scratch copy for this process: another calibration at once would build into it.
fn lock(src: &Path) -> Result<std::fs::File> {
    let mut path = src.as_os_str().to_owned();
    path.push(".lock");
    let path = PathBuf::from(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::write(parent, e))?;
    }
    let file = std::fs::File::create(&path).map_err(|e| Error::write(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(_) => Err(Error::Tool(format!(
            "another calibration is building in {} ({} is locked): wait for it to finish",
            src.display(),
            path.display()
        ))),
    }
}

/// Removes the directory `dir` and all it holds, if it exists.
fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::write(dir, e)),
        _ => Ok(()),
    }
}

/// A digest of every file below `<target>/<profile>/build/<package>-<hash>/out/`, by
/// `<package>/out/<file>` (the hash stripped: it is the same for two builds of one tree).
fn out_dir_digests(target: &Path) -> BTreeMap<String, String> {
    use sha2::Digest as _;
    let mut out = BTreeMap::new();
    let dirs = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default()
    };
    for profile in dirs(target) {
        for package in dirs(&profile.join("build")) {
            let name = package
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = name
                .rsplit_once('-')
                .map_or(name.as_str(), |(n, _)| n)
                .to_owned();
            let root = package.join("out");
            let mut stack = vec![root.clone()];
            while let Some(dir) = stack.pop() {
                for path in dirs(&dir) {
                    if path.is_dir() {
                        stack.push(path);
                    } else if let Ok(bytes) = std::fs::read(&path) {
                        let rel = path.strip_prefix(&root).unwrap_or(&path);
                        let digest = format!("{:x}", sha2::Sha256::digest(&bytes));
                        out.insert(format!("{name}/out/{}", rel.display()), digest);
                    }
                }
            }
        }
    }
    out
}

/// How a benchmark's code in one build compares with the reference build's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// Its process executed the same code reading the same data, and reads no file the build
    /// changed: the build left it untouched.
    Same,
    /// It executed these functions, whose code differs, or (none) may read at run time a file
    /// the build changed, as `reads` says.
    Differs {
        /// The functions (or whole objects) whose code differs.
        functions: Vec<ChangedFunction>,
        /// Why it may read a changed file, when that is what differs.
        reads: Option<String>,
    },
    /// Not known (no code record of it, or no identity of an object it executed), and why.
    Unknown(String),
}

impl Code {
    /// What differs, in a phrase (escaped for a terminal: the names are the repository's).
    pub fn describe(&self) -> String {
        match self {
            Code::Same => "the same code".to_owned(),
            Code::Differs { functions, reads } if functions.is_empty() => {
                crate::text::terminal(reads.as_deref().unwrap_or("")).into_owned()
            }
            Code::Differs { functions, .. } => {
                let named: Vec<String> = functions.iter().take(4).map(function).collect();
                format!(
                    "executes {}{}",
                    named.join(", "),
                    if functions.len() > 4 {
                        format!(" and {} more", functions.len() - 4)
                    } else {
                        String::new()
                    }
                )
            }
            Code::Unknown(why) => crate::text::terminal(why).into_owned(),
        }
    }
}

/// A changed function, named with its object: `` `ndfix::drawn` (release/deps/data) ``.
fn function(f: &ChangedFunction) -> String {
    let object = crate::text::terminal(&f.object);
    match f.how {
        How::Whole => format!("the whole of `{object}`"),
        How::Vanished => format!(
            "`{}` ({object}; absent from one build)",
            crate::text::terminal(&f.name)
        ),
        How::Changed => format!("`{}` ({object})", crate::text::terminal(&f.name)),
    }
}

/// The code of every benchmark of `reference`'s results in `build`, compared with the
/// reference's by the code identity ([`change::touched`], with the files `build` changed):
/// every benchmark is [`Code::Unknown`] when either build has no code.
pub fn compare_code(reference: &Build, build: &Build) -> BTreeMap<String, Code> {
    let ids: Vec<String> = reference.results.benchmarks.keys().cloned().collect();
    let (Some(base), Some(other)) = (&reference.code, &build.code) else {
        let missing = if reference.code.is_none() {
            &reference.name
        } else {
            &build.name
        };
        let why = format!("no code record of the build `{missing}`");
        return ids
            .into_iter()
            .map(|id| (id, Code::Unknown(why.clone())))
            .collect();
    };
    let change = Change {
        files: build.changed_files.clone().unwrap_or_default(),
        ..Change::default()
    };
    let change::Touches { functions, touch } = change::touched(base, &other.objects, &change, &ids);
    touch
        .into_iter()
        .map(|(id, touch)| {
            let reads = base
                .benchmarks
                .get(&id)
                .and_then(|e| e.reads_files.as_ref());
            let code = match touch {
                Touch::Untouched => match (&build.changed_files, reads) {
                    (None, Some(why)) => Code::Unknown(format!(
                        "it may read files at run time ({why}), and which files the build `{}` \
                         changed is not known",
                        build.name
                    )),
                    _ => Code::Same,
                },
                Touch::Runs { functions: changed } => Code::Differs {
                    functions: changed.iter().map(|&i| functions[i].clone()).collect(),
                    reads: None,
                },
                Touch::Reads { reason } => Code::Differs {
                    functions: Vec::new(),
                    reads: Some(reason),
                },
                Touch::Unrecorded { reason } => Code::Unknown(reason),
            };
            (id, code)
        })
        .collect()
}

/// The benchmarks whose Ir differs between the builds `base` and `rebuild` (two cold builds of
/// one tree at one path), with their counts; those that executed a function whose code identity
/// differs between them, with the functions; and the `OUT_DIR` files whose content differed:
/// empty when the builds do not include both.
pub fn unreproducible(builds: &[Build]) -> Unreproducible {
    let find = |name: &str| builds.iter().find(|b| b.name == name);
    let (Some(base), Some(again)) = (find("base"), find("rebuild")) else {
        return Unreproducible::default();
    };
    let benchmarks = base
        .results
        .benchmarks
        .iter()
        .filter_map(|(id, counts)| {
            let a = *counts.get(IR)?;
            let b = *again.results.benchmarks.get(id)?.get(IR)?;
            (a != b).then(|| (id.clone(), a, b))
        })
        .collect();
    let code = compare_code(base, again)
        .into_iter()
        .filter_map(|(id, code)| match code {
            Code::Differs { functions, .. } if !functions.is_empty() => Some((id, functions)),
            _ => None,
        })
        .collect();
    let out_dir = base
        .out_dir
        .iter()
        .filter(|(file, digest)| again.out_dir.get(*file) != Some(*digest))
        .map(|(file, _)| file.clone())
        .chain(
            again
                .out_dir
                .keys()
                .filter(|file| !base.out_dir.contains_key(*file))
                .cloned(),
        )
        .collect();
    Unreproducible {
        checked: true,
        benchmarks,
        code,
        out_dir,
    }
}

/// What two cold builds of one tree at one path disagreed on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unreproducible {
    /// Whether the builds held `base` and `rebuild`, so that reproducibility was checked at all.
    pub checked: bool,
    /// Benchmark, Ir of the first build, Ir of the second.
    pub benchmarks: Vec<(String, u64, u64)>,
    /// By benchmark, the functions it executed whose code identity differed between the two
    /// builds (whatever the counts said).
    pub code: BTreeMap<String, Vec<ChangedFunction>>,
    /// The `OUT_DIR` files (`<package>/out/<file>`) whose content differed.
    pub out_dir: Vec<String>,
}

impl Unreproducible {
    /// The ids: those whose count differed, and those whose executed code did.
    pub fn ids(&self) -> BTreeSet<String> {
        self.benchmarks
            .iter()
            .map(|(id, _, _)| id.clone())
            .chain(self.code.keys().cloned())
            .collect()
    }

    /// The functions whose code differed, each once, named with their objects.
    pub fn functions(&self) -> Vec<String> {
        let all: BTreeSet<&ChangedFunction> = self.code.values().flatten().collect();
        all.into_iter().map(function).collect()
    }

    /// The likely cause, in a sentence.
    pub fn cause(&self) -> String {
        let mut causes = Vec::new();
        if !self.code.is_empty() {
            let functions = self.functions();
            let named: Vec<&str> = functions.iter().take(5).map(String::as_str).collect();
            causes.push(format!(
                "the two builds compiled other code or data into functions these benchmarks \
                 execute ({}{}): a build script or macro writing random data, the time or the \
                 environment into the code",
                named.join(", "),
                if functions.len() > 5 { ", ..." } else { "" }
            ));
        }
        if !self.out_dir.is_empty() {
            let named: Vec<&str> = self.out_dir.iter().take(5).map(String::as_str).collect();
            causes.push(format!(
                "build scripts wrote other data into OUT_DIR each time ({}{}): a build script \
                 drawing unseeded random numbers, the time or the environment",
                named.join(", "),
                if self.out_dir.len() > 5 { ", ..." } else { "" }
            ));
        }
        if causes.is_empty() {
            "the build scripts wrote the same OUT_DIR data both times and the benchmarks \
             executed the same code: the benchmark's own run differs (hash seeds: a HashMap's \
             RandomState, the time, addresses)"
                .to_owned()
        } else {
            causes.join("; ")
        }
    }
}

/// A benchmark a perturbed build touched: left out of its spread and of the address budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    /// Benchmark id.
    pub benchmark: String,
    /// The build.
    pub build: String,
    /// Its Ir in that build minus its Ir in the reference build.
    pub moved: i64,
    /// What differs ([`Code::describe`]).
    pub why: String,
}

/// The address budget (`[layout]`) learned from the benchmarks the perturbed builds left
/// untouched ([`learn_layout`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// The budget in Ir; `None` when no benchmark was proven untouched in a perturbed build
    /// (the default is kept).
    pub budget: Option<u64>,
    /// How many benchmarks it was learned from.
    pub sample: usize,
    /// The perturbed builds it was learned from.
    pub builds: Vec<String>,
    /// The largest spread among them: benchmark and Ir.
    pub largest: Option<(String, u64)>,
    /// The benchmarks a perturbed build touched, by build.
    pub touched: Vec<Touched>,
    /// How many benchmarks of perturbed builds could not be compared by code.
    pub unknown: usize,
}

/// The address budget learned from `runs` (name, results) against the build `reference`, given
/// how each other build's code compares with the reference's (`compared`, by build and
/// benchmark). For each benchmark not in `unreproducible`, its learning set is the reference
/// build and every perturbed build (neither the reference nor `rebuild`, which perturbs
/// nothing) whose code is [`Code::Same`] for it; a benchmark whose set holds two builds or
/// more is learned from, with its spread (largest count minus smallest) over the set. The
/// budget is one and a half times the largest such spread, rounded up, and never below the
/// default layout budget; with no benchmark learned from, there is none (the default stays).
pub fn learn_layout(
    runs: &[(String, Results)],
    reference: &str,
    compared: &[(String, BTreeMap<String, Code>)],
    unreproducible: &BTreeSet<String>,
) -> Layout {
    let ir = |name: &str, id: &str| -> Option<u64> {
        let (_, run) = runs.iter().find(|(n, _)| n == name)?;
        run.benchmarks.get(id)?.get(IR).copied()
    };
    let mut layout = Layout::default();
    let mut builds = BTreeSet::new();
    let Some((_, base)) = runs.iter().find(|(n, _)| n == reference) else {
        return layout;
    };
    for id in base.benchmarks.keys() {
        let Some(first) = ir(reference, id).filter(|_| !unreproducible.contains(id)) else {
            continue;
        };
        let (mut min, mut max, mut size) = (first, first, 1);
        for (build, codes) in compared {
            let Some(count) = ir(build, id) else {
                continue;
            };
            match codes.get(id) {
                Some(Code::Same) if build != Variant::Rebuild.name() => {
                    min = min.min(count);
                    max = max.max(count);
                    size += 1;
                    builds.insert(build.clone());
                }
                Some(code @ Code::Differs { .. }) => layout.touched.push(Touched {
                    benchmark: id.clone(),
                    build: build.clone(),
                    moved: crate::text::signed_delta(count, first),
                    why: code.describe(),
                }),
                Some(Code::Unknown(_)) | None if build != Variant::Rebuild.name() => {
                    layout.unknown += 1;
                }
                _ => {}
            }
        }
        if size < 2 {
            continue;
        }
        layout.sample += 1;
        if layout.largest.as_ref().is_none_or(|(_, l)| max - min > *l) {
            layout.largest = Some((id.clone(), max - min));
        }
    }
    layout.builds = builds.into_iter().collect();
    layout.budget = layout
        .largest
        .as_ref()
        .map(|(_, spread)| (3 * spread).div_ceil(2).max(DEFAULT_LAYOUT_BUDGET.absolute));
    layout
}

/// How far one benchmark's Ir moved across the builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spread {
    /// Benchmark id.
    pub benchmark: String,
    /// The smallest count.
    pub min: u64,
    /// The largest count.
    pub max: u64,
    /// The builds whose count differs from the first build's.
    pub moved_in: Vec<String>,
}

impl Spread {
    /// The suggested absolute Ir budget: one and a half times the spread (rounded up), at least
    /// 1 Ir.
    pub fn suggested(&self) -> u64 {
        (3 * (self.max - self.min)).div_ceil(2).max(1)
    }
}

/// The spread of every benchmark over `runs` (name, results), in id order, leaving out the
/// builds `left_out` names for it (benchmark, build: a build that changed the code it
/// executes). Every run must hold the same benchmarks, taken in the same environment.
pub fn spreads(
    runs: &[(String, Results)],
    left_out: &BTreeSet<(String, String)>,
) -> Result<Vec<Spread>> {
    let [(first_name, first), rest @ ..] = runs else {
        return Err(Error::invalid(
            "irgate calibrate",
            "needs the results of at least two builds",
        ));
    };
    if rest.is_empty() {
        return Err(Error::invalid(
            first_name,
            "one build only: calibration compares the results of at least two builds",
        ));
    }
    for (name, run) in rest {
        let differ = crate::model::fingerprint::mismatches(&first.fingerprint, &run.fingerprint);
        if let Some(m) = differ.first() {
            return Err(Error::invalid(
                name,
                format!(
                    "taken in another environment than {first_name} ({}: `{}` against `{}`): \
                     calibrate with builds run in one environment",
                    m.field, m.current, m.baseline
                ),
            ));
        }
        for (a, b, name) in [(first, run, name), (run, first, first_name)] {
            if let Some(id) = a
                .benchmarks
                .keys()
                .find(|id| !b.benchmarks.contains_key(*id))
            {
                return Err(Error::invalid(
                    name,
                    format!("has no benchmark `{id}`: every build must run the same suite"),
                ));
            }
        }
    }
    let ir = |name: &str, run: &Results, id: &str| -> Result<u64> {
        run.benchmarks[id]
            .get(IR)
            .copied()
            .ok_or_else(|| Error::invalid(name, format!("benchmark `{id}` has no Ir count")))
    };
    let mut out = Vec::new();
    for id in first.benchmarks.keys() {
        let reference = ir(first_name, first, id)?;
        let (mut min, mut max, mut moved_in) = (reference, reference, Vec::new());
        for (name, run) in rest {
            let count = ir(name, run, id)?;
            if left_out.contains(&(id.clone(), name.clone())) {
                continue;
            }
            min = min.min(count);
            max = max.max(count);
            if count != reference {
                moved_in.push(name.clone());
            }
        }
        out.push(Spread {
            benchmark: id.clone(),
            min,
            max,
            moved_in,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_variant_raises_every_version_by_one_patch_release() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\n\n[workspace.package]\nversion = \"1.2.3\" # ours\n",
        );
        write(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"0.1.9-rc.1\"\n",
        );
        write(
            "b/Cargo.toml",
            "[package]\nname = \"b\"\nversion.workspace = true\n",
        );
        write("a/src/lib.rs", "//! a\npub fn a() {}\n");
        let members = [
            Member {
                name: "a".into(),
                version: "0.1.9-rc.1".parse().unwrap(),
                manifest: "a/Cargo.toml".into(),
                lib: Some("a/src/lib.rs".into()),
            },
            Member {
                name: "b".into(),
                version: "1.2.3".parse().unwrap(),
                manifest: "b/Cargo.toml".into(),
                lib: None,
            },
        ];
        Variant::Version.apply(dir.path(), &members).unwrap();
        let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).unwrap();
        assert!(
            read("Cargo.toml").ends_with("[workspace.package]\nversion = \"1.2.4\" # ours\n"),
            "{}",
            read("Cargo.toml")
        );
        assert!(read("a/Cargo.toml").contains("version = \"0.1.10-rc.1\""));
        assert!(read("b/Cargo.toml").contains("version.workspace = true"));

        Variant::Unrelated.apply(dir.path(), &members).unwrap();
        let lib = read("a/src/lib.rs");
        assert!(lib.starts_with("//! a\npub fn a() {}\n\n/// Added by `irgate calibrate`"));
        assert!(lib.contains("pub fn __irgate_calibrate_unrelated(seed: u64) -> u64"));

        write(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"one\"\n",
        );
        let error = Variant::Version
            .apply(dir.path(), &members)
            .unwrap_err()
            .to_string();
        assert!(error.contains("a/Cargo.toml: version \"one\""), "{error}");
    }

    #[test]
    fn the_scratch_copy_has_the_checkouts_path_length() {
        for root in [
            "/work/wt-harden2",
            "/home/someone/projects/a-rather-long-checkout-name",
            "/tmp/igc/sx",
        ] {
            let path = scratch_path(Path::new(root)).unwrap();
            assert_eq!(path.as_os_str().len(), root.len(), "{}", path.display());
            assert_ne!(path, Path::new(root));
        }
        // Shorter than the temporary directory's: a sibling.
        let temp = std::env::temp_dir().join("igc").join("s");
        if temp.as_os_str().len() > "/irgate".len() {
            assert_eq!(
                scratch_path(Path::new("/irgate")).unwrap(),
                Path::new("/irgat~")
            );
        }
        assert!(scratch_path(Path::new("/a")).is_err());
        assert_eq!(estimate(std::time::Duration::from_secs(100), 0, 4), "");
        assert_eq!(
            estimate(std::time::Duration::from_secs(200), 1, 4),
            " (about 10 min 0 s left, at 200 s a build so far)"
        );
    }

    #[test]
    fn a_variant_named_twice_is_refused() {
        let error = check_count(&[Variant::Base, Variant::Base]).unwrap_err();
        assert!(
            error.to_string().contains("`base` is named twice"),
            "{error}"
        );
        assert!(check_count(Variant::DEFAULT).is_ok());
        assert!(check_count(Variant::REPRODUCIBILITY).is_ok());
    }

    /// Issue #33, item 13: a copy of a workspace with a relative path dependency outside it, and
    /// a member pinned by another with `=x.y.z`, resolves (`cargo metadata`) after the rewrite,
    /// in the `version` variant too; before it, neither did.
    #[test]
    fn a_copy_resolves_with_an_outside_path_dependency_and_an_exact_pin() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let root = dir.path().join("checkout");
        let shared = dir.path().join("shared");
        write(
            &shared.join("Cargo.toml"),
            "[package]\nname = \"shared\"\nversion = \"0.3.0\"\nedition = \"2021\"\n",
        );
        write(&shared.join("src/lib.rs"), "pub fn s() {}\n");
        let tree = [
            (
                "Cargo.toml",
                "[workspace]\nresolver = \"2\"\nmembers = [\"a\", \"b\"]\n",
            ),
            (
                "a/Cargo.toml",
                "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nshared = { path = \"../../shared\" }\n",
            ),
            ("a/src/lib.rs", "pub fn a() {}\n"),
            (
                "b/Cargo.toml",
                "[package]\nname = \"b\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n\
                 [dev-dependencies.a]\npath = \"../a\"\nversion = \"=0.1.0\"\n",
            ),
            ("b/src/lib.rs", "pub fn b() {}\n"),
        ];
        for (path, text) in tree {
            write(&root.join(path), text);
        }
        let members = members(&root).unwrap();
        assert_eq!(members.len(), 2);
        let resolves = |src: &Path| {
            std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
                .args(["metadata", "--offline", "--format-version", "1"])
                .current_dir(src)
                .output()
                .unwrap()
                .status
                .success()
        };
        for variant in [Variant::Base, Variant::Version] {
            // A scratch copy elsewhere, as calibration makes it.
            let src = dir.path().join("scratch").join(variant.name()).join("copy");
            for (path, text) in tree {
                write(&src.join(path), text);
            }
            variant.apply(&src, &members).unwrap();
            assert!(
                !resolves(&src),
                "{}: resolved before the rewrite",
                variant.name()
            );
            rewrite_manifests(&src, &root, &members, variant == Variant::Version).unwrap();
            assert!(
                resolves(&src),
                "{}: does not resolve: {}",
                variant.name(),
                std::fs::read_to_string(src.join("a/Cargo.toml")).unwrap()
            );
            let a = std::fs::read_to_string(src.join("a/Cargo.toml")).unwrap();
            let real = shared.canonicalize().unwrap();
            assert!(a.contains(&format!("path = \"{}\"", real.display())), "{a}");
            let b = std::fs::read_to_string(src.join("b/Cargo.toml")).unwrap();
            let pin = if variant == Variant::Version {
                "=0.1.1"
            } else {
                "=0.1.0"
            };
            assert!(b.contains(&format!("version = \"{pin}\"")), "{b}");
        }
    }

    /// The learning rule alone: a benchmark's spread over `base` and the perturbed builds that
    /// left it untouched, one and a half times the largest, never below the default; `rebuild`
    /// (nothing perturbed), touched and unknown builds teach nothing, and with nothing learned
    /// the default stays.
    #[test]
    fn the_address_budget_is_learned_from_untouched_benchmarks_only() {
        use crate::model::Counts;
        let run = |name: &str, counts: &[(&str, u64)]| {
            let results = Results {
                benchmarks: counts
                    .iter()
                    .map(|(id, ir)| (id.to_string(), Counts::from([(IR.to_owned(), *ir)])))
                    .collect(),
                ..Results::default()
            };
            (name.to_owned(), results)
        };
        let runs = [
            run("base", &[("a", 100), ("b", 100), ("c", 100)]),
            run("rebuild", &[("a", 100), ("b", 100), ("c", 100)]),
            run("version", &[("a", 102), ("b", 900), ("c", 150)]),
        ];
        let codes = |a: Code, b: Code, c: Code| {
            BTreeMap::from([
                ("a".to_owned(), a),
                ("b".to_owned(), b),
                ("c".to_owned(), c),
            ])
        };
        let touched = || Code::Differs {
            functions: Vec::new(),
            reads: Some("it reads files".into()),
        };
        let none = BTreeSet::new();
        // a moved 2 Ir untouched: 3, below the floor; b moved 800 Ir by the change; c unknown.
        let compared = [
            (
                "rebuild".to_owned(),
                codes(Code::Same, Code::Same, Code::Same),
            ),
            (
                "version".to_owned(),
                codes(Code::Same, touched(), Code::Unknown("no record".into())),
            ),
        ];
        let layout = learn_layout(&runs, "base", &compared, &none);
        assert_eq!(layout.budget, Some(DEFAULT_LAYOUT_BUDGET.absolute));
        assert_eq!(layout.largest, Some(("a".to_owned(), 2)));
        assert_eq!((layout.sample, layout.unknown), (1, 1));
        assert_eq!(layout.touched.len(), 1);
        assert_eq!(
            (
                layout.touched[0].benchmark.as_str(),
                layout.touched[0].moved
            ),
            ("b", 800)
        );
        // c untouched too: its 50 Ir make 75.
        let compared = [(
            "version".to_owned(),
            codes(Code::Same, touched(), Code::Same),
        )];
        let layout = learn_layout(&runs, "base", &compared, &none);
        assert_eq!(layout.budget, Some(75));
        // ... unless it is not reproducible.
        let layout = learn_layout(&runs, "base", &compared, &BTreeSet::from(["c".to_owned()]));
        assert_eq!(layout.budget, Some(16));
        // Only `rebuild` (init's check): nothing perturbed, nothing learned, the default stays.
        let compared = [(
            "rebuild".to_owned(),
            codes(Code::Same, Code::Same, Code::Same),
        )];
        let layout = learn_layout(&runs[..2], "base", &compared, &none);
        assert_eq!((layout.budget, layout.sample), (None, 0));
    }
}
