//! The long help texts of irgate and its commands (`--help`), one constant each.

pub(super) const ABOUT: &str = "A CI regression gate on callgrind instruction counts.";

pub(super) const LONG_ABOUT: &str = "\
A CI regression gate on callgrind instruction counts.

Instruction counts repeat exactly for the same binary, input and environment, so a gate on them
catches a single added instruction with no false alarm, where wall-clock time moves by several
percent from run to run on a shared runner.

The workflow:
  irgate init       find the callgrind suites of this workspace and write gate.toml
  irgate run        run the callgrind suites and collect their counts
  irgate check      compare them with the committed baselines and budgets
  irgate refresh    accept the counts as the new baselines, on purpose
  irgate doctor     show this environment against the baselines', field by field
  irgate explain    show where a benchmark's instructions went, function by function
  irgate history    record runs of the default branch; draw the dashboard
  irgate calibrate  how far code layout moves each count; the budgets that follow
  irgate bisect     which commits of a range moved each benchmark's count
  irgate runner     install the exact callgrind runner the suites need, beside other versions

Exit codes (every command): 0 every budget holds (or the command did its work), 1 a budget is
exceeded, 2 the gate cannot decide (bad or missing input, a different environment, a tool
missing).";

pub(super) const AFTER_LONG_HELP: &str = "\
Examples:
  irgate init                                  set up gate.toml in this workspace
  irgate run && irgate check                   the gate
  irgate run --record 'parse::*' && irgate refresh 'parse::*'
                                               re-take the baselines of one group, with
                                               their code record
  irgate check --format json > report.json     a machine-readable report

Files: gate.toml (suites and budgets), baselines/<group>.json (accepted counts, committed),
target/irgate/results.json (the latest run). Paths are relative to the directory holding
gate.toml, else to the Cargo workspace's root.";

pub(super) const BISECT_ABOUT: &str = "\
Find, for every selected benchmark whose count (Ir) differs between --good and --bad, each commit
of the first-parent path good..bad where its count changed. Counts repeat exactly, so the answer
is one commit per move; a range can hold several, and every one is found.

Every candidate is checked out in one scratch git worktree at a fixed path
(<target>/irgate/bisect/src, or beside the repository when a manifest's relative path leaves it;
removed at the end) and built into <target>/irgate/bisect/target
(kept, so the next bisection rebuilds only what changed): the checkout you work in is never
touched, and neither the counts nor the code identity move with the path. Both ends are built and
measured here, the bad end twice: a benchmark whose count does not repeat is left out and named.
Counts recorded elsewhere (baselines, the history) are never used.

Each benchmark is bisected over the commits, recursively on every interval whose ends differ.
At each candidate, irgate builds and compares the compiled code function by function with a
commit where the benchmark's count is known (docs/selection.md): when none of the code its process
executes changed, and no file it may read at run time, its count is known without a run. So most
steps cost a build and no run, and builds are shared by the benchmarks that moved at the same
commit. An interval whose ends have equal counts is taken as unchanged: moves that cancel out
inside it cannot be seen from its ends. A benchmark that moved between the ends although none of
the code it executes changed (addresses, the environment) is left out and named.

Each move is reported with its commit (the full hash), the count before and after, and the changed
functions the benchmark executes there; a benchmark missing on one side is reported with the
commit that added or removed it. A commit inside the range that does not build (or whose suites
cannot run) is skipped and named, as `git bisect skip` does. --max-builds bounds the work; what
stays open is reported undecided, with the commits it lies between. The report ends with the cost:
builds and runs made, against a linear replay of the range (every commit built and run).

Exit codes: 0 the bisection ran (whatever it found), 2 bad input: a revision that names no commit
or starts with `-`, --good not an ancestor of --bad, an end that does not build or run.";

pub(super) const INIT_ABOUT: &str = "\
Set irgate up in the Cargo workspace of the current directory.

Finds the workspace's callgrind suites with `cargo metadata`: bench targets of packages that
depend on gungraun (0.17 to 0.20) or iai-callgrind (0.12 to 0.16), including suites behind a
feature (their `required-features` are written with them). Unless --no-run, runs them once to
see how large the benchmarks are, and writes the budget irgate's measurement build needs, calibrated
or not: 1 Ir with no relative part, so a +2 Ir slowdown of any benchmark fails while one
instruction moved by code layout passes.

Writes gate.toml at the workspace root. With --ci, also writes the GitHub workflows
(.github/workflows/: irgate.yml checks pull requests, running only the benchmarks the change can
move, irgate-comment.yml posts the comment, irgate-refresh.yml takes baselines in CI,
irgate-history.yml measures every benchmark on every push to the default branch and draws the
dashboard) and the pinned image's pins (.irgate/image.env: the toolchain of
rust-toolchain.toml, else the one in use here, and the runner's exact version). Nothing else is
created.

Everything that can be checked is checked before anything is built: that no file to write exists
(--force overwrites), the toolchain and default branch to pin, that the suites share one runner
for the image, valgrind, and that the runner of each suite's library is there at its exact
version (`irgate runner install` installs it). The run writes the results, the per-function
profiles and the code record (a second pass of every benchmark, as `irgate run --record`), so
`irgate refresh` then takes baselines that `irgate explain` can read and `irgate run
--only-touched` can select from. Unless --no-calibrate, the workspace's packages are then built
twice more from nothing (the dependencies taken from the first build) and run, to check that the
build is reproducible (docs/calibration.md). Prints the next steps.";

pub(super) const RUN_ABOUT: &str = "\
Run every callgrind suite declared in gate.toml (or found in the workspace, without any) and
write their counts to target/irgate/results.json.

Each suite runs as `cargo bench -p <package> --bench <bench> [--features ...]` under its library
(gungraun or iai-callgrind: the version comes from `cargo metadata`, and the runner must be that
version, checked before anything is built) with the settings that make counts repeat: a pinned
cache model (--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64), GLIBC_TUNABLES in the
benchmarks' cleared environment (the environment's value, or one that pins glibc's memcpy/memset
choice), and ASLR off. Prints one progress line per benchmark. The environment (toolchain,
valgrind, the library, glibc, CPU, ASLR state, commit) is recorded with the counts, so `irgate
check` can refuse to compare counts taken in different environments.

Benchmark ids are `group::function/id` (the bench file's name left out), so an id must be unique
across suites: a run refuses one found in two suites and names both. Suites may share a group:
its baseline file then holds the benchmarks of each.

With --from, nothing runs: the counts come from summary directories (every summary.json below
them) or irgate results files, possibly from several CI shards, merged into one. A benchmark
found twice is an error.";

pub(super) const CHECK_ABOUT: &str = "\
Compare the latest results with baselines/ under the budgets of gate.toml, print the report, and
exit 0 when every budget holds, 1 when one is exceeded, 2 when the gate cannot decide.

Each gated metric (Ir by default) of each benchmark is over budget when it grew by more than the
larger of its relative and absolute allowance (default: +1% and at least +1 Ir). A benchmark
without a baseline fails unless --allow-new; an improvement beyond the budget means the baseline
is stale (fails with --strict); a baseline whose benchmark did not run is listed as vanished.
Results that miss a suite declared in gate.toml are refused (exit 2): run every suite. If the
environment differs from the baselines' in a field that changes counts (rustc, valgrind, the
library, glibc, CPU vendor or flags, ASLR...), the gate refuses to judge (exit 2) and names the
fields; --on-env-mismatch=warn shows the comparison without a verdict instead (exit 0), and
--on-env-mismatch=remeasure triages the drift: it builds and runs the baselines' commit (their
fingerprint's `commit`) here, beside the working tree, as `irgate run --base` does, reports per
benchmark what the environment moved (baseline -> that commit measured here) and what the code
moved (that commit measured here -> the working tree), and gates the code's move only.

--base compares with the base side of `irgate run --base REV` (A/B) instead of the baselines.

Change-aware verdicts: the compiled code of the results' build is compared, function by function,
with the code record of the compared side (the baselines' `code/record.json`, taken by `irgate run
--record`, or the A/B base's), and each benchmark is touched when its process executed a changed
function or a path its processes were seen to read changed (in a record taken without strace: may
read a changed file; docs/selection.md). An untouched benchmark runs the same code:
a move beyond its budget but within the address budget ([layout] in gate.toml) passes as code
addresses; beyond that, the gate cannot blame the change and cannot decide (exit 2): the report
names it as the environment's or nondeterminism. Each failing benchmark names the changed
functions it runs. A change that cannot be mapped is said, and every benchmark is then held to its
budget. --no-change-map judges every benchmark as touched.

When every budget holds, the report is a short summary (the largest movers within budget);
--full prints every row.

With a [drift] budget in gate.toml, a benchmark also fails when it grew by more than that budget
since the anchor (a tag or commit recorded in the history, --history DIR), even if every single
change stayed within its own budget; its row says since when. If the anchor has no run in the
history, or its counts were taken in another environment, the gate cannot decide (exit 2).";

pub(super) const REFRESH_ABOUT: &str = "\
Write the latest results into baselines/, one file per benchmark group, and show what changed.

Only the benchmarks in the results (and matching FILTER, if given) are written; the baselines of
benchmarks that did not run are kept (unless --prune). Files are replaced atomically, so an
interrupted refresh loses nothing. Review the diff and commit it: that is how a new baseline is
accepted on purpose.

Take the results with `irgate run --record`: the code record (baselines/code/record.json, what
`run --only-touched` and the change map trust) is then kept with the counts. A refresh from a run
without it removes the record's entries of the benchmarks whose counts it changes: those run on
every change until the record is taken again. The other benchmarks keep their entries while they
still describe their baselines.";

pub(super) const DOCTOR_ABOUT: &str = "\
Print the environment of this machine (or container) as `irgate run` would record it, and compare
it field by field with the environment the baselines were taken in.

Fields that change which instructions run (toolchain, valgrind, the benchmark library, glibc and
its tunables, the CPU the benchmarks see and its code-path flags, ASLR) must match, or `irgate
check` refuses to compare (exit 2). The others (host CPU, environment, path, commit, date) are
shown for information.

`cpu` is the CPU as programs running under valgrind see it: valgrind presents its own CPU model to
them, and glibc and the crates choose their code paths by that model, not by the host's.

It also shows the runner `irgate run` would use for each suite's library ($GUNGRAUN_RUNNER or
$IAI_CALLGRIND_RUNNER, irgate's runner cache, or the PATH), which must be the library's exact
version.

Exit codes: 0 every field that matters matches (or there are no baselines yet) and every runner
is there, 2 one differs, a runner is missing or of another version, or the baselines cannot be
read.";

#[cfg(feature = "github")]
pub(super) const COMMENT_ABOUT: &str = "\
Post the report of `irgate check --format json` as the pull request's one irgate comment (updated
in place on every run, found by a hidden marker), append it to the job's step summary
($GITHUB_STEP_SUMMARY) and print ::error annotations for failing benchmarks (under GitHub Actions).

The token comes from GITHUB_TOKEN and never appears in any output; it is only ever sent to the
API's host, GITHUB_API_URL (default https://api.github.com). Rate limits and server errors are
retried with backoff.

The exit code is the gate's own, read from the report (0 passed, 1 over budget, 2 undecided):
a failure to post is reported and does not change it.";

pub(super) const EXPLAIN_ABOUT: &str = "\
Show where a benchmark's instructions went between its baseline and the latest run, function by
function: the functions whose self Ir changed most (baseline, new, change, and the inclusive
change), the rest summed as one line, renames and inlining changes shown as what they are, and a
differential flame graph (SVG) beside the results (target/irgate/flamegraphs/).

Reads the per-function profiles `irgate run` writes beside the results and the ones `irgate
refresh` stores in baselines/profiles/. `irgate check` does the same for every benchmark over
budget.";

pub(super) const HISTORY_ADD_ABOUT: &str = "\
Record runs in the history: one file per run, runs/<date>-<commit>.json under --history (a
checkout of the history branch, in CI). Each RESULTS file (default: the latest results) becomes one
run; give several, oldest first, to import an existing series.

The commit and date come from the results' fingerprint (--commit names another commit, for one
file); results taken with uncommitted changes are refused. A run is added as a new file and never
replaces one: the same run recorded twice is reported and kept, a different run under the same
name is an error. So two pushes racing to the history branch write different files, and a
`git pull --rebase` before the push merges them.

--bisect FILE keeps with the run what `irgate bisect --good <previous recorded commit> --bad
<this commit> --format json` found: each commit that moved a count, with its subject, drawn on
the dashboard's charts. --report FILE keeps the benchmarks this run's JSON report judged
`unexplained` (moved beyond the address budget although the code identity said untouched):
possible selection bugs, marked on the dashboard. Both files are checked as untrusted input.";

pub(super) const HISTORY_RENDER_ABOUT: &str = "\
Draw the history as a static, self-contained HTML site in --out (inline CSS and SVG, no script,
nothing fetched at view time; fits a laptop and a phone): index.html, the benchmarks whose Ir
moved most over the last --window runs and a line per group; group-<group>.html, every benchmark
of the group with a trend line of its Ir and its change, and for those that moved most a chart of
Ir and of every other recorded metric, with the runs that refreshed the baselines or changed the
environment marked; runs.html, every run with its commit (linked to --repo-url when given).
Publish it with GitHub Pages, or as an artifact.";

pub(super) const RUNNER_INSTALL_ABOUT: &str = "\
Install the callgrind runner of every suite's library (gungraun-runner or iai-callgrind-runner, at
the library's exact version) that is not found yet, into irgate's runner cache: one directory per
version ($IRGATE_RUNNERS, else $XDG_CACHE_HOME/irgate/runners, else ~/.cache/irgate/runners), side
by side, so repositories needing different versions share a machine. The runner on the PATH is
never replaced.

`irgate run` uses, in this order: $GUNGRAUN_RUNNER (or $IAI_CALLGRIND_RUNNER) when set, which
must then be the exact version; the cache's runner of that version; the PATH's, when it is that
version. A runner already found is not installed again. Installing builds the runner with cargo
(about 3 minutes of CPU time; on 2 busy cores it took 12 min 45 s), with a progress line every 20 s:
the crates compiled and about how long is left.";

pub(super) const CALIBRATE_ABOUT: &str = "\
Build and run the suites several ways and compare their counts benchmark by benchmark. Each build
is a copy of the working tree at a scratch path exactly as long as the checkout's (counts move with
the length of the paths compiled into the binary), its workspace packages built there from
nothing (the dependencies taken from the checkout's last build) with irgate's measurement build:
`base` (as it is), `rebuild` (as it is, built again from nothing at the same path: the
reproducibility check), `version` (every workspace member one patch release higher, as
a release bumps it: other symbol hashes), `unrelated` (a function no benchmark calls added to every
member's library). Each build's results are written to <target>/irgate/calibrate/<variant>.json.
Given RESULTS files instead (`irgate run --results FILE` of builds made elsewhere), compares those
(a pair named base.json and rebuild.json is the reproducibility check); per-function profiles
among them (*.profiles.json) are skipped.

A benchmark whose count differs between `base` and `rebuild` has a build that is not reproducible
(a build script drawing random data into OUT_DIR, hash seeds): it is named, with the OUT_DIR files
that differed, never budgeted, and the exit code is 2 until gate.toml marks it `info`.

Prints every other benchmark whose Ir moved between the builds (layout-sensitive), with its
smallest and largest count, the spread and the builds it moved in, and the suggested budget: 1.5
times the spread (rounded up), at least 1 Ir, and no relative part (layout moves a count by a few
instructions whatever its size, so a relative slack only hides regressions of large benchmarks).

With --write, puts those budgets into gate.toml as [[overrides]] marked `# irgate calibrate`
(one per budget value) and the unreproducible benchmarks as a marked [[nondeterministic]] entry,
replacing the ones an earlier calibration wrote and keeping the rest of the file, comments
included. The builds must hold the same benchmarks, taken in one environment.";
