//! Tools for the course's graders, built on the protocol: [`scenario`] writes test cases
//! (grader inputs, with the reference output), [`check`] runs a student's program on them
//! the way the course's harness does and says where and how it goes wrong, and
//! [`check::reference`] is the reference run in memory, line by line; [`class`] grades a
//! whole class in a sandbox, and [`similarity`] finds submissions whose code is alike.

pub mod check;
pub mod class;
pub mod scenario;
pub mod similarity;
