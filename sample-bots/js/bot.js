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

"use strict";

const readline = require("node:readline");

const PROTOCOL_VERSION = 1;

// --- Diagnostics: stderr only. ---------------------------------------------
function log(...parts) {
  console.error("bot.js:", ...parts);
}

// --- Sending: one compact JSON line. -----------------------------------------
// JSON.stringify never writes a raw newline (newlines inside strings become
// \n), so one message is always one line. When stdout is a pipe, as under the
// referee, Node writes to it synchronously on Linux and macOS: the line has left
// the process when write() returns, so there is nothing more to flush.
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
function parseSeed(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--seed") {
      const text = argv[i + 1];
      if (text === undefined || !/^\d+$/.test(text)) {
        log(`--seed needs a whole number, got ${JSON.stringify(text)}`);
        process.exit(2);
      }
      return Number(BigInt(text) % 0x100000000n);
    }
    log(`unknown argument ${JSON.stringify(argv[i])} (usage: bot.js [--seed N])`);
    process.exit(2);
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
  log(`seed ${seed}`);
  const below = makeRandom(seed);

  const input = readline.createInterface({ input: process.stdin, terminal: false });

  // End of input (the referee closed our stdin): exit quietly.
  input.on("close", () => process.exit(0));

  input.on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      log(`the referee sent a line that is not JSON: ${error.message}`);
      process.exit(1);
    }
    // Later protocol versions may add fields: read only those we need.
    switch (message.type) {
      case "hello":
        if (message.protocol !== PROTOCOL_VERSION) {
          log(`unsupported protocol version ${message.protocol}`);
          process.exit(1);
        }
        log(`playing ${message.side} in ${message.variant}`);
        // Answer within time_control.startup_ms; "name" is required.
        send({ type: "ready", name: "random-js", author: "bao-referee", version: "0.1.0" });
        break;
      case "move_request": {
        // Answer with the SAME id, or we lose (wrong_id).
        const move = chooseMove(message, below);
        send({ type: "move", id: message.id, move });
        break;
      }
      case "game_over":
        // Nothing to answer; a quit follows.
        log(`game over: ${message.result}`);
        break;
      case "quit":
        // Exit promptly (the referee waits 1 s, then stops us).
        process.exit(0);
        break;
      default:
        log(`ignoring a message of unknown type ${JSON.stringify(message.type)}`);
    }
  });
}

main();
