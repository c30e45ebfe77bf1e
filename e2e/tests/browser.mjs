// Browser helpers: Debian's Chromium driven by playwright-core, screenshots into the artifacts
// folder (e2e/artifacts, or SOBRE_E2E_ARTIFACTS), and an axe-core accessibility check.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export const artifacts = process.env.SOBRE_E2E_ARTIFACTS ?? path.resolve(import.meta.dirname, "..", "artifacts");
mkdirSync(artifacts, { recursive: true });

// launch starts a headless Chromium that reaches nothing but loopback.
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
}

// phone opens a page in a 390 px wide context, as a phone would show it.
export async function phone(browser, { locale = "en-US" } = {}) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale, hasTouch: false });
  return context.newPage();
}

// shot saves a full-page screenshot as artifacts/<name>.png.
export async function shot(page, name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

// axe runs axe-core in the page (outside its Content-Security-Policy, as a tool) and returns
// the violations of serious or critical impact.
export async function axe(page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

// overflows reports whether the page scrolls sideways.
export async function overflows(page) {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
}

// drawSignature strokes a scribble across the signature pad with the mouse.
export async function drawSignature(page) {
  const pad = page.locator("#pad");
  await pad.scrollIntoViewIfNeeded();
  const box = await pad.boundingBox();
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(box.x + box.width * (0.1 + 0.04 * i), box.y + box.height * (0.6 - 0.3 * Math.sin(i / 2)), { steps: 2 });
  }
  await page.mouse.up();
}
