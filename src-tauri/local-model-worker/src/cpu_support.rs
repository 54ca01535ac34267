//! What the processor offers, checked before llama.cpp runs a single instruction.
//!
//! ggml is built for x86-64-v3 here (AVX2, FMA, F16C; see `.cargo/config.toml`), because the sys
//! crate builds it with `GGML_NATIVE=OFF` and would otherwise run at baseline SSE2, several times
//! slower. On a processor without those instructions ggml would die on an illegal instruction, so
//! the worker refuses up front with a sentence a person can act on.

/// The vector instruction sets the built engine uses, for the `ready` event and the docs.
pub fn built_with() -> Vec<&'static str> {
    let mut sets = Vec::new();
    if cfg!(target_arch = "x86_64") {
        sets.extend(["sse4.2", "avx", "avx2", "fma", "f16c", "bmi2"]);
    }
    if cfg!(target_arch = "aarch64") {
        sets.push("neon");
    }
    sets
}

/// `Err` names what is missing when this processor cannot run the built engine.
pub fn check() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    {
        let missing: Vec<&str> = [
            ("avx", std::arch::is_x86_feature_detected!("avx")),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("f16c", std::arch::is_x86_feature_detected!("f16c")),
            ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
        ]
        .into_iter()
        .filter(|(_, present)| !present)
        .map(|(name, _)| name)
        .collect();
        if !missing.is_empty() {
            return Err(format!(
                "This computer's processor lacks {} (found in processors since about 2013), which the local model engine needs.",
                missing.join(", ")
            ));
        }
    }
    Ok(())
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
