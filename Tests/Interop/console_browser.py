#!/usr/bin/env python3
"""Drives Herald's web console in headless Chromium (selenium + Debian's chromium and chromium-driver).

Run by the Swift test ConsoleBrowserTests against a real `herald serve` and `herald device`; see docs/console.md.
Steps: load the console, type an invalid payload and see the validation reason, type a valid alert with the
category, send it, see the apns-id, see the notification on the device's screen, press an action and see
`action` in the trace, then a second push and a text input action with a text; with --image, a third push whose
service extension downloads a PNG this script serves, and its thumbnail drawn from the image itself; with --faults,
the Faults panel: a bad rule's message, a rule added, listed and answering a push from the form, removed, and a
scenario that takes the picked device's token, then every rule cleared.

The first screenshot is the page as first painted, before any answer of the server (the script holds the page's
requests to the API until it is taken), and the next one after the page loaded: both must show a usable page. With
--dropped-app, a push to an app that does not allow notifications: the recent list shows it dropped, with the reason.

A PNG screenshot is saved after each step in --out. The last line on standard output is a JSON summary:
{"ok": true|false, "steps": [...], "screenshots": [...], "apnsIDs": [...], "validationReason": ..., "error": ...}.
Exit status: 0 every step passed, 1 a step failed, 3 selenium or Chromium is missing.
"""

import argparse
import base64
import http.server
import json
import os
import struct
import sys
import threading
import time
import zlib

CHROMIUM = os.environ.get("HERALD_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HERALD_CHROMEDRIVER", "/usr/bin/chromedriver")
INSTALL_HINT = "run `bash .ci/run`, or: apt-get install chromium chromium-driver && pip install selenium==4.51.0"

summary = {"ok": False, "steps": [], "screenshots": [], "apnsIDs": [], "validationReason": None, "error": None}


def finish(code):
    print(json.dumps(summary, sort_keys=True), flush=True)
    sys.exit(code)


try:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError as error:
    summary["error"] = f"selenium is not installed for {sys.executable} ({error}); {INSTALL_HINT}"
    finish(3)

for program in (CHROMIUM, CHROMEDRIVER):
    if not os.access(program, os.X_OK):
        summary["error"] = f"{program} is missing; {INSTALL_HINT}"
        finish(3)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the console, e.g. http://127.0.0.1:2196/")
    parser.add_argument("--device", required=True, help="the device id")
    parser.add_argument("--app", required=True, help="the bundle id")
    parser.add_argument("--category", required=True, help="the category with the actions")
    parser.add_argument("--action", required=True, help="a plain action's identifier")
    parser.add_argument("--text-action", required=True, help="a text input action's identifier")
    parser.add_argument("--text", default="On my way", help="the text typed for the text input action")
    parser.add_argument("--expand", metavar="TITLE", help="also expand the first notification: its content extension shows TITLE, then play/pause")
    parser.add_argument("--image", action="store_true", help="also send a push whose service extension downloads an image (payload key `image`)")
    parser.add_argument("--silent", action="store_true", help="also send a silent push, see it in the app's row and the trace's hint, and filter the list")
    parser.add_argument("--faults", action="store_true", help="also drive the Faults panel: rules added, listed, applied, refused and removed")
    parser.add_argument("--dropped-app", metavar="BUNDLE_ID", help="also send an alert to this app, which denies notifications, and see it dropped in the list")
    parser.add_argument("--out", required=True, help="the directory for the screenshots")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each step")
    return parser.parse_args()


def gradient_png(size=40):
    """A small RGB PNG (a colour gradient), written with the standard library."""
    rows = b"".join(b"\x00" + bytes(v for x in range(size) for v in (x * 6 % 256, y * 6 % 256, 200)) for y in range(size))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def serve_image(body):
    """Serves `body` as image/png on 127.0.0.1 (a port of the system's choosing) and returns its URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/photo.png"


# Collects `securitypolicyviolation` events in window.__heraldCSPViolations ("directive blocked-uri sample").
CSP_RECORDER = """
window.__heraldCSPViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__heraldCSPViolations.push([event.violatedDirective, event.blockedURI, event.sample].filter(Boolean).join(' '));
});
"""


# Holds every request of the page to /api/ until window.__heraldRelease() (pages opened with #first-paint only): the
# page is then seen as it is drawn before the server answers anything.
FIRST_PAINT_HOLD = """
(() => {
  if (location.hash !== '#first-paint') return;
  const fetch = window.fetch.bind(window);
  const held = [];
  let holding = true;
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    if (!holding || !url.includes('/api/')) return fetch(input, init);
    return new Promise((resolve, reject) => held.push(() => fetch(input, init).then(resolve, reject)));
  };
  window.__heraldHeldCount = () => held.length;
  window.__heraldRelease = () => { holding = false; for (const send of held.splice(0)) send(); };
})();
"""


class Console:
    def __init__(self, arguments):
        self.arguments = arguments
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1440,1000",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # Debian's chromedriver, named explicitly: selenium then downloads nothing.
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(arguments.timeout)
        # Every Content-Security-Policy violation on every page, recorded before the page's own scripts run.
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_RECORDER})
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FIRST_PAINT_HOLD})
        self.shots = 0

    def csp_violations(self):
        return self.driver.execute_script("return (window.__heraldCSPViolations || []).slice()")

    def by_id(self, testid, root=None):
        return (root or self.driver).find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def wait(self, what, probe):
        """Calls probe until it returns a truthy value; raises with `what` when the time is up."""
        end = time.monotonic() + self.arguments.timeout
        last = None
        while True:
            try:
                value = probe()
                if value:
                    return value
            except (StaleElementReferenceException, WebDriverException) as error:
                last = error
            if time.monotonic() > end:
                detail = f" (last error: {type(last).__name__})" if last else ""
                raise TimeoutError(f"timed out after {self.arguments.timeout:.0f} s waiting for {what}{detail}")
            time.sleep(0.1)

    def find(self, selector):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return found[0] if found else None

    def screenshot(self, name, element=None):
        """A PNG of the whole page (beyond the window), or of one element of it, through the DevTools protocol."""
        self.shots += 1
        path = os.path.join(self.arguments.out, f"{self.shots:02d}-{name}.png")
        self.driver.execute_script("window.scrollTo(0, 0)")
        if element is not None:
            box = self.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height]", element)
            clip = {"x": int(box[0]), "y": int(box[1]), "width": max(1, int(box[2] + 0.5)), "height": max(1, int(box[3] + 0.5)), "scale": 1}
        else:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            clip = {"x": 0, "y": 0, "width": max(1, int(size["width"])), "height": max(1, int(size["height"])), "scale": 1}
        data = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
        with open(path, "wb") as file:
            file.write(base64.b64decode(data["data"]))
        summary["screenshots"].append(path)
        return path

    def step(self, name):
        summary["steps"].append(name)
        self.screenshot(name)

    def type_payload(self, text):
        payload = self.by_id("send-payload")
        payload.clear()
        payload.send_keys(text)

    def validation(self):
        box = self.by_id("send-validation")
        return box.get_attribute("data-valid"), box.get_attribute("data-reason"), box.text

    def notification(self, apns_id):
        device = self.by_id(f"device-{self.arguments.device}")
        found = device.find_elements(By.CSS_SELECTOR, f'[data-testid="notification-{apns_id.lower()}"]')
        return found[0] if found else None

    def trace_events(self, apns_id):
        trace = self.by_id("trace")
        if (trace.get_attribute("data-apns-id") or "").lower() != apns_id.lower():
            return []
        return [(node.get_attribute("data-testid"), node.text) for node in trace.find_elements(By.CSS_SELECTOR, '[data-testid^="trace-event-"]')]

    def submit(self, payload):
        """Types a valid payload, waits for the validation to accept it, sends it; returns the apns-id, status and reason."""
        before = self.find('[data-testid="send-result-apns-id"]')
        previous = before.text if before else None
        self.type_payload(payload)
        self.wait("the validation to accept the payload", lambda: self.validation()[0] == "true")
        self.by_id("send-button").click()
        apns_id = self.wait(
            "the send result with an apns-id",
            lambda: (lambda node: node and node.text.strip() != previous and node.text.strip())(self.find('[data-testid="send-result-apns-id"]')),
        )
        return apns_id, self.by_id("send-result-status").text.strip(), self.by_id("send-result-reason").text.strip()

    def send(self, payload):
        """Sends a push that the gateway must accept (200) and returns its apns-id."""
        apns_id, status, reason = self.submit(payload)
        if status != "200":
            raise AssertionError(f"the push was not accepted: status {status}, reason {reason}")
        summary["apnsIDs"].append(apns_id)
        return apns_id

    def wait_for_notification(self, apns_id, title):
        def shown():
            node = self.notification(apns_id)
            return node if node and title in node.text else None

        return self.wait(f"notification {apns_id} titled {title!r} on device {self.arguments.device}", shown)

    def page_state(self):
        """What a newcomer sees of the Send panel and the device list: each select's options, the payload and its
        verdict, the device list's text."""
        def options(testid):
            return [option.text for option in Select(self.by_id(testid)).options]

        payload = self.by_id("send-payload").get_attribute("value")
        return {
            "device": options("send-device"), "app": options("send-app"), "template": options("send-template"),
            "pushType": options("send-push-type"), "payload": payload, "validation": self.by_id("send-validation").text,
            "hint": self.driver.find_element(By.ID, "send-target-hint").text, "devices": self.by_id("devices").text,
        }

    def check_usable(self, page, when):
        """A usable page: no empty select, a payload that parses and a verdict that agrees with it, a device list
        that says something."""
        for name in ("device", "app", "template", "pushType"):
            if not page[name] or not all(text.strip() for text in page[name]):
                raise AssertionError(f"{when}: the {name} select is empty: {page}")
        json.loads(page["payload"])
        if "Type a payload" in page["validation"] or not page["validation"].strip():
            raise AssertionError(f"{when}: the payload's verdict does not match the payload: {page}")
        if not page["devices"].strip() or not page["hint"].strip():
            raise AssertionError(f"{when}: the device list or the target hint is empty: {page}")

    def first_paint(self):
        """The page before the server answers anything (its requests held), then once they are let through."""
        arguments = self.arguments
        self.driver.get(arguments.url + "#first-paint")
        self.wait("the send form", lambda: self.by_id("send-form"))
        self.wait("the page's first requests, held", lambda: self.driver.execute_script("return window.__heraldHeldCount()") > 0)
        page = self.page_state()
        self.check_usable(page, "at first paint")
        if "Valid JSON" not in page["validation"]:
            raise AssertionError(f"at first paint the payload is not checked: {page}")
        summary["firstPaint"] = page
        self.step("first-paint")
        self.driver.execute_script("window.__heraldRelease()")

    def run(self):
        arguments = self.arguments
        driver = self.driver
        self.first_paint()
        self.wait("the send form", lambda: self.by_id("send-form"))
        self.wait(f"device {arguments.device} on the page", lambda: self.find(f'[data-testid="device-{arguments.device}"]'))
        self.wait("the app in the device's screen", lambda: self.find(f'[data-testid="device-{arguments.device}"] [data-testid="app-{arguments.app}"]'))
        self.wait("the live updates", lambda: self.by_id("live-status").get_attribute("data-state") == "live")
        Select(self.by_id("send-device")).select_by_value(arguments.device)
        self.wait("the app picker", lambda: arguments.app in [option.get_attribute("value") for option in Select(self.by_id("send-app")).options])
        Select(self.by_id("send-app")).select_by_value(arguments.app)
        Select(self.by_id("send-push-type")).select_by_value("alert")
        Select(self.by_id("send-priority")).select_by_value("10")
        self.wait("the gateway's verdict on the payload", lambda: self.validation()[0] == "true")
        page = self.page_state()
        self.check_usable(page, "after load")
        summary["afterLoad"] = page
        self.step("console")

        # 1. An invalid payload: the live validation names the reason.
        self.type_payload('{"aps": {"alert": ')
        valid, reason, text = self.wait("the validation to refuse the payload", lambda: (lambda v: v if v[0] == "false" and v[1] else None)(self.validation()))
        summary["validationReason"] = reason
        summary["validationText"] = text
        self.step("invalid-payload")

        # 2. A valid alert with the category, sent; its apns-id comes back.
        first_title = "Lunch at noon?"
        first = json.dumps({"aps": {"alert": {"title": first_title, "body": "Reply or like from the console."}, "category": arguments.category}})
        apns_id = self.send(first)
        self.step("sent")

        # 3. The notification on the device's screen.
        self.wait_for_notification(apns_id, first_title)
        self.step("on-device")

        # 3b. Expanded: the content extension's rendering, its play/pause button, collapsed again.
        if arguments.expand:
            self.by_id("expand", self.notification(apns_id)).click()
            self.wait(
                f"the content extension's rendering ({arguments.expand!r}) in {apns_id}",
                lambda: arguments.expand in self.by_id("expanded", self.notification(apns_id)).text,
            )
            self.by_id("play-pause", self.notification(apns_id)).click()
            self.wait("the media button to play", lambda: "Playing" in self.by_id("expanded", self.notification(apns_id)).text)
            self.step("expanded")
            self.by_id("expand", self.notification(apns_id)).click()
            self.wait("the notification to collapse", lambda: not self.notification(apns_id).find_elements(By.CSS_SELECTOR, '[data-testid="expanded"]'))

        # 4. A plain action; the trace shows it.
        self.by_id(f"action-{arguments.action}", self.notification(apns_id)).click()
        self.wait(f"`action` in the trace of {apns_id}", lambda: any(kind == "trace-event-action" for kind, _ in self.trace_events(apns_id)))
        summary["actionTrace"] = [kind.removeprefix("trace-event-") for kind, _ in self.trace_events(apns_id)]
        # Nothing but the trace in its panel: once, an absent list of hints was drawn as the text "null".
        if any(line.strip() in ("null", "undefined") for line in self.by_id("trace").text.splitlines()):
            raise AssertionError("the trace panel shows a stray null or undefined")
        self.wait("the notification to leave the screen", lambda: self.notification(apns_id) is None)
        self.step("action-in-trace")

        # 5. A second push, answered with a text input action.
        second_title = "Where are you?"
        second = json.dumps({"aps": {"alert": {"title": second_title, "body": "Type a reply."}, "category": arguments.category, "thread-id": "console"}})
        reply_id = self.send(second)
        self.wait_for_notification(reply_id, second_title)
        # The screen is drawn again on every update the device sends: find the button afresh until a click lands.
        self.wait("a click on the text input action", lambda: self.by_id(f"action-{arguments.text_action}", self.notification(reply_id)).click() or True)
        self.wait("the text typed", lambda: self.by_id(f"text-input-{arguments.text_action}", self.notification(reply_id)).send_keys(arguments.text) or True)
        self.step("text-input")
        self.wait("a click on Send", lambda: self.by_id(f"text-input-send-{arguments.text_action}", self.notification(reply_id)).click() or True)

        def replied():
            return [text for kind, text in self.trace_events(reply_id) if kind == "trace-event-action" and arguments.text in text]

        self.wait(f"`action` with {arguments.text!r} in the trace of {reply_id}", replied)
        summary["textTrace"] = [kind.removeprefix("trace-event-") for kind, _ in self.trace_events(reply_id)]
        self.wait("the second notification to leave the screen", lambda: self.notification(reply_id) is None)
        self.step("text-input-in-trace")

        # 6. A push whose service extension downloads an image: the thumbnail is the image itself.
        if arguments.image:
            image = gradient_png()
            url = serve_image(image)
            third_title = "A photo"
            third = json.dumps({"aps": {"alert": {"title": third_title, "body": "With its thumbnail."}, "mutable-content": 1}, "image": url})
            photo_id = self.send(third)
            self.wait_for_notification(photo_id, third_title)

            # The screen is drawn again on every update the device sends (its `modified` and `displayed` reports come
            # close together): an <img> found once may be replaced, so every probe finds it afresh.
            def decoded_thumbnail():
                found = self.notification(photo_id).find_elements(By.CSS_SELECTOR, 'img[data-testid="thumbnail-image"]')
                if not found:
                    return None
                return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", found[0])

            summary["thumbnailWidth"] = self.wait(f"the thumbnail image in {photo_id} to be decoded", decoded_thumbnail)
            summary["imageBytes"] = len(image)
            self.step("thumbnail")

        # 7. A silent push: nothing on the phone, the app's row says it reached the app; the trace explains. A push with a
        # category the app never registered gets its hint too. Then the list's filter finds the first push by a word.
        if arguments.silent:
            Select(self.by_id("send-push-type")).select_by_value("background")
            Select(self.by_id("send-priority")).select_by_value("5")
            silent_id = self.send(json.dumps({"aps": {"content-available": 1}, "refresh": "inbox"}))
            self.wait(
                f"the silent push {silent_id} in the app's row, delivered",
                lambda: "delivered to the app in the background" in self.by_id(f"silent-{silent_id.lower()}").text,
            )
            self.wait("the silent push's hint in the trace", lambda: "iOS shows nothing" in self.by_id("hint-silent").text)
            summary["silentOnPhone"] = self.notification(silent_id) is not None
            self.step("silent-push")

            Select(self.by_id("send-push-type")).select_by_value("alert")
            Select(self.by_id("send-priority")).select_by_value("10")
            odd_id = self.send(json.dumps({"aps": {"alert": {"title": "Odd category", "body": "No buttons."}, "category": "unknown-category"}}))
            self.wait_for_notification(odd_id, "Odd category")
            self.wait("the category hint in the trace", lambda: "unknown-category" in self.by_id("hint-category").text)
            self.step("category-hint")

            field = self.by_id("recent-filter")
            field.send_keys("lunch")

            def filtered():
                items = self.by_id("recent").find_elements(By.CSS_SELECTOR, "li[data-apns-id]")
                return [item.text for item in items] if len(items) == 1 else None

            summary["filtered"] = self.wait("the filter to leave one notification", filtered)
            summary["filterCount"] = self.by_id("recent-count").text
            summary["timeZone"] = self.by_id("time-zone").text
            self.step("filter")

        if arguments.faults:
            self.faults()

        if arguments.dropped_app:
            self.dropped()

        errors = [entry["message"] for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        # The bad rule's 400 is the one error the page provokes on purpose (Chromium logs every failed fetch).
        expected = [message for message in errors if "/api/v1/faults" in message and "status of 400" in message]
        summary["browserErrors"] = [message for message in errors if message not in expected]
        summary["expectedBrowserErrors"] = expected
        summary["cspViolations"] = self.csp_violations()
        # The recorder works: a style attribute the page never writes is refused, recorded and logged.
        driver.execute_script("""document.body.insertAdjacentHTML('beforeend', '<i hidden style="color: red">csp probe</i>')""")
        self.wait("the CSP probe's violation", lambda: len(self.csp_violations()) > len(summary["cspViolations"]))
        summary["cspProbe"] = self.csp_violations()[len(summary["cspViolations"]):]
        summary["cspProbeLogged"] = any("Content Security Policy" in entry["message"] for entry in driver.get_log("browser"))
        summary["ok"] = True

    def dropped(self):
        """An alert to an app that denies notifications: delivered, dropped by the device, and listed as dropped with
        the reason (not as delivered)."""
        arguments = self.arguments
        # An empty filter (the list was filtered above), as typing would leave it.
        self.driver.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('input'))", self.by_id("recent-filter"))
        Select(self.by_id("send-app")).select_by_value(arguments.dropped_app)
        Select(self.by_id("send-push-type")).select_by_value("alert")
        apns_id = self.send(json.dumps({"aps": {"alert": {"title": "Muted", "body": "This app does not allow notifications."}}}))

        def row_state():
            row = self.find(f'[data-testid="recent"] li[data-apns-id="{apns_id.lower()}"] [data-testid="recent-state"]')
            # textContent: .text is as drawn, in the capitals of the CSS.
            text = row.get_attribute("textContent") if row is not None else ""
            return text if text.startswith("dropped") else None

        summary["droppedState"] = self.wait(f"notification {apns_id} listed as dropped", row_state)
        self.step("dropped-in-recent")

    def fault_row(self, rule_id):
        return self.find(f'[data-testid="faults"] [data-testid="fault-{rule_id}"]')

    def fault_columns(self, find_row):
        """A rule's summary, applied and remaining columns, read from one fresh lookup of its row (the list is drawn
        again every 5 s while rules exist, so a row found earlier may be gone)."""
        row = find_row()
        if row is None:
            return None
        return {name: self.by_id(f"fault-{name}", row).text for name in ("summary", "applied", "remaining")}

    def fault_rows(self):
        return self.by_id("faults").find_elements(By.CSS_SELECTOR, "li.fault")

    def fault_message(self, status):
        """The message next to the rule form once it answers `status`, else None."""
        box = self.by_id("fault-message")
        return box.text if box.is_displayed() and box.get_attribute("data-status") == str(status) else None

    def add_fault(self, text):
        field = self.by_id("fault-json")
        field.clear()
        field.send_keys(text)
        self.by_id("fault-add").click()

    def no_alert(self):
        try:
            text = self.driver.switch_to.alert.text
        except NoAlertPresentException:
            return
        raise AssertionError(f"the page opened an alert box: {text!r}")

    def faults(self):
        """The Faults panel: a bad rule refused with the server's message, a rule added and listed that answers the next
        push from the form (its applied count moves), removed; a scenario with the picked device's token; all cleared."""
        arguments = self.arguments
        alert = json.dumps({"aps": {"alert": {"title": "During the outage", "body": "Answered by a fault rule."}}})
        self.wait("the empty fault list", lambda: "No fault rules" in self.by_id("faults").text)
        summary["faultExample"] = self.by_id("fault-json").get_attribute("value")

        # A rule the server refuses: its message next to the form, nothing listed, no alert box.
        self.add_fault(json.dumps({"match": {"topic": arguments.app}, "status": 503, "reason": "Unregistered"}))
        summary["faultError"] = self.wait("the server's message for the bad rule", lambda: self.fault_message(400))
        summary["faultErrorState"] = self.by_id("fault-message").get_attribute("data-valid")
        self.no_alert()
        if self.fault_rows():
            raise AssertionError("a refused rule is listed")
        self.step("fault-bad-rule")

        # A rule for the app's topic, once: listed with what it has done (nothing yet).
        rule_id = "console-outage"
        self.add_fault(json.dumps({"id": rule_id, "match": {"topic": arguments.app}, "status": 503, "reason": "ServiceUnavailable", "count": 1}))
        self.wait(f"rule {rule_id} in the list", lambda: self.fault_row(rule_id))
        summary["faultAdded"] = self.wait("the message that it was added", lambda: self.fault_message(201))
        summary["faultListed"] = self.wait(f"rule {rule_id}'s columns", lambda: self.fault_columns(lambda: self.fault_row(rule_id)))
        summary["faultListed"]["count"] = self.by_id("faults-count").text
        self.step("fault-added")

        # A push from the Send form is answered by the rule, and the panel's counts move.
        _, status, reason = self.submit(alert)
        summary["faultPush"] = [status, reason]

        def applied():
            node = self.fault_row(rule_id)
            return node if node and node.get_attribute("data-applied") == "1" and node.get_attribute("data-remaining") == "0" else None

        self.wait(f"rule {rule_id} applied once, nothing left", applied)
        summary["faultApplied"] = self.wait(f"rule {rule_id}'s columns", lambda: self.fault_columns(applied))
        self.step("fault-applied")
        self.screenshot("faults-panel", self.by_id("faults-panel"))

        # Removed: gone from the list.
        self.wait(f"a click on rule {rule_id}'s Remove", lambda: self.by_id("fault-remove", self.fault_row(rule_id)).click() or True)
        self.wait(f"rule {rule_id} to leave the list", lambda: self.fault_row(rule_id) is None and "No fault rules" in self.by_id("faults").text)
        summary["faultRemoved"] = self.wait("the message that it was removed", lambda: self.fault_message(204))

        # A scenario that needs a token takes the one the Send panel points at: the picked device's app.
        token = self.by_id("fault-token-hint").find_element(By.CSS_SELECTOR, ".mono").get_attribute("title")
        summary["faultPresetToken"] = token
        self.by_id("fault-preset-app-uninstalled").click()
        self.wait("the scenario's rule in the list", lambda: len(self.fault_rows()) == 1)
        summary["faultPresetJSON"] = self.by_id("fault-json").get_attribute("value")
        _, status, reason = self.submit(alert)
        summary["faultPresetPush"] = [status, reason]
        summary["faultPresetSummary"] = self.wait(
            "the scenario's rule applied",
            lambda: (lambda rows: self.by_id("fault-summary", rows[0]).text if rows and rows[0].get_attribute("data-applied") == "1" else None)(self.fault_rows()),
        )
        self.step("fault-preset")

        # Clear all: the list is empty and the provider API answers as it should again.
        self.by_id("fault-clear").click()
        self.wait("the list to be empty", lambda: not self.fault_rows() and "No fault rules" in self.by_id("faults").text)
        summary["faultCleared"] = self.wait("the message that the rules were removed", lambda: self.fault_message(200))
        _, status, reason = self.submit(alert)
        summary["faultClearedPush"] = [status, reason]
        self.no_alert()
        self.step("faults-cleared")


def main():
    arguments = parse_arguments()
    os.makedirs(arguments.out, exist_ok=True)
    try:
        console = Console(arguments)
    except WebDriverException as error:
        summary["error"] = f"could not start Chromium through {CHROMEDRIVER}: {error.msg or error}".splitlines()[0] + f"; {INSTALL_HINT}"
        finish(3)
    try:
        console.run()
        code = 0
    except Exception as error:  # the summary says which step and why; the screenshot shows it
        summary["error"] = f"{type(error).__name__}: {error}".splitlines()[0]
        summary["failedAfter"] = summary["steps"][-1] if summary["steps"] else None
        try:
            console.screenshot("failure")
            summary["browserLog"] = [entry["message"] for entry in console.driver.get_log("browser")][-20:]
        except Exception:
            pass
        code = 1
    finally:
        try:
            console.driver.quit()
        except Exception:
            pass
    finish(code)


if __name__ == "__main__":
    main()
