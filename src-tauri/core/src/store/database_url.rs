//! A database URL as messages may show it: without its password. Outside `store::postgres` so a
//! build without that engine can still name the database it was asked to open
//! (`LedgerError::PostgresNotInThisBuild`).

/// The URL without its password, for messages (which reach logs and screens). libpq's URLs may
/// carry it as a `password` parameter too. `dossier-server` prints its `--database` with it.
pub fn printable(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            // Only fails for URLs that cannot have a password, which then holds none.
            if parsed.set_password(None).is_err() {
                tracing::debug!("database URL without a password part");
            }
            if parsed.query_pairs().any(|(key, _)| key == "password") {
                let kept: Vec<(String, String)> = parsed
                    .query_pairs()
                    .filter(|(key, _)| key != "password")
                    .map(|(key, value)| (key.into_owned(), value.into_owned()))
                    .collect();
                parsed.set_query(None);
                if !kept.is_empty() {
                    parsed.query_pairs_mut().extend_pairs(kept);
                }
            }
            parsed.to_string()
        }
        Err(_) => "the configured database".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn the_password_is_left_out_wherever_the_url_carries_it() {
        assert_eq!(
            printable("postgres://dossier:secret@db.example:5432/team"),
            "postgres://dossier@db.example:5432/team"
        );
        assert_eq!(
            printable("postgres://db.example/team?password=secret&sslmode=require"),
            "postgres://db.example/team?sslmode=require"
        );
        assert_eq!(printable("not a url"), "the configured database");
    }
}
