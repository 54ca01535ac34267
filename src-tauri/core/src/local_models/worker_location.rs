//! Which worker binary to start, and where it is. The installers for x86-64 carry two builds of
//! the worker: the default one, whose llama.cpp uses AVX2, FMA, F16C and BMI2 (x86-64-v3, every
//! Intel processor since 2013 and AMD since 2015), and a baseline one without them, several times
//! slower but able to run on any x86-64 processor (`scripts/build-local-model-worker.sh`). The
//! processor is asked here, before any worker starts, so an older computer gets the build it can
//! run instead of a refusal. Elsewhere (Arm, or a build that carries only the default worker) the
//! default worker is the only choice, and it refuses an unfit processor in plain words itself.

use super::local_engine_error::LocalEngineError;
use std::path::{Path, PathBuf};

/// The worker binary's name; Tauri's external binaries sit beside the app under this name.
pub const WORKER_NAME: &str = "dossier-local-model-worker";
/// The baseline build's name beside it, for x86-64 processors without AVX2, FMA, F16C or BMI2.
pub const BASELINE_WORKER_NAME: &str = "dossier-local-model-worker-baseline";
/// Overrides where the worker binary is looked for (tests, unusual installs).
pub const WORKER_ENV: &str = "DOSSIER_LOCAL_MODEL_WORKER";

/// Where the worker is: `explicit`, else `DOSSIER_LOCAL_MODEL_WORKER`, else beside the current
/// executable (or one folder up, where Cargo puts binaries next to test executables in `deps/`),
/// the build this processor can run first.
pub fn find_worker(explicit: Option<&Path>) -> Result<PathBuf, LocalEngineError> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os(WORKER_ENV).filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let executable = std::env::current_exe().map_err(|error| LocalEngineError::WorkerMissing {
        looked_for: format!("{WORKER_NAME} ({error})"),
    })?;
    let folders: Vec<&Path> = executable
        .parent()
        .into_iter()
        .chain(executable.parent().and_then(Path::parent))
        .collect();
    find_in(&folders, &worker_names(processor_runs_the_default_build()))
}

/// The names to look for, the preferred first: on a processor that cannot run the default build,
/// the baseline one; the default one after it either way, so that a build without the baseline
/// still finds a worker, which then says in words what the processor lacks.
pub fn worker_names(runs_the_default_build: bool) -> Vec<String> {
    let suffix = std::env::consts::EXE_SUFFIX;
    let mut names = Vec::new();
    if !runs_the_default_build {
        names.push(format!("{BASELINE_WORKER_NAME}{suffix}"));
    }
    names.push(format!("{WORKER_NAME}{suffix}"));
    names
}

/// The first of `names` found in the first folder that has one of them, each folder asked in
/// turn; `WorkerMissing` lists every place looked at.
pub fn find_in(folders: &[&Path], names: &[String]) -> Result<PathBuf, LocalEngineError> {
    let candidates: Vec<PathBuf> = folders
        .iter()
        .flat_map(|folder| names.iter().map(|name| folder.join(name)))
        .collect();
    candidates
        .iter()
        .find(|candidate| candidate.is_file())
        .cloned()
        .ok_or_else(|| LocalEngineError::WorkerMissing {
            looked_for: candidates
                .iter()
                .map(|candidate| candidate.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Whether this processor has every instruction set the default worker's llama.cpp is built with
/// (`.cargo/config.toml`; the worker's own `cpu_support` checks the same list from its side).
pub fn processor_runs_the_default_build() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sse4.2")
            && std::arch::is_x86_feature_detected!("avx")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("f16c")
            && std::arch::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        true
    }
}

#[cfg(test)]
mod tests;
