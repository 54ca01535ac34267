//! The computer's total memory, for the library's recommendation. Read from the system's own
//! report (no `unsafe`, no extra crate): `/proc/meminfo` on Linux, `sysctl hw.memsize` on
//! macOS, the CIM computer system on Windows. `None` where it cannot be read.

/// Total physical memory in bytes.
pub fn total_memory() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        meminfo_total(&text)
    }
    #[cfg(target_os = "macos")]
    {
        command_number("sysctl", &["-n", "hw.memsize"])
    }
    #[cfg(target_os = "windows")]
    {
        command_number(
            "powershell",
            &[
                "-NoProfile",
                "-Command",
                "(Get-CimInstance Win32_ComputerSystem).TotalPhysicalMemory",
            ],
        )
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
    {
        None
    }
}

#[cfg(any(target_os = "macos", target_os = "windows"))]
fn command_number(program: &str, arguments: &[&str]) -> Option<u64> {
    let output = std::process::Command::new(program)
        .args(arguments)
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout).trim().parse().ok()
}

/// `MemTotal:  16318480 kB` → bytes.
pub fn meminfo_total(text: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kilobytes.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_total_reads_kilobytes_as_bytes() {
        let text = "MemTotal:       16318480 kB\nMemFree:         1234 kB\n";
        assert_eq!(meminfo_total(text), Some(16_318_480 * 1024));
        assert_eq!(meminfo_total("MemFree: 3 kB\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_computer_has_some_memory() {
        assert!(total_memory().is_some_and(|bytes| bytes > 100 * 1024 * 1024));
    }
}
