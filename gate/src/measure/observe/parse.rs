//! Reading strace's output (`strace -f -y -o FILE`): which process started which, what each
//! executed, and every path each named, in the order the calls finished.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

/// How a call named a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Opened for reading or executed: its content is what the process saw.
    Opened,
    /// Looked at (stat, access, readlink, chdir, a directory opened): its existence and kind are
    /// what the process saw.
    Looked,
    /// Its entries listed (`getdents64` on a directory): the listing is what the process saw.
    Listed,
    /// Created where nothing was (`mkdir`, `open` with `O_CREAT|O_EXCL`): it was absent.
    Created,
    /// Created or emptied whatever was there (`open` with `O_TRUNC` for writing, `creat`): what
    /// was there is never seen.
    Replaced,
    /// Opened for writing without emptying it: what was there may be read.
    Written,
}

/// One path a process named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    /// The process (or thread) that named it.
    pub pid: u32,
    /// The path, absolute (a relative one resolved against the process's working directory).
    pub path: PathBuf,
    /// How.
    pub how: How,
    /// Whether the call found nothing there (`ENOENT`).
    pub absent: bool,
}

/// What a trace holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// By process or thread id: the one that started it (`clone`, `fork`, `vfork`).
    pub parents: BTreeMap<u32, u32>,
    /// By process id: the arguments of each program it executed (successful `execve`s), in order.
    pub execs: BTreeMap<u32, Vec<Vec<String>>>,
    /// Every path named, in the order the calls finished.
    pub accesses: Vec<Access>,
}

/// Reads the trace `text`; `cwd` is the working directory of the first process (until a call
/// shows another).
pub fn parse(text: &str, cwd: &Path) -> Trace {
    let mut trace = Trace::default();
    let mut pending: BTreeMap<u32, String> = BTreeMap::new();
    let mut cwds: BTreeMap<u32, PathBuf> = BTreeMap::new();
    for line in text.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let rest = rest.trim_start();
        let call = if let Some(start) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid, start.to_owned());
            continue;
        } else if let Some(resumed) = rest.strip_prefix("<... ") {
            let Some((_, tail)) = resumed.split_once(" resumed>") else {
                continue;
            };
            match pending.remove(&pid) {
                Some(start) => format!("{start}{tail}"),
                None => continue,
            }
        } else {
            rest.to_owned()
        };
        call_line(&mut trace, &mut cwds, cwd, pid, &call);
    }
    trace
}

/// One finished call of process `pid`: `name(args) = result`.
fn call_line(
    trace: &mut Trace,
    cwds: &mut BTreeMap<u32, PathBuf>,
    first_cwd: &Path,
    pid: u32,
    call: &str,
) {
    let Some(open) = call.find('(') else {
        return;
    };
    let name = &call[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return;
    }
    let (args, rest) = split_args(&call[open + 1..]);
    let result = rest.trim_start().strip_prefix('=').unwrap_or("").trim();
    let failed = result.starts_with("-1 ");
    let absent = result.starts_with("-1 ENOENT");
    // What the dirfd of an `*at` call says of the working directory is the truest word on it.
    for arg in &args {
        if let Some(dir) = arg.strip_prefix("AT_FDCWD<").and_then(annotation) {
            cwds.insert(pid, dir);
        }
    }
    let cwd = cwds
        .get(&pid)
        .cloned()
        .or_else(|| {
            // Inherited from the process that started it.
            let mut at = pid;
            while let Some(parent) = trace.parents.get(&at) {
                if let Some(dir) = cwds.get(parent) {
                    return Some(dir.clone());
                }
                at = *parent;
            }
            None
        })
        .unwrap_or_else(|| first_cwd.to_owned());
    let at = |dirfd: &str, path: &str| -> Option<PathBuf> {
        let path = PathBuf::from(OsString::from_vec(unquote(path)?));
        if path.as_os_str().is_empty() {
            return None;
        }
        let base = match dirfd.split_once('<') {
            Some((_, annotated)) => annotation(annotated)?,
            None => cwd.clone(),
        };
        Some(normalize(&base.join(path)))
    };
    let plain = |path: &str| at("", path);
    let mut push = |path: Option<PathBuf>, how: How| {
        if let Some(path) = path {
            trace.accesses.push(Access {
                pid,
                path,
                how,
                absent,
            });
        }
    };
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    match name {
        "clone" | "clone3" | "fork" | "vfork" => {
            if let Ok(child) = result.parse::<u32>() {
                trace.parents.insert(child, pid);
            }
        }
        "execve" | "execveat" => {
            let (path, argv) = if name == "execve" {
                (plain(arg(0)), arg(1))
            } else {
                (at(arg(0), arg(1)), arg(2))
            };
            if !failed {
                trace.execs.entry(pid).or_default().push(string_list(argv));
            }
            push(path, How::Opened);
        }
        "open" | "creat" => push(plain(arg(0)), open_how(name, arg(1), failed)),
        "openat" => push(at(arg(0), arg(1)), open_how(name, arg(2), failed)),
        "openat2" => push(at(arg(0), arg(1)), open_how(name, arg(2), failed)),
        "chdir" => {
            if let (Some(dir), false) = (plain(arg(0)), failed) {
                cwds.insert(pid, dir.clone());
                push(Some(dir), How::Looked);
            }
        }
        "fchdir" => {
            if let (Some(dir), false) = (
                arg(0).split_once('<').and_then(|(_, a)| annotation(a)),
                failed,
            ) {
                cwds.insert(pid, dir);
            }
        }
        "getdents" | "getdents64" => {
            push(
                arg(0).split_once('<').and_then(|(_, a)| annotation(a)),
                How::Listed,
            );
        }
        "mkdir" => push(
            plain(arg(0)),
            if failed { How::Looked } else { How::Created },
        ),
        "mkdirat" => push(
            at(arg(0), arg(1)),
            if failed { How::Looked } else { How::Created },
        ),
        "stat" | "lstat" | "access" | "readlink" | "statfs" | "truncate" | "chmod" | "chown"
        | "lchown" | "utime" | "utimes" | "getxattr" | "lgetxattr" | "listxattr" | "llistxattr"
        | "unlink" | "rmdir" | "rename" | "link" | "symlink" => push(plain(arg(0)), How::Looked),
        "newfstatat" | "fstatat64" | "statx" | "faccessat" | "faccessat2" | "readlinkat"
        | "utimensat" | "fchmodat" | "fchownat" | "unlinkat" | "renameat" | "renameat2"
        | "name_to_handle_at" => push(at(arg(0), arg(1)), How::Looked),
        _ => {}
    }
}

/// How an `open` named its path, from its flags (`openat2`'s in its `struct open_how`).
fn open_how(name: &str, flags: &str, failed: bool) -> How {
    if name == "creat" {
        return if failed { How::Looked } else { How::Replaced };
    }
    let flags = flags
        .trim_start_matches('{')
        .strip_prefix("flags=")
        .unwrap_or(flags);
    let has = |flag: &str| flags.split(['|', ',', '}']).any(|f| f.trim() == flag);
    let writes = has("O_WRONLY") || has("O_RDWR");
    match (
        failed,
        has("O_CREAT") && has("O_EXCL"),
        writes && has("O_TRUNC"),
    ) {
        // Nothing opened: what it found (absent, or not a file it may open) is what it saw.
        (true, _, _) => How::Looked,
        (false, true, _) => How::Created,
        (false, false, true) => How::Replaced,
        (false, false, false) if writes => How::Written,
        _ if has("O_DIRECTORY") => How::Looked,
        _ => How::Opened,
    }
}

/// The path in a `-y` annotation, `/path>` (after its `<`).
fn annotation(text: &str) -> Option<PathBuf> {
    let end = text.rfind('>')?;
    let path = decode(&text[..end])?;
    Some(PathBuf::from(OsString::from_vec(path)))
}

/// The arguments of a call (after its `(`), split at the commas outside strings, brackets and
/// `-y` annotations, and what follows the closing parenthesis.
fn split_args(text: &str) -> (Vec<String>, &str) {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let (mut quoted, mut escaped, mut annotated) = (false, false, false);
    let mut previous = ' ';
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if quoted || annotated {
            match c {
                '\\' => escaped = true,
                '"' if quoted => quoted = false,
                '>' if annotated => annotated = false,
                _ => {}
            }
        } else {
            match c {
                '"' => quoted = true,
                '<' if previous.is_ascii_digit() || previous == 'D' => annotated = true,
                '(' | '[' | '{' => depth += 1,
                ')' if depth == 0 => {
                    if !current.trim().is_empty() {
                        args.push(current.trim().to_owned());
                    }
                    return (args, &text[i + 1..]);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    args.push(current.trim().to_owned());
                    current.clear();
                    previous = c;
                    continue;
                }
                _ => {}
            }
        }
        current.push(c);
        previous = c;
    }
    args.push(current.trim().to_owned());
    (args, "")
}

/// The bytes of a quoted C string as strace writes it (`"a\"b\n\x41\101"`); `None` when `text`
/// is no whole string (a pointer, or cut short: `"abc"...`).
fn unquote(text: &str) -> Option<Vec<u8>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    decode(inner)
}

/// The bytes of C-escaped text.
fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let next = *bytes.get(i + 1)?;
        i += 2;
        match next {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'v' => out.push(0x0b),
            b'f' => out.push(0x0c),
            b'x' => {
                let hex = text.get(i..i + 2)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b'0'..=b'7' => {
                let digits = bytes[i - 1..]
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(*b))
                    .count();
                let octal = text.get(i - 1..i - 1 + digits)?;
                out.push(u8::from_str_radix(octal, 8).ok()?);
                i += digits - 1;
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// The strings of an argument list as strace writes it: `["a", "b"]`.
fn string_list(text: &str) -> Vec<String> {
    let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return Vec::new();
    };
    let (items, _) = split_args(&format!("{inner})"));
    items
        .iter()
        .filter_map(|item| unquote(item))
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect()
}

/// `path` without `.` parts (`..` is kept: through a link it is not the parent's).
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests;
