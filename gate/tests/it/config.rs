//! gate.toml as `irgate check` reads it: typos are refused with line and column.

use crate::harness::{Sandbox, assert_error};

#[test]
fn a_budget_file_with_a_typo_is_refused_with_line_and_column() {
    let cases = [
        (
            "[budgets]\nIr = { relative_pct = 1.0, absolut = 50 }\n",
            "gate.toml:2:",
            "unknown field `absolut`",
        ),
        (
            "[budget]\nIr = { relative_pct = 1.0 }\n",
            "gate.toml:1:",
            "unknown field `budget`",
        ),
        (
            "[budgets]\nir = { relative_pct = 1.0 }\n",
            "gate.toml:2:1",
            "unknown metric `ir`",
        ),
        (
            "[[overrides]]\nbenchmarks = [\"fitler::*\"]\nbudgets.Ir = { absolute = 5 }\n",
            "gate.toml:2: `fitler::*`",
            "override or accept pattern matches no benchmark",
        ),
    ];
    let long_reason = format!(
        "[[accept]]\nbenchmarks = [\"filter::*\"]\nuntil = \"2099-01-01\"\nreason = \"{}\"\n",
        "x".repeat(1_001)
    );
    let cases = cases.into_iter().chain([(
        long_reason.as_str(),
        "gate.toml:4:10",
        "the reason of an [[accept]] entry is 1001 characters long, over the 1000",
    )]);
    for (toml, origin, message) in cases {
        let sandbox = Sandbox::new();
        sandbox.baselines();
        sandbox.write("gate.toml", toml);
        let run = sandbox.check("base.json", &[]);
        assert_error(&run, &[origin, message]);
    }
}
