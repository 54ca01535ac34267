//! The data folder: where it is (`data_location`, the pointer file), who else has it open
//! (`process_lock`), moving it elsewhere (`data_folder_move`) and settling it before the ledger
//! opens (`data_folder_adoption`). The top room: it uses `backups`, `sqlite` and the ground.

pub mod data_folder_adoption;
pub mod data_folder_move;
pub mod data_location;
pub(crate) mod process_lock;
