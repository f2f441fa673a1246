// A person plays a whole game of Bao in headless Chromium (playwright-core, the system's
// Chromium) through `bao-referee play`, by clicking the elements that carry `data-move`, on a
// 360 px wide phone screen; reloads the page mid-game and checks the game resumes; checks
// nothing scrolls sideways at 360 px; keeps screenshots at 360 px and 1280 px.
//
//   node play-test.mjs SPEC.json
//
// SPEC.json is written by tests/e2e/play/browser.rs: {"url", "screenshots", "reload_after"}.
// Exit codes: 0 all checks passed, 1 a check failed, 2 bad usage, 3 the browser could not be
// started. Every failed check is printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

if (process.argv.length !== 3) {
  console.error("usage: node play-test.mjs SPEC.json");
  process.exit(2);
}
const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const executablePath = process.env.BAO_CHROMIUM || "/usr/bin/chromium";
const failures = [];
let checks = 0;

function check(ok, message) {
  checks += 1;
  if (!ok) {
    failures.push(message);
    console.log("FAIL " + message);
  }
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bao-play-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 360, height: 740 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
} catch (err) {
  console.error(`cannot start Chromium (${executablePath}): ${err && err.message ? err.message : err}`);
  fs.rmSync(userDataDir, { recursive: true, force: true });
  process.exit(3);
}

// Only the game's own server: anything else is a failure.
const origin = new URL(spec.url).origin;
const external = [];
await context.route("**/*", (route) => {
  const url = route.request().url();
  if (url.startsWith(origin)) return route.continue();
  external.push(url);
  return route.abort();
});
const pageErrors = [];
fs.mkdirSync(spec.screenshots, { recursive: true });

// Records whether the board ever animated a sowing (the viewer sets data-animating).
await context.addInitScript(() => {
  window.__animated = 0;
  document.addEventListener("DOMContentLoaded", () => {
    const board = document.getElementById("board");
    if (!board) return;
    new MutationObserver(() => {
      if (board.getAttribute("data-animating") === "true") window.__animated += 1;
    }).observe(board, { attributes: true, attributeFilter: ["data-animating"] });
  });
});

async function noSidewaysScroll(page, when) {
  const widths = await page.evaluate(() => {
    // The elements that stick out, innermost first, to say what to fix.
    const over = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${[...e.classList].join(".")}`)
      .reverse()
      .slice(0, 5);
    return [document.documentElement.scrollWidth, window.innerWidth, over.join(", ")];
  });
  check(widths[0] <= widths[1], `${when}: the page is ${widths[0]} px wide in a ${widths[1]} px window (${widths[2]})`);
}

// Waits until the person may move or the game is over; "move" or "finished".
async function nextTurn(page) {
  const handle = await page.waitForFunction(
    () => {
      if (document.body.getAttribute("data-state") === "finished") return "finished";
      return document.querySelector("[data-move]") ? "move" : null;
    },
    null,
    { timeout: 30000, polling: 50 },
  );
  return handle.jsonValue();
}

async function plyCount(page) {
  return page.evaluate(() => window.baoReplay.plyCount());
}

try {
  const page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(spec.url);
  await page.waitForSelector("body[data-state='playing']", { timeout: 20000 });
  check(true, "the page connects and plays");
  // The sowing is animated at the page's fastest speed, to keep the test short.
  await page.selectOption("#speed", "16");

  let moves = 0;
  let reloaded = false;
  let sawMarkedPit = false;
  let pitClicks = 0;
  let singleOffered = 0; // pit-click turns that had a pit with one move
  for (;;) {
    const state = await nextTurn(page);
    if (state === "finished") break;
    // Once the sowing of the last ply is drawn, the board shows the position the person moves in.
    const shown = await page.waitForFunction(
      () => {
        const n = window.baoReplay.plyCount();
        return Number(document.getElementById("ply-number").getAttribute("data-ply")) === n ? n : null;
      },
      null,
      { timeout: 20000, polling: 50 },
    ).then((h) => h.jsonValue(), () => null);
    check(shown !== null, `move ${moves + 1}: the board shows the last ply`);
    // The marked pits are the ones the legal moves start from.
    const marks = await page.evaluate(() => {
      const you = JSON.parse(document.getElementById("bao-play-config").textContent).you;
      const from = [...document.querySelectorAll("[data-move]")].map((b) => {
        const m = b.getAttribute("data-move");
        return you === "N" ? m.charAt(0).toLowerCase() + m.charAt(1) : m.slice(0, 2);
      });
      const marked = [...document.querySelectorAll(".pit.can-start")].map((p) => p.getAttribute("data-pit"));
      return { from: [...new Set(from)].sort(), marked: marked.sort() };
    });
    check(JSON.stringify(marks.from) === JSON.stringify(marks.marked), `marked pits ${marks.marked} are the legal moves' ${marks.from}`);
    sawMarkedPit = sawMarkedPit || marks.marked.length > 0;
    const buttons = await page.$$("[data-move]");
    let choice = buttons[Math.floor(Math.random() * buttons.length)];
    const before = await plyCount(page);
    if (moves % 2 === 1) {
      // Every other move by its pit: a pit with one move plays it; a pit with several picks
      // out its moves in the list, and one of those is clicked.
      // The moves from each marked pit; a pit with one move when there is one (every fourth
      // move a pit with several when there is one).
      const byPit = await page.evaluate(() => {
        const you = JSON.parse(document.getElementById("bao-play-config").textContent).you;
        const out = {};
        for (const b of document.querySelectorAll("[data-move]")) {
          const m = b.getAttribute("data-move");
          const pit = you === "N" ? m.charAt(0).toLowerCase() + m.charAt(1) : m.slice(0, 2);
          (out[pit] = out[pit] || []).push(m);
        }
        return out;
      });
      const pits = Object.keys(byPit);
      const single = pits.filter((p) => byPit[p].length === 1);
      const several = pits.filter((p) => byPit[p].length > 1);
      const pool = moves % 4 === 3 && several.length ? several : single.length ? single : pits;
      const pitName = pool[Math.floor(Math.random() * pool.length)];
      const fromPit = byPit[pitName];
      // Counted only when a pit with one move was the pick (every fourth move a pit with
      // several is picked on purpose: a short game may have no other pit turn).
      if (pool === single) singleOffered += 1;
      await page.click(`.pit[data-pit="${pitName}"]`);
      if (fromPit.length > 1) {
        const picked = await page.$$eval(".legal-move.picked", (bs) => bs.map((b) => b.getAttribute("data-move")));
        check(JSON.stringify(picked.sort()) === JSON.stringify([...fromPit].sort()), `a click on ${pitName} picks out its moves ${fromPit}: ${picked}`);
        choice = await page.$(".legal-move.picked");
      } else {
        choice = null; // played by the pit's click
        pitClicks += 1;
      }
    }
    if (choice) await choice.click();
    moves += 1;
    // While the sowing is animated (the seeds in hand float over the board), nothing may stick
    // out of a 360 px screen either.
    for (let i = 0; i < 4; i++) {
      await page.waitForTimeout(40);
      await noSidewaysScroll(page, `animating move ${moves} at 360 px`);
    }
    // The move is played by the referee: a ply with that move appears.
    await page.waitForFunction((n) => window.baoReplay.plyCount() > n, before, { timeout: 20000 });
    if (moves === 1) {
      await page.screenshot({ path: path.join(spec.screenshots, "play-360-playing.png"), fullPage: true });
      await noSidewaysScroll(page, "playing at 360 px");
    }
    if (moves === spec.reload_after && !reloaded) {
      // Reload mid-game: the page comes back with every ply and the game goes on.
      await page.waitForFunction((n) => window.baoReplay.plyCount() > n + 1 || document.body.getAttribute("data-state") === "finished", before, { timeout: 20000 });
      const plies = await plyCount(page);
      await page.reload();
      await page.waitForSelector("body[data-state='playing'], body[data-state='finished']", { timeout: 20000 });
      await page.selectOption("#speed", "16");
      const after = await plyCount(page);
      check(after >= plies, `after the reload the page has ${after} plies, before ${plies}`);
      reloaded = true;
    }
    if (moves > 400) {
      check(false, "the game did not end in 400 moves");
      break;
    }
  }
  check(reloaded, `the page was reloaded mid-game (after ${spec.reload_after} moves; ${moves} played)`);
  check(sawMarkedPit, "pits were marked");
  check(pitClicks > 0 || singleOffered === 0, `moves were played by clicking their pit (${pitClicks} of ${singleOffered})`);
  check(moves >= 2, `the person played ${moves} moves`);
  const animated = await page.evaluate(() => window.__animated);
  check(animated > 0, `the sowing was animated (${animated} times after the reload)`);
  const status = await page.textContent("#play-status");
  check(/Game over\. (South|North) wins|Game over\. Draw/.test(status), `the result in words: ${status}`);
  check((await page.$$("[data-move]")).length === 0, "no move is offered after the end");
  const listed = await page.$$eval("#moves li", (items) => items.length);
  check(listed === (await plyCount(page)) + 1, `the move list shows every ply (${listed} entries)`);
  const lastShown = await page.waitForFunction(
    () => Number(document.getElementById("ply-number").getAttribute("data-ply")) === window.baoReplay.plyCount(),
    null,
    { timeout: 20000, polling: 50 },
  ).then(() => true, () => false);
  check(lastShown, "at the end the board shows the final position");
  check((await page.$$("#resign:not([hidden])")).length === 0 && !(await page.isVisible("#resign")), "no resign button after the end");
  await noSidewaysScroll(page, "finished at 360 px");
  await page.screenshot({ path: path.join(spec.screenshots, "play-360-finished.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(spec.screenshots, "play-1280-finished.png"), fullPage: true });
  await noSidewaysScroll(page, "finished at 1280 px");
  fs.writeFileSync(path.join(spec.screenshots, "moves.txt"), `${moves}\n`);
  // Where the game ended up (a game started by a URL is redirected to its page).
  fs.writeFileSync(path.join(spec.screenshots, "url.txt"), `${page.url()}\n`);
} catch (err) {
  check(false, "the test stopped: " + (err && err.stack ? err.stack : err));
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

check(external.length === 0, "requests outside the game's server: " + external.join(", "));
check(pageErrors.length === 0, "script errors in the page: " + pageErrors.join(" | "));
console.log(`${checks} checks, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
