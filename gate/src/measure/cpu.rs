//! The CPU as the benchmarks see it.
//!
//! valgrind answers `cpuid` itself: a program under valgrind sees the CPU valgrind presents (on
//! x86-64 hosts with AVX2, a Haswell i7-4910MQ), not the host's. glibc's string functions and the
//! crates that detect features at run time (aes, libdeflate, memchr) choose their code paths by
//! that CPU, so it is the one a fingerprint must compare. It is read by running glibc's loader
//! under valgrind (`ld.so --list-diagnostics`). The host's CPU is recorded for information only.

use std::process::Command;

use crate::model::UNKNOWN;

/// A CPU's identity and the flags that change which code runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// Vendor, family, model, stepping and x86-64 level, e.g.
    /// `GenuineIntel family 0x6 model 0x3c stepping 0x3, x86-64-v3`.
    pub identity: String,
    /// The code-path flags it has, sorted, with /proc/cpuinfo's names.
    pub flags: Vec<String>,
}

/// x86 `cpuid` bits that change which code runs: (name, glibc's cpuid index (0: leaf 1,
/// 1: leaf 7), register (0 eax, 1 ebx, 2 ecx, 3 edx), bit).
const X86_FLAGS: &[(&str, usize, usize, u32)] = &[
    ("pclmulqdq", 0, 2, 1),
    ("ssse3", 0, 2, 9),
    ("fma", 0, 2, 12),
    ("sse4_1", 0, 2, 19),
    ("sse4_2", 0, 2, 20),
    ("movbe", 0, 2, 22),
    ("popcnt", 0, 2, 23),
    ("aes", 0, 2, 25),
    ("avx", 0, 2, 28),
    ("bmi1", 1, 1, 3),
    ("avx2", 1, 1, 5),
    ("bmi2", 1, 1, 8),
    ("erms", 1, 1, 9),
    ("avx512f", 1, 1, 16),
    ("adx", 1, 1, 19),
    ("sha_ni", 1, 1, 29),
    ("avx512bw", 1, 1, 30),
    ("avx512vl", 1, 1, 31),
    ("gfni", 1, 2, 8),
    ("vaes", 1, 2, 9),
    ("vpclmulqdq", 1, 2, 10),
    ("fsrm", 1, 3, 4),
];

/// Flags /proc/cpuinfo names on the host that change which code runs (x86, then arm64).
const HOST_FLAGS: &[&str] = &[
    "adx",
    "aes",
    "avx",
    "avx2",
    "avx512bw",
    "avx512f",
    "avx512vl",
    "bmi1",
    "bmi2",
    "erms",
    "fma",
    "fsrm",
    "gfni",
    "movbe",
    "pclmulqdq",
    "popcnt",
    "sha_ni",
    "sse4_1",
    "sse4_2",
    "ssse3",
    "vaes",
    "vpclmulqdq",
    "asimd",
    "atomics",
    "crc32",
    "pmull",
    "sha1",
    "sha2",
    "sve",
];

/// The CPU the benchmarks see: valgrind's when glibc's loader runs under it, else (another
/// architecture, no valgrind) the host's, marked `host` so it never matches a valgrind one.
pub fn benchmarked() -> Cpu {
    under_valgrind().unwrap_or_else(|| {
        let host = host();
        Cpu {
            identity: format!("host {}", host.identity),
            flags: host.flags,
        }
    })
}

/// The host's CPU, from /proc/cpuinfo.
pub fn host() -> Cpu {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    from_cpuinfo(&cpuinfo)
}

/// The CPU programs under valgrind see, or `None` where valgrind or the loader cannot tell.
fn under_valgrind() -> Option<Cpu> {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return None;
    }
    let output = Command::new("valgrind")
        .args([
            "-q",
            "--tool=none",
            "/lib64/ld-linux-x86-64.so.2",
            "--list-diagnostics",
        ])
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    from_diagnostics(&String::from_utf8_lossy(&output.stdout))
}

/// Reads the x86 `cpu_features` lines of `ld.so --list-diagnostics`.
fn from_diagnostics(diagnostics: &str) -> Option<Cpu> {
    let value = |key: &str| {
        diagnostics.lines().find_map(|line| {
            line.strip_prefix("x86.cpu_features.")?
                .strip_prefix(key)?
                .strip_prefix('=')
        })
    };
    let hex = |key: &str| u32::from_str_radix(value(key)?.trim_start_matches("0x"), 16).ok();
    let vendor = match value("basic.kind")? {
        "0x1" => "GenuineIntel",
        "0x2" => "AuthenticAMD",
        "0x3" => "CentaurHauls/Zhaoxin",
        _ => "other",
    };
    // glibc's ISA level bits: baseline, v2, v3, v4.
    let isa = hex("isa_1")?;
    let level = match isa {
        _ if isa & 0x8 != 0 => "x86-64-v4",
        _ if isa & 0x4 != 0 => "x86-64-v3",
        _ if isa & 0x2 != 0 => "x86-64-v2",
        _ => "x86-64",
    };
    let identity = format!(
        "{vendor} family {} model {} stepping {}, {level}",
        value("basic.family")?,
        value("basic.model")?,
        value("basic.stepping")?
    );
    let mut flags = Vec::new();
    for &(name, index, register, bit) in X86_FLAGS {
        let word = hex(&format!("features[{index:#x}].cpuid[{register:#x}]"))?;
        if word & (1 << bit) != 0 {
            flags.push(name.to_owned());
        }
    }
    flags.sort();
    Some(Cpu { identity, flags })
}

/// Reads vendor, model name and code-path flags from /proc/cpuinfo.
fn from_cpuinfo(cpuinfo: &str) -> Cpu {
    let value = |keys: &[&str]| {
        keys.iter().find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                (name.trim() == *key).then(|| value.trim().to_owned())
            })
        })
    };
    let vendor = value(&["vendor_id", "CPU implementer"]).unwrap_or_else(|| UNKNOWN.to_owned());
    let model = value(&["model name", "CPU part"]).unwrap_or_else(|| UNKNOWN.to_owned());
    let mut flags: Vec<String> = value(&["flags", "Features"])
        .unwrap_or_default()
        .split_whitespace()
        .filter(|flag| HOST_FLAGS.contains(flag))
        .map(str::to_owned)
        .collect();
    flags.sort();
    flags.dedup();
    Cpu {
        identity: format!("{vendor} {model}"),
        flags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What glibc 2.36's loader printed under valgrind 3.19 on an AMD EPYC host (excerpt).
    const DIAGNOSTICS: &str = "\
x86.cpu_features.basic.kind=0x1
x86.cpu_features.basic.max_cpuid=0xd
x86.cpu_features.basic.family=0x6
x86.cpu_features.basic.model=0x3c
x86.cpu_features.basic.stepping=0x3
x86.cpu_features.features[0x0].cpuid[0x0]=0x306c3
x86.cpu_features.features[0x0].cpuid[0x1]=0x2100800
x86.cpu_features.features[0x0].cpuid[0x2]=0x7ffafbff
x86.cpu_features.features[0x0].cpuid[0x3]=0xbfebfbff
x86.cpu_features.features[0x1].cpuid[0x0]=0x0
x86.cpu_features.features[0x1].cpuid[0x1]=0x427aa
x86.cpu_features.features[0x1].cpuid[0x2]=0x0
x86.cpu_features.features[0x1].cpuid[0x3]=0x0
x86.cpu_features.isa_1=0x7
";

    #[test]
    fn reads_the_cpu_valgrind_presents() {
        let cpu = from_diagnostics(DIAGNOSTICS).unwrap();
        assert_eq!(
            cpu.identity,
            "GenuineIntel family 0x6 model 0x3c stepping 0x3, x86-64-v3"
        );
        assert_eq!(
            cpu.flags,
            [
                "aes",
                "avx",
                "avx2",
                "bmi1",
                "bmi2",
                "erms",
                "fma",
                "movbe",
                "pclmulqdq",
                "popcnt",
                "sse4_1",
                "sse4_2",
                "ssse3"
            ]
        );
    }

    #[test]
    fn truncated_diagnostics_are_not_a_cpu() {
        let truncated: String = DIAGNOSTICS.lines().take(8).collect::<Vec<_>>().join("\n");
        assert_eq!(from_diagnostics(&truncated), None);
        let amd_v4 = DIAGNOSTICS
            .replace("kind=0x1", "kind=0x2")
            .replace("isa_1=0x7", "isa_1=0xf");
        let identity = from_diagnostics(&amd_v4).unwrap().identity;
        assert!(identity.starts_with("AuthenticAMD family"), "{identity}");
        assert!(identity.ends_with("x86-64-v4"), "{identity}");
        assert_eq!(from_diagnostics(""), None);
    }

    #[test]
    fn reads_the_host_cpu_from_cpuinfo() {
        let cpuinfo = "vendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\n\
                       flags\t\t: fpu sse4_2 avx2 foo erms avx2\n";
        let cpu = from_cpuinfo(cpuinfo);
        assert_eq!(cpu.identity, "AuthenticAMD AMD EPYC");
        assert_eq!(cpu.flags, ["avx2", "erms", "sse4_2"]);
        assert_eq!(from_cpuinfo("").identity, "unknown unknown");
    }
}
