//! bao-referee
fn main() {}
