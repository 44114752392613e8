use super::*;

/// Cargo (1) starts the bench binary (2, the listing process), which starts the runner (3), which
/// starts a valgrind process per benchmark (4 and 6); 4's program starts a thread (5).
fn trace(root: &Path) -> Trace {
    let r = root.display();
    let text = format!(
        r#"1  execve("/usr/bin/cargo", ["cargo", "bench"], 0x1 /* 9 vars */) = 0
1  openat(AT_FDCWD<{r}>, "{r}/Cargo.toml", O_RDONLY) = 3<{r}/Cargo.toml>
1  clone3({{flags=CLONE_VM}}, 88) = 2
2  execve("{r}/target/release/deps/bench-0123456789abcdef", ["{r}/target/release/deps/bench-0123456789abcdef", "--bench"], 0x1 /* 9 vars */) = 0
2  openat(AT_FDCWD<{r}>, "{r}/data/config.txt", O_RDONLY) = 3<{r}/data/config.txt>
2  openat(AT_FDCWD<{r}>, "/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY) = 3</usr/lib/x86_64-linux-gnu/libc.so.6>
2  vfork() = 3
3  execve("/opt/runner/bin/gungraun-runner", ["/opt/runner/bin/gungraun-runner"], 0x1 /* 9 vars */) = 0
3  mkdir("/tmp/gungraun.tmpXYZ", 0777) = 0
3  vfork() = 7
7  execve("/usr/bin/cargo", ["/usr/bin/cargo", "metadata"], 0x1 /* 9 vars */) = 0
7  openat(AT_FDCWD<{r}>, "{r}/Cargo.toml", O_RDONLY) = 3<{r}/Cargo.toml>
3  vfork() = 4
3  vfork() = 6
4  execve("/usr/bin/valgrind", ["/usr/bin/valgrind", "{r}/target/release/deps/bench-0123456789abcdef"], 0x1 /* 2 vars */) = 0
4  open("/tmp/gungraun.tmpXYZ/callgrind.a.out.#4", O_WRONLY|O_TRUNC) = -1 ENOENT (No such file or directory)
4  openat(AT_FDCWD<{r}>, "{r}/target/release/deps/bench-0123456789abcdef", O_RDONLY) = 3<{r}/target/release/deps/bench-0123456789abcdef>
4  clone(child_stack=0x1, flags=CLONE_VM|CLONE_THREAD) = 5
5  openat(AT_FDCWD<{r}>, "{r}/data/thread.txt", O_RDONLY) = 3<{r}/data/thread.txt>
5  openat(AT_FDCWD<{r}>, "{r}/target/release/build/b-0123/out/libext.so", O_RDONLY) = 3<{r}/target/release/build/b-0123/out/libext.so>
4  openat(AT_FDCWD<{r}>, "{r}/later.txt", O_RDONLY) = -1 ENOENT (No such file or directory)
4  openat(AT_FDCWD<{r}>, "{r}/out.bin", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<{r}/out.bin>
4  openat(AT_FDCWD<{r}>, "{r}/out.bin", O_RDONLY) = 3<{r}/out.bin>
4  newfstatat(AT_FDCWD<{r}>, "{r}/src/lib.rs", 0x7ffe, 0) = 0
4  newfstatat(AT_FDCWD<{r}>, "{r}", 0x7ffe, 0) = 0
4  newfstatat(AT_FDCWD<{r}>, "/", 0x7ffe, 0) = 0
4  openat(AT_FDCWD<{r}>, "{r}/data", O_RDONLY|O_DIRECTORY) = 3<{r}/data>
4  getdents64(3<{r}/data>, 0x1 /* 4 entries */, 32768) = 112
4  openat(AT_FDCWD<{r}>, "/proc/self/maps", O_RDONLY) = 3</proc/self/maps>
4  openat(AT_FDCWD<{r}>, "{r}/target/irgate/record/s/summary.json", O_RDONLY) = 3<{r}/target/irgate/record/s/summary.json>
6  execve("/usr/bin/valgrind", ["/usr/bin/valgrind", "{r}/target/release/deps/bench-0123456789abcdef"], 0x1 /* 2 vars */) = 0
6  openat(AT_FDCWD<{r}>, "/opt/runner/bin/helper", O_RDONLY) = 3</opt/runner/bin/helper>
"#
    );
    parse(&text, root)
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, content) in [
        ("Cargo.toml", "[workspace]"),
        ("data/config.txt", "12"),
        ("data/thread.txt", "thread"),
        ("src/lib.rs", "fn a() {}"),
        ("out.bin", "written by the run"),
        ("target/release/build/b-0123/out/libext.so", "\x7fELF"),
        ("target/release/deps/bench-0123456789abcdef", "\x7fELF"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), content).unwrap();
    }
    dir
}

#[test]
fn each_process_belongs_to_its_benchmarks_run_and_the_rest_to_every_benchmark() {
    let dir = workspace();
    let root = dir.path();
    let trace = trace(root);
    let runs = BTreeMap::from([(4, "g::a".to_owned()), (6, "g::b".to_owned())]);
    let ids = BTreeSet::from(["g::a".to_owned(), "g::b".to_owned(), "g::c".to_owned()]);
    let by = attribute(&trace, &root.join("target"), &runs, &ids);
    let paths = |id: &str| -> BTreeSet<String> {
        by[id]
            .iter()
            .map(|a| {
                a.path
                    .strip_prefix(root)
                    .unwrap_or(&a.path)
                    .display()
                    .to_string()
            })
            .collect()
    };
    let a = paths("g::a");
    // The thread of a's run is a's; the listing process's and the runner's paths are everyone's;
    // cargo's own, before the bench binary started or asked for the workspace's layout by the
    // runner, no one's.
    assert!(
        a.contains("data/thread.txt") && a.contains("data/config.txt"),
        "{a:?}"
    );
    assert!(a.contains("/tmp/gungraun.tmpXYZ"), "{a:?}");
    assert!(!a.contains("Cargo.toml"), "{a:?}");
    let b = paths("g::b");
    assert!(
        !b.contains("data/thread.txt") && b.contains("data/config.txt"),
        "{b:?}"
    );
    // A benchmark whose run left no file of its process still has the shared paths.
    assert!(paths("g::c").contains("data/config.txt"));
}

#[test]
fn inputs_keep_what_was_read_and_leave_out_outputs_identities_and_the_environment() {
    let dir = workspace();
    let root = dir.path();
    let target = root.join("target");
    let trace = trace(root);
    let runs = BTreeMap::from([(4, "g::a".to_owned()), (6, "g::b".to_owned())]);
    let ids = BTreeSet::from(["g::a".to_owned(), "g::b".to_owned()]);
    let by = attribute(&trace, &target, &runs, &ids);
    let place = Place {
        root,
        target: &target,
        own: vec![target.join("irgate")],
        tools: vec![PathBuf::from("/opt/runner/bin")],
    };
    let executed = Executed {
        functions: BTreeMap::from([("release/deps/bench".to_owned(), BTreeSet::new())]),
        ..Executed::default()
    };
    let mut digests = BTreeMap::new();
    let a = observe(&by["g::a"], &place, &executed, &mut digests);
    let keys: Vec<&str> = a.inputs.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "data",
            "data/",
            "data/config.txt",
            "data/thread.txt",
            "later.txt",
            "src/lib.rs",
            // Read as bytes by a thread, with no code identity of its own in this entry.
            "target/release/build/b-0123/out/libext.so",
        ],
        "{a:?}"
    );
    assert_eq!(a.inputs["data/config.txt"], digest(root, "data/config.txt"));
    assert_eq!(a.inputs["later.txt"], ABSENT);
    // Looked at, never opened: its kind.
    assert_eq!(a.inputs["src/lib.rs"], "file");
    assert_eq!(a.inputs["data"], "dir");
    assert_eq!(a.inputs["data/"], digest(root, "data/"));
    // /usr/bin/valgrind, libc, /proc/self/maps, the runner; not the temporary directory the
    // runner made, nor what valgrind wrote there.
    assert_eq!(a.environment, 4, "{a:?}");
    let b = observe(&by["g::b"], &place, &executed, &mut digests);
    assert_eq!(
        b.inputs.keys().collect::<Vec<_>>(),
        ["data/config.txt"],
        "{b:?}"
    );
    // An object the entry executed is compared by its code identity, not by its bytes.
    let with_ext = Executed {
        functions: BTreeMap::from([
            ("release/deps/bench".to_owned(), BTreeSet::new()),
            (
                "release/build/b-0123/out/libext.so".to_owned(),
                BTreeSet::new(),
            ),
        ]),
        ..Executed::default()
    };
    let a = observe(&by["g::a"], &place, &with_ext, &mut digests);
    assert!(!a.inputs.keys().any(|k| k.contains("libext")), "{a:?}");
}
