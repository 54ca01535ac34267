//! The keychain's answers remembered for the life of the process. Every reply step asks for its
//! provider's key; on Linux each keychain read is a D-Bus round trip to the Secret Service (and
//! may wake an unlock prompt), which does not belong on that path. Writes go through the same
//! store, so what is remembered follows every change made by this process. Failures are not
//! remembered: a keychain that was locked may be unlocked a minute later.

use super::{CredentialError, CredentialStore};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

pub struct RememberedCredentials<Store> {
    store: Store,
    /// Provider id → its key, or `None` when the keychain said it has none.
    answers: Mutex<HashMap<String, Option<String>>>,
}

impl<Store: CredentialStore> RememberedCredentials<Store> {
    pub fn new(store: Store) -> Self {
        Self {
            store,
            answers: Mutex::default(),
        }
    }

    fn answers(&self) -> MutexGuard<'_, HashMap<String, Option<String>>> {
        // Every change is one insert or remove: a panic elsewhere cannot leave it half-written.
        self.answers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<Store: CredentialStore> CredentialStore for RememberedCredentials<Store> {
    fn read(&self, provider_id: &str) -> Result<Option<String>, CredentialError> {
        if let Some(answer) = self.answers().get(provider_id) {
            return Ok(answer.clone());
        }
        let answer = self.store.read(provider_id)?;
        self.answers()
            .insert(provider_id.to_string(), answer.clone());
        Ok(answer)
    }

    fn store(&self, provider_id: &str, key: &str) -> Result<(), CredentialError> {
        // Forgotten first: if the write fails half-way, the next read asks the keychain.
        self.answers().remove(provider_id);
        self.store.store(provider_id, key)?;
        self.answers()
            .insert(provider_id.to_string(), Some(key.to_string()));
        Ok(())
    }

    fn remove(&self, provider_id: &str) -> Result<bool, CredentialError> {
        self.answers().remove(provider_id);
        let removed = self.store.remove(provider_id)?;
        self.answers().insert(provider_id.to_string(), None);
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::credentials::InMemoryCredentials;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// An in-memory keychain that counts reads and can be switched off.
    #[derive(Default)]
    struct Counting {
        inner: InMemoryCredentials,
        reads: Arc<AtomicUsize>,
        locked: Arc<std::sync::atomic::AtomicBool>,
    }

    impl CredentialStore for Counting {
        fn read(&self, provider_id: &str) -> Result<Option<String>, CredentialError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            if self.locked.load(Ordering::SeqCst) {
                return Err(CredentialError::Unavailable {
                    reason: "the keychain is locked".into(),
                });
            }
            self.inner.read(provider_id)
        }
        fn store(&self, provider_id: &str, key: &str) -> Result<(), CredentialError> {
            self.inner.store(provider_id, key)
        }
        fn remove(&self, provider_id: &str) -> Result<bool, CredentialError> {
            self.inner.remove(provider_id)
        }
    }

    #[test]
    fn a_key_is_read_from_the_keychain_once_and_follows_every_change() {
        let keychain = Counting::default();
        let reads = keychain.reads.clone();
        keychain.inner.store("openai", "sk-first").expect("store");
        let remembered = RememberedCredentials::new(keychain);

        for _ in 0..3 {
            assert_eq!(
                remembered.read("openai").expect("read").as_deref(),
                Some("sk-first")
            );
        }
        assert_eq!(reads.load(Ordering::SeqCst), 1);

        remembered.store("openai", "sk-second").expect("store");
        assert_eq!(
            remembered.read("openai").expect("read").as_deref(),
            Some("sk-second")
        );
        assert!(remembered.remove("openai").expect("remove"));
        assert_eq!(remembered.read("openai").expect("read"), None);
        assert_eq!(
            reads.load(Ordering::SeqCst),
            1,
            "changes never re-read the keychain"
        );

        // "No key" is an answer too: asked once.
        assert_eq!(remembered.read("anthropic").expect("read"), None);
        assert_eq!(remembered.read("anthropic").expect("read"), None);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_locked_keychain_is_asked_again_once_unlocked() {
        let keychain = Counting::default();
        let (reads, locked) = (keychain.reads.clone(), keychain.locked.clone());
        keychain.inner.store("openai", "sk-kept").expect("store");
        locked.store(true, Ordering::SeqCst);
        let remembered = RememberedCredentials::new(keychain);

        assert!(matches!(
            remembered.read("openai"),
            Err(CredentialError::Unavailable { .. })
        ));
        locked.store(false, Ordering::SeqCst);
        assert_eq!(
            remembered.read("openai").expect("read").as_deref(),
            Some("sk-kept")
        );
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }
}
