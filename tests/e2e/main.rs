//! End-to-end tests: the real `bao-referee` binary against real bot processes.
//!
//! One integration-test binary; each topic is a module.

mod check;
mod closed_pipe;
mod cpu_hog;
mod doc_examples;
mod first_hour;
mod hostile;
mod isolation;
mod kept_processes;
mod ladder;
mod matches;
mod option_ranges;
mod owned_nyumba_match;
mod pass_env;
mod protocol_doc;
mod referee_fault;
mod rules_cli;
mod sandbox;
mod sandbox_holes;
mod sandbox_network_apart;
mod sandbox_reach;
mod serve_hostile;
mod serve_support;
mod serve_wrapper;
mod show;
mod smoke;
mod starter_kits;
mod startup_limits;
mod stopping;
mod subordinate_ids;
mod support;
mod tournament;
mod tournament_durability;
mod tournament_pages;
mod tournament_scale;
mod tournament_trace;
