// Drives the HTML report in headless Chromium through its DOM, for
// tests/html.rs: `node check.mjs JOB.json`, printing one JSON object.
//
// JOB: { "page": path, "script": bool, "checks": [...], "shot": path|null,
//        "ids": [...], "texts": [...] }
// checks: "interact" (filter, search, sort), "visible" (ids and texts
// in the rendered text), "load" (timings).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const browser = await chromium.launch({
  executablePath: job.chromium || "/usr/bin/chromium",
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND",
  ],
});
const out = { requests: [], console: [], errors: [] };
try {
  const context = await browser.newContext({
    javaScriptEnabled: job.script,
    viewport: { width: 1200, height: 900 },
  });
  const page = await context.newPage();
  const url = pathToFileURL(job.page).href;
  page.on("request", (r) => { if (r.url() !== url) out.requests.push(r.url()); });
  page.on("console", (m) => out.console.push(m.type() + ": " + m.text()));
  page.on("pageerror", (e) => out.errors.push(String(e)));
  const started = Date.now();
  await page.goto(url, { waitUntil: "load", timeout: 120000 });
  out.load_ms = Date.now() - started;
  out.nav = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return { dom_content_loaded_ms: n.domContentLoadedEventEnd, load_ms: n.loadEventEnd };
  });
  // The first frame after the load: the page is on screen.
  const painted = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  out.first_frame_ms = out.load_ms + (Date.now() - painted);
  out.controls_shown = await page.evaluate(() => {
    const c = document.getElementById("controls");
    return !!c && !c.hidden && getComputedStyle(c).display !== "none";
  });
  out.script_elements = await page.evaluate(() => document.scripts.length);
  if (job.checks.includes("visible")) {
    const text = await page.evaluate(() => document.body.innerText);
    out.missing_ids = job.ids.filter((id) => !text.includes(id));
    out.missing_texts = job.texts.filter((t) => !text.includes(t));
  }
  if (job.checks.includes("interact")) out.interact = await interact(page);
  if (job.shot) await page.screenshot({ path: job.shot, fullPage: true });
} catch (e) {
  out.errors.push(String(e && e.stack || e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");

// Filter, search and sort as a reader would, reporting what the DOM shows.
async function interact(page) {
  const shownRows = () => page.evaluate(() =>
    Array.from(document.querySelectorAll("#files tr")).map((tr) => ({
      o: tr.className,
      id: tr.closest("details.file").querySelector("summary code").textContent
        + "::" + tr.cells[0].firstChild.textContent,
      shown: getComputedStyle(tr).display !== "none"
        && getComputedStyle(tr.closest("details.file")).display !== "none",
    })));
  const r = {};
  r.initial = await shownRows();
  let t = Date.now();
  await page.uncheck("input[name=o][value=p]");
  await page.waitForFunction(() => /shown/.test(document.getElementById("shown").textContent));
  r.no_passed = await shownRows();
  r.no_passed_ms = Date.now() - t;
  r.no_passed_status = await page.textContent("#shown");
  await page.check("input[name=o][value=p]");
  await page.uncheck("input[name=o][value=f]");
  await page.uncheck("input[name=o][value=e]");
  r.no_failures = await shownRows();
  await page.check("input[name=o][value=f]");
  await page.check("input[name=o][value=e]");
  t = Date.now();
  await page.fill("#q", job.search);
  await page.waitForFunction((q) => {
    const s = document.getElementById("shown").textContent;
    return window.__q !== s && /shown/.test(s);
  }, job.search);
  await page.waitForTimeout(300);
  r.search = await shownRows();
  r.search_ms = Date.now() - t;
  r.search_open = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#files details.file"))
      .filter((d) => !d.hidden).every((d) => d.open));
  await page.fill("#q", "");
  await page.waitForTimeout(300);
  r.cleared = await shownRows();
  t = Date.now();
  await page.selectOption("#sort", "duration");
  r.sort_ms = Date.now() - t;
  r.by_duration = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#files tbody")).map((b) =>
      Array.from(b.rows).map((tr) => parseFloat(tr.cells[2].textContent) || 0)));
  r.file_max_durations = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#files details.file")).map((d) =>
      Math.max(0, ...Array.from(d.querySelectorAll("tr")).map((tr) => parseFloat(tr.cells[2].textContent) || 0))));
  await page.selectOption("#sort", "name");
  r.by_name = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#files tbody")).map((b) =>
      Array.from(b.rows).map((tr) => tr.cells[0].textContent)));
  return r;
}
