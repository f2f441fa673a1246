//! Hostile uploads and names: each is refused with a message saying why, and
//! what a user wrote reaches the pages escaped.

use std::io::Write;

use crate::support::{Arena, FAST, Server, get, post, settle, submit};

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(*name, opts).expect("start");
        w.write_all(data).expect("write");
    }
    w.finish().expect("finish").into_inner()
}

pub fn hostile_uploads_are_refused_with_a_message() {
    let arena = Arena::new(&["alice"], FAST);
    let server = Server::start(&arena.data());
    let t = &arena.tokens[0];
    let refused = |bot: &str, lang: &str, file: &str, body: &[u8], status: u16, needle: &str| {
        let a = submit(&server, t, bot, lang, file, body, "");
        assert_eq!(a.status, status, "{bot}/{file}: {}", a.body);
        let e = a.error();
        assert!(e.contains(needle), "{bot}/{file}: expected {needle:?} in {e:?}");
    };
    let bomb = zip_of(&[("main.py", &vec![b'#'; 64 << 20])]);
    assert!(bomb.len() < 1 << 20, "the bomb is small: {}", bomb.len());
    refused("bomb", "python", "bomb.zip", &bomb, 400, "more than 20971520 bytes");
    refused("trav", "python", "t.zip", &zip_of(&[("../../escape.py", b"x"), ("main.py", b"x")]), 400, "'..'");
    refused("abs", "python", "t.zip", &zip_of(&[("/tmp/abs.py", b"x")]), 400, "absolute");
    let many: Vec<(String, Vec<u8>)> = (0..201).map(|i| (format!("f{i}.py"), vec![b'x'])).collect();
    let refs: Vec<(&str, &[u8])> = many.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
    refused("many", "python", "m.zip", &zip_of(&refs), 400, "entries");
    refused("nomain", "python", "n.zip", &zip_of(&[("other.py", b"x")]), 400, "main.py");
    refused("junk", "python", "j.zip", b"PK\x03\x04 this is not a zip", 400, "damaged");
    refused("huge", "python", "h.py", &vec![b'#'; 3 << 20], 413, "limit");
    refused("lang", "cobol", "x.cbl", b"x", 400, "unknown language");
    refused("%3Cscript%3E", "python", "x.py", b"x", 400, "bot name");
    refused("a%22b", "python", "x.py", b"x", 400, "bot name");
    refused("ok", "python", "..%2Fevil.py", b"x", 400, "file name");
    refused("empty", "python", "e.py", b"", 400, "empty");
    let long = format!("{}.py", "a".repeat(300));
    let long_zip = zip_of(&[("main.py", b"x"), (long.as_str(), b"x")]);
    refused("long", "python", "l.zip", &long_zip, 400, "longer than 255 bytes");
    let response_file = zip_of(&[("main.cpp", b"int main(){}"), ("@o.cpp", b"-wrapper /bin/sh,-c,id")]);
    refused("resp", "cpp", "r.zip", &response_file, 400, "starts with '@'");
    refused("opt", "cpp", "o.zip", &zip_of(&[("main.cpp", b"x"), ("-x.cpp", b"x")]), 400, "starts with '-'");
    assert!(!arena.dir.path().join("escape.py").exists() && !std::path::Path::new("/tmp/abs.py").exists());
    // Nothing was recorded.
    let bots = get(&format!("{}/api/bots", server.url), None, None).json();
    assert_eq!(bots.as_array().map(Vec::len), Some(0), "{bots}");

    // A build that fails with markup in its output: the owner's page shows it escaped.
    let a = submit(&server, t, "xss", "python", "x.py", b"<script>alert(1)</script>\n", "");
    assert_eq!(a.status, 201, "{}", a.body);
    let id = a.json()["id"].as_i64().expect("id");
    assert_eq!(settle(&server, id, 60), "rejected");
    let detail = get(&format!("{}/api/versions/{id}", server.url), Some(t), None).json();
    assert!(detail["build_log"].as_str().unwrap_or("").contains("<script>"), "{detail}");
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let login = post(&format!("{}/login", server.url), &[form], format!("token={t}").as_bytes());
    let cookie = login.header("set-cookie").and_then(|c| c.split(';').next()).expect("cookie").to_owned();
    let page = get(&format!("{}/versions/{id}", server.url), None, Some(&cookie));
    assert!(page.body.contains("Build log"), "the owner sees the log: {}", page.body);
    assert!(!page.body.contains("<script>alert(1)"), "unescaped markup on the page");
    assert!(page.body.contains("&lt;script&gt;alert(1)"), "{}", page.body);
    // Others do not see the log.
    let public = get(&format!("{}/api/versions/{id}", server.url), None, None).json();
    assert!(public.get("build_log").is_none(), "{public}");
}

pub fn rate_limit_and_bot_ownership() {
    let mut edits = FAST.to_vec();
    edits.push(("submissions_per_hour = 12", "submissions_per_hour = 2"));
    let arena = Arena::new(&["admin", "bob", "carol"], &edits);
    let server = Server::start(&arena.data());
    let (bob, carol) = (&arena.tokens[1], &arena.tokens[2]);
    assert_eq!(submit(&server, bob, "bobbot", "python", "a.py", b"x = (", "").status, 201);
    let taken = submit(&server, carol, "BobBot", "python", "a.py", b"x = 1", "");
    assert_eq!(taken.status, 409, "names are unique without regard to case: {}", taken.body);
    assert!(taken.error().contains("another user"));
    assert_eq!(submit(&server, bob, "bobbot", "python", "a.py", b"x = (", "").status, 201);
    let limited = submit(&server, bob, "bobbot", "python", "a.py", b"x = (", "");
    assert_eq!(limited.status, 429, "{}", limited.body);
    assert!(limited.error().contains("limit is 2"), "{}", limited.body);
    // A candidate needs an active version to be tested against.
    let cand = submit(&server, carol, "carolbot", "python", "a.py", b"x = 1", "&candidate=true");
    assert_eq!(cand.status, 400);
    assert!(cand.error().contains("no active version"), "{}", cand.body);
}
