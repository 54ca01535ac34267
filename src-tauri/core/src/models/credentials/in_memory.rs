//! Keys in a map, for tests and for builds that must not touch the person's keychain. An
//! `unavailable` store behaves like a computer without a keychain.

use super::{CredentialError, CredentialStore};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct InMemoryCredentials {
    keys: Mutex<HashMap<String, String>>,
    /// When set, every call fails with this reason, as a missing keychain does.
    unavailable: Option<String>,
}

impl InMemoryCredentials {
    pub fn unavailable(reason: &str) -> Self {
        Self {
            keys: Mutex::default(),
            unavailable: Some(reason.to_string()),
        }
    }

    fn keys(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, String>>, CredentialError> {
        if let Some(reason) = &self.unavailable {
            return Err(CredentialError::Unavailable {
                reason: reason.clone(),
            });
        }
        // A panic while holding the lock cannot leave the map half-written: every change is
        // one insert or remove.
        Ok(self
            .keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl CredentialStore for InMemoryCredentials {
    fn read(&self, provider_id: &str) -> Result<Option<String>, CredentialError> {
        Ok(self.keys()?.get(provider_id).cloned())
    }

    fn store(&self, provider_id: &str, key: &str) -> Result<(), CredentialError> {
        self.keys()?
            .insert(provider_id.to_string(), key.to_string());
        Ok(())
    }

    fn remove(&self, provider_id: &str) -> Result<bool, CredentialError> {
        Ok(self.keys()?.remove(provider_id).is_some())
    }
}
