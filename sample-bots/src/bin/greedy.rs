//! greedy
fn main() {}
