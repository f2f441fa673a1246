//! Candidate evaluation: a candidate plays its owner's active version in
//! colour-swapped pairs; after each pair the SPRT of `bao-stats` (pentanomial,
//! logistic Elo) is updated, its LLR stored for the pages, and on a decision
//! the candidate is promoted (automatically if the owner asked), or rejected
//! with the reason.

use crate::db::{Behavior, Conn, params};
use bao_rules::Side;
use bao_stats::{EloModel, GameOutcome, PentanomialCounts, SprtDecision, SprtParameters};

use crate::arena::Arena;
use crate::config::CandidateConfig;
use crate::domain::{GameResult, GameState, Purpose, SprtVerdict, VersionChange, VersionId, VersionState};
use crate::error::ServerError;
use crate::versions;

/// The candidate's pentanomial counts against its baseline: pairs whose two games finished.
pub fn pair_counts(conn: &crate::db::Conn, candidate: VersionId) -> Result<PentanomialCounts, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT pair_key, south_id, result FROM games
         WHERE purpose = ?2 AND state = ?3 AND (south_id = ?1 OR north_id = ?1) ORDER BY id",
    )?;
    let rows = stmt.query_map(params![candidate, Purpose::Candidate, GameState::Finished], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, VersionId>(1)?, r.get::<_, GameResult>(2)?))
    })?;
    let mut games = Vec::new();
    for row in rows {
        let (key, south, result) = row?;
        let side = if south == candidate { Side::South } else { Side::North };
        let outcome = match result {
            GameResult::Draw => GameOutcome::Draw,
            won if won == GameResult::of_winner(Some(side)) => GameOutcome::Win,
            _ => GameOutcome::Loss,
        };
        games.push((key, outcome));
    }
    Ok(PentanomialCounts::from_keyed_games(games))
}

/// The SPRT of the arena's candidate settings.
pub fn sprt_parameters(c: &CandidateConfig) -> Result<SprtParameters, ServerError> {
    SprtParameters::new(c.alpha, c.beta, c.elo0, c.elo1, EloModel::Logistic)
        .map_err(|e| ServerError::Invalid(format!("candidate SPRT settings: {e}")))
}

/// Updates the SPRT of a candidate and acts on its decision, in one
/// transaction: the LLR, the verdict and the state change are written
/// together or not at all. Returns the decision.
pub async fn update(arena: &Arena, candidate: VersionId) -> Result<SprtDecision, ServerError> {
    let c = arena.config.candidate.clone();
    arena
        .db
        .write(move |conn| {
            let tx = conn.transaction_with_behavior(Behavior::Immediate)?;
            let decision = decide(&tx, candidate, &c)?;
            tx.commit()?;
            Ok(decision)
        })
        .await
}

/// The SPRT update of one candidate inside the caller's transaction (see
/// [`update`]); also run at start for every candidate under evaluation, which
/// completes a verdict a stop interrupted.
pub fn decide(conn: &Conn, candidate: VersionId, c: &CandidateConfig) -> Result<SprtDecision, ServerError> {
    let params = sprt_parameters(c)?;
    let Some(v) = versions::version(conn, candidate)? else { return Ok(SprtDecision::Continue) };
    if v.state != VersionState::Evaluating {
        return Ok(SprtDecision::Continue);
    }
    let baseline_active = match v.baseline_id {
        Some(b) => versions::version(conn, b)?.is_some_and(|b| b.state == VersionState::Active),
        None => false,
    };
    if !baseline_active {
        versions::set_state(
            conn,
            candidate,
            VersionChange::NOT_PROMOTED,
            "the version it was tested against is no longer active",
        )?;
        return Ok(SprtDecision::AcceptH0);
    }
    // A verdict already reached stands (its state change completes if a stop cut it).
    match v.sprt_result {
        Some(SprtVerdict::H0) => {
            let why = format!("not better: the SPRT accepted H0 (elo <= {})", c.elo0);
            versions::set_state(conn, candidate, VersionChange::NOT_PROMOTED, &why)?;
            return Ok(SprtDecision::AcceptH0);
        }
        Some(SprtVerdict::H1) if v.auto_promote => {
            let why = format!("better: the SPRT accepted H1 (elo >= {}); promoted", c.elo1);
            versions::activate_in(conn, candidate, VersionChange::PROMOTE, &why)?;
            return Ok(SprtDecision::AcceptH1);
        }
        Some(SprtVerdict::H1) => return Ok(SprtDecision::AcceptH1),
        None => {}
    }
    let counts = pair_counts(conn, candidate)?;
    let status = params.evaluate_pentanomial(&counts);
    let llr = status.llr.unwrap_or(0.0);
    conn.execute("UPDATE versions SET sprt_llr = ?2 WHERE id = ?1", params![candidate, llr])?;
    crate::failpoint::hit("verdict.after_llr");
    let games = counts.games();
    let bounds = format!(
        "LLR {llr:.2}, bounds {:.2} and {:.2}, {games} games",
        status.lower_bound, status.upper_bound
    );
    match status.decision {
        SprtDecision::AcceptH1 if v.auto_promote => {
            let why = format!("better: the SPRT accepted H1 (elo >= {}) ({bounds}); promoted", c.elo1);
            set_verdict(conn, candidate, SprtVerdict::H1)?;
            crate::failpoint::hit("verdict.after_result");
            versions::activate_in(conn, candidate, VersionChange::PROMOTE, &why)?;
        }
        SprtDecision::AcceptH1 => {
            let why = format!(
                "better: the SPRT accepted H1 (elo >= {}) ({bounds}); promote it to replace the active version",
                c.elo1
            );
            conn.execute(
                "UPDATE versions SET sprt_result = ?3, reason = ?2 WHERE id = ?1",
                params![candidate, why, SprtVerdict::H1],
            )?;
        }
        SprtDecision::AcceptH0 => {
            let why = format!("not better: the SPRT accepted H0 (elo <= {}) ({bounds})", c.elo0);
            set_verdict(conn, candidate, SprtVerdict::H0)?;
            crate::failpoint::hit("verdict.after_result");
            versions::set_state(conn, candidate, VersionChange::NOT_PROMOTED, &why)?;
        }
        SprtDecision::Continue if games >= u64::from(c.max_games) => {
            let why = format!("undecided after {games} games ({bounds}): not promoted");
            versions::set_state(conn, candidate, VersionChange::NOT_PROMOTED, &why)?;
        }
        SprtDecision::Continue => {
            conn.execute(
                "UPDATE versions SET reason = ?2 WHERE id = ?1",
                params![candidate, format!("testing against the active version: {bounds}")],
            )?;
        }
    }
    Ok(status.decision)
}

/// Promotes a candidate whose SPRT accepted H1 (its owner asked), in one transaction.
pub fn promote(conn: &mut crate::db::Conn, candidate: VersionId) -> Result<(), ServerError> {
    let tx = conn.transaction_with_behavior(Behavior::Immediate)?;
    let result: Option<SprtVerdict> =
        tx.query_row("SELECT sprt_result FROM versions WHERE id = ?1", [candidate], |r| r.get(0))?;
    if result != Some(SprtVerdict::H1) {
        return Err(ServerError::Invalid(format!(
            "version {candidate} cannot be promoted: only a candidate whose test found it better can"
        )));
    }
    if !versions::activate_in(
        &tx,
        candidate,
        VersionChange::PROMOTE,
        "promoted by its owner after passing its SPRT",
    )? {
        return Err(ServerError::Invalid(format!("version {candidate} is no longer under evaluation")));
    }
    tx.commit()?;
    Ok(())
}

/// Records a candidate's SPRT verdict (inside the caller's transaction).
fn set_verdict(conn: &Conn, candidate: VersionId, verdict: SprtVerdict) -> Result<(), ServerError> {
    conn.execute("UPDATE versions SET sprt_result = ?2 WHERE id = ?1", params![candidate, verdict])?;
    Ok(())
}
