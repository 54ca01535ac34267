//! Search's own rules, on no engine: how text is cut into the tokens the index holds and a
//! query is cut the same way (`search_text`), which text of a part is searchable
//! (`searchable_text`), what a search asks and returns (`search_query`) and how excerpts are cut
//! from the stored text (`search_excerpt`). Both engines run these (`sqlite::search_index`,
//! `tables::search`, `postgres::search`), so both hold the same tokens for the same text. The
//! lowest room of the store: it uses only `wire`.

pub(crate) mod search_excerpt;
pub mod search_query;
pub mod search_text;
pub mod searchable_text;
