"""What the browser suite checks on every page, in one place: Debian's Chromium, headless, opens
the page at 1366 px, and the page must log nothing at SEVERE level on the console (script
errors, console.error, a resource that failed to load) and nothing in it may reach past the
right edge of the viewport.

    driver = start()
    findings = visit(driver, f"{live_server.url}/admin/", ready="#content")
    assert findings.clean, str(findings)
"""

import os
import shutil
from dataclasses import dataclass, field

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.wait import WebDriverWait

# The narrowest screen staff are expected to use: a common laptop.
WIDTH, HEIGHT = 1366, 900

# Set to `require` (as CI does) for a missing browser to fail the suite instead of skipping it.
REQUIRE = "GATEWAY_BROWSER_TESTS"

# A container has no sandbox and a small /dev/shm; the rest keeps Chromium from calling home
# (updates, sync, crash reports, safe browsing, translation). Every name but localhost resolves
# to nothing, and whatever is not loopback goes to a proxy where nothing listens (the discard
# port; Chromium never proxies loopback), so a page that loads an asset from outside logs an
# error instead of fetching it.
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-extensions",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--no-first-run",
    "--no-default-browser-check",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost",
    "--proxy-server=http://127.0.0.1:9",
    f"--window-size={WIDTH},{HEIGHT}",
)

# Everything in the body that reaches past the viewport's right edge, outermost first, unless
# a box between it and the body clips or scrolls it (a wide table in a scrolling box is read
# by scrolling that box, not the page). The page's own widths are checked first.
OVERFLOW_JS = """
const view = document.documentElement.clientWidth;
const found = [];
const pages = [["the document", document.documentElement], ["the body", document.body]];
for (const [name, node] of pages) {
  if (node && node.scrollWidth > view) found.push(`${name} is ${node.scrollWidth} px wide`);
}
const label = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
  + [...el.classList].map((c) => "." + c).join("");
const reported = [];
for (const el of document.body ? document.body.querySelectorAll("*") : []) {
  const box = el.getBoundingClientRect();
  const right = box.right + window.scrollX;
  if (box.width === 0 || box.height === 0 || right <= view + 0.5) continue;
  if (getComputedStyle(el).visibility === "hidden") continue;
  if (reported.some((outer) => outer.contains(el))) continue;
  let clipped = false;
  for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    if (getComputedStyle(up).overflowX !== "visible") { clipped = true; break; }
  }
  if (clipped) continue;
  reported.push(el);
  found.push(`${label(el)} ends at ${Math.round(right)} px`);
}
return found;
"""


@dataclass
class Findings:
    """What one look at a page found wrong; nothing, for a page that passes."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    overflow: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.console_errors and not self.overflow

    def __str__(self) -> str:
        lines = [f"{self.url} at {WIDTH} px:"]
        lines += [f"  console: {message}" for message in self.console_errors]
        lines += [f"  overflow: {message}" for message in self.overflow]
        return "\n".join(lines if not self.clean else [*lines, "  nothing wrong"])


def missing() -> list[str]:
    """The programs the suite needs that this machine lacks (Debian: chromium, chromium-driver)."""
    return [program for program in ("chromium", "chromedriver") if not shutil.which(program)]


def start() -> WebDriver:
    """A headless Chromium at 1366 px on a fresh profile, through Debian's chromedriver (never
    a downloaded one), keeping its console so that SEVERE entries can be read back."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(shutil.which("chromedriver") or "chromedriver", log_output=os.devnull)
    driver = webdriver.Chrome(options=options, service=service)
    width = driver.execute_script("return window.innerWidth")
    assert width == WIDTH, f"Chromium opened a viewport {width} px wide, not {WIDTH}"
    return driver


def visit(driver: WebDriver, url: str, *, ready: str, timeout: float = 30) -> Findings:
    """Open `url`, wait until it has loaded and shows `ready` (a CSS selector: what the page
    draws last), and look at it."""
    driver.get_log("browser")  # what earlier pages logged is theirs
    driver.get(url)
    try:
        WebDriverWait(driver, timeout).until(
            lambda page: (
                page.execute_script("return document.readyState") == "complete"
                and page.find_elements(By.CSS_SELECTOR, ready)
            )
        )
    except TimeoutException:
        shown = driver.execute_script("return document.body ? document.body.innerText : ''")
        raise AssertionError(
            f"{url} showed no {ready} within {timeout:.0f} s; at {driver.current_url}, "
            f"titled {driver.title!r}:\n{shown[:1500]}\n{look(driver)}"
        ) from None
    return look(driver)


def arrive(driver: WebDriver, page: WebElement, *, ready: str, timeout: float = 30) -> Findings:
    """Wait for the page a click opened (the old page's `page` element gone, `ready` shown, its
    load complete), and look at it. While the old document is torn down, asking after its
    element may fail with an inspector error rather than "stale": such an answer is asked
    again."""
    wait = WebDriverWait(driver, timeout, ignored_exceptions=[WebDriverException])
    wait.until(expected_conditions.staleness_of(page))
    wait.until(
        lambda d: (
            d.execute_script("return document.readyState") == "complete"
            and d.find_elements(By.CSS_SELECTOR, ready)
        )
    )
    return look(driver)


def follow(driver: WebDriver, link: str, *, ready: str) -> Findings:
    """Click the link reading `link` (exactly), wait for the page it opens to show `ready`, and
    look at that page."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.LINK_TEXT, link).click()
    return arrive(driver, page, ready=ready)


def look(driver: WebDriver) -> Findings:
    """The page as it stands: what it logged at SEVERE level since the last look, and what
    reaches past the viewport."""
    errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    return Findings(driver.current_url, errors, list(driver.execute_script(OVERFLOW_JS)))


def hidden_columns(driver: WebDriver) -> list[str]:
    """The admin list's columns that only a sideways scroll of its table would show: the
    table's width beyond its box, in px (none when every column is in view)."""
    return list(
        driver.execute_script(
            "return [...document.querySelectorAll('#changelist .results')]"
            ".filter((box) => box.scrollWidth > box.clientWidth + 1)"
            ".map((box) => `${box.scrollWidth - box.clientWidth} px of the table out of view`);"
        )
    )
