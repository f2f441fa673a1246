// A game between friends on the server's /play, in headless Chromium (playwright-core from
// viewer/browser-tests, the system's Chromium), for server/tests/e2e/play.rs: the first
// browser context starts the game by URL and reads the share link ([data-share-link]); a
// second context opens it and takes the other seat; they play by clicking [data-move] until
// the game is over, the friend reloading mid-game; a third context opening the link watches.
//
//   node play_friend.mjs NEW-GAME-URL SCREENSHOT-DIR
//
// Prints one JSON object: {token, moves: {S, N}, reloaded, failures}. Exit codes: 0 done (the
// failures listed), 2 bad usage, 3 no browser.
import { createRequire } from "node:module";
import path from "node:path";

const [newGame, shots] = process.argv.slice(2);
if (!newGame || !shots) {
  console.error("usage: node play_friend.mjs NEW-GAME-URL SCREENSHOT-DIR");
  process.exit(2);
}
const driverDir = process.env.BAO_PLAYWRIGHT_DIR || path.join(import.meta.dirname, "../../../viewer/browser-tests");
const { chromium } = createRequire(path.join(driverDir, "package.json"))("playwright-core");
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.BAO_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  });
} catch (e) {
  console.error("the browser could not be started: " + e.message);
  process.exit(3);
}
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
};
const out = { moves: { S: 0, N: 0 }, reloaded: false };
const errors = [];
try {
  const a = await (await browser.newContext({ viewport: { width: 360, height: 740 } })).newPage();
  const b = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  for (const p of [a, b]) p.on("pageerror", (e) => errors.push(e.message));
  await a.goto(newGame);
  const link = await a.getAttribute("[data-share-link]", "data-share-link", { timeout: 20000 });
  check(link && link === a.url(), `the share link ${link} is the game's address ${a.url()}`);
  out.token = a.url().split("/").pop();
  await b.goto(link);
  await b.waitForSelector("body[data-state='playing']", { timeout: 20000 });
  const seats = await Promise.all([a, b].map((p) => p.evaluate(() => JSON.parse(document.getElementById("bao-play-config").textContent).you)));
  check(seats[0] === "S" && seats[1] === "N", `the starter sits South, the friend North: ${seats}`);
  for (const p of [a, b]) await p.selectOption("#speed", "16");
  const side = { S: a, N: b };
  let turn = "S";
  for (let n = 0; n < 400; n++) {
    const page = side[turn];
    const state = await page.waitForFunction(
      () => (document.body.getAttribute("data-state") === "finished" ? "finished" : document.querySelector("[data-move]") ? "move" : null),
      null,
      { timeout: 30000, polling: 50 },
    ).then((h) => h.jsonValue());
    if (state === "finished") break;
    // The other page offers no move meanwhile.
    const other = side[turn === "S" ? "N" : "S"];
    check((await other.$$("[data-move]")).length === 0, `move ${n + 1}: only ${turn} is offered moves`);
    const buttons = await page.$$("[data-move]");
    await buttons[Math.floor(Math.random() * buttons.length)].click();
    out.moves[turn] += 1;
    await page.waitForFunction(() => document.querySelectorAll("[data-move]").length === 0, null, { timeout: 20000 });
    if (turn === "N" && out.moves.N === 3 && !out.reloaded) {
      // The friend reloads mid-game: the seat comes back (its cookie), with every ply.
      const before = await b.evaluate(() => window.baoReplay.plyCount());
      await b.reload();
      await b.waitForSelector("body[data-state='playing'], body[data-state='finished']", { timeout: 20000 });
      await b.selectOption("#speed", "16");
      await b.waitForFunction((n) => window.baoReplay.plyCount() >= n, before, { timeout: 20000 });
      const you = await b.evaluate(() => JSON.parse(document.getElementById("bao-play-config").textContent).you);
      check(you === "N", `after the reload the friend still sits North (${you})`);
      out.reloaded = true;
    }
    // A move can end a turn's sequence only when the other side moves next (Bao has no passes).
    turn = turn === "S" ? "N" : "S";
  }
  for (const p of [a, b]) {
    await p.waitForSelector("body[data-state='finished']", { timeout: 30000 });
    const status = await p.textContent("#play-status");
    check(/Game over\. (South|North) wins|Game over\. Draw/.test(status), `the result in words: ${status}`);
  }
  await a.screenshot({ path: path.join(shots, "friend-360-finished.png"), fullPage: true });
  const width = await a.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(width[0] <= width[1], `no sideways scrolling at 360 px: ${width}`);
  // A third visitor watches: no seat, no move, no resignation.
  const c = await (await browser.newContext()).newPage();
  await c.goto(link);
  await c.waitForSelector("body[data-state='finished'], body[data-state='playing']", { timeout: 20000 });
  const watching = await c.evaluate(() => JSON.parse(document.getElementById("bao-play-config").textContent).watching === true);
  check(watching, "a third visitor watches");
  check((await c.$$("[data-move]")).length === 0, "a watcher is offered no move");
} catch (e) {
  failures.push("the test stopped: " + (e && e.stack ? e.stack : e));
}
check(errors.length === 0, "script errors: " + errors.join(" | "));
out.failures = failures;
await browser.close();
console.log(JSON.stringify(out));
