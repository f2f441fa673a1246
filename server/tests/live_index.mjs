// Drives /live's pages in headless Chromium (playwright-core from viewer/browser-tests, the
// system's Chromium), for server/tests/live_index.rs:
//
//   node live_index.mjs BASE
//
// Opens BASE/live?page=2 and waits for its script's first snapshot; prints a line of JSON
// (`loaded`: the games listed and the pager's text) and waits for a line on stdin (the test then
// starts and ends games); waits until the page has redrawn itself (a newest game pushed one
// game from page 1 onto page 2, an ended game gone), then follows the pager's "Older" link and
// its "Newer" link back. Prints a last line of JSON: each step's games listed, pager text and
// address, the page's script errors. Exit codes: 0 done, 1 a step failed, 3 no browser.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const base = process.argv[2];
const driverDir = process.env.BAO_PLAYWRIGHT_DIR || path.join(import.meta.dirname, "../../viewer/browser-tests");
const { chromium } = createRequire(path.join(driverDir, "package.json"))("playwright-core");
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.BAO_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
} catch (e) {
  console.error("the browser could not be started: " + e.message);
  process.exit(3);
}
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
// The test has gone (it failed): so does the driver, with its browser.
lines.on("close", async () => {
  await browser.close();
  process.exit(1);
});
const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
const out = { errors: [] };
page.on("pageerror", (e) => out.errors.push(e.message));
const state = () => page.evaluate(() => ({
  games: [...document.querySelectorAll("#live-games tr[data-game]")].map((tr) => Number(tr.dataset.game)),
  pager: document.querySelector("#live-pager nav.pager span")?.textContent ?? null,
  url: location.pathname + location.search,
}));
let code = 0;
try {
  await page.goto(base + "/live?page=2");
  // The script's first drawing, from the stream's snapshot.
  await page.waitForSelector("#live-games[data-drawn]", { timeout: 20000 });
  out.loaded = await state();
  console.log(JSON.stringify({ loaded: out.loaded }));
  await nextLine();
  await page.waitForFunction(() => {
    const first = document.querySelector("#live-games tr[data-game]");
    return first && first.dataset.game === "71" && !document.querySelector('#live-games tr[data-game="30"]');
  }, null, { timeout: 20000 });
  out.redrawn = await state();
  await Promise.all([page.waitForURL(/page=3$/), page.click('#live-pager a[rel="next"]')]);
  await page.waitForTimeout(300);
  out.older = await state();
  await Promise.all([page.waitForURL(/page=2$/), page.click('#live-pager a[rel="prev"]')]);
  await page.waitForTimeout(300);
  out.newer = await state();
} catch (e) {
  out.error = e.message;
  code = 1;
}
console.log(JSON.stringify(out));
lines.removeAllListeners("close");
lines.close();
await browser.close();
process.exit(code);
