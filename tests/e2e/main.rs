//! End-to-end tests: the real `bao-referee` binary against real bot processes.
//!
//! One integration-test binary; each topic is a module.

mod check;
mod hostile;
mod matches;
mod rules_cli;
mod show;
mod smoke;
mod starter_kits;
mod support;
mod tournament;
mod tournament_pages;
