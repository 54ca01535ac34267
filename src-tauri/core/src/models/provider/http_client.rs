//! The HTTP client the providers use, and the TLS set-up every reqwest client in the process
//! needs first.
//!
//! The core, rmcp and the desktop app's updater share one reqwest built with
//! `rustls-no-provider`: one rustls, with ring as its only crypto provider (no aws-lc-rs and its
//! C build), and the system's certificates through rustls-platform-verifier instead of a bundled
//! copy of Mozilla's roots. The price is that reqwest then has no provider of its own: building a
//! client — even one that only ever speaks plain HTTP to a local model — panics ("No provider
//! set") unless the process has a default provider, so every place that builds a client calls
//! `install_tls_crypto_provider` first.

/// A client for the model providers, with ring installed as the process's TLS provider.
pub fn http_client() -> reqwest::Client {
    install_tls_crypto_provider();
    reqwest::Client::new()
}

/// Makes ring the process-wide rustls provider. Installing fails harmlessly when a provider is
/// already set (by an earlier call, the updater or a test), which is the case we want anyway.
pub fn install_tls_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
