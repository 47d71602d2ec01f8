// Drives the HTML report in headless Chromium through its DOM, for
// tests/html.rs: `node check.mjs JOB.json`, printing one JSON object.
//
// JOB: { "page": path, "script": bool, "checks": [...], "shot": path|null,
//        "ids": [...], "texts": [...], "search": text, "search_count": n,
//        "dark": bool }
// checks: "interact" (filter, search, sort), "visible" (ids and texts
// in the rendered text), "print" (what printing shows), "history" (the
// trend's chart and the failures' strips as drawn: sizes and computed
// colours); load timings always. `dark`: the page is shown in the dark
// colour scheme.
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
    colorScheme: job.dark ? "dark" : "light",
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
  if (job.script) {
    // The first frame after the load: the page is on screen. (Without
    // scripts no frame callback runs.)
    const painted = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    out.first_frame_ms = out.load_ms + (Date.now() - painted);
  }
  out.controls_shown = await page.evaluate(() => {
    const c = document.getElementById("controls");
    return !!c && !c.hidden && getComputedStyle(c).display !== "none";
  });
  out.script_elements = await page.evaluate(() => document.scripts.length);
  if (job.checks.includes("visible")) {
    // What is rendered, spaces collapsed as HTML collapses them.
    const squash = (t) => t.replace(/\s+/g, " ");
    const text = squash(await page.evaluate(() => document.body.innerText));
    out.missing_ids = job.ids.filter((id) => !text.includes(squash(id)));
    out.missing_texts = job.texts.filter((t) => !text.includes(squash(t)));
  }
  if (job.checks.includes("history")) out.history = await history(page);
  if (job.shot) await page.screenshot({ path: job.shot, fullPage: true });
  if (job.checks.includes("interact")) out.interact = await interact(page);
  if (job.checks.includes("print")) {
    // Printed: every row and every failure shown, no controls.
    await page.emulateMedia({ media: "print" });
    out.print = await page.evaluate(() => ({
      rows: document.querySelectorAll("#files tr").length,
      rows_shown: Array.from(document.querySelectorAll("#files tr"))
        .filter((tr) => tr.checkVisibility()).length,
      details_hidden: Array.from(document.querySelectorAll("pre.detail, ul.ids li"))
        .filter((e) => !e.checkVisibility()).length,
      controls_shown: getComputedStyle(document.getElementById("controls")).display !== "none",
    }));
  }
} catch (e) {
  out.errors.push(String(e && e.stack || e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");

// The history as drawn: the trend's size, its runs and their titles, the
// computed colours of its parts, and each strip's label, symbols and
// colours, with the page's background to compare them with.
async function history(page) {
  return page.evaluate(() => {
    const css = (e) => (e ? getComputedStyle(e) : null);
    const svg = document.querySelector("svg.trend");
    const box = svg && svg.getBoundingClientRect();
    const fill = (sel) => { const e = svg && svg.querySelector(sel); return e ? css(e).fill : null; };
    const line = svg && svg.querySelector("polyline.dur");
    return {
      background: css(document.documentElement).backgroundColor,
      trend: svg && {
        width: box.width,
        height: box.height,
        runs: svg.querySelectorAll("g.run").length,
        titles: Array.from(svg.querySelectorAll("g.run > title"), (t) => t.textContent),
        fills: { p: fill("rect.p"), f: fill("rect.f"), k: fill("rect.k"), hit: fill("rect.hit"),
          text: fill("text") },
        line: line && { stroke: css(line).stroke, fill: css(line).fill },
      },
      strips: Array.from(document.querySelectorAll(".strip"), (s) => {
        const head = s.parentElement.getBoundingClientRect();
        const b = s.getBoundingClientRect();
        return {
          label: s.getAttribute("aria-label"),
          text: s.textContent,
          inside: b.top >= head.top && b.bottom <= head.bottom && b.right <= head.right,
          marks: Array.from(s.children, (i) => ({ cls: i.className, color: css(i).color,
            background: css(i).backgroundColor })),
        };
      }),
    };
  });
}

// Filter, search and sort as a reader would, reporting what the DOM shows:
// counts of rows shown by outcome, and rows that break the rule at hand.
async function interact(page) {
  // A row is shown when neither the filter (a class on the section, for
  // its outcome, the row's first class, or for flaky rows, class `k`), the
  // search (its `hidden`) nor its file's `hidden` hides it; every `step`th
  // row is also asked for its computed style, which must agree. Flaky rows
  // shown are counted under `k` too.
  const state = (q) => page.evaluate(([q, step]) => {
    const section = document.getElementById("tests");
    const shownBy = { p: 0, f: 0, e: 0, s: 0, k: 0 };
    let wrongShown = 0, wrongHidden = 0, styleDisagrees = 0, i = 0;
    for (const tr of document.querySelectorAll("#files tr")) {
      const file = tr.closest("details.file");
      const o = tr.classList[0];
      const flaky = tr.classList.contains("k");
      const filtered = section.classList.contains("hide-" + o)
        || (flaky && section.classList.contains("hide-k"));
      const shown = !tr.hidden && !file.hidden && !filtered;
      if (i++ % step === 0) {
        const css = getComputedStyle(tr).display !== "none"
          && getComputedStyle(file).display !== "none";
        if (css !== shown) styleDisagrees++;
      }
      if (shown) shownBy[o]++;
      if (shown && flaky) shownBy.k++;
      if (q !== null) {
        const sep = file.getAttribute("data-s");
        const name = file.querySelector("summary code").textContent;
        const prefix = sep === null ? name + "::" : sep === "" ? "" : name + sep;
        const text = (prefix + tr.cells[0].textContent).toLowerCase();
        const matches = text.includes(q.toLowerCase());
        if (shown && !matches) wrongShown++;
        if (!shown && matches) wrongHidden++;
      }
    }
    return { shown: shownBy, wrong_shown: wrongShown, wrong_hidden: wrongHidden,
      style_disagrees: styleDisagrees, status: document.getElementById("shown").textContent };
  }, [q, job.style_step || 1]);
  const timed = async (f) => { const t = Date.now(); await f(); return Date.now() - t; };
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const r = {};
  r.initial = await state(null);
  r.filter_ms = await timed(async () => {
    await page.uncheck("input[name=o][value=p]");
    await settle();
  });
  r.no_passed = await state(null);
  await page.check("input[name=o][value=p]");
  await page.uncheck("input[name=o][value=f]");
  await page.uncheck("input[name=o][value=e]");
  r.no_failures = await state(null);
  await page.check("input[name=o][value=f]");
  await page.check("input[name=o][value=e]");
  // The flaky filter, on a page told against a history of runs.
  if (await page.$("input[name=o][value=k]")) {
    await page.uncheck("input[name=o][value=k]");
    r.no_flaky = await state(null);
    await page.check("input[name=o][value=k]");
  }
  r.search_ms = await timed(async () => {
    await page.fill("#q", job.search);
    await page.waitForFunction((n) => document.getElementById("shown").textContent
      .startsWith(n), String(job.search_count));
  });
  r.search = await state(job.search);
  r.search_open = await page.evaluate(() =>
    Array.from(document.querySelectorAll("#files details.file"))
      .filter((d) => !d.hidden).every((d) => d.open));
  await page.fill("#q", "");
  await page.waitForFunction(() => document.getElementById("shown").textContent
    .startsWith(String(document.querySelectorAll("#files tr").length) + " of"));
  r.cleared = await state(null);
  const order = () => page.evaluate(() => {
    const num = (tr) => parseFloat(tr.cells[2].textContent) || 0;
    const name = (tr) => tr.cells[0].firstChild ? tr.cells[0].firstChild.textContent : "";
    let duration = 0, names = 0, files = 0, prev = Infinity;
    for (const body of document.querySelectorAll("#files tbody")) {
      const rows = Array.from(body.rows);
      for (let i = 1; i < rows.length; i++) {
        if (num(rows[i]) > num(rows[i - 1])) duration++;
        if (name(rows[i]) < name(rows[i - 1])) names++;
      }
    }
    for (const d of document.querySelectorAll("#files details.file")) {
      const max = Math.max(0, ...Array.from(d.querySelectorAll("tr")).map(num));
      if (max > prev) files++;
      prev = max;
    }
    return { duration_inversions: duration, name_inversions: names, file_inversions: files,
      rows: document.querySelectorAll("#files tr").length };
  });
  r.before_sort = await order();
  r.sort_ms = await timed(async () => {
    await page.selectOption("#sort", "duration");
    await settle();
  });
  r.by_duration = await order();
  await page.selectOption("#sort", "name");
  r.by_name = await order();
  return r;
}
