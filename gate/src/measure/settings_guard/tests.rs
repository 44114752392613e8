use super::*;

/// Why the configuration `text` is refused, if it is.
fn refused(text: &str) -> Option<String> {
    refused_in(&toml::from_str(text).unwrap())
}

fn suite(args: &[&str]) -> Suite {
    Suite {
        package: "p".to_owned(),
        bench: "b".to_owned(),
        features: Vec::new(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
    }
}

#[test]
fn an_env_entry_the_runner_reads_is_refused_by_name() {
    // The measurement bypass of issue 47: a toggle that stops collection inside the benchmark.
    let why = refused("[env]\nGUNGRAUN_VALGRIND_ARGS = \"--toggle-collect=*slow*\"\n").unwrap();
    assert!(why.contains("`[env] GUNGRAUN_VALGRIND_ARGS`"), "{why}");
    assert!(why.contains("the runner reads it"), "{why}");
    for key in [
        "GUNGRAUN_CALLGRIND_ARGS",
        "GUNGRAUN_ENV_CLEAR",
        "GUNGRAUN_ENVS",
        "GUNGRAUN_TOOL_RUNNER",
        "GUNGRAUN_VALGRIND_BIN",
        "GUNGRAUN_DEFAULT_TOOL",
        "GUNGRAUN_LOAD_BASELINE",
        "GUNGRAUN_FILTER",
        "GUNGRAUN_NOCAPTURE",
        // irgate's own: a repository may not choose the runner or where it writes.
        "GUNGRAUN_RUNNER",
        "GUNGRAUN_HOME",
        "IAI_CALLGRIND_CALLGRIND_ARGS",
        "IAI_CALLGRIND_RUNNER",
    ] {
        let why = refused(&format!("[env]\n{key} = \"x\"\n"));
        assert!(why.is_some_and(|w| w.contains(key)), "{key} is not refused");
    }
}

#[test]
fn an_env_entry_written_as_a_table_is_refused_too() {
    let why =
        refused("[env]\nGUNGRAUN_ENV_CLEAR = { value = \"no\", force = true }\nOTHER = \"1\"\n")
            .unwrap();
    assert!(why.contains("GUNGRAUN_ENV_CLEAR"), "{why}");
}

#[test]
fn an_env_entry_that_only_changes_the_runners_output_is_allowed() {
    for key in ["GUNGRAUN_COLOR", "GUNGRAUN_LOG", "IAI_CALLGRIND_COLOR"] {
        assert_eq!(refused(&format!("[env]\n{key} = \"x\"\n")), None, "{key}");
    }
}

#[test]
fn valgrinds_variables_in_env_are_refused() {
    for key in ["VALGRIND_OPTS", "VALGRIND_LIB"] {
        let why = refused(&format!("[env]\n{key} = \"--toggle-collect=main\"\n")).unwrap();
        assert!(
            why.contains(key) && why.contains("valgrind reads it"),
            "{why}"
        );
    }
}

#[test]
fn loader_variables_that_pass_the_runners_clearing_are_refused() {
    for key in ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"] {
        let why = refused(&format!("[env]\n{key} = \"/tmp/x.so\"\n")).unwrap();
        assert!(
            why.contains(key) && why.contains("measured process"),
            "{why}"
        );
    }
}

#[test]
fn path_and_glibc_tunables_in_env_are_refused() {
    let why = refused("[env]\nPATH = \"tools:/usr/bin\"\n").unwrap();
    assert!(
        why.contains("`[env] PATH`") && why.contains("which valgrind"),
        "{why}"
    );
    let why = refused("[env]\nGLIBC_TUNABLES = \"glibc.cpu.x=1\"\n").unwrap();
    assert!(why.contains("GLIBC_TUNABLES"), "{why}");
}

#[test]
fn other_env_entries_are_allowed_they_are_inputs_of_every_benchmark() {
    // A change to them is a change to `.cargo/config.toml`, which touches every benchmark
    // (select::rule); they do not decide what is counted.
    assert_eq!(
        refused("[env]\nDATA_DIR = \"data\"\nRUST_LOG = \"x\"\n"),
        None
    );
}

#[test]
fn a_target_runner_is_refused_by_triple_and_by_cfg() {
    let why = refused("[target.x86_64-unknown-linux-gnu]\nrunner = \"tools/wrap\"\n").unwrap();
    assert!(
        why.contains("`[target.x86_64-unknown-linux-gnu] runner`"),
        "{why}"
    );
    let why = refused("[target.'cfg(unix)']\nrunner = [\"sh\", \"-c\"]\n").unwrap();
    assert!(why.contains("`[target.cfg(unix)] runner`"), "{why}");
    // Other target settings change the build, which the code identity sees.
    assert_eq!(
        refused("[target.x86_64-unknown-linux-gnu]\nrustflags = [\"-Cdebuginfo=1\"]\n"),
        None
    );
}

#[test]
fn config_files_are_read_at_every_level_cargo_reads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo/crates/bench");
    let home = dir.path().join("cargo-home");
    for d in [
        root.join(".cargo"),
        dir.path().join("repo/.cargo"),
        dir.path().join(".cargo"),
        home.clone(),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(root.join(".cargo/config.toml"), "").unwrap();
    // The old name, without `.toml`, is read too.
    std::fs::write(dir.path().join("repo/.cargo/config"), "").unwrap();
    std::fs::write(dir.path().join(".cargo/config.toml"), "").unwrap();
    std::fs::write(home.join("config.toml"), "").unwrap();
    let files = config_files(&root, Some(&home));
    let expected = [
        root.join(".cargo/config.toml"),
        dir.path().join("repo/.cargo/config"),
        dir.path().join(".cargo/config.toml"),
        home.join("config.toml"),
    ];
    // Nearest first, the home last; directories above the temporary one may hold more.
    let ours: Vec<&PathBuf> = files.iter().filter(|f| f.starts_with(dir.path())).collect();
    assert_eq!(ours, expected.iter().collect::<Vec<_>>());
}

#[test]
fn a_refused_entry_is_named_with_its_file_also_through_an_include() {
    let dir = tempfile::tempdir().unwrap();
    let cargo = dir.path().join(".cargo");
    std::fs::create_dir_all(&cargo).unwrap();
    std::fs::write(cargo.join("config.toml"), "include = [\"more.toml\"]\n").unwrap();
    std::fs::write(
        cargo.join("more.toml"),
        "[env]\nGUNGRAUN_CALLGRIND_ARGS = \"--collect-atstart=no\"\n",
    )
    .unwrap();
    let error = refuse_in_config(&cargo.join("config.toml"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("more.toml"), "{error}");
    assert!(error.contains("GUNGRAUN_CALLGRIND_ARGS"), "{error}");
    // A file cargo cannot read is an error, not a pass.
    std::fs::write(cargo.join("config.toml"), "[env\n").unwrap();
    let error = refuse_in_config(&cargo.join("config.toml"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("config.toml"), "{error}");
}

#[test]
fn guard_refuses_a_repository_config_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".cargo")).unwrap();
    std::fs::write(
        dir.path().join(".cargo/config.toml"),
        "[env]\nGUNGRAUN_VALGRIND_ARGS = \"--toggle-collect=*slow*\"\n",
    )
    .unwrap();
    let mut command = Command::new("cargo");
    let error = guard(&mut command, dir.path(), &suite(&[]))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(".cargo/config.toml") && error.contains("GUNGRAUN_VALGRIND_ARGS"),
        "{error}"
    );
}

#[test]
fn the_environments_settings_that_decide_what_is_counted_are_taken_out() {
    for key in [
        "GUNGRAUN_VALGRIND_ARGS",
        "GUNGRAUN_ENV_CLEAR",
        "GUNGRAUN_TOOL_RUNNER",
        "IAI_CALLGRIND_CALLGRIND_ARGS",
        "VALGRIND_OPTS",
        "LD_PRELOAD",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
    ] {
        assert!(overridden_in_environment(key), "{key}");
    }
    // The user's choice of runner and output directory, what is only printed, and the rest.
    for key in [
        "GUNGRAUN_RUNNER",
        "GUNGRAUN_HOME",
        "IAI_CALLGRIND_RUNNER",
        "GUNGRAUN_COLOR",
        "GUNGRAUN_",
        "CARGO_TARGET_DIR",
        "CARGO_TARGET__RUNNER",
        "LD_LIBRARY_PATH",
        "PATH",
    ] {
        assert!(!overridden_in_environment(key), "{key}");
    }
}

#[test]
fn a_suite_may_not_pass_the_runner_an_option_that_decides_what_is_counted() {
    for arg in [
        "--valgrind-args=--toggle-collect=*slow*",
        "--callgrind-args=--collect-atstart=no",
        "--env-clear=no",
        "--tool-runner=tools/wrap",
        "--default-tool=cachegrind",
    ] {
        let error = refuse_suite_args(&suite(&["--envs=A", arg]))
            .unwrap_err()
            .to_string();
        let name = arg.split('=').next().unwrap();
        assert!(
            error.contains(&format!("`{name}`")) && error.contains("suite `p/b`"),
            "{error}"
        );
    }
    refuse_suite_args(&suite(&["--envs=DATA", "--color=never", "positional"])).unwrap();
}

#[test]
fn a_config_flag_that_sets_env_or_a_runner_is_refused() {
    let mut command = Command::new("cargo");
    command.args(["--config", "profile.bench.debug=1"]);
    refuse_config_flags(&command).unwrap();
    command.args(["--config", "env.GUNGRAUN_ENV_CLEAR=\"no\""]);
    let error = refuse_config_flags(&command).unwrap_err().to_string();
    assert!(error.contains("env.GUNGRAUN_ENV_CLEAR"), "{error}");
    let mut command = Command::new("cargo");
    command.args(["--config", "target.x86_64-unknown-linux-gnu.runner=\"x\""]);
    assert!(refuse_config_flags(&command).is_err());
}

#[test]
fn valgrind_reads_neither_valgrindrc_nor_valgrind_opts_with_command_line_only() {
    let dir = tempfile::tempdir().unwrap();
    // Both would stop collection: `true` would count nothing.
    std::fs::write(dir.path().join(".valgrindrc"), "--collect-atstart=no\n").unwrap();
    let counted = |extra: &[&str], opts: Option<&str>| {
        let out = dir.path().join("callgrind.out");
        let mut command = Command::new("valgrind");
        command
            .current_dir(dir.path())
            .args(["--tool=callgrind"])
            .arg(format!("--callgrind-out-file={}", out.display()))
            .args(extra)
            .arg("/bin/true")
            .env_remove("VALGRIND_OPTS");
        if let Some(opts) = opts {
            command.env("VALGRIND_OPTS", opts);
        }
        let output = crate::measure::fresh_script::output(&mut command);
        assert!(output.status.success(), "{output:?}");
        let text = std::fs::read_to_string(&out).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("totals: "))
            .or_else(|| text.lines().find_map(|l| l.strip_prefix("summary: ")))
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    assert_eq!(counted(&[], None), 0, "the .valgrindrc is read without it");
    let full = counted(&[COMMAND_LINE_ONLY], None);
    assert!(full > 0);
    std::fs::remove_file(dir.path().join(".valgrindrc")).unwrap();
    assert_eq!(counted(&[], Some("--collect-atstart=no")), 0);
    // Counted from the start (the environment's size moves the loader's count a little).
    assert!(counted(&[COMMAND_LINE_ONLY], Some("--collect-atstart=no")) > full / 2);
}
