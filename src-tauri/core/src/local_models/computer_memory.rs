//! How much memory this computer has: for the library's recommendation, for refusing a model
//! that cannot fit before loading it, and for capping its context. Read from the system's own
//! report (no `unsafe`, no extra crate): `/proc/meminfo` on Linux, `sysctl hw.memsize` on macOS,
//! the CIM computer system on Windows. `None` where the system does not say; then nothing is
//! refused.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputerMemory {
    pub total_bytes: u64,
    /// Free now, counting the caches the system gives back on demand.
    pub available_bytes: u64,
}

#[cfg(target_os = "linux")]
pub fn computer_memory() -> Option<ComputerMemory> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&meminfo)
}

#[cfg(target_os = "macos")]
pub fn computer_memory() -> Option<ComputerMemory> {
    let output = std::process::Command::new("sysctl")
        .args(["-n", "hw.memsize"])
        .output()
        .ok()?;
    let total_bytes: u64 = String::from_utf8(output.stdout).ok()?.trim().parse().ok()?;
    // macOS compresses and swaps freely; half the memory is a fair "available" without vm_stat.
    Some(ComputerMemory {
        total_bytes,
        available_bytes: total_bytes / 2,
    })
}

#[cfg(target_os = "windows")]
pub fn computer_memory() -> Option<ComputerMemory> {
    let output = std::process::Command::new("powershell")
        .args([
            "-NoProfile",
            "-Command",
            "(Get-CimInstance Win32_ComputerSystem).TotalPhysicalMemory",
        ])
        .output()
        .ok()?;
    let total_bytes: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .ok()?;
    // As on macOS: half the memory, without a second query for what is free right now.
    Some(ComputerMemory {
        total_bytes,
        available_bytes: total_bytes / 2,
    })
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
pub fn computer_memory() -> Option<ComputerMemory> {
    None
}

/// `MemTotal` and `MemAvailable` from `/proc/meminfo` (in KiB there).
pub fn parse_meminfo(text: &str) -> Option<ComputerMemory> {
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map(|kib| kib * 1024)
    };
    let total_bytes = field("MemTotal")?;
    let available_bytes = field("MemAvailable").unwrap_or(total_bytes / 2);
    Some(ComputerMemory {
        total_bytes,
        available_bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:         7000000 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(
            parse_meminfo(text),
            Some(ComputerMemory {
                total_bytes: 24_000_000 * 1024,
                available_bytes: 22_000_000 * 1024
            })
        );
        assert_eq!(parse_meminfo("nothing"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_computer_has_some_memory() {
        assert!(computer_memory().is_some_and(|memory| memory.total_bytes > 100 * 1024 * 1024));
    }
}
