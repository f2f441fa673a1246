//! `bao-tune`: Texel tuning of the evaluation (see `sample-bots/tuning/README.md`).
//!
//! ```text
//! bao-tune generate GAMES SEED DEPTH KEEP_ONE_IN [hand|round1|tuned] > data.tsv
//!                                                            self-play positions with results
//! bao-tune fit DATA...                                      fitted weights (3000 epochs), as Rust
//! ```

use std::process::ExitCode;

use anyhow::{Context, bail};
use bao_sample_bots::eval::FEATURE_NAMES;
use bao_sample_bots::tuning::{Generation, fit, generate, log_loss, parse_lines, to_lines};
use bao_sample_bots::weights::{HAND_SET, ROUND_1, TUNED};

fn number<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let text = args.get(i).with_context(|| format!("missing {what}"))?;
    text.parse().with_context(|| format!("{what} {text:?}"))
}

/// Gradient steps per stage.
const EPOCHS: u32 = 3000;

fn run(args: &[String]) -> anyhow::Result<()> {
    match args.first().map(String::as_str) {
        Some("generate") => {
            let generation = Generation {
                games: number(args, 1, "GAMES")?,
                seed: number(args, 2, "SEED")?,
                depth: number(args, 3, "DEPTH")?,
                keep_one_in: number(args, 4, "KEEP_ONE_IN")?,
                max_plies: 400,
            };
            let name = args.get(5).map_or("tuned", String::as_str);
            let weights = match name {
                "hand" => HAND_SET,
                "round1" => ROUND_1,
                "tuned" => TUNED,
                other => bail!("weights {other:?}: expected hand, round1 or tuned"),
            };
            let samples = generate(&generation, weights);
            println!(
                "# bao-tune generate {} {} {} {} {name}: {} positions, RESULT<TAB>POSITION",
                generation.games,
                generation.seed,
                generation.depth,
                generation.keep_one_in,
                samples.len()
            );
            print!("{}", to_lines(&samples));
            Ok(())
        }
        Some("fit") => {
            if args.len() < 2 {
                bail!("missing DATA");
            }
            let mut samples = Vec::new();
            for path in &args[1..] {
                let text = std::fs::read_to_string(path).with_context(|| format!("read {path}"))?;
                samples.extend(parse_lines(&text).map_err(anyhow::Error::msg).with_context(|| path.clone())?);
            }
            let weights = fit(&samples, EPOCHS, 1e-4, &HAND_SET);
            eprintln!(
                "{} positions; log-loss: hand-set {:.4}, in use {:.4}, fitted {:.4}",
                samples.len(),
                log_loss(&samples, &HAND_SET),
                log_loss(&samples, &TUNED),
                log_loss(&samples, &weights)
            );
            for (k, name) in FEATURE_NAMES.iter().enumerate() {
                eprintln!("  {name:<55} namua {:>6}  mtaji {:>6}", weights[0][k], weights[1][k]);
            }
            println!("pub const TUNED: Weights = [\n    {:?},\n    {:?},\n];", weights[0], weights[1]);
            Ok(())
        }
        _ => bail!(
            "usage: bao-tune generate GAMES SEED DEPTH KEEP_ONE_IN [hand|round1|tuned] | bao-tune fit DATA..."
        ),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bao-tune: {e:#}");
            ExitCode::from(2)
        }
    }
}
