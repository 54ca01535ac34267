//! Reading a session's messages: pages of `limit` before a cursor, or one message.

use crate::store::rows::message_page::{MessagePage, MessageQuery};
use crate::store::tables::message_store;
use crate::store::tables::session_store;
use crate::store::Store;
use crate::wire::error::LedgerError;
use crate::wire::message::MessageWithParts;

impl Store {
    pub async fn messages(
        &self,
        session_id: &str,
        query: &MessageQuery,
    ) -> Result<MessagePage, LedgerError> {
        let mut connection = self.pool.acquire().await?;
        session_store::get(&mut connection, session_id).await?;
        drop(connection);
        message_store::list(&self.pool, session_id, query).await
    }

    pub async fn message(
        &self,
        session_id: &str,
        message_id: &str,
    ) -> Result<MessageWithParts, LedgerError> {
        let mut connection = self.pool.acquire().await?;
        session_store::get(&mut connection, session_id).await?;
        message_store::get(&mut connection, session_id, message_id).await
    }
}
