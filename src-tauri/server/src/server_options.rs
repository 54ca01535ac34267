//! How the server is started: the command line (the same `--hostname` / `--port` flags as
//! `opencode serve`), the password from `DOSSIER_SERVER_PASSWORD`, and the rule that only a
//! loopback address may be served without one.

use crate::error::ServerError;
use std::net::IpAddr;
use std::time::Duration;

pub const DEFAULT_HOSTNAME: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 4096;
pub const PASSWORD_VARIABLE: &str = "DOSSIER_SERVER_PASSWORD";
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);
/// Prompts carry attachments as `data:` URLs; OpenCode accepts large bodies, so do we.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    pub hostname: String,
    pub port: u16,
    /// When set, every request needs HTTP Basic (user `dossier`) or `Bearer <password>`.
    pub password: Option<String>,
    /// How often `GET /event` sends `server.heartbeat`; tests shorten it.
    pub heartbeat: Duration,
    /// The largest request body accepted, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// The built web UI served at `/` (`--ui <folder>`); none means API only.
    pub ui_directory: Option<std::path::PathBuf>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            hostname: DEFAULT_HOSTNAME.into(),
            port: DEFAULT_PORT,
            password: None,
            heartbeat: HEARTBEAT_INTERVAL,
            body_limit: BODY_LIMIT,
            ui_directory: None,
        }
    }
}

impl ServerOptions {
    /// Reads the flags (without the program name) and the password variable's value.
    pub fn from_arguments(
        arguments: impl IntoIterator<Item = String>,
        password: Option<String>,
    ) -> Result<Self, ServerError> {
        let mut options = Self {
            password: password.filter(|password| !password.is_empty()),
            ..Self::default()
        };
        let mut arguments = arguments.into_iter();
        while let Some(argument) = arguments.next() {
            let (flag, inline_value) = match argument.split_once('=') {
                Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
                None => (argument.clone(), None),
            };
            let mut value = |name: &str| {
                inline_value
                    .clone()
                    .or_else(|| arguments.next())
                    .ok_or_else(|| ServerError::BadArgument(format!("{name} needs a value")))
            };
            match flag.as_str() {
                "--hostname" => options.hostname = value("--hostname")?,
                "--port" => {
                    let text = value("--port")?;
                    options.port = text.parse().map_err(|_| {
                        ServerError::BadArgument(format!(
                            "--port must be a number from 0 to 65535, not \"{text}\""
                        ))
                    })?;
                }
                "--ui" => options.ui_directory = Some(value("--ui")?.into()),
                "--help" | "-h" => return Err(ServerError::HelpRequested),
                other => {
                    return Err(ServerError::BadArgument(format!(
                        "unknown argument \"{other}\""
                    )))
                }
            }
        }
        options.check_exposure()?;
        Ok(options)
    }

    /// Only loopback may be served without a password.
    pub fn check_exposure(&self) -> Result<(), ServerError> {
        if self.password.is_none() && !is_loopback(&self.hostname) {
            return Err(ServerError::PasswordRequired {
                hostname: self.hostname.clone(),
            });
        }
        Ok(())
    }
}

pub fn is_loopback(hostname: &str) -> bool {
    let bare = hostname.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    fn parse(arguments: &[&str], password: Option<&str>) -> Result<ServerOptions, ServerError> {
        ServerOptions::from_arguments(
            arguments.iter().map(|argument| argument.to_string()),
            password.map(str::to_string),
        )
    }

    #[test]
    fn defaults_to_loopback_on_4096() {
        let options = parse(&[], None).unwrap();
        assert_eq!(options.hostname, "127.0.0.1");
        assert_eq!(options.port, 4096);
        assert_eq!(options.password, None);
        assert_eq!(options.heartbeat, Duration::from_secs(10));
    }

    #[test]
    fn reads_flags_with_spaces_or_equals() {
        let options = parse(&["--hostname", "::1", "--port=0"], None).unwrap();
        assert_eq!(options.hostname, "::1");
        assert_eq!(options.port, 0);
    }

    #[test]
    fn loopback_names_are_recognised() {
        for (hostname, loopback) in [
            ("127.0.0.1", true),
            ("127.1.2.3", true),
            ("localhost", true),
            ("::1", true),
            ("[::1]", true),
            ("0.0.0.0", false),
            ("192.168.1.4", false),
            ("example.org", false),
        ] {
            assert_eq!(is_loopback(hostname), loopback, "{hostname}");
        }
    }

    #[test]
    fn non_loopback_hostname_without_password_is_refused() {
        let error = parse(&["--hostname", "0.0.0.0"], None).unwrap_err();
        assert!(
            matches!(&error, ServerError::PasswordRequired { hostname } if hostname == "0.0.0.0"),
            "{error}"
        );
        assert!(error.to_string().contains(PASSWORD_VARIABLE));
    }

    #[test]
    fn non_loopback_hostname_with_password_is_accepted() {
        let options = parse(&["--hostname", "0.0.0.0"], Some("secret")).unwrap();
        assert_eq!(options.password.as_deref(), Some("secret"));
    }

    #[test]
    fn empty_password_counts_as_none() {
        assert!(parse(&["--hostname", "0.0.0.0"], Some("")).is_err());
    }

    #[test]
    fn bad_port_and_unknown_flag_say_what_is_wrong() {
        let error = parse(&["--port", "http"], None).unwrap_err();
        assert!(error.to_string().contains("\"http\""), "{error}");
        let error = parse(&["--verbose"], None).unwrap_err();
        assert!(error.to_string().contains("--verbose"), "{error}");
        let error = parse(&["--port"], None).unwrap_err();
        assert!(error.to_string().contains("needs a value"), "{error}");
    }
}
