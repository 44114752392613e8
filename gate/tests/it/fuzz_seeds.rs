//! The fuzz targets' oracles (`fuzz/check.rs`) over the committed seeds (`fuzz/seeds/<target>/`),
//! so every test run exercises them without a fuzzer. Each seed must be accepted, or refused with
//! the message listed here; a seed without an entry fails the test, so none goes unchecked.

#[path = "../../fuzz/check.rs"]
mod check;

use std::collections::BTreeSet;

const SEEDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/seeds");

/// `Ok` for an accepted seed, else a piece of the error message it must get (after the file
/// name, which the oracle checks).
type Expected = Result<(), &'static str>;

const SUMMARY: &[(&str, Expected)] = &[
    ("v7-varint-encode-v0.json", Ok(())),
    ("v7-filter-alloc-dhat.json", Ok(())),
    ("v6-bench-allocation.json", Ok(())),
    ("v4-legacy.json", Ok(())),
    (
        "bad-dotdot-group.json",
        Err("invalid benchmark id \"../..::encode/v0\""),
    ),
    (
        "bad-escape-in-id.json",
        Err("\"varint::encode/v0\\u{1b}[31m\""),
    ),
    (
        "bad-newline-in-id.json",
        Err("\"varint::encode/v0\\n::error::forged\""),
    ),
    (
        "bad-ir-2-64.json",
        Err("varint::encode/v0: metric Ir: count too large: at least 2^64"),
    ),
    (
        "bad-legacy-2-64.json",
        Err("g::f: metric Ir: count too large: at least 2^64"),
    ),
    (
        "bad-ir-99.0.json",
        Err("metric Ir: count 99.0 written with a decimal point"),
    ),
    ("bad-ir-negative.json", Err("metric Ir: negative count -5")),
    (
        "bad-legacy-escape-metric.json",
        Err("g::f/a: unknown metric `\\u{1b}[2J`"),
    ),
    (
        "bad-version-99.json",
        Err("unsupported summary schema version `99`"),
    ),
    ("bad-empty.json", Err("truncated gungraun summary")),
    ("bad-truncated.json", Err("truncated gungraun summary")),
];

const RESULTS: &[(&str, Expected)] = &[
    ("base.json", Ok(())),
    ("bad-dotdot-group.json", Err("\"../../etc::passwd\": ")),
    ("bad-escape-in-id.json", Err("\"filter::x\\u{1b}[2J\": ")),
    (
        "bad-escape-in-metric.json",
        Err("filter::alloc: unknown metric `\\u{1b}[2J`"),
    ),
    (
        "bad-escape-in-field.json",
        Err("unknown field `\\u{1b}[2J`"),
    ),
    (
        "bad-duplicate-id.json",
        Err("duplicate benchmark id `filter::alloc`"),
    ),
    (
        "bad-ir-2-64.json",
        Err(":47:32: count too large: at least 2^64"),
    ),
    (
        "bad-ir-99.0.json",
        Err(":47:16: count 99.0 written with a decimal point"),
    ),
    (
        "bad-ir-1000.0.json",
        Err(":47:18: count 1000.0 written with a decimal point"),
    ),
    ("bad-ir-negative.json", Err(":47:14: negative count -1")),
    (
        "bad-schema-4.json",
        Err("unsupported schema_version 4: this irgate reads results files"),
    ),
    ("bad-filter.json", Err("invalid filter `a[`")),
    ("bad-empty.json", Err(":1:0: truncated JSON")),
    ("bad-truncated.json", Err("truncated JSON")),
];

const BASELINES: &[(&str, Expected)] = &[
    ("varint.json", Ok(())),
    ("cipher.json", Ok(())),
    ("hidden-temp-file.json", Ok(())),
    (
        "bad-wrong-group.json",
        Err("frame.json: benchmark `varint::decode/i32max` belongs in varint.json"),
    ),
    (
        "bad-escape-in-name.json",
        Err("var\\u{1b}int.json: not a baseline file name"),
    ),
    (
        "bad-not-utf8-name.json",
        Err("var\u{fffd}int.json: not a baseline file name"),
    ),
    (
        "bad-dotdot-id.json",
        Err("invalid benchmark id \"../varint::x\""),
    ),
    (
        "bad-escape-in-metric.json",
        Err("varint::decode/i32max: unknown metric `\\u{1b}[2J`"),
    ),
    ("bad-ir-2-64.json", Err("count too large: at least 2^64")),
    (
        "bad-ir-99.0.json",
        Err("count 99.0 written with a decimal point"),
    ),
    (
        "bad-no-ir.json",
        Err("benchmark `varint::decode/i32max` has no `Ir` count"),
    ),
    ("bad-empty.json", Err("varint.json:1:0: truncated JSON")),
];

const CONFIG: &[(&str, Expected)] = &[
    ("repository.toml", Ok(())),
    ("overrides-dhat.toml", Ok(())),
    ("bad-empty.toml", Err("the file is empty")),
    ("bad-unknown-metric.toml", Err(":2:1: unknown metric `IR`")),
    ("bad-negative.toml", Err(":2:23: relative_pct is -1")),
    ("bad-nan.toml", Err(":2:23: relative_pct is NaN")),
    (
        "bad-absolute-2-64.toml",
        Err(":2:19: invalid type: integer `18446744073709551616`"),
    ),
    (
        "bad-absolute-float.toml",
        Err(
            ":2:19: absolute is the decimal number 99.0: a count of instructions is a whole number, written `99`",
        ),
    ),
    ("bad-glob.toml", Err(":2:15: invalid glob")),
    ("bad-escape-in-key.toml", Err(":1:2: invalid basic string")),
    (
        "bad-escape-in-metric.toml",
        Err(":2:3: invalid basic string"),
    ),
    (
        "bad-not-utf8.toml",
        Err("cannot read: stream did not contain valid UTF-8"),
    ),
];

const REPORT: &[(&str, Expected)] = &[
    ("passed.json", Ok(())),
    ("failed.json", Ok(())),
    (
        "bad-dotdot-id.json",
        Err("invalid benchmark id \"../x::y\""),
    ),
    (
        "bad-escape-in-id.json",
        Err("invalid benchmark id \"filter::x\\u{1b}[2J\""),
    ),
    (
        "bad-escape-in-metric.json",
        Err("filter::scan/s512: unknown metric `I\\u{1b}r`"),
    ),
    (
        "bad-escape-in-field.json",
        Err("unknown variant `\\u{1b}[2J`"),
    ),
    (
        "bad-exit-code.json",
        Err("exit_code 0 contradicts the outcome (exit 1)"),
    ),
    (
        "bad-new-2-64.json",
        Err("invalid type: floating point `1.8446744073709552e+19`"),
    ),
    (
        "bad-schema-5.json",
        Err("schema version 5 of the JSON report"),
    ),
    ("bad-empty.json", Err("not an irgate JSON report")),
];

const CALLGRIND: &[(&str, Expected)] = &[
    ("library-passthrough-n8.out", Ok(())),
    ("compressed-jumps.out", Ok(())),
    ("whole-program.out", Ok(())),
    (
        "bad-cut-off.out",
        Err("cut off: part 1 ends without the `totals:` line callgrind ends every part with"),
    ),
    (
        "bad-totals.out",
        Err("cut off or corrupt: the functions' Ir add up to 122, the file's `totals:` says 121"),
    ),
    (
        "bad-summary-below.out",
        Err("corrupt: the functions' Ir add up to 122, more than the file's `summary:` of 100"),
    ),
    (
        "bad-escape-line.out",
        Err("line 2: not a callgrind line: `\\u{1b}[2J`"),
    ),
    (
        "bad-version.out",
        Err("line 1: format version 2\\u{1b}[31m is not the 1 this reader knows"),
    ),
    (
        "bad-empty.out",
        Err("not a callgrind file: no `events:` line"),
    ),
    ("bad-not-utf8.out", Err("cannot read: line 2: not UTF-8")),
    (
        "bad-call-cut.out",
        Err("cut off: the file ends after `calls=`, before the call's cost"),
    ),
];

/// Runs `oracle` over every seed of `target` and checks each against `expected`.
fn seeds_give_what_is_listed(
    target: &str,
    oracle: fn(&[u8]) -> check::Outcome,
    expected: &[(&str, Expected)],
) {
    let dir = format!("{SEEDS}/{target}");
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    let listed: BTreeSet<String> = expected.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, listed, "the seeds of {dir} and the list differ");
    for (name, expected) in expected {
        let data = std::fs::read(format!("{dir}/{name}")).unwrap();
        match (oracle(&data), expected) {
            (Ok(()), Ok(())) => {}
            (Err(message), Err(part)) => assert!(
                message.contains(part),
                "{target}/{name}: {message:?} does not say {part:?}"
            ),
            (outcome, _) => panic!("{target}/{name}: {outcome:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn summary_seeds() {
    seeds_give_what_is_listed("summary", check::summary, SUMMARY);
}

#[test]
fn results_seeds() {
    seeds_give_what_is_listed("results", check::results, RESULTS);
}

#[test]
fn baselines_seeds() {
    seeds_give_what_is_listed("baselines", check::baselines, BASELINES);
}

#[test]
fn config_seeds() {
    seeds_give_what_is_listed("config", check::config, CONFIG);
}

#[test]
fn report_seeds() {
    seeds_give_what_is_listed("report", check::report, REPORT);
}

#[test]
fn callgrind_seeds() {
    seeds_give_what_is_listed("callgrind", check::callgrind, CALLGRIND);
}
