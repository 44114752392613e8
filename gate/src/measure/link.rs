//! Linking for the code identity: every binary and shared object of the workspace is linked
//! with `--emit-relocs` (the linker keeps the relocations, so a function's code can be compared
//! with its references replaced by what they refer to) and a link map beside it
//! (`<output>.map`: the exact extent of every constant).
//!
//! The link arguments are added by a rustc wrapper for the workspace's crates
//! (`RUSTC_WORKSPACE_WRAPPER`), not through rustflags: cargo's rustflags sources exclude each
//! other (`RUSTFLAGS` hides `build.rustflags`, `target.<triple>.rustflags` hides both), so adding
//! a flag there would silently drop the user's own. The wrapper adds the two link arguments to
//! the crates cargo links as a binary or a shared object and passes everything else on as it
//! is; a wrapper the environment already names (`RUSTC_WORKSPACE_WRAPPER`) still runs, after it.
//! The linker must take `-Wl,` arguments (the default `cc`, with lld or GNU ld); neither
//! argument changes the loaded code, so counts do not move.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// The environment variable cargo runs a workspace crate's compiler through.
const WRAPPER_VAR: &str = "RUSTC_WORKSPACE_WRAPPER";

/// The wrapper script: `$1` is rustc, the rest its arguments.
const SCRIPT: &str = r#"#!/bin/sh
# Written by irgate (measure/link.rs): links the workspace's binaries and shared objects with
# --emit-relocs and a link map beside each, for the code identity; one that would strip its
# symbols keeps them (lld refuses --strip-all with --emit-relocs) and is named in the notes file.
# Everything else passes on.
next=__NEXT__
notes=__NOTES__
rustc=$1
shift
types=
emit_link=no
out_dir=
name=
extra=
strip=
previous=
for arg in "$@"; do
  case $previous in
    --crate-type) types="$types $arg" ;;
    --out-dir) out_dir=$arg ;;
    --crate-name) name=$arg ;;
    -C) case $arg in
          extra-filename=*) extra=${arg#extra-filename=} ;;
          strip=*) strip=${arg#strip=} ;;
        esac ;;
  esac
  case $arg in
    --crate-type=*) types="$types ${arg#--crate-type=}" ;;
    -Cextra-filename=*) extra=${arg#-Cextra-filename=} ;;
    -Cstrip=*) strip=${arg#-Cstrip=} ;;
    --emit=*link*) emit_link=yes ;;
  esac
  previous=$arg
done
# A crate is linked when it emits `link` and is a binary (cargo gives bench and test targets no
# --crate-type: a binary is the default), a cdylib or a dylib.
linked=no
case " $types " in
  "  ") linked=$emit_link ;;
  *" bin "*|*" cdylib "*|*" dylib "*) linked=$emit_link ;;
esac
if [ "$linked" = yes ] && [ -n "$out_dir" ] && [ -n "$name" ]; then
  set -- "$@" -C link-arg=-Wl,--emit-relocs "-Clink-arg=-Wl,-Map=$out_dir/$name$extra.map"
  # The last -C strip wins: keep the symbol table, strip the debug information as asked.
  if [ "$strip" = symbols ]; then
    set -- "$@" -C strip=debuginfo
    printf '%s\n' "$name" >>"$notes"
  fi
fi
if [ -n "$next" ]; then
  exec "$next" "$rustc" "$@"
fi
exec "$rustc" "$@"
"#;

/// Writes the wrapper into `dir` (once; it is rewritten when its text changes) and returns its
/// path. A wrapper the environment already names runs after it.
pub fn write_wrapper(dir: &Path) -> Result<PathBuf> {
    let next = crate::env::rustc_workspace_wrapper();
    let quoted = next.map_or_else(|| "''".to_owned(), |w| quote(&w));
    let notes = quote(&notes_path(dir).to_string_lossy());
    let script = SCRIPT
        .replace("__NEXT__", &quoted)
        .replace("__NOTES__", &notes);
    let path = dir.join("irgate-rustc");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(script.as_str()) {
        crate::formats::write_atomic(&path, script.as_bytes())?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|source| Error::write(&path, source))?;
    }
    Ok(path)
}

/// `text` as one shell word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Where the wrapper in `dir` names the crates it linked with their symbols kept, one a line.
fn notes_path(dir: &Path) -> PathBuf {
    dir.join("irgate-rustc.kept-symbols")
}

/// The crates the wrapper at `wrapper` linked with their symbols kept since this was last asked
/// (their profile said `strip = "symbols"`, which lld refuses beside `--emit-relocs`; they were
/// linked with `strip = "debuginfo"`), sorted and each once. The notes are removed.
pub fn take_kept_symbols(wrapper: &Path) -> Result<Vec<String>> {
    let path = notes_path(wrapper.parent().unwrap_or(Path::new(".")));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::read(&path, e)),
    };
    std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
    let names: std::collections::BTreeSet<String> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    Ok(names.into_iter().collect())
}

/// Makes `command` (a cargo command) link through the wrapper at `wrapper`.
pub fn apply(command: &mut Command, wrapper: &Path) {
    command.env(WRAPPER_VAR, wrapper);
}

/// Where the link map of the object at `path` is.
pub fn map_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".map");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the wrapper with a fake rustc that prints its arguments, one per line.
    fn wrapped(args: &[&str]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let wrapper = write_wrapper(dir.path()).unwrap();
        let fake = dir.path().join("rustc");
        crate::measure::fresh_script::write(
            &fake,
            "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n",
        );
        let output = crate::measure::fresh_script::output(
            Command::new(&wrapper)
                .arg(&fake)
                .args(args)
                .env_remove(WRAPPER_VAR),
        );
        assert!(output.status.success());
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn binaries_get_relocations_and_a_map_beside_them_and_libraries_nothing() {
        let bin = [
            "--crate-name",
            "callgrind",
            "--emit=dep-info,link",
            "-C",
            "extra-filename=-0123456789abcdef",
            "--out-dir",
            "/t/release/deps",
            "src/main.rs",
        ];
        let args = wrapped(&bin);
        assert_eq!(args[..bin.len()], bin.map(str::to_owned));
        assert_eq!(
            args[bin.len()..],
            [
                "-C",
                "link-arg=-Wl,--emit-relocs",
                "-Clink-arg=-Wl,-Map=/t/release/deps/callgrind-0123456789abcdef.map"
            ]
        );
        let lib = [
            "--crate-name",
            "codec",
            "--crate-type",
            "lib",
            "--emit=dep-info,metadata,link",
            "--out-dir",
            "/t",
        ];
        assert_eq!(wrapped(&lib), lib.map(str::to_owned));
        let check = [
            "--crate-name",
            "callgrind",
            "--emit=dep-info,metadata",
            "--out-dir",
            "/t",
        ];
        assert_eq!(wrapped(&check), check.map(str::to_owned));
        let cdylib = [
            "--crate-name",
            "ffi",
            "--crate-type",
            "cdylib",
            "--emit=link",
            "--out-dir",
            "/t",
        ];
        assert_eq!(wrapped(&cdylib).len(), cdylib.len() + 3);
        let probe = ["-", "--crate-name", "___", "--print=file-names"];
        assert_eq!(wrapped(&probe), probe.map(str::to_owned));
    }

    #[test]
    fn a_linked_crate_whose_profile_strips_symbols_keeps_them_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let wrapper = write_wrapper(dir.path()).unwrap();
        let run = |args: &[&str]| {
            let output = crate::measure::fresh_script::output(
                Command::new(&wrapper)
                    .arg("echo")
                    .args(args)
                    .env_remove(WRAPPER_VAR),
            );
            String::from_utf8(output.stdout).unwrap()
        };
        let bin = [
            "--crate-name",
            "b",
            "--emit=link",
            "-C",
            "strip=symbols",
            "--out-dir",
            "/t",
        ];
        assert!(run(&bin).trim_end().ends_with("-C strip=debuginfo"));
        let joined = [
            "--crate-name",
            "j",
            "--emit=link",
            "-Cstrip=symbols",
            "--out-dir",
            "/t",
        ];
        assert!(run(&joined).trim_end().ends_with("-C strip=debuginfo"));
        // Only what is linked, and only a strip of symbols.
        let lib = [
            "--crate-name",
            "l",
            "--crate-type",
            "lib",
            "--emit=link",
            "-C",
            "strip=symbols",
        ];
        assert!(!run(&lib).contains("debuginfo"));
        let debuginfo = [
            "--crate-name",
            "d",
            "--emit=link",
            "-C",
            "strip=debuginfo",
            "--out-dir",
            "/t",
        ];
        assert_eq!(run(&debuginfo).matches("strip").count(), 1);
        assert_eq!(take_kept_symbols(&wrapper).unwrap(), ["b", "j"]);
        assert!(take_kept_symbols(&wrapper).unwrap().is_empty());
    }

    #[test]
    fn arguments_with_spaces_and_quotes_pass_on_intact() {
        let odd = ["--cfg", "feature=\"a b\"", "it's", "$HOME", "*"];
        assert_eq!(wrapped(&odd), odd.map(str::to_owned));
    }

    #[test]
    fn the_map_is_beside_the_object() {
        assert_eq!(
            map_path(Path::new("/t/release/deps/cb-0a")),
            Path::new("/t/release/deps/cb-0a.map")
        );
    }
}
