//! Building a submitted version: the sandboxed command runner and the worker
//! that takes queued versions through building and the conformance gate.

pub mod gate;
pub mod sandbox;
pub mod worker;
