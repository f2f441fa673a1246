//! `--shard I/N`: a deterministic part of the schedule, so that N processes
//! (a Kubernetes Indexed Job, a Slurm job array) together play it exactly once.
//!
//! Shard `I` of `N` plays the game pairs whose index `p` has `p % N == I - 1`,
//! so the two colour-swapped games of a pair are always in the same shard.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The environment variable of a Kubernetes Indexed Job (0-based index).
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
/// The environment variable of a Slurm job array task.
pub const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
/// The lowest task id of the Slurm array.
pub const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
/// The number of tasks of the Slurm array.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// The shard count when it is not given after `auto/` (Kubernetes has no variable for it).
pub const COUNT_VAR: &str = "BAO_SHARD_COUNT";

/// One part of a schedule: shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// From 1 to `count`.
    pub index: u32,
    /// The number of shards.
    pub count: u32,
}

impl Shard {
    /// Whether game pair `pair` belongs to this shard.
    #[must_use]
    pub fn holds_pair(self, pair: u32) -> bool {
        // Checked: a shard read from a damaged plan.json holds nothing rather than panicking.
        pair.checked_rem(self.count).is_some_and(|r| Some(r) == self.index.checked_sub(1))
    }

    /// Checks `1 <= index <= count` (a shard read from a file).
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn check(self) -> Result<(), String> {
        if self.count == 0 {
            return Err(format!("shard {self}: the shard count is 0 (expected I/N with 1 <= I <= N)"));
        }
        if !(1..=self.count).contains(&self.index) {
            return Err(format!("shard {self}: the index is outside 1..={}", self.count));
        }
        Ok(())
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The `--shard` argument: a fixed shard, or `auto` (from the job environment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    /// `I/N`.
    Fixed(Shard),
    /// `auto` or `auto/N`.
    Auto {
        /// N when given after `auto/`.
        count: Option<u32>,
    },
}

pub use crate::error::ShardError;

impl FromStr for ShardArg {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || ShardError::Syntax(s.to_owned());
        let (index, count) = s.split_once('/').map_or((s, None), |(i, n)| (i, Some(n)));
        let count = count.map(|n| n.parse::<u32>().map_err(|_| syntax())).transpose()?;
        if count == Some(0) {
            return Err(syntax());
        }
        if index == "auto" {
            return Ok(ShardArg::Auto { count });
        }
        let index = index.parse::<u32>().map_err(|_| syntax())?;
        match count {
            Some(count) if (1..=count).contains(&index) => Ok(ShardArg::Fixed(Shard { index, count })),
            _ => Err(syntax()),
        }
    }
}

impl ShardArg {
    /// The shard, reading the job environment through `var` for `auto`.
    ///
    /// Kubernetes: shard `JOB_COMPLETION_INDEX + 1`. Slurm: shard
    /// `SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1` (min 0 when unset).
    /// The count is `auto/N`, else `BAO_SHARD_COUNT`, else `SLURM_ARRAY_TASK_COUNT`.
    ///
    /// # Errors
    /// No job index in the environment, no count, or values out of range.
    pub fn resolve(self, var: impl Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
        let count = match self {
            ShardArg::Fixed(shard) => return Ok(shard),
            ShardArg::Auto { count } => count,
        };
        let number = |name: &'static str| -> Result<Option<u64>, ShardError> {
            var(name)
                .map(|value| value.trim().parse::<u64>().map_err(|_| ShardError::BadVariable { name, value }))
                .transpose()
        };
        let index = if let Some(k8s) = number(K8S_INDEX)? {
            k8s + 1
        } else if let Some(task) = number(SLURM_INDEX)? {
            let min = number(SLURM_MIN)?.unwrap_or(0);
            (task + 1)
                .checked_sub(min)
                .ok_or(ShardError::OutOfRange { index: 0, count: count.unwrap_or(0) })?
        } else {
            return Err(ShardError::NoJobIndex);
        };
        let count = match count {
            Some(n) => n,
            None => {
                let n = number(COUNT_VAR)?.or(number(SLURM_COUNT)?).ok_or(ShardError::NoCount)?;
                u32::try_from(n).ok().filter(|&n| n > 0).ok_or(ShardError::NoCount)?
            }
        };
        match u32::try_from(index) {
            Ok(i) if (1..=count).contains(&i) => Ok(Shard { index: i, count }),
            _ => Err(ShardError::OutOfRange { index, count }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn fixed_shards_parse_and_split_pairs() {
        let shard = "2/3".parse::<ShardArg>().unwrap().resolve(env(&[])).unwrap();
        assert_eq!(shard, Shard { index: 2, count: 3 });
        let held: Vec<u32> = (0..9).filter(|&p| shard.holds_pair(p)).collect();
        assert_eq!(held, vec![1, 4, 7]);
        for bad in ["0/3", "4/3", "1/0", "x/2", "2", "auto/0", "1/2/3"] {
            assert!(bad.parse::<ShardArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_pair_is_in_exactly_one_shard() {
        for count in 1..6 {
            for pair in 0..50 {
                let holders = (1..=count).filter(|&index| Shard { index, count }.holds_pair(pair)).count();
                assert_eq!(holders, 1);
            }
        }
    }

    #[test]
    fn auto_reads_kubernetes_and_slurm() {
        let auto: ShardArg = "auto".parse().unwrap();
        let k8s = env(&[(K8S_INDEX, "0"), (COUNT_VAR, "4")]);
        assert_eq!(auto.resolve(k8s).unwrap(), Shard { index: 1, count: 4 });
        let k8s = env(&[(K8S_INDEX, "3")]);
        assert_eq!("auto/4".parse::<ShardArg>().unwrap().resolve(k8s).unwrap(), Shard { index: 4, count: 4 });
        let slurm = env(&[(SLURM_INDEX, "5"), (SLURM_MIN, "1"), (SLURM_COUNT, "8")]);
        assert_eq!(auto.resolve(slurm).unwrap(), Shard { index: 5, count: 8 });
        assert_eq!(auto.resolve(env(&[])), Err(ShardError::NoJobIndex));
        assert_eq!(auto.resolve(env(&[(K8S_INDEX, "0")])), Err(ShardError::NoCount));
        assert!(matches!(
            auto.resolve(env(&[(K8S_INDEX, "4"), (COUNT_VAR, "4")])),
            Err(ShardError::OutOfRange { index: 5, count: 4 })
        ));
        assert!(matches!(auto.resolve(env(&[(K8S_INDEX, "x")])), Err(ShardError::BadVariable { .. })));
    }
}
