//! misbehave
fn main() {}
