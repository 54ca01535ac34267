//! What the processor offers, checked before llama.cpp runs a single instruction.
//!
//! ggml is built for x86-64-v3 by default (AVX2, FMA, F16C, BMI2; see `.cargo/config.toml`),
//! because the sys crate builds it with `GGML_NATIVE=OFF` and would otherwise run at baseline
//! SSE2, several times slower. The installers for x86-64 also carry a baseline build (the same
//! worker with those `GGML_*` switched off, `scripts/build-local-model-worker.sh`) that the app
//! starts instead on an older processor (`local_models::worker_location::find_worker`). Each build
//! knows what it was built with from the same variables, read at compile time, and refuses up
//! front on a processor that lacks one of them — with a sentence a person can act on, instead of
//! dying on an illegal instruction.

/// The x86-64 instruction sets ggml can be built for, with the variable that switches each on
/// (`.cargo/config.toml`'s `[env]`, which a variable already set in the environment overrides).
#[cfg(target_arch = "x86_64")]
const X86_SETS: [(&str, Option<&str>); 6] = [
    ("sse4.2", option_env!("GGML_SSE42")),
    ("avx", option_env!("GGML_AVX")),
    ("avx2", option_env!("GGML_AVX2")),
    ("fma", option_env!("GGML_FMA")),
    ("f16c", option_env!("GGML_F16C")),
    ("bmi2", option_env!("GGML_BMI2")),
];

/// The vector instruction sets the built engine uses, for the `ready` event and the docs.
pub fn built_with() -> Vec<&'static str> {
    let mut sets = Vec::new();
    #[cfg(target_arch = "x86_64")]
    sets.extend(
        X86_SETS
            .iter()
            .filter(|(_, switch)| switched_on(*switch))
            .map(|(name, _)| *name),
    );
    if cfg!(target_arch = "aarch64") {
        sets.push("neon");
    }
    sets
}

/// Whether a `GGML_*` variable, as CMake reads it, turned its instruction set on.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn switched_on(switch: Option<&str>) -> bool {
    matches!(
        switch.map(str::to_ascii_uppercase).as_deref(),
        Some("ON" | "1" | "TRUE" | "YES")
    )
}

/// `Err` names what is missing when this processor cannot run the built engine.
pub fn check() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    {
        let missing: Vec<&str> = built_with()
            .into_iter()
            .filter(|name| !x86_feature_present(name))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "This computer's processor lacks {} (found in processors since about 2013), which this build of the local model engine needs.",
                missing.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(target_arch = "x86_64")]
fn x86_feature_present(name: &str) -> bool {
    match name {
        "sse4.2" => std::arch::is_x86_feature_detected!("sse4.2"),
        "avx" => std::arch::is_x86_feature_detected!("avx"),
        "avx2" => std::arch::is_x86_feature_detected!("avx2"),
        "fma" => std::arch::is_x86_feature_detected!("fma"),
        "f16c" => std::arch::is_x86_feature_detected!("f16c"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        _ => false,
    }
}

/// Physical cores, not hardware threads: llama.cpp's generation is bound by memory bandwidth and
/// a second thread on the same core only adds contention.
pub fn physical_cores() -> u32 {
    let logical = std::thread::available_parallelism().map_or(1, |count| count.get() as u32);
    physical_cores_from_system()
        .filter(|&cores| cores > 0 && cores <= logical)
        .unwrap_or(logical)
}

#[cfg(target_os = "linux")]
fn physical_cores_from_system() -> Option<u32> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let mut cores = std::collections::HashSet::new();
    let mut physical_id = String::new();
    for line in cpuinfo.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "physical id" => physical_id = value.trim().to_owned(),
            "core id" => {
                cores.insert((physical_id.clone(), value.trim().to_owned()));
            }
            _ => {}
        }
    }
    u32::try_from(cores.len()).ok()
}

#[cfg(target_os = "macos")]
fn physical_cores_from_system() -> Option<u32> {
    let output = std::process::Command::new("sysctl")
        .args(["-n", "hw.physicalcpu"])
        .output()
        .ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn physical_cores_from_system() -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_counts_only_when_cmake_would_read_it_as_on() {
        assert!(switched_on(Some("ON")));
        assert!(switched_on(Some("on")));
        assert!(switched_on(Some("1")));
        assert!(!switched_on(Some("OFF")));
        assert!(!switched_on(Some("0")));
        assert!(!switched_on(None));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_build_reports_the_sets_its_variables_switched_on() {
        // The workspace's default (`.cargo/config.toml`) is x86-64-v3; the baseline build sets
        // the same variables to OFF in its environment.
        let built = built_with();
        if switched_on(option_env!("GGML_AVX2")) {
            assert_eq!(built, ["sse4.2", "avx", "avx2", "fma", "f16c", "bmi2"]);
        } else {
            assert!(!built.contains(&"avx2"), "{built:?}");
        }
    }
}
