//! The load comparison is one published format: `irload compare --format json` writes what
//! docs/load.schema.json describes, and irgate's reader (`irgate comment --load`) reads it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// One run's report, as `irload run --json` writes it (its layout is frozen in src/report.rs).
fn run(label: &str, p50: f64) -> Value {
    let latency = |p50: f64| {
        json!({"samples": 40000, "mean": p50 + 10.0, "p50": p50, "p90": p50 + 20.0,
               "p99": p50 + 100.0, "p99_9": p50 + 500.0, "max": p50 + 1000.0})
    };
    json!({
        "schema": proxy::report::SCHEMA,
        "label": label,
        "target": "127.0.0.1:25566",
        "profile": {
            "payload_bytes": 256, "connections": 2, "rate_per_connection": 1000,
            "wire": {"threshold": 256, "encrypt": true}, "warmup_secs": 2, "duration_secs": 20,
            "stress": false, "tool_version": "0.1.0",
            "machine": {"cpu": "AMD EPYC", "cpus": 2, "os": "linux-x86_64"}
        },
        "sent": 40000, "received": 40000, "lost": 0, "errors": [],
        "packets_per_sec": 2000.0, "mib_per_sec": 0.488,
        "latency_us": latency(p50), "service_us": latency(p50 - 5.0), "stress": null
    })
}

fn write_runs(dir: &Path, label: &str, p50s: &[f64]) -> Vec<String> {
    p50s.iter()
        .enumerate()
        .map(|(i, &p50)| {
            let path = dir.join(format!("{label}-{i}.json"));
            std::fs::write(&path, run(label, p50).to_string()).unwrap();
            path.display().to_string()
        })
        .collect()
}

fn published_schema() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/load.schema.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// The errors of `value` against `schema` (within `root`, for `$ref`), at `at`: the keywords the
/// published schema uses, each checked; any other keyword is an error, so a schema that grows one
/// this check does not know fails here rather than passing unchecked.
fn errors(root: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        out.push(format!("{at}: the schema is not an object"));
        return;
    };
    for (keyword, rule) in schema {
        match keyword.as_str() {
            "$schema" | "title" | "description" | "format" | "$defs" => {}
            "$ref" => {
                let name = rule.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                match name.and_then(|n| root["$defs"].get(n)) {
                    Some(target) => errors(root, target, value, at, out),
                    None => out.push(format!("{at}: unresolved $ref {rule}")),
                }
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                let fits = |t: &str| match t {
                    "object" => value.is_object(),
                    "array" => value.is_array(),
                    "string" => value.is_string(),
                    "number" => value.is_number(),
                    "integer" => value.is_u64() || value.is_i64(),
                    "boolean" => value.is_boolean(),
                    "null" => value.is_null(),
                    _ => false,
                };
                if !types.iter().any(|t| fits(t)) {
                    out.push(format!("{at}: {value} is not of type {rule}"));
                }
            }
            "const" if value != rule => out.push(format!("{at}: {value} is not {rule}")),
            "const" => {}
            "minimum"
                if value
                    .as_f64()
                    .zip(rule.as_f64())
                    .is_some_and(|(v, m)| v < m) =>
            {
                out.push(format!("{at}: {value} is below {rule}"));
            }
            "minimum" => {}
            "required" => {
                for key in rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if value.get(key).is_none() {
                        out.push(format!("{at}: `{key}` is missing"));
                    }
                }
            }
            "properties" => {
                for (key, property) in rule.as_object().into_iter().flatten() {
                    if let Some(inner) = value.get(key) {
                        errors(root, property, inner, &format!("{at}.{key}"), out);
                    }
                }
            }
            "additionalProperties" => {
                let known = schema.get("properties").and_then(Value::as_object);
                for key in value.as_object().into_iter().flatten().map(|(k, _)| k) {
                    if *rule == json!(false) && !known.is_some_and(|k| k.contains_key(key)) {
                        out.push(format!("{at}: `{key}` is not in the schema"));
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    errors(root, rule, item, &format!("{at}[{i}]"), out);
                }
            }
            "prefixItems" => {
                let items = value.as_array().into_iter().flatten();
                for (i, (item, rule)) in
                    items.zip(rule.as_array().into_iter().flatten()).enumerate()
                {
                    errors(root, rule, item, &format!("{at}[{i}]"), out);
                }
            }
            "minItems" | "maxItems" => {
                let len = value.as_array().map_or(0, Vec::len) as u64;
                let bound = rule.as_u64().unwrap_or(0);
                if (keyword == "minItems" && len < bound) || (keyword == "maxItems" && len > bound)
                {
                    out.push(format!("{at}: {len} items, {keyword} {bound}"));
                }
            }
            "oneOf" => {
                let fitting = rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|option| {
                        let mut inner = Vec::new();
                        errors(root, option, value, at, &mut inner);
                        inner.is_empty()
                    })
                    .count();
                if fitting != 1 {
                    out.push(format!("{at}: {value} fits {fitting} of oneOf, not 1"));
                }
            }
            other => out.push(format!("{at}: keyword `{other}` is not checked here")),
        }
    }
}

fn validate(value: &Value) -> Vec<String> {
    let schema = published_schema();
    let mut out = Vec::new();
    errors(&schema, &schema, value, "$", &mut out);
    out
}

#[test]
fn irloads_comparison_is_the_published_format_and_irgate_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let base = write_runs(dir.path(), "direct", &[50.0, 51.0, 49.0, 50.5]);
    let new = write_runs(dir.path(), "proxied", &[70.0, 71.0, 69.0, 72.0]);
    let mut args = vec!["compare", "--format", "json", "--base"];
    args.extend(base.iter().map(String::as_str));
    args.push("--new");
    args.extend(new.iter().map(String::as_str));
    let output = Command::new(env!("CARGO_BIN_EXE_irload"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(validate(&written), Vec::<String>::new(), "{written:#}");
    assert_eq!(
        written["schema_version"],
        irgate::formats::load::SCHEMA_VERSION
    );

    let path = dir.path().join("comparison.json");
    std::fs::write(&path, &output.stdout).unwrap();
    let read = irgate::formats::load::read(&path).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), written);
    assert_eq!(read.rows.len(), 6);
    assert_eq!(read.new_label, "proxied");
}

/// The check above can fail: what the schema refuses, it reports.
#[test]
fn the_schema_check_refuses_what_the_format_does_not_allow() {
    let good = json!({
        "schema_version": 1, "profile": {"payload_bytes": 256}, "base_label": "direct",
        "new_label": "proxied", "base_runs": 4, "new_runs": 4, "alpha": 0.05,
        "packets_per_sec": [2000.0, 1990.0],
        "rows": [{"statistic": "p50", "base_us": 50.0, "new_us": 70.0, "delta_us": 20.0,
                  "delta_pct": null, "p_value": 0.029, "verdict": "distinguishable"}]
    });
    assert_eq!(validate(&good), Vec::<String>::new());
    for (change, error) in [
        (json!({"schema_version": 2}), "$.schema_version: 2 is not 1"),
        (json!({"extra": 1}), "$: `extra` is not in the schema"),
        (json!({"rows": []}), "$.rows: 0 items, minItems 1"),
        (
            json!({"packets_per_sec": [1.0]}),
            "$.packets_per_sec: 1 items, minItems 2",
        ),
        (json!({"base_runs": -1}), "$.base_runs: -1 is below 0"),
        (json!({"alpha": "0.05"}), "$.alpha: \"0.05\" is not of type"),
    ] {
        let mut bad = good.clone();
        for (key, value) in change.as_object().unwrap() {
            bad[key] = value.clone();
        }
        let found = validate(&bad);
        assert!(
            found.iter().any(|e| e.starts_with(error)),
            "{error}: {found:?}"
        );
    }
    let mut bad = good.clone();
    bad["rows"][0]["verdict"] = json!("gated");
    let found = validate(&bad);
    assert!(
        found.iter().any(|e| e.contains("fits 0 of oneOf")),
        "{found:?}"
    );
    bad = good.clone();
    bad.as_object_mut().unwrap().remove("rows");
    assert_eq!(validate(&bad), ["$: `rows` is missing"]);
}
