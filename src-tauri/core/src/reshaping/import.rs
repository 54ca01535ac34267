//! Importing a session exported by Dossier (`export_json`) or by `opencode export <id>`: a new
//! session with new ids and the original order, written in one transaction. Attachment bytes
//! travel as `data:` URLs and land in the blob store unchanged (no re-encoding), so an export →
//! import → export round trip is byte-for-byte apart from ids.

use crate::pipeline::attachment_storage;
use crate::reshaping::export::SessionExport;
use crate::reshaping::Reshaping;
use crate::store::tables::session_store;
use crate::wire::error::LedgerError;
use crate::wire::event::EventPayload;
use crate::wire::id::IdKind;
use crate::wire::session::{Session, SessionTime};

impl Reshaping<'_> {
    pub async fn import_session(
        &self,
        document: serde_json::Value,
    ) -> Result<Session, LedgerError> {
        let export: SessionExport = serde_json::from_value(document).map_err(|error| {
            LedgerError::InvalidRequest(format!(
                "this is not a Dossier or OpenCode session export: {error}"
            ))
        })?;
        // Ids are replaced, one new id per old one: a repeated message id would give two messages
        // the same new id, which the file's author never wrote and no write can store.
        let mut seen = std::collections::HashSet::new();
        if let Some(repeated) = export
            .messages
            .iter()
            .map(|message| message.info.id())
            .find(|id| !seen.insert(*id))
        {
            return Err(LedgerError::InvalidRequest(format!(
                "this session export holds the message {repeated} twice"
            )));
        }
        let now = self.store.now();
        let mut session = Session {
            id: self.store.new_id(IdKind::Session),
            parent_id: None,
            revert: None,
            pinned: false,
            // Who forked or imported is not recorded: only `POST /session` with a token is.
            created_by_token: None,
            time: SessionTime {
                created: export.info.time.created,
                updated: now,
                compacting: None,
                archived: None,
            },
            version: env!("CARGO_PKG_VERSION").into(),
            ..export.info
        };
        let mut messages = self.remap(&session.id, export.messages);
        // Totals follow the steps imported, whatever the file's `info` says.
        crate::store::tables::session_usage::total_of_steps(
            &mut session,
            messages
                .iter()
                .flat_map(|message| message.parts.iter().map(|part| &part.body)),
        );
        let mut transaction = self.store.begin_write().await?;
        session_store::insert(&mut transaction, &session).await?;
        for message in &mut messages {
            let parts = std::mem::take(&mut message.parts);
            let prepared = attachment_storage::prepare_unchanged(parts);
            message.parts = attachment_storage::store(&mut transaction, prepared, now).await?;
        }
        self.insert_copies(&mut transaction, &session.id, &messages, now)
            .await?;
        transaction.commit().await?;
        self.store.events.publish(EventPayload::SessionCreated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        self.store.events.publish(EventPayload::SessionUpdated {
            session_id: session.id.clone(),
            info: session.clone(),
        });
        Ok(session)
    }
}
