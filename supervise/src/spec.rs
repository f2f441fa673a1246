//! What to run as a bot, and the resource limits to run it under.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A bot program: a command line, an optional working directory and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    /// A display name (defaults to the program's file name).
    pub name: Option<String>,
    /// The program to run (looked up on PATH if it has no slash).
    pub program: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The working directory (default: the referee's).
    pub dir: Option<PathBuf>,
}

impl BotSpec {
    /// The name to show: the given name, or the program's file name.
    #[must_use]
    pub fn display_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            std::path::Path::new(&self.program)
                .file_name()
                .map_or_else(|| self.program.clone(), |f| f.to_string_lossy().into_owned())
        })
    }

    /// The command line as one string, for logs.
    #[must_use]
    pub fn command_line(&self) -> Vec<String> {
        std::iter::once(self.program.clone()).chain(self.args.iter().cloned()).collect()
    }
}

/// Optional limits on a bot's resources, applied before it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLimits {
    /// Memory, in bytes.
    pub max_memory_bytes: Option<u64>,
    /// CPU time, in whole seconds, for the whole game.
    pub max_cpu_secs: Option<u64>,
    /// Number of processes (the bot and its descendants).
    pub max_processes: Option<u64>,
    /// Bytes written to stdout and stderr together, for the whole game.
    pub max_output_bytes: Option<u64>,
    /// CPUs the whole process tree may use at any moment (cgroup `cpu.max`), however many
    /// processes and threads it runs; `None` for no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<CpuShare>,
}

/// A number of CPUs, in thousandths (`1.5` CPUs is 1500): the share of the machine's CPU
/// time a bot's whole tree may use (`cpu.max` of its cgroup). Written and read as a decimal
/// number of CPUs (`1`, `0.5`, `2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "f64", try_from = "f64")]
pub struct CpuShare(u32);

impl CpuShare {
    /// One CPU: the default of every game.
    pub const ONE: Self = Self(1000);
    /// The most accepted: 1024 CPUs.
    pub const MAX: Self = Self(1_024_000);
    /// The least accepted: a hundredth of a CPU (the kernel's smallest quota is 1 ms per
    /// 100 ms period).
    pub const MIN: Self = Self(10);

    /// From thousandths of a CPU, if within [`CpuShare::MIN`]..=[`CpuShare::MAX`].
    #[must_use]
    pub fn from_millis(millis: u32) -> Option<Self> {
        (Self::MIN.0..=Self::MAX.0).contains(&millis).then_some(Self(millis))
    }

    /// Thousandths of a CPU.
    #[must_use]
    pub fn millis(self) -> u32 {
        self.0
    }

    /// The whole CPUs needed to hold this share (at least one): what a cpuset of its own takes.
    #[must_use]
    pub fn whole_cpus(self) -> u32 {
        self.0.div_ceil(1000).max(1)
    }

    /// The `cpu.max` quota for a period of `period_us` microseconds.
    #[must_use]
    pub fn quota_us(self, period_us: u64) -> u64 {
        period_us * u64::from(self.0) / 1000
    }
}

impl std::fmt::Display for CpuShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, part) = (self.0 / 1000, self.0 % 1000);
        if part == 0 {
            write!(f, "{whole}")
        } else {
            let digits = format!("{part:03}");
            write!(f, "{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

impl std::str::FromStr for CpuShare {
    type Err = String;

    /// A decimal number of CPUs, `0.01` to `1024`.
    fn from_str(s: &str) -> Result<Self, String> {
        let cpus: f64 =
            s.trim().parse().map_err(|_| format!("{s:?} is not a number of CPUs (e.g. 1, 0.5, 2)"))?;
        Self::try_from(cpus).map_err(|e| format!("{s:?}: {e}"))
    }
}

impl From<CpuShare> for f64 {
    fn from(share: CpuShare) -> f64 {
        f64::from(share.0) / 1000.0
    }
}

impl TryFrom<f64> for CpuShare {
    type Error = String;

    fn try_from(cpus: f64) -> Result<Self, String> {
        let millis = (cpus * 1000.0).round();
        if !millis.is_finite() || millis < f64::from(Self::MIN.0) || millis > f64::from(Self::MAX.0) {
            return Err("a number of CPUs must be from 0.01 to 1024".to_owned());
        }
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked to be in range above"
        )]
        Ok(Self(millis as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_shares_read_and_print_as_cpus() {
        let half: CpuShare = "0.5".parse().unwrap();
        assert_eq!(half.millis(), 500);
        assert_eq!(half.to_string(), "0.5");
        assert_eq!(half.whole_cpus(), 1);
        assert_eq!(half.quota_us(100_000), 50_000);
        let two: CpuShare = "2".parse().unwrap();
        assert_eq!((two.to_string().as_str(), two.whole_cpus()), ("2", 2));
        assert_eq!("1.25".parse::<CpuShare>().unwrap().to_string(), "1.25");
        assert!("0".parse::<CpuShare>().unwrap_err().contains("0.01 to 1024"));
        assert!("lots".parse::<CpuShare>().unwrap_err().contains("lots"));
        assert!("NaN".parse::<CpuShare>().is_err());
        let limits: ResourceLimits = serde_json::from_str(
            r#"{"max_memory_bytes":null,"max_cpu_secs":null,"max_processes":null,"max_output_bytes":null}"#,
        )
        .unwrap();
        assert_eq!(limits.cpus, None);
        let with = ResourceLimits { cpus: Some(CpuShare::ONE), ..ResourceLimits::default() };
        let text = serde_json::to_string(&with).unwrap();
        assert!(text.contains(r#""cpus":1.0"#), "{text}");
        assert_eq!(serde_json::from_str::<ResourceLimits>(&text).unwrap(), with);
    }
}
