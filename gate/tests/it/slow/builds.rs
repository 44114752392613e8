//! Builds through irgate's rustc wrapper (`gate/src/measure/link.rs`) with real cargo: a profile
//! that strips symbols still links for the code identity, and stripping moves no loaded byte.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A binary crate `stripped` in `dir` whose release profile says `strip = STRIP`; returns the
/// path of its release binary.
fn crate_with_strip(dir: &Path, strip: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"stripped\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [profile.release]\nstrip = {strip}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "fn main() {\n    let n = std::hint::black_box(std::env::args().count());\n    \
         println!(\"{}\", (0..n as u64).map(|i| i * i).sum::<u64>());\n}\n",
    )
    .unwrap();
    dir.join("target/release/stripped")
}

/// `cargo build --release` in `dir` with `env`; its output.
fn cargo_build(dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet"])
        .current_dir(dir)
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// Every section of the ELF file at `path` that is loaded (SHF_ALLOC) but the build id: its name,
/// address and bytes (none for NOBITS). The build id hashes the whole file, symbols included.
fn loaded_sections(path: &Path) -> Vec<(String, u64, Vec<u8>)> {
    let d = std::fs::read(path).unwrap();
    let u16_at = |o: usize| u16::from_le_bytes(d[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(d[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(d[o..o + 8].try_into().unwrap());
    assert_eq!(&d[..4], b"\x7fELF");
    let (shoff, size, count, names) = (
        u64_at(0x28) as usize,
        u16_at(0x3a),
        u16_at(0x3c),
        u16_at(0x3e),
    );
    let header = |i: usize| shoff + i * size;
    let names_at = u64_at(header(names) + 0x18) as usize;
    let name = |n: u32| {
        let start = names_at + n as usize;
        let end = start + d[start..].iter().position(|b| *b == 0).unwrap();
        String::from_utf8_lossy(&d[start..end]).into_owned()
    };
    (0..count)
        .map(header)
        .filter(|h| u64_at(h + 0x08) & 2 != 0)
        .map(|h| {
            let (kind, offset, len) = (u32_at(h + 4), u64_at(h + 0x18) as usize, u64_at(h + 0x20));
            let bytes = if kind == 8 {
                Vec::new()
            } else {
                d[offset..offset + len as usize].to_vec()
            };
            (name(u32_at(h)), u64_at(h + 0x10), bytes)
        })
        .filter(|(name, _, _)| name != ".note.gnu.build-id")
        .collect()
}

#[test]
fn a_profile_that_strips_symbols_links_for_the_code_identity_with_them_kept() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let binary = crate_with_strip(&project, "true");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let wrapper = irgate::measure::link::write_wrapper(&scratch).unwrap();
    let wrapper = wrapper.to_str().unwrap();
    let built = cargo_build(&project, &[("RUSTC_WORKSPACE_WRAPPER", wrapper)]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // Its symbols and relocations are there: the code identity reads it.
    let identity = irgate_identity::read(&binary, std::slice::from_ref(&project)).unwrap();
    assert!(
        identity
            .functions
            .keys()
            .any(|k| k.contains("stripped::main"))
    );
    assert_eq!(
        irgate::measure::link::take_kept_symbols(Path::new(wrapper)).unwrap(),
        ["stripped"]
    );
    // Said once.
    assert!(
        irgate::measure::link::take_kept_symbols(Path::new(wrapper))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn stripping_moves_no_loaded_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut loaded = Vec::new();
    for strip in ["true", "\"debuginfo\"", "\"none\""] {
        let project = dir.path().join("p");
        let binary = crate_with_strip(&project, strip);
        let built = cargo_build(&project, &[]);
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        loaded.push((strip, loaded_sections(&binary)));
    }
    assert!(
        loaded[0]
            .1
            .iter()
            .any(|(name, _, bytes)| name == ".text" && !bytes.is_empty())
    );
    for (strip, sections) in &loaded[1..] {
        assert!(
            *sections == loaded[0].1,
            "strip = {strip} loads other bytes than strip = true"
        );
    }
}

/// `cargo metadata` (which resolves every path dependency) in `dir`: whether it succeeded.
fn resolves(dir: &Path) -> bool {
    Command::new(env!("CARGO"))
        .args(["metadata", "--offline", "--format-version", "1"])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_scratch_tree_of_a_repository_with_a_path_dependency_outside_it_resolves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, sibling) = (dir.path().join("repo"), dir.path().join("sibling"));
    std::fs::create_dir_all(sibling.join("src")).unwrap();
    std::fs::write(
        sibling.join("Cargo.toml"),
        "[package]\nname = \"sibling\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::fs::write(sibling.join("src/lib.rs"), "").unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nsibling = { path = \"../sibling\" }\n",
    )
    .unwrap();
    std::fs::write(repo.join("src/lib.rs"), "").unwrap();
    crate::harness::git(&repo, &["init", "--quiet"]);
    crate::harness::git(&repo, &["add", "."]);
    crate::harness::git(&repo, &["commit", "--quiet", "-m", "app"]);
    let commit = crate::harness::git(&repo, &["rev-parse", "HEAD"]);
    let commit = commit.trim();
    assert!(resolves(&repo));

    use irgate::measure::{ab, outside};
    let found = outside::find_all(&repo, true, &[commit]).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].describe(),
        "`../sibling` (dependencies.sibling.path in Cargo.toml)"
    );
    // Under the target directory (where the scratch trees go otherwise), it names nothing.
    let default = repo.join("target/irgate/ab/base/src");
    ab::checkout(&repo, commit, &default).unwrap();
    assert!(!resolves(&default));
    // Beside the repository it names the sibling, for the base side and the mirror alike.
    let base = outside::place(&repo, "ab-base", &found, default.clone()).unwrap();
    assert_eq!(base, dir.path().join(".repo.irgate-ab-base"));
    ab::checkout(&repo, commit, &base).unwrap();
    assert!(resolves(&base));
    let head = outside::place(&repo, "ab-head", &found, default).unwrap();
    ab::mirror(&repo, &head).unwrap();
    assert!(resolves(&head));
    assert_eq!(head.as_os_str().len(), base.as_os_str().len());
}
