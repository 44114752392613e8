//! JSON objects whose keys must not repeat. serde reads an object into a map keeping the last of
//! two equal keys, silently; irgate's files are refused instead, with the key named. Use with
//! `#[serde(deserialize_with = "formats::unique::map")]` on a `BTreeMap` field.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// Deserializes a JSON object into a map, refusing a key that repeats.
pub fn map<'de, D, K, V>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
where
    D: Deserializer<'de>,
    K: Deserialize<'de> + Ord + fmt::Display,
    V: Deserialize<'de>,
{
    struct MapVisitor<K, V>(PhantomData<(K, V)>);
    impl<'de, K, V> Visitor<'de> for MapVisitor<K, V>
    where
        K: Deserialize<'de> + Ord + fmt::Display,
        V: Deserialize<'de>,
    {
        type Value = BTreeMap<K, V>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object whose keys do not repeat")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut map = BTreeMap::new();
            while let Some(key) = access.next_key::<K>()? {
                if map.contains_key(&key) {
                    return Err(de::Error::custom(format!("duplicate key `{key}`")));
                }
                let value = access.next_value()?;
                map.insert(key, value);
            }
            Ok(map)
        }
    }
    deserializer.deserialize_map(MapVisitor(PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Doc {
        #[serde(deserialize_with = "map")]
        by_name: BTreeMap<String, u64>,
        #[serde(default, deserialize_with = "map")]
        by_offset: BTreeMap<u32, String>,
    }

    #[test]
    fn a_repeated_key_is_refused_with_the_key_named() {
        let doc: Doc = serde_json::from_str(r#"{"by_name": {"a": 1, "b": 2}}"#).unwrap();
        assert_eq!(
            doc.by_name,
            BTreeMap::from([("a".into(), 1), ("b".into(), 2)])
        );
        assert!(doc.by_offset.is_empty());
        for (text, key) in [
            (r#"{"by_name": {"a": 1, "b": 2, "a": 3}}"#, "`a`"),
            (
                r#"{"by_name": {}, "by_offset": {"7": "x", "7": "y"}}"#,
                "`7`",
            ),
        ] {
            let error = serde_json::from_str::<Doc>(text).unwrap_err().to_string();
            assert!(error.contains(&format!("duplicate key {key}")), "{error}");
        }
    }

    /// `text` with `extra` (`"key": value` pairs) added to the end of its top-level object.
    fn with_fields(text: &str, extra: &str) -> String {
        let body = text.trim_end().strip_suffix('}').unwrap();
        format!("{body}, {extra}}}")
    }

    /// The readers of irgate's files keyed by benchmark id refuse a repeated key, named.
    #[test]
    fn every_file_keyed_by_benchmark_id_refuses_a_repeated_key() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        // Baselines: a committed group file, with a repeated key in `unsplit`.
        let committed = std::fs::read_to_string(root.join("baselines/frame.json")).unwrap();
        let baselines = dir.path().join("baselines");
        std::fs::create_dir_all(&baselines).unwrap();
        let repeated = r#""unsplit": {"frame::x/y": "a", "frame::x/y": "b"}"#;
        std::fs::write(
            baselines.join("frame.json"),
            with_fields(&committed, repeated),
        )
        .unwrap();
        let error = crate::formats::baseline::Baselines::load(&baselines)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate key `frame::x/y`"), "{error}");
        // Results: a repeated key in `durations_ms`.
        let results = dir.path().join("results.json");
        let mut run = crate::model::Results::default();
        run.benchmarks
            .insert("g::f/x".into(), BTreeMap::from([("Ir".into(), 1)]));
        crate::formats::results::write(&results, &run).unwrap();
        let text = std::fs::read_to_string(&results).unwrap();
        let repeated = r#""durations_ms": {"g::f/x": 1, "g::f/x": 2}"#;
        std::fs::write(&results, with_fields(&text, repeated)).unwrap();
        let error = crate::formats::results::read(&results)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate key `g::f/x`"), "{error}");
        // Profiles: a repeated benchmark.
        let profiles = dir.path().join("results.profiles.json");
        let profile = r#"{"total": 1, "floor": 1, "functions": {}}"#;
        let text = format!(
            r#"{{"schema_version": 2, "event": "Ir", "benchmarks": {{"g::f/x": {profile}, "g::f/x": {profile}}}}}"#
        );
        std::fs::write(&profiles, text).unwrap();
        let error = crate::formats::profiles::read_run(&profiles)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate key `g::f/x`"), "{error}");
    }

    /// The code record refuses a repeated benchmark, object, function or count, named.
    #[test]
    fn the_code_record_refuses_a_repeated_key() {
        let digest = "0".repeat(32);
        let object = format!(r#"{{"whole": "{digest}", "functions": {{"f": "{digest}"}}}}"#);
        let head = format!(
            r#""schema_version": 2, "commit": "{}", "identity": 1"#,
            "a".repeat(40)
        );
        let parse = |text: String| {
            crate::formats::code::parse(text.into_bytes(), std::path::Path::new("record.json"))
        };
        let good = format!(
            r#"{{{head}, "objects": {{"o": {object}}}, "benchmarks": {{"g::f/x": {{}}}}}}"#
        );
        assert!(parse(good).is_ok());
        for (text, key) in [
            (
                format!(
                    r#"{{{head}, "objects": {{"o": {object}}}, "benchmarks": {{"g::f/x": {{}}, "g::f/x": {{"executed": {{"o": "0"}}}}}}}}"#
                ),
                "`g::f/x`",
            ),
            (
                format!(r#"{{{head}, "objects": {{"o": {object}, "o": {object}}}}}"#),
                "`o`",
            ),
            (
                format!(
                    r#"{{{head}, "objects": {{"o": {{"whole": "{digest}", "functions": {{"f": "{digest}", "f": "{digest}"}}}}}}}}"#
                ),
                "`f`",
            ),
            (
                format!(
                    r#"{{{head}, "objects": {{"o": {object}}}, "benchmarks": {{"g::f/x": {{"counts": {{"Ir": 1, "Ir": 2}}}}}}}}"#
                ),
                "`Ir`",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(&format!("duplicate key {key}")), "{error}");
        }
    }
}
