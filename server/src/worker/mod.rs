//! Games and builds on many machines (`games.executor = "workers"`, docs/worker.md): the queue
//! of games with leases ([`queue`]), the queue of builds and conformance checks
//! ([`build_queue`]), the leader's side that queues them ([`queued`]), what the live workers
//! can play ([`reach`]), the bots' built folders and the games' logs in the database
//! ([`artifacts`], [`logs`]), the workers' reports ([`status`]) and the worker process itself
//! ([`process`], `bao-referee worker`).

pub mod artifacts;
pub mod build_queue;
mod build_task;
pub mod logs;
#[cfg(test)]
mod migration_0005_tests;
pub mod process;
pub mod queue;
pub mod queued;
pub mod reach;
pub mod status;

pub use process::{WorkerOptions, run};
