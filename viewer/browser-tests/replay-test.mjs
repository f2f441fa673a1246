// Drives the bao-viewer pages in headless Chromium (playwright-core, the system's Chromium).
//
//   node replay-test.mjs SPEC.json
//
// SPEC.json is written by viewer/tests/browser.rs: the pages to open, the expected count of
// every pit and hand at every ply (computed by bao-rules, not read from the page's data), and
// where to save screenshots. Exit codes: 0 all checks passed, 1 a check failed, 2 bad usage,
// 3 the browser could not be started. Every failed check is printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

if (process.argv.length !== 3) {
  console.error("usage: node replay-test.mjs SPEC.json");
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

function sameCounts(actual, expected) {
  const wrong = [];
  for (const [pit, n] of Object.entries(expected)) {
    if (actual[pit] !== n) wrong.push(`${pit}: page ${actual[pit]}, expected ${n}`);
  }
  if (Object.keys(actual).length !== Object.keys(expected).length) {
    wrong.push(`${Object.keys(actual).length} pits on the page, expected ${Object.keys(expected).length}`);
  }
  return wrong;
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bao-viewer-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 800 },
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

// The pages must be self-contained: any request that is not for a local file is a failure.
const external = [];
await context.route("**/*", (route) => {
  const url = route.request().url();
  if (url.startsWith("file:")) return route.continue();
  external.push(url);
  return route.abort();
});

const pageErrors = [];
const page = context.pages()[0] || (await context.newPage());
page.on("pageerror", (err) => pageErrors.push(String(err)));
page.on("console", (msg) => {
  if (msg.type() === "error") pageErrors.push("console: " + msg.text());
});

async function pitCounts() {
  return page.$$eval("[data-pit]", (els) =>
    Object.fromEntries(els.map((e) => [e.getAttribute("data-pit"), Number(e.getAttribute("data-seeds"))])),
  );
}

async function hands() {
  return page.evaluate(() => [
    Number(document.querySelector('[data-hand="S"]').textContent),
    Number(document.querySelector('[data-hand="N"]').textContent),
  ]);
}

async function shownPly() {
  return page.evaluate(() => Number(document.querySelector("[data-ply]").getAttribute("data-ply")));
}

async function waitForPly(n, what) {
  try {
    await page.waitForFunction(
      (n) => {
        const e = document.querySelector("[data-ply]");
        const board = document.querySelector("#board");
        return e && e.getAttribute("data-ply") === String(n) && !board.hasAttribute("data-animating");
      },
      n,
      { timeout: 15000 },
    );
    return true;
  } catch (err) {
    check(false, `${what}: the page never showed ply ${n} (it shows ${await shownPly()})`);
    return false;
  }
}

async function expectBoard(replay, n, what) {
  const wrong = sameCounts(await pitCounts(), replay.boards[n].pits);
  check(wrong.length === 0, `${what}: pits at ply ${n} differ: ${wrong.slice(0, 6).join("; ")}`);
  const h = await hands();
  const eh = replay.boards[n].hands;
  check(h[0] === eh[0] && h[1] === eh[1], `${what}: hands at ply ${n} are ${h}, expected ${eh}`);
}

async function screenshot(name) {
  const file = path.join(spec.screenshots, name);
  await page.screenshot({ path: file, fullPage: true });
  console.log("screenshot " + file);
}

fs.mkdirSync(spec.screenshots, { recursive: true });

try {
  // ---- the first replay: stepping with the keyboard -------------------------------------
  const game = spec.replays[0];
  const last = game.boards.length - 1;
  await page.goto(pathToFileURL(game.file).href);
  await page.waitForSelector("[data-pit]");
  check((await page.$$("[data-pit]")).length === 32, "the board has 32 pits");
  check((await shownPly()) === 0, "the replay opens at ply 0");
  await expectBoard(game, 0, "start");
  const title = await page.title();
  check(title.includes(game.south) && title.includes(game.north), `the title names both bots: ${title}`);

  await page.keyboard.press("End");
  if (await waitForPly(last, "End")) await expectBoard(game, last, "End");
  const resultText = await page.textContent("#result");
  check(resultText.includes(game.reason), `the result names its reason ${game.reason}: ${resultText}`);
  await screenshot("replay-desktop-end.png");

  await page.keyboard.press("ArrowLeft");
  if (await waitForPly(last - 1, "ArrowLeft")) await expectBoard(game, last - 1, "ArrowLeft");

  await page.keyboard.press("Home");
  if (await waitForPly(0, "Home")) await expectBoard(game, 0, "Home");
  await screenshot("replay-desktop-start.png");

  // A click in the move list jumps to that ply.
  const mid = Math.floor(last / 2);
  await page.click(`[data-goto="${mid}"]`);
  if (await waitForPly(mid, "click on a move")) await expectBoard(game, mid, "click on a move");
  const current = await page.getAttribute(`[data-goto="${mid}"]`, "aria-current");
  check(current === "true", "the clicked move is marked current");
  await screenshot("replay-desktop-mid.png");

  // Stepping forward animates the ply's steps, then shows its recorded position.
  await page.selectOption("#speed", "16");
  await page.evaluate(() => {
    window.__sawAnimation = false;
    const board = document.querySelector("#board");
    new MutationObserver(() => {
      if (board.hasAttribute("data-animating")) window.__sawAnimation = true;
    }).observe(board, { attributes: true });
  });
  await page.keyboard.press("ArrowRight");
  if (await waitForPly(mid + 1, "ArrowRight")) await expectBoard(game, mid + 1, "ArrowRight (animated)");
  check(await page.evaluate(() => window.__sawAnimation), "stepping forward animated the sowing");

  // A second ArrowRight during an animation finishes it at the recorded position.
  const big = game.biggest_capture;
  await page.click(`[data-goto="${big - 1}"]`);
  await waitForPly(big - 1, "before the biggest capture");
  await page.selectOption("#speed", "1");
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector("#board[data-animating]");
  await page.waitForTimeout(1500); // only so that the screenshot shows seeds on their way
  await screenshot("replay-desktop-animating.png");
  await page.keyboard.press("ArrowRight");
  if (await waitForPly(big, "ArrowRight during the animation")) {
    await expectBoard(game, big, "ArrowRight during the animation");
  }
  await page.selectOption("#speed", "16");

  // Play from the start, pause, and the position shown is a recorded one.
  await page.keyboard.press("Home");
  await waitForPly(0, "Home before play");
  await page.keyboard.press(" ");
  try {
    await page.waitForFunction(() => Number(document.querySelector("[data-ply]").getAttribute("data-ply")) >= 3, null, {
      timeout: 30000,
    });
  } catch (err) {
    check(false, "play never reached ply 3");
  }
  await page.keyboard.press(" ");
  const paused = await shownPly();
  await page.waitForFunction(() => !document.querySelector("#board").hasAttribute("data-animating"));
  check(paused >= 3, `paused at ply ${paused}`);
  await expectBoard(game, await shownPly(), "after play/pause");
  check(
    (await page.getAttribute("#btn-play", "aria-label")) === "play",
    "the play button reads play again after pausing",
  );

  // Dark scheme and a phone-sized screen.
  await page.keyboard.press("End");
  await waitForPly(last, "End before dark");
  await page.click(`[data-goto="${mid}"]`);
  await waitForPly(mid, "mid before dark");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot("replay-desktop-dark.png");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 360, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  check(overflow <= 360, `the replay fits 360 px without horizontal scrolling (scrollWidth ${overflow})`);
  await screenshot("replay-360.png");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot("replay-360-dark.png");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });

  // ---- the second replay: hostile names stay text ----------------------------------------
  const hostile = spec.replays[1];
  await page.goto(pathToFileURL(hostile.file).href);
  await page.waitForSelector("[data-pit]");
  check((await page.evaluate(() => window.__pwned)) === undefined, "no script from a name ran");
  check((await page.$$("img")).length === 0, "no element from a name was created");
  check(await page.$eval("#back-link", (e) => e.hidden && !e.hasAttribute("href")), "a back link with a scheme is not shown");
  check((await page.textContent("#name-S")) === hostile.south, "South's name is shown as text, unchanged");
  check((await page.textContent("#title")) === hostile.title, "the title is shown as text, unchanged");
  await page.keyboard.press("End");
  const hostileLast = hostile.boards.length - 1;
  if (await waitForPly(hostileLast, "End (hostile)")) await expectBoard(hostile, hostileLast, "End (hostile)");

  // ---- the third replay: no plies yet, takasia on a6 -------------------------------------
  const waiting = spec.replays[2];
  await page.goto(pathToFileURL(waiting.file).href);
  await page.waitForSelector("[data-pit]");
  await expectBoard(waiting, 0, "a game without plies");
  check(await page.$eval('[data-pit="a6"]', (e) => e.classList.contains("takasia")), "a6 is marked as under takasia");
  check((await page.$$(".pit.nyumba")).length === 0, "no nyumba is marked when neither is owned");
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press(" ");
  check((await shownPly()) === 0, "stepping in a game without plies stays at ply 0");
  check((await page.textContent("#result")).includes("in progress"), "an unfinished game says so");
  // The live API: a viewer at the last ply follows a pushed ply.
  const added = await page.evaluate((ply) => window.baoReplay.addPly(ply), spec.live.ply);
  check(added === true, "addPly accepts a ply");
  check((await page.evaluate(() => window.baoReplay.addPly({ number: 2 }))) === false, "addPly refuses a ply without a position");
  if (await waitForPly(1, "addPly")) {
    await expectBoard({ boards: [null, spec.live.board] }, 1, "addPly");
  }
  await page.evaluate(() => window.baoReplay.setResult({ winner: "N", reason: "time_forfeit", detail: "S ran out of time" }));
  check((await page.textContent("#result")).includes("time_forfeit"), "setResult shows the result");
  await page.keyboard.press("Home");
  await waitForPly(0, "Home after addPly");
  await page.setViewportSize({ width: 360, height: 800 });
  await screenshot("replay-360-takasia.png");
  await page.setViewportSize({ width: 1280, height: 800 });

  // ---- a log page (a tournament's): the log embedded, script and style shared -------------
  const logPage = spec.log_page;
  await page.goto(pathToFileURL(logPage.file).href);
  await page.waitForSelector("[data-pit]");
  check((await page.evaluate(() => window.__pwned)) === undefined, "log page: no script from the log ran");
  check((await page.$$("img")).length === 0, "log page: no element from the log was created");
  check((await page.textContent("#name-S")) === logPage.south, "log page: South's name from the log, as text");
  check((await page.textContent("#title")) === logPage.title, "log page: the title, as text");
  check((await page.getAttribute("#back-link", "href")) === "../index.html", "log page: the link back");
  check((await page.textContent("#result")).includes(logPage.reason), "log page: the result from the log");
  await expectBoard(logPage, 0, "log page start");
  check(await page.$eval("#animate", (e) => e.disabled && !e.checked), "log page: no sowing animation offered");
  const logLast = logPage.boards.length - 1;
  await page.keyboard.press("End");
  if (await waitForPly(logLast, "log page End")) await expectBoard(logPage, logLast, "log page End");
  await page.keyboard.press("ArrowLeft");
  if (await waitForPly(logLast - 1, "log page ArrowLeft")) await expectBoard(logPage, logLast - 1, "log page ArrowLeft");
  // Every ply, stepped forward from the start (shown at once: a log has no sowing steps).
  await page.keyboard.press("Home");
  await waitForPly(0, "log page Home");
  let stepped = 0;
  for (let n = 1; n <= logLast; n++) {
    await page.keyboard.press("ArrowRight");
    if (!(await waitForPly(n, "log page ArrowRight"))) break;
    const wrong = sameCounts(await pitCounts(), logPage.boards[n].pits);
    if (wrong.length > 0) {
      check(false, `log page: pits at ply ${n} differ: ${wrong.slice(0, 6).join("; ")}`);
      break;
    }
    stepped = n;
  }
  check(stepped === logLast, `log page: all ${logLast} plies stepped through with the expected pits`);
  check((await page.textContent("#ply-info")).includes(spec.log_page_comment), "log page: a bot's info comment, as text");
  await screenshot("replay-log-page.png");

  // ---- the tournament index: follow a link to a replay -----------------------------------
  await page.goto(pathToFileURL(spec.index).href);
  await page.waitForSelector("a[data-replay]");
  await screenshot("index-desktop.png");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot("index-desktop-dark.png");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 360, height: 800 });
  await screenshot("index-360.png");
  await page.setViewportSize({ width: 1280, height: 800 });
  await Promise.all([page.waitForURL("**/" + spec.link_target), page.click(`a[data-replay="${spec.link_id}"]`)]);
  await page.waitForSelector("[data-pit]");
  check((await shownPly()) === 0, "the linked replay opens at ply 0");
  await expectBoard(game, 0, "replay opened from the index");
  const back = await page.getAttribute("#back-link", "href");
  check(back === "../index.html", `the replay links back to the index: ${back}`);
  await Promise.all([page.waitForURL("**/index.html"), page.click("#back-link")]);
  check((await page.$$("a[data-replay]")).length === spec.index_links, "back on the index");
} catch (err) {
  check(false, "the test stopped: " + (err && err.stack ? err.stack : err));
} finally {
  await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}

check(external.length === 0, "requests outside the files: " + external.join(", "));
check(pageErrors.length === 0, "script errors in the page: " + pageErrors.join(" | "));
console.log(`${checks} checks, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
