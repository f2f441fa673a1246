//! scratch
use bao_rules::*;
use bao_sample_bots::evaluate;
#[test]
fn explore() {
    let mut seed: u64 = 12345;
    let mut rnd = || { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; seed };
    let mut found_win = 0; let mut found_diff = 0;
    for variant in [Variant::Kujifunza, Variant::Kiswahili] {
    for _game in 0..200 {
        let mut pos = Position::start(variant);
        for _ply in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() { break; }
            let me = pos.side_to_move();
            let scored: Vec<(String, Option<i32>, bool)> = moves.iter().map(|&m| {
                let (n, o) = pos.play(m).unwrap();
                let win = matches!(o, Outcome::Win{winner, ..} if winner == me);
                (m.to_string(), Some(evaluate(&n, me)), win)
            }).collect();
            let wins = scored.iter().filter(|s| s.2).count();
            if wins >= 1 && wins < moves.len() && found_win < 4 {
                found_win += 1;
                println!("WIN {pos} {:?}", scored);
            }
            let mut evals: Vec<i32> = scored.iter().map(|s| s.1.unwrap()).collect();
            evals.sort(); evals.dedup();
            if wins == 0 && moves.len() >= 3 && moves.len() <= 6 && evals.len() == moves.len() && found_diff < 3 && variant == Variant::Kiswahili {
                found_diff += 1;
                println!("DIFF {pos} {:?}", scored);
            }
            let m = moves[(rnd() % moves.len() as u64) as usize];
            pos = pos.play(m).unwrap().0;
        }
    }}
}
