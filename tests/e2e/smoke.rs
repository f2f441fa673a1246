//! The binary starts and prints the start position.

use std::process::Command;

use crate::support::bin;

#[test]
fn rules_start_prints_the_kiswahili_start() {
    let out = Command::new(bin("bao-referee")).args(["rules", "start", "kiswahili"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "kiswahili S 0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 22,22 SN -\n"
    );
}
