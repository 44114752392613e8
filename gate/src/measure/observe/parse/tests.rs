use super::*;

/// A trace as `strace -f -qq -y -s 65536` writes it, shaped after a record pass of gungraun 0.20:
/// cargo starts the bench binary (the listing process), which starts the runner, which starts
/// valgrind (through setarch) on the bench binary; the program in valgrind starts a thread.
const TRACE: &str = r#"100  execve("/w/target/release/deps/bench-0123456789abcdef", ["/w/target/release/deps/bench-0123456789abcdef", "--bench"], 0x55 /* 63 vars */ <unfinished ...>
100  <... execve resumed>)             = 0
100  openat(AT_FDCWD</w/pkg>, "/w/pkg/data/config.txt", O_RDONLY|O_CLOEXEC) = 3</w/pkg/data/config.txt>
100  statx(3</w/pkg/data/config.txt>, "", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {stx_mode=S_IFREG|0644, ...}) = 0
100  clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x9000}, 88 <unfinished ...>
101  execve("/opt/runner/bin/gungraun-runner", ["/opt/runner/bin/gungraun-runner", "0.20.0", "--lib-bench"], 0x7ffe /* 63 vars */) = 0
100  <... clone3 resumed>)             = 101
101  mkdir("/tmp/gungraun.tmpAbCdEfGhIjpure.one", 0777) = 0
101  vfork()                           = 102
102  execve("/usr/bin/setarch", ["/usr/bin/setarch", "x86_64", "-R", "/usr/bin/valgrind", "--callgrind-out-file=/tmp/gungraun.tmpAbCdEfGhIjpure.one/callgrind.pure.one.out.#%p"], 0x7ff9 /* 2 vars */) = 0
102  execve("/usr/libexec/valgrind/callgrind-amd64-linux", ["/usr/bin/valgrind.bin", "--tool=callgrind"], 0x7ff9 /* 2 vars */) = 0
102  open("/tmp/gungraun.tmpAbCdEfGhIjpure.one/callgrind.pure.one.out.#102", O_WRONLY|O_TRUNC) = -1 ENOENT (No such file or directory)
102  open("/tmp/gungraun.tmpAbCdEfGhIjpure.one/callgrind.pure.one.out.#102", O_WRONLY|O_CREAT, 0600) = 4</tmp/gungraun.tmpAbCdEfGhIjpure.one/callgrind.pure.one.out.#102>
102  clone(child_stack=0x1, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 103
103  openat(AT_FDCWD</w/pkg>, "data/thread.txt", O_RDONLY|O_CLOEXEC) = 5</w/pkg/data/thread.txt>
103  newfstatat(AT_FDCWD</w/pkg>, "../.build/a\"b\\c\303\251.txt", 0x7ffe, 0) = -1 ENOENT (No such file or directory)
102  access("missing.cfg", R_OK)       = -1 ENOENT (No such file or directory)
102  openat(AT_FDCWD</w/pkg>, "/w/pkg/out.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 6</w/pkg/out.bin>
102  openat(AT_FDCWD</w/pkg>, "/w/pkg/data", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 7</w/pkg/data>
102  getdents64(7</w/pkg/data>, 0x5648 /* 4 entries */, 32768) = 112
102  openat2(AT_FDCWD</w/pkg>, "log.txt", {flags=O_RDWR|O_CREAT, mode=0600, resolve=0}, 24) = 8</w/pkg/log.txt>
102  chdir("sub")                      = 0
102  stat("x.toml", 0x7ffe)            = -1 ENOENT (No such file or directory)
102  exit_group(0)                     = ?
"#;

fn access(pid: u32, path: &str, how: How, absent: bool) -> Access {
    Access {
        pid,
        path: PathBuf::from(path),
        how,
        absent,
    }
}

#[test]
fn a_trace_gives_each_process_its_starter_programs_and_paths() {
    let trace = parse(TRACE, Path::new("/w"));
    assert_eq!(
        trace.parents,
        BTreeMap::from([(101, 100), (102, 101), (103, 102)])
    );
    assert_eq!(trace.execs[&100][0][1], "--bench");
    assert_eq!(trace.execs[&102].len(), 2, "{:?}", trace.execs);
    assert_eq!(
        trace.execs[&102][0][4],
        "--callgrind-out-file=/tmp/gungraun.tmpAbCdEfGhIjpure.one/callgrind.pure.one.out.#%p"
    );
    let tmp = "/tmp/gungraun.tmpAbCdEfGhIjpure.one";
    let out = format!("{tmp}/callgrind.pure.one.out.#102");
    let expected = vec![
        access(
            100,
            "/w/target/release/deps/bench-0123456789abcdef",
            How::Opened,
            false,
        ),
        access(100, "/w/pkg/data/config.txt", How::Opened, false),
        access(101, "/opt/runner/bin/gungraun-runner", How::Opened, false),
        access(101, tmp, How::Created, false),
        access(102, "/usr/bin/setarch", How::Opened, false),
        access(
            102,
            "/usr/libexec/valgrind/callgrind-amd64-linux",
            How::Opened,
            false,
        ),
        access(102, &out, How::Looked, true),
        access(102, &out, How::Written, false),
        // A thread's relative path, from the directory its `*at` call names.
        access(103, "/w/pkg/data/thread.txt", How::Opened, false),
        // Escapes: a quote, a backslash and UTF-8 in octal; `..` kept.
        access(103, "/w/pkg/../.build/a\"b\\cé.txt", How::Looked, true),
        // A call without a directory descriptor: the last directory the process's calls named.
        access(102, "/w/pkg/missing.cfg", How::Looked, true),
        access(102, "/w/pkg/out.bin", How::Replaced, false),
        access(102, "/w/pkg/data", How::Looked, false),
        access(102, "/w/pkg/data", How::Listed, false),
        access(102, "/w/pkg/log.txt", How::Written, false),
        access(102, "/w/pkg/sub", How::Looked, false),
        // After `chdir`.
        access(102, "/w/pkg/sub/x.toml", How::Looked, true),
    ];
    assert_eq!(trace.accesses, expected);
}

#[test]
fn cut_strings_pointers_and_stray_lines_name_no_path() {
    let text = "7  openat(AT_FDCWD</w>, \"/w/very/long\"..., O_RDONLY) = 3</w/very/long>\n\
                7  newfstatat(3</w/a>, \"\", {st_mode=S_IFREG}, AT_EMPTY_PATH) = 0\n\
                7  readlink(0x7ffe, 0x7ffc, 1023) = -1 EFAULT (Bad address)\n\
                --- SIGCHLD {si_signo=SIGCHLD} ---\n\
                8  <... openat resumed>) = 3\n\
                garbage\n";
    let trace = parse(text, Path::new("/w"));
    assert!(trace.accesses.is_empty(), "{:?}", trace.accesses);
}

#[test]
fn c_escapes_decode_to_bytes() {
    assert_eq!(decode(r#"a\x41\101\n\\\""#).unwrap(), b"aAA\n\\\"");
    assert_eq!(decode(r"\0").unwrap(), [0]);
    assert_eq!(decode("\\"), None);
    assert_eq!(string_list(r#"["a", "b,c", "d\"]"]"#), ["a", "b,c", "d\"]"]);
}
