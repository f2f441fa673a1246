//! random
fn main() {}
