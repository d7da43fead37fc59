//! Text formats: the grader's header and board ([`Setup`](crate::Setup)'s `Display` and
//! `FromStr`), move lists (`f5d6c3`), OBF positions, game records (our own format, GGF and
//! grader inputs), and the bounded line reader they and the grader protocol read with.
//! Each format parses and prints, and the two round-trip. One is binary: [`wthor`], the
//! French federation's game database files.

pub(crate) mod grader;
pub(crate) mod lines;
pub(crate) mod move_list;
pub(crate) mod obf;
pub(crate) mod record;
pub mod wthor;
