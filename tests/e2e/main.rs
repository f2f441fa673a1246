//! End-to-end tests: the real `bao-referee` binary against real bot processes.
//!
//! One integration-test binary; each topic is a module.

mod rules_cli;
mod smoke;
mod support;
mod tournament;
mod hostile;
mod matches;
mod check;
