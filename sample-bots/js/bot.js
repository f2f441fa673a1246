#!/usr/bin/env node
// A random bao-referee bot in plain JavaScript (Node 20, no packages).
//
// Run it against the referee from the repository root:
//
//     ./target/release/bao-referee match --south "node sample-bots/js/bot.js"
//     ./target/release/bao-referee check "node sample-bots/js/bot.js --seed 1"
//
// Everything it relies on is in PROTOCOL.md. In short: the referee writes one
// JSON object per line to our stdin, we answer with one JSON object per line
// on stdout. stdout is for protocol lines ONLY (a stray console.log() there
// loses the game); diagnostics go to stderr (console.error), which the
// referee keeps in the game log.
//
// To write your own bot, copy this file and replace chooseMove().
//
// Several games in one process (protocol 1.1): this bot says "games":"many"
// in its ready, so the referee may keep it running after a game: instead of
// quit, game_over is then followed by the hello of the next game (perhaps
// another side, variant, start, time control or opponent), answered with
// ready like the first. A bot may keep anything between games (a cache, a
// hash table), but must take its side and the rest from each hello. This bot
// keeps nothing: with --seed N every game starts its generator from N again,
// so a game in a kept process is the game a fresh process would play. A bot
// that cannot play another game leaves "games" out and gets quit every time.

"use strict";

const readline = require("node:readline");

const PROTOCOL_VERSION = 1;

// --- Diagnostics: stderr only. ---------------------------------------------
function log(...parts) {
  console.error("bot.js:", ...parts);
}

// --- Sending: one compact JSON line. -----------------------------------------
// JSON.stringify never writes a raw newline (newlines inside strings become
// \n), so one message is always one line. Node has no stdout buffer to flush:
// write() hands the line to the operating system at once when the pipe has room.
// But on Linux and macOS a write to a pipe may finish asynchronously, so this bot
// never calls process.exit(), which could drop a line still being written: it
// stops reading instead, and Node exits when nothing is left to do.
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// --- A small seeded random generator (Math.random cannot be seeded). --------
// mulberry32: 32-bit state, good enough to pick moves.
function makeRandom(seed) {
  let state = seed >>> 0;
  function next32() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  // A uniform integer in [0, n): reject the top values that would favour
  // small numbers.
  return function below(n) {
    const limit = Math.floor(0x100000000 / n) * n;
    for (;;) {
      const x = next32();
      if (x < limit) return x % n;
    }
  };
}

// --- The command line: an optional --seed N. ------------------------------
// Returns the seed, or null after a usage error.
function parseSeed(argv) {
  if (argv.length > 0) {
    if (argv.length === 2 && argv[0] === "--seed" && /^\d+$/.test(argv[1])) {
      return Number(BigInt(argv[1]) % 0x100000000n);
    }
    log(`bad arguments ${JSON.stringify(argv)} (usage: bot.js [--seed N], N a whole number)`);
    return null;
  }
  // No seed given: one from the time and the process id, logged so that a game
  // can be replayed with --seed.
  return ((Date.now() % 0x100000000) ^ (process.pid * 0x9e3779b1)) >>> 0;
}

// --- The engine: replace this with your own. -----------------------------
// request.legal is never empty and every entry is a legal answer, written in
// our own perspective (rows A and B are ours, columns from our left).
// request.position has the board: rows.A/B are South's, rows.a/b North's,
// each in its owner's numbering; position.to_move is our side.
function chooseMove(request, below) {
  return request.legal[below(request.legal.length)];
}

function main() {
  const seed = parseSeed(process.argv.slice(2));
  if (seed === null) {
    process.exitCode = 2;
    return;
  }
  log(`seed ${seed}`); // --seed N replays a game
  const seeded = process.argv.length > 2;
  let below = makeRandom(seed);
  let games = 0;

  const input = readline.createInterface({ input: process.stdin, terminal: false });
  let stopped = false;
  // Stops reading: the process then exits with `code` once its output is written.
  function stop(code) {
    stopped = true;
    process.exitCode = code;
    input.close();
    process.stdin.destroy(); // an open stdin would keep the process alive
  }
  // At end of input (the referee closed our stdin) readline closes by itself,
  // and the process exits with code 0.

  input.on("line", (line) => {
    if (stopped) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      log(`the referee sent a line that is not JSON: ${error.message}`);
      stop(1);
      return;
    }
    if (message === null || typeof message !== "object") {
      log(`the referee sent a line that is not a JSON object: ${line}`);
      stop(1);
      return;
    }
    // Later protocol versions may add fields: read only those we need.
    switch (message.type) {
      case "hello":
        if (message.protocol !== PROTOCOL_VERSION) {
          log(`unsupported protocol version ${message.protocol}`);
          stop(1);
          return;
        }
        games += 1;
        log(`game ${games}: playing ${message.side} in ${message.variant}`);
        if (seeded) below = makeRandom(seed); // every game from the same seed
        // Answer within time_control.startup_ms; "name" is required. "games":
        // "many": after game_over this process can play another game.
        send({ type: "ready", name: "random-js", author: "bao-referee", version: "0.1.0", games: "many" });
        break;
      case "move_request": {
        if (!Number.isSafeInteger(message.id) || !Array.isArray(message.legal) || message.legal.length === 0) {
          log(`a move_request without an integer id or a non-empty legal list: ${line}`);
          stop(1);
          return;
        }
        // Answer with the SAME id, or we lose (wrong_id).
        const move = chooseMove(message, below);
        send({ type: "move", id: message.id, move });
        break;
      }
      case "game_over":
        // Nothing to answer; a quit follows, or the next game's hello.
        log(`game over: ${message.result}`);
        break;
      case "quit":
        // Exit promptly (the referee waits 1 s, then stops us).
        stop(0);
        break;
      default:
        log(`ignoring a message of unknown type ${JSON.stringify(message.type)}`);
    }
  });
}

main();
