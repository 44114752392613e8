//! Where a benchmark's instructions went between two profiles: the functions whose self cost
//! moved most, a rename or an inlining change shown as one line with its net change, the rest
//! summed, and the inclusive view where it says more than the self costs.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::profile::{Function, Profile};

/// What happened to a function between the two profiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// In both, with a different self cost.
    Changed,
    /// Only in the new profile (or below the baseline profile's floor).
    Added {
        /// Its callers in the new profile.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        called_from: Vec<String>,
    },
    /// Only in the baseline profile (or below the new profile's floor).
    Removed,
    /// The same code under another name: `from` in the baseline.
    Renamed {
        /// The baseline's name.
        from: String,
    },
    /// `inlined` were separate functions in the baseline and are now inlined into this one; the
    /// baseline figures include them.
    Inlined {
        /// The functions inlined.
        inlined: Vec<String>,
    },
    /// Code inlined into `host` (the function named is the inlined one, `file: name`): its
    /// share of the host's self cost, listed on its own so that a change in an inlined function
    /// reads as that function's.
    InlinedInto {
        /// The function it is inlined into.
        host: String,
    },
    /// `outlined` were inlined into this function in the baseline and are separate functions
    /// now; the new figures include them.
    Outlined {
        /// The functions no longer inlined.
        outlined: Vec<String>,
    },
}

/// One line of an explanation: a function (or a rename/inlining group) and its self cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Mover {
    /// The function (the new name for a rename, the caller for an inlining change).
    pub function: String,
    /// Its source file.
    pub file: String,
    /// What happened to it.
    #[serde(flatten)]
    pub kind: Kind,
    /// Self cost in the baseline (0 when absent).
    pub base_self: u64,
    /// Self cost in the new run (0 when absent).
    pub new_self: u64,
    /// Inclusive cost in the baseline (0 when absent).
    pub base_inclusive: u64,
    /// Inclusive cost in the new run (0 when absent).
    pub new_inclusive: u64,
    /// Where the self change came from, when code inlined from other files moved: file and
    /// change, largest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlined_from: Vec<(String, i64)>,
    /// Code the program's `main` does not run (a whole-program run's start-up and exit), on the
    /// side where the function is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside_main: bool,
}

impl Mover {
    /// The change of self cost.
    pub fn delta(&self) -> i64 {
        signed(self.new_self, self.base_self)
    }

    /// The change of inclusive cost.
    pub fn inclusive_delta(&self) -> i64 {
        signed(self.new_inclusive, self.base_inclusive)
    }
}

/// The inclusive view of one function: its whole subtree's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Inclusive {
    /// The function.
    pub function: String,
    /// Inclusive cost in the baseline.
    pub base: u64,
    /// Inclusive cost in the new run.
    pub new: u64,
    /// The change of its self cost, for comparison.
    pub self_delta: i64,
}

/// Where a benchmark's change went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Explanation {
    /// The baseline's total.
    pub base_total: u64,
    /// The new total.
    pub new_total: u64,
    /// The largest movers, largest change first (renames, which may not change, included).
    pub movers: Vec<Mover>,
    /// Everything not listed in `movers`, summed: baseline, new, number of functions.
    pub rest: Rest,
    /// Functions whose inclusive change says more than the self changes: the deepest that
    /// holds most of the change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inclusive: Vec<Inclusive>,
    /// Cost outside any function and outside the totals, when either side has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unattributed: Option<Unattributed>,
}

/// The remainder of an explanation, as one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Rest {
    /// Its baseline cost.
    pub base: u64,
    /// Its new cost.
    pub new: u64,
    /// How many functions it sums (functions below a profile's floor not counted).
    pub functions: usize,
}

/// Cost callgrind counted outside any function and outside the totals (a whole-program run's
/// first instructions): shown on a line of its own, not in the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct Unattributed {
    /// In the baseline.
    pub base: u64,
    /// In the new run.
    pub new: u64,
}

impl Explanation {
    /// The change of the total.
    pub fn delta(&self) -> i64 {
        signed(self.new_total, self.base_total)
    }
}

fn signed(new: u64, old: u64) -> i64 {
    (i128::from(new) - i128::from(old)).clamp(i64::MIN.into(), i64::MAX.into()) as i64
}

/// Explains the change from `base` to `new` in at most `limit` movers.
pub fn explain(base: &Profile, new: &Profile, limit: usize) -> Explanation {
    let only_base: BTreeSet<&str> = base
        .functions
        .keys()
        .filter(|n| !new.functions.contains_key(*n))
        .map(String::as_str)
        .collect();
    let only_new: BTreeSet<&str> = new
        .functions
        .keys()
        .filter(|n| !base.functions.contains_key(*n))
        .map(String::as_str)
        .collect();
    let mut used: BTreeSet<(bool, &str)> = BTreeSet::new();
    let mut movers = Vec::new();

    // Renames: a function gone and one come with the same cost.
    let mut pairs: Vec<(u64, &str, &str)> = Vec::new();
    for old in &only_base {
        for new_name in &only_new {
            let (a, b) = (&base.functions[*old], &new.functions[*new_name]);
            if let Some(distance) = rename_distance(a, b) {
                pairs.push((distance, old, new_name));
            }
        }
    }
    pairs.sort();
    for (_, old, new_name) in pairs {
        if used.contains(&(false, old)) || used.contains(&(true, new_name)) {
            continue;
        }
        used.insert((false, old));
        used.insert((true, new_name));
        let (a, b) = (&base.functions[old], &new.functions[new_name]);
        movers.push(Mover {
            function: new_name.to_owned(),
            file: b.file.clone(),
            kind: Kind::Renamed {
                from: old.to_owned(),
            },
            base_self: a.self_cost,
            new_self: b.self_cost,
            base_inclusive: a.inclusive,
            new_inclusive: b.inclusive,
            inlined_from: Vec::new(),
            outside_main: false,
        });
    }

    // Inlining: a function gone whose callers grew by about its cost; outlining, the reverse.
    for (gone_side, from, to) in [(false, base, new), (true, new, base)] {
        let mut candidates: Vec<(&str, &Function)> = from
            .functions
            .iter()
            .filter(|(n, _)| {
                !to.functions.contains_key(*n) && !used.contains(&(gone_side, n.as_str()))
            })
            .map(|(n, f)| (n.as_str(), f))
            .collect();
        candidates.sort_by_key(|(n, f)| (std::cmp::Reverse(f.self_cost), *n));
        for (name, f) in candidates {
            let callers: Vec<&str> = f
                .callers
                .iter()
                .map(String::as_str)
                .filter(|c| to.functions.contains_key(*c) && !used.contains(&(true, c)))
                .collect();
            // How much the callers absorbed (inlining) or gave up (outlining).
            let absorbed: u64 = callers
                .iter()
                .map(|c| {
                    let (before, after) =
                        (from.functions[*c].self_cost, to.functions[*c].self_cost);
                    after.saturating_sub(before)
                })
                .sum();
            if callers.is_empty() || !about(absorbed, f.self_cost) {
                continue;
            }
            used.insert((gone_side, name));
            let mut group: Vec<&str> = callers
                .iter()
                .copied()
                .filter(|c| to.functions[*c].self_cost > from.functions[*c].self_cost)
                .collect();
            group.sort_by_key(|c| std::cmp::Reverse(to.functions[*c].self_cost));
            for c in &group {
                used.insert((true, c));
            }
            let sum = |p: &Profile, pick: fn(&Function) -> u64| -> u64 {
                group.iter().map(|c| pick(&p.functions[*c])).sum()
            };
            let (callers_from, callers_to) = (sum(from, |f| f.self_cost), sum(to, |f| f.self_cost));
            let first = group[0];
            let (incl_from, incl_to) = (
                from.functions[first].inclusive,
                to.functions[first].inclusive,
            );
            let file = new
                .functions
                .get(first)
                .map_or_else(String::new, |f| f.file.clone());
            let mover = if gone_side {
                Mover {
                    function: first.to_owned(),
                    file,
                    kind: Kind::Outlined {
                        outlined: vec![name.to_owned()],
                    },
                    base_self: callers_to,
                    new_self: callers_from + f.self_cost,
                    base_inclusive: incl_to,
                    new_inclusive: incl_from,
                    inlined_from: Vec::new(),
                    outside_main: false,
                }
            } else {
                Mover {
                    function: first.to_owned(),
                    file,
                    kind: Kind::Inlined {
                        inlined: vec![name.to_owned()],
                    },
                    base_self: callers_from + f.self_cost,
                    new_self: callers_to,
                    base_inclusive: incl_from,
                    new_inclusive: incl_to,
                    inlined_from: Vec::new(),
                    outside_main: false,
                }
            };
            movers.push(mover);
        }
    }

    // Everything else, function by function.
    let names: BTreeSet<&str> = base
        .functions
        .keys()
        .chain(new.functions.keys())
        .map(String::as_str)
        .collect();
    let mut rest_count = 0;
    for name in names {
        let (a, b) = (base.functions.get(name), new.functions.get(name));
        if used.contains(&(a.is_none(), name)) || (b.is_some() && used.contains(&(true, name))) {
            continue;
        }
        let pick = |f: Option<&Function>, get: fn(&Function) -> u64| f.map_or(0, get);
        let kind = match (a, b) {
            (Some(_), Some(_)) => Kind::Changed,
            (None, _) => Kind::Added {
                called_from: b.map_or_else(Vec::new, |f| f.callers.clone()),
            },
            (_, None) => Kind::Removed,
        };
        let mover = Mover {
            function: name.to_owned(),
            file: b.or(a).map_or_else(String::new, |f| f.file.clone()),
            kind,
            base_self: pick(a, |f| f.self_cost),
            new_self: pick(b, |f| f.self_cost),
            base_inclusive: pick(a, |f| f.inclusive),
            new_inclusive: pick(b, |f| f.inclusive),
            inlined_from: Vec::new(),
            outside_main: false,
        };
        for mover in split_inlined(mover, a, b) {
            if mover.delta() == 0 {
                rest_count += 1;
            } else {
                movers.push(mover);
            }
        }
    }
    movers.sort_by(|x, y| {
        y.delta()
            .unsigned_abs()
            .cmp(&x.delta().unsigned_abs())
            .then_with(|| x.function.cmp(&y.function))
    });
    for m in &mut movers {
        let side = new
            .functions
            .get(&m.function)
            .or(base.functions.get(&m.function));
        m.outside_main = side.is_some_and(|f| f.outside_main);
    }
    let shown = movers.len().min(limit);
    rest_count += movers.len() - shown;
    movers.truncate(shown);
    let listed = |side: fn(&Mover) -> u64| movers.iter().map(side).sum::<u64>();
    let rest = Rest {
        base: base.total.saturating_sub(listed(|m| m.base_self)),
        new: new.total.saturating_sub(listed(|m| m.new_self)),
        functions: rest_count,
    };
    let inclusive = inclusive_view(base, new, &movers);
    let unattributed = (base.unattributed > 0 || new.unattributed > 0).then_some(Unattributed {
        base: base.unattributed,
        new: new.unattributed,
    });
    Explanation {
        base_total: base.total,
        new_total: new.total,
        movers,
        rest,
        inclusive,
        unattributed,
    }
}

/// How far apart two functions are as a rename candidate; `None` when they are not one.
/// Equal self and inclusive costs anywhere, or within 2% (at least 2 instructions) in the same
/// file.
fn rename_distance(a: &Function, b: &Function) -> Option<u64> {
    if a.self_cost == 0 && b.self_cost == 0 {
        return None;
    }
    let distance = a.self_cost.abs_diff(b.self_cost) + a.inclusive.abs_diff(b.inclusive);
    let tolerance = (a.inclusive.max(b.inclusive) / 50).max(2);
    (distance == 0 || (a.file == b.file && distance <= tolerance)).then_some(distance)
}

/// Whether `moved` is about `cost`: within a quarter (at least 4 instructions), since a call
/// that is inlined loses its call and return, and may be optimised further.
fn about(moved: u64, cost: u64) -> bool {
    moved > 0 && moved.abs_diff(cost) <= (cost / 4).max(4)
}

/// A function in both profiles, split into its inlined functions whose cost changed (one line
/// each) and its own code (the rest of its self cost). Anything else is returned as it is.
fn split_inlined(mut host: Mover, a: Option<&Function>, b: Option<&Function>) -> Vec<Mover> {
    let (Some(a), Some(b)) = (a, b) else {
        return vec![host];
    };
    let mut out = Vec::new();
    for (label, delta) in inlined_changes(Some(a), Some(b)) {
        let (old, new) = (
            a.inlined.get(&label).copied().unwrap_or(0),
            b.inlined.get(&label).copied().unwrap_or(0),
        );
        debug_assert_eq!(signed(new, old), delta);
        host.base_self = host.base_self.saturating_sub(old);
        host.new_self = host.new_self.saturating_sub(new);
        out.push(Mover {
            function: label,
            // The label names the file: `codec/src/varint.rs: decode_varint`.
            file: String::new(),
            kind: Kind::InlinedInto {
                host: host.function.clone(),
            },
            base_self: old,
            new_self: new,
            base_inclusive: old,
            new_inclusive: new,
            inlined_from: Vec::new(),
            outside_main: false,
        });
    }
    out.insert(0, host);
    out
}

fn inlined_changes(a: Option<&Function>, b: Option<&Function>) -> Vec<(String, i64)> {
    let empty = BTreeMap::new();
    let (x, y) = (
        a.map_or(&empty, |f| &f.inlined),
        b.map_or(&empty, |f| &f.inlined),
    );
    let files: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
    let mut changes: Vec<(String, i64)> = files
        .into_iter()
        .map(|file| {
            let delta = signed(
                y.get(file).copied().unwrap_or(0),
                x.get(file).copied().unwrap_or(0),
            );
            (file.clone(), delta)
        })
        .filter(|(_, d)| *d != 0)
        .collect();
    changes.sort_by(|p, q| {
        q.1.unsigned_abs()
            .cmp(&p.1.unsigned_abs())
            .then(p.0.cmp(&q.0))
    });
    changes
}

/// The function whose inclusive change holds at least half of the total change while its own
/// self change does not say so, and is not listed (a listed function shows its inclusive change)
/// nor nearly the whole run: the deepest such, if any.
fn inclusive_view(base: &Profile, new: &Profile, movers: &[Mover]) -> Vec<Inclusive> {
    let total = signed(new.total, base.total);
    if total == 0 {
        return Vec::new();
    }
    let mut view: Vec<Inclusive> = base
        .functions
        .iter()
        .filter_map(|(name, a)| {
            let b = new.functions.get(name)?;
            let delta = signed(b.inclusive, a.inclusive);
            let self_delta = signed(b.self_cost, a.self_cost);
            let holds_most = delta.signum() == total.signum()
                && delta.unsigned_abs() * 2 >= total.unsigned_abs();
            // Its own change is not most of its subtree's, and its subtree is not the whole run.
            let says_more = self_delta.unsigned_abs() * 2 < delta.unsigned_abs()
                && u128::from(b.inclusive) * 20 < u128::from(new.total) * 19
                && !movers.iter().any(|m| m.function == *name);
            (holds_most && says_more).then(|| Inclusive {
                function: name.clone(),
                base: a.inclusive,
                new: b.inclusive,
                self_delta,
            })
        })
        .collect();
    view.sort_by_key(|i| (i.new, i.function.clone()));
    view.truncate(1);
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(file: &str, self_cost: u64, inclusive: u64, callers: &[&str]) -> Function {
        Function {
            file: file.into(),
            self_cost,
            inclusive,
            callers: callers.iter().map(|c| c.to_string()).collect(),
            inlined: BTreeMap::new(),
            outside_main: false,
        }
    }

    fn profile(functions: Vec<(&str, Function)>) -> Profile {
        let total = functions.iter().map(|(_, f)| f.self_cost).sum();
        Profile {
            total,
            unattributed: 0,
            floor: 1,
            functions: functions
                .into_iter()
                .map(|(n, f)| (n.to_owned(), f))
                .collect(),
        }
    }

    #[test]
    fn names_the_largest_mover_and_sums_the_rest() {
        let base = profile(vec![
            ("main", f("m.rs", 10, 200, &[])),
            ("apply", f("c.rs", 100, 190, &["main"])),
            ("filter", f("c.rs", 90, 90, &["apply"])),
            ("other", f("o.rs", 100, 100, &["main"])),
        ]);
        let new = profile(vec![
            ("main", f("m.rs", 11, 262, &[])),
            ("apply", f("c.rs", 100, 251, &["main"])),
            ("filter", f("c.rs", 90, 90, &["apply"])),
            ("other", f("o.rs", 100, 100, &["main"])),
            ("slow", f("c.rs", 61, 61, &["apply"])),
        ]);
        let e = explain(&base, &new, 1);
        assert_eq!(e.delta(), 62);
        assert_eq!(e.movers.len(), 1);
        assert_eq!(e.movers[0].function, "slow");
        assert_eq!(
            e.movers[0].kind,
            Kind::Added {
                called_from: vec!["apply".into()]
            }
        );
        assert_eq!(e.movers[0].delta(), 61);
        assert_eq!(
            e.rest,
            Rest {
                base: 300,
                new: 301,
                functions: 4
            }
        );
        // apply's self did not move, its subtree did: the inclusive view says so.
        assert_eq!(e.inclusive.len(), 1);
        assert_eq!(e.inclusive[0].function, "apply");
        assert_eq!((e.inclusive[0].base, e.inclusive[0].new), (190, 251));
    }

    #[test]
    fn a_rename_is_one_line_with_no_net_change() {
        let base = profile(vec![
            ("main", f("m.rs", 10, 110, &[])),
            ("decode_varint", f("v.rs", 100, 100, &["main"])),
        ]);
        let new = profile(vec![
            ("main", f("m.rs", 10, 110, &[])),
            ("read_varint", f("v.rs", 100, 100, &["main"])),
        ]);
        let e = explain(&base, &new, 10);
        assert_eq!(e.movers.len(), 1);
        let m = &e.movers[0];
        assert_eq!(
            m.kind,
            Kind::Renamed {
                from: "decode_varint".into()
            }
        );
        assert_eq!((m.function.as_str(), m.delta()), ("read_varint", 0));
        assert_eq!(
            e.rest,
            Rest {
                base: 10,
                new: 10,
                functions: 1
            }
        );
    }

    #[test]
    fn an_inlined_function_is_shown_with_its_caller() {
        let base = profile(vec![
            ("main", f("m.rs", 10, 160, &[])),
            ("decode", f("d.rs", 50, 150, &["main"])),
            ("varint", f("v.rs", 100, 100, &["decode"])),
        ]);
        let new = profile(vec![
            ("main", f("m.rs", 10, 155, &[])),
            ("decode", f("d.rs", 145, 145, &["main"])),
        ]);
        let e = explain(&base, &new, 10);
        assert_eq!(e.movers.len(), 1, "{e:#?}");
        let m = &e.movers[0];
        assert_eq!(
            m.kind,
            Kind::Inlined {
                inlined: vec!["varint".into()]
            }
        );
        assert_eq!((m.base_self, m.new_self, m.delta()), (150, 145, -5));
        // And the other way round: no longer inlined.
        let back = explain(&new, &base, 10);
        assert_eq!(
            back.movers[0].kind,
            Kind::Outlined {
                outlined: vec!["varint".into()]
            }
        );
        assert_eq!(back.movers[0].delta(), 5);
    }

    #[test]
    fn a_real_removal_is_not_mistaken_for_inlining() {
        let base = profile(vec![
            ("main", f("m.rs", 10, 110, &[])),
            ("check", f("c.rs", 100, 100, &["main"])),
        ]);
        let new = profile(vec![("main", f("m.rs", 12, 12, &[]))]);
        let e = explain(&base, &new, 10);
        assert_eq!(e.movers[0].kind, Kind::Removed);
        assert_eq!(e.movers[0].delta(), -100);
    }

    #[test]
    fn reports_changes_of_inlined_code_by_file() {
        let mut a = f("frame.rs", 100, 100, &[]);
        a.inlined.insert("varint.rs".into(), 20);
        let mut b = f("frame.rs", 130, 130, &[]);
        b.inlined.insert("varint.rs".into(), 50);
        let e = explain(
            &profile(vec![("decode", a)]),
            &profile(vec![("decode", b)]),
            5,
        );
        assert_eq!(
            e.movers.len(),
            1,
            "the host's own code did not change: {e:#?}"
        );
        let m = &e.movers[0];
        assert_eq!(m.function, "varint.rs");
        assert_eq!(
            m.kind,
            Kind::InlinedInto {
                host: "decode".into()
            }
        );
        assert_eq!((m.base_self, m.new_self, m.delta()), (20, 50, 30));
        assert_eq!(
            e.rest,
            Rest {
                base: 80,
                new: 80,
                functions: 1
            }
        );
    }
}
