//! The one way every part of the referee builds its async runtime.

/// The runtime that plays games: a current-thread tokio runtime with I/O and timers.
///
/// One thread runs every game of a process (measured faster than a multi-thread runtime for
/// this workload, see BENCHMARKS.md); blocking work goes to tokio's blocking pool.
///
/// # Errors
/// When the operating system refuses the runtime's resources (threads, epoll, timers).
pub fn build() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}
