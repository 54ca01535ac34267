//! How this copy of Dossier was installed, which decides how it can update: an AppImage, a macOS
//! app or a Windows installer replaces itself; a `.deb` or `.rpm` belongs to the system's package
//! manager, so its update is handed to `dpkg`/`rpm` (which asks for an administrator's password);
//! a copy built from source must never overwrite itself (it would replace `target/debug/dossier`).

use serde::Serialize;
use tauri::utils::config::BundleType;
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(rename_all = "camelCase")]
pub enum InstallKind {
    AppImage,
    Deb,
    Rpm,
    MacApp,
    WindowsInstaller,
    /// `cargo run`, `scripts/run-app.sh`, `cargo build`: no installer put this binary here.
    Source,
}

impl InstallKind {
    /// This process: the bundler marks the binary it puts in each package with the package's
    /// type (`tauri::utils::platform::bundle_type`); an AppImage's runtime sets `APPIMAGE`, and
    /// that wins, because the binary inside an AppImage was also bundled for the `.deb`.
    pub fn of_this_process() -> Self {
        Self::from_markers(
            tauri::utils::platform::bundle_type(),
            std::env::var_os("APPIMAGE").is_some_and(|path| !path.is_empty()),
        )
    }

    pub fn from_markers(bundle: Option<BundleType>, appimage_variable: bool) -> Self {
        if appimage_variable {
            return Self::AppImage;
        }
        match bundle {
            Some(BundleType::AppImage) => Self::AppImage,
            Some(BundleType::Deb) => Self::Deb,
            Some(BundleType::Rpm) => Self::Rpm,
            Some(BundleType::App | BundleType::Dmg) => Self::MacApp,
            Some(BundleType::Msi | BundleType::Nsis) => Self::WindowsInstaller,
            // Updater-only bundle kinds never run as an app; treat anything unknown as unbundled.
            _ => Self::Source,
        }
    }

    /// Whether the updater may install over this copy at all.
    pub fn can_install_updates(self) -> bool {
        self != Self::Source
    }

    /// The system package manager owns the files: installing goes through it, with a password.
    pub fn belongs_to_package_manager(self) -> bool {
        matches!(self, Self::Deb | Self::Rpm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bundle_marker_names_its_install_kind() {
        let table = [
            (None, false, InstallKind::Source),
            (Some(BundleType::Deb), false, InstallKind::Deb),
            (Some(BundleType::Rpm), false, InstallKind::Rpm),
            (Some(BundleType::AppImage), false, InstallKind::AppImage),
            (Some(BundleType::App), false, InstallKind::MacApp),
            (Some(BundleType::Dmg), false, InstallKind::MacApp),
            (Some(BundleType::Nsis), false, InstallKind::WindowsInstaller),
            (Some(BundleType::Msi), false, InstallKind::WindowsInstaller),
            // The AppImage's runtime variable wins over the marker of the binary inside it.
            (Some(BundleType::Deb), true, InstallKind::AppImage),
            (None, true, InstallKind::AppImage),
        ];
        for (bundle, appimage, expected) in table {
            assert_eq!(
                InstallKind::from_markers(bundle.clone(), appimage),
                expected,
                "{bundle:?} with APPIMAGE={appimage}"
            );
        }
    }

    #[test]
    fn only_packaged_copies_install_and_only_deb_and_rpm_go_through_the_package_manager() {
        assert!(!InstallKind::Source.can_install_updates());
        assert!(InstallKind::AppImage.can_install_updates());
        assert!(InstallKind::Deb.belongs_to_package_manager());
        assert!(InstallKind::Rpm.belongs_to_package_manager());
        assert!(!InstallKind::AppImage.belongs_to_package_manager());
        assert_eq!(
            serde_json::to_value(InstallKind::WindowsInstaller).expect("serialises"),
            "windowsInstaller"
        );
    }

    #[test]
    fn a_test_binary_is_not_an_installed_copy() {
        // cargo test builds an unbundled binary: the marker is absent.
        if std::env::var_os("APPIMAGE").is_none() {
            assert_eq!(InstallKind::of_this_process(), InstallKind::Source);
        }
    }
}
