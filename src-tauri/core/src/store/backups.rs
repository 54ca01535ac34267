//! The backups a person makes and restores: "Back up now" and checking a chosen file
//! (`manual_backup`), and putting a backup in place, in two steps that survive a SIGKILL
//! (`backup_restore`). SQLite only: a PostgreSQL ledger is backed up by its own tools. It uses
//! `sqlite` (the checks a backup passes, the copy written before an upgrade) and the ground.

pub mod backup_restore;
pub mod manual_backup;
