//! The machine a benchmark ran on, for the report.

use serde::Serialize;

/// CPUs, CPU model and load when the benchmark started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Machine {
    /// CPUs this process may use.
    pub cpus: usize,
    /// The first `model name` of `/proc/cpuinfo`, if readable.
    pub cpu_model: Option<String>,
    /// The 1-minute load average from `/proc/loadavg`, if readable.
    pub load_average_1m: Option<f64>,
}

impl Machine {
    /// Looks at this machine.
    #[must_use]
    pub fn current() -> Machine {
        Machine {
            cpus: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            cpu_model: std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|text| cpu_model(&text)),
            load_average_1m: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|text| load_average(&text)),
        }
    }

    /// One line for people.
    #[must_use]
    pub fn describe(&self) -> String {
        let model = self.cpu_model.as_deref().unwrap_or("unknown CPU");
        let load = self.load_average_1m.map_or_else(String::new, |l| format!(", load average {l:.2}"));
        format!("{} CPUs, {model}{load}", self.cpus)
    }
}

/// The first `model name` in the text of `/proc/cpuinfo`.
fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_owned())
    })
}

/// The first field of `/proc/loadavg`.
fn load_average(loadavg: &str) -> Option<f64> {
    loadavg.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_model_name_and_the_load() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n\
                       processor\t: 1\nmodel name\t: Other\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(cpu_model("processor : 0\n"), None);
        assert_eq!(load_average("4.61 2.78 1.60 3/512 12345\n"), Some(4.61));
        assert_eq!(load_average(""), None);
    }
}
