// Drives the server's live pages in headless Chromium (playwright-core from
// viewer/browser-tests, the system's Chromium), for server/tests/e2e/browser.rs.
//
//   node live_page.mjs live URL          waits for the game's end; prints the moves listed
//   node live_page.mjs shot URL FILE     a screenshot after 0.7 s; prints both clocks, the ticking side and
//                                      the page's ply every 50 ms for 1.5 s (`samples`)
//   node live_page.mjs wait URL EXPR [MS]  waits (30 s, or MS) until the JavaScript EXPR is true
//                                        on the page; prints the page's text then
//   node live_page.mjs site SPEC         for each page of SPEC (a JSON file: {"base", "dir", "widths",
//                                        "cookie": {"name", "value"}, "pages": [{"name", "path", "signed_in", "cookie"?}]})
//                                        at each width: a full-page screenshot DIR/NAME-WIDTHpx.png, and
//                                        (`pages`) the status, document.documentElement.scrollWidth, innerWidth and
//                                        the elements that scroll sideways inside the page (`sideways`), its
//                                        title and the viewer's result box (`result`, on the viewer's pages)
//
// Prints one JSON object, with the page's script errors (`errors`) and `navigations`: how often the page's main frame loaded (1 =
// it never reloaded). Exit codes: 0 done, 1 a wait timed out, 2 bad usage, 3 no browser.
import { createRequire } from "node:module";
import path from "node:path";

const [mode, url, arg] = process.argv.slice(2);
if (!mode || !url) {
  console.error("usage: node live_page.mjs live|shot|wait URL [FILE|EXPR]");
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
if (mode === "site") {
  process.exit(await site(url));
}
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
let navigations = 0;
page.on("framenavigated", (frame) => {
  if (frame === page.mainFrame()) navigations += 1;
});
const out = { errors: [] };
page.on("pageerror", (e) => out.errors.push(e.message));
let code = 0;
try {
  await page.goto(url);
  // The last ply the page held when it was served.
  out.rendered = await page.evaluate(() => {
    const cfg = document.getElementById("bao-live");
    return cfg ? JSON.parse(cfg.textContent).from : null;
  });
  if (mode === "live") {
    await page.waitForFunction(() => document.body.getAttribute("data-live-over") === "1", null, { timeout: 60000 });
    out.moves = await page.$$eval("#moves button.move .mv", (els) =>
      els.map((e) => e.textContent).filter((t) => t !== "start"));
    out.plies = await page.evaluate(() => document.body.getAttribute("data-live-plies"));
    out.status = await page.textContent("#live-status");
  } else if (mode === "shot") {
    await page.waitForTimeout(700);
    // Both clocks and the page's ply, every 50 ms for 1.5 s (a screenshot between).
    const sample = () => page.evaluate(() => ({
      clocks: ["S", "N"].map((s) => document.getElementById("clock-" + s).textContent),
      ticking: ["S", "N"].filter((s) => document.getElementById("clock-" + s).classList.contains("ticking")),
      plies: document.body.getAttribute("data-live-plies"),
      over: document.body.getAttribute("data-live-over") === "1",
    }));
    out.samples = [await sample()];
    await page.screenshot({ path: arg });
    for (let i = 0; i < 30; i++) {
      await page.waitForTimeout(50);
      out.samples.push(await sample());
    }
    out.over = out.samples[out.samples.length - 1].over;
  } else if (mode === "wait") {
    await page.waitForFunction(arg, null, { timeout: Number(process.argv[5] || 30000) });
    out.ok = true;
    out.text = await page.evaluate(() => document.body.innerText);
  } else {
    console.error("unknown mode " + mode);
    code = 2;
  }
} catch (e) {
  out.error = e.message;
  code = 1;
}
out.navigations = navigations;
console.log(JSON.stringify(out));
await browser.close();
process.exit(code);

// Every page of the site at every width, each in a fresh context (signed in where asked).
async function site(specFile) {
  const fs = await import("node:fs");
  const spec = JSON.parse(fs.readFileSync(specFile, "utf8"));
  const out = { pages: [], errors: [] };
  let code = 0;
  try {
    for (const width of spec.widths) {
      for (const p of spec.pages) {
        const context = await browser.newContext({ viewport: { width, height: 800 } });
        if (p.signed_in) {
          // A page may be seen with a session of its own (an administrator's), else the spec's.
          const cookie = p.cookie || spec.cookie;
          await context.addCookies([{ name: cookie.name, value: cookie.value, url: spec.base }]);
        }
        const page = await context.newPage();
        const errors = [];
        page.on("pageerror", (e) => errors.push(e.message));
        const response = await page.goto(spec.base + p.path, { waitUntil: "load" });
        // Fonts and the viewer's first layout settle.
        await page.waitForTimeout(300);
        const measured = await page.evaluate(() => {
          const sideways = [];
          for (const el of document.querySelectorAll("body *")) {
            const style = getComputedStyle(el);
            if ((style.overflowX === "auto" || style.overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1) {
              sideways.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
                (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : "") +
                " " + el.scrollWidth + ">" + el.clientWidth);
            }
          }
          return {
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            sideways,
            title: document.title,
            result: document.getElementById("result") ? document.getElementById("result").textContent : null,
          };
        });
        const file = path.join(spec.dir, `${p.name}-${width}px.png`);
        await page.screenshot({ path: file, fullPage: true });
        out.pages.push({ name: p.name, path: p.path, width, status: response ? response.status() : 0, file, errors, ...measured });
        await context.close();
      }
    }
  } catch (e) {
    out.error = e.message;
    code = 1;
  }
  console.log(JSON.stringify(out));
  await browser.close();
  return code;
}
