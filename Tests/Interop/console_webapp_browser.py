#!/usr/bin/env python3
"""Drives the web console's web app views in headless Chromium (selenium + Debian's chromium and chromium-driver).

Run by the Swift test ConsoleWebAppBrowserTests against a real `herald serve`, a `herald device --web-app` (Safari on
a Mac) whose web app already shows two declarative web pushes, and an iPhone with an iOS app and a Home Screen web app
showing one; see docs/console.md, "Web apps". Steps: load the console and see the device drawn as a Mac with the web
app's notification (the origin as the app's name, its title and body) and the web app's row (origin, subscription
state, badge); see the iPhone's Home Screen web app's notification on its lock screen and its icon in the dock; tap
the Mac's notification and see it leave the screen and `action` in its trace after `decrypted` and `shown`; dismiss a
second one (×) and see `dismissed` in its trace; post a web push without VAPID to the subscription's endpoint, see the
refusal listed in Recent notifications as it happens, open it, and read its status, reason and explanation; press
the web app's Remove permission and see its row say so.

It reuses console_browser.py's browser (the same flags, CSP recorder and screenshots). A PNG is saved after each
step in --out. The last line on standard output is a JSON summary, as console_browser.py's.
Exit status: 0 every step passed, 1 a step failed, 3 selenium or Chromium is missing.
"""

import argparse
import os
import urllib.error
import urllib.request

from console_browser import CHROMEDRIVER, INSTALL_HINT, Console, finish, summary
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the console, e.g. http://127.0.0.1:2196/")
    parser.add_argument("--device", required=True, help="the device id of the Mac")
    parser.add_argument("--origin", required=True, help="the web app's origin")
    parser.add_argument("--apns-id", required=True, help="the apns-id of the web push the web app shows")
    parser.add_argument("--title", required=True, help="the title the web app shows for it")
    parser.add_argument("--dismiss-apns-id", required=True, help="the apns-id of another web push the web app shows, to dismiss")
    parser.add_argument("--endpoint", required=True, help="the subscription's endpoint, for a push without VAPID")
    parser.add_argument("--phone", required=True, help="the device id of an iPhone with an iOS app and a Home Screen web app")
    parser.add_argument("--phone-origin", required=True, help="the Home Screen web app's origin")
    parser.add_argument("--phone-apns-id", required=True, help="the apns-id of the web push the Home Screen web app shows")
    parser.add_argument("--phone-title", required=True, help="the title it shows for it")
    parser.add_argument("--out", required=True, help="the directory for the screenshots")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each step")
    return parser.parse_args()


def post_without_vapid(endpoint):
    """POSTs an empty push with a TTL and no Authorization: the push service refuses it. Returns (status, apns-id)."""
    request = urllib.request.Request(endpoint, data=b"", method="POST", headers={"TTL": "60"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("apns-id")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("apns-id")


class WebAppConsole(Console):
    def home_screen(self):
        """The iPhone: its Home Screen web app's notification on the lock screen, its icon in the dock, and the rows."""
        arguments = self.arguments
        phone = self.by_id(f"device-{arguments.phone}")
        selector = f'[data-testid="web-notification-{arguments.phone_apns_id.lower()}"]'
        note = self.wait(
            f"web notification {arguments.phone_apns_id} on the iPhone",
            lambda: (lambda found: found[0] if found and arguments.phone_title in found[0].text else None)(phone.find_elements(By.CSS_SELECTOR, selector)),
        )
        row = self.by_id(f"web-app-{arguments.phone_origin}", phone)
        summary["homeScreen"] = {
            "phone": bool(phone.find_elements(By.CSS_SELECTOR, ".phone")),
            "mac": bool(phone.find_elements(By.CSS_SELECTOR, '[data-testid="mac"]')),
            "title": self.by_id("web-title", note).text,
            "app": note.find_element(By.CSS_SELECTOR, ".note-app").get_attribute("textContent"),
            "source": note.find_element(By.CSS_SELECTOR, ".note-source").get_attribute("textContent"),
            "dockWebIcons": len(phone.find_elements(By.CSS_SELECTOR, ".dock .icon.web")),
            "iosAppRow": bool(phone.find_elements(By.CSS_SELECTOR, '[data-testid^="app-com."]')),
            "rowFacts": row.find_elements(By.CSS_SELECTOR, ".app-meta")[0].get_attribute("textContent"),
        }
        self.step("home-screen-web-app")
        self.screenshot("iphone", phone)

    def text(self, testid, root=None):
        """An element's text as written, whatever its style's text-transform (the state pills are upper case)."""
        return self.by_id(testid, root).get_attribute("textContent").strip()

    def device(self):
        return self.by_id(f"device-{self.arguments.device}")

    def web_notification(self, apns_id):
        found = self.device().find_elements(By.CSS_SELECTOR, f'[data-testid="web-notification-{apns_id.lower()}"]')
        return found[0] if found else None

    def recent_row(self, apns_id):
        return self.find(f'[data-testid="recent"] li[data-apns-id="{apns_id.lower()}"]')

    def run(self):
        arguments = self.arguments
        apns_id = arguments.apns_id
        self.driver.get(arguments.url)
        self.wait("the live updates", lambda: self.by_id("live-status").get_attribute("data-state") == "live")

        # The device holds only a Safari web app: a Mac, showing the notification with the origin as the app's name.
        note = self.wait(
            f"web notification {apns_id} titled {arguments.title!r}",
            lambda: (lambda node: node if node and arguments.title in node.text else None)(self.web_notification(apns_id)),
        )
        summary["mac"] = bool(self.device().find_elements(By.CSS_SELECTOR, '[data-testid="mac"]'))
        summary["phone"] = bool(self.device().find_elements(By.CSS_SELECTOR, ".phone"))
        summary["noteApp"] = note.find_element(By.CSS_SELECTOR, ".note-app").get_attribute("textContent")
        summary["noteTitle"] = self.by_id("web-title", note).text
        summary["noteBody"] = self.by_id("web-body", note).text
        summary["noteOrigin"] = note.get_attribute("data-origin")
        summary["noteHasGlobe"] = bool(note.find_elements(By.CSS_SELECTOR, ".icon.web .globe"))
        row = self.by_id(f"web-app-{arguments.origin}", self.device())
        summary["webAppState"] = self.text("web-app-state", row)
        summary["webAppEndpoint"] = self.by_id("web-app-endpoint", row).text
        badges = row.find_elements(By.CSS_SELECTOR, ".icon-badge")
        summary["webAppBadge"] = badges[0].text if badges else None
        self.step("web-app-on-mac")
        self.screenshot("mac", self.device())
        self.home_screen()

        # A tap: the device runs it (a declarative message opens its URL), the card leaves, the trace says `action`.
        self.by_id("web-tap", note).click()
        self.wait("the notification to leave the screen", lambda: self.web_notification(apns_id) is None)
        events = self.wait(
            "action in the web push's trace",
            lambda: (lambda found: found if any(testid == "trace-event-action" for testid, _ in found) else None)(self.trace_events(apns_id)),
        )
        summary["tapTrace"] = [testid.removeprefix("trace-event-") for testid, _ in events]
        summary["tapAction"] = next(text for testid, text in events if testid == "trace-event-action")
        summary["recentTitle"] = self.wait("the push in Recent notifications", lambda: (
            lambda node: node and node.find_element(By.CSS_SELECTOR, ".r-title").text)(self.recent_row(apns_id)))
        self.step("web-app-tapped")

        # ×: the device's dismiss; the card leaves and the trace says `dismissed`.
        other = arguments.dismiss_apns_id
        self.by_id("dismiss", self.web_notification(other)).click()
        self.wait("the dismissed notification to leave the screen", lambda: self.web_notification(other) is None)
        events = self.wait(
            "dismissed in the other push's trace",
            lambda: (lambda found: found if any(testid == "trace-event-dismissed" for testid, _ in found) else None)(self.trace_events(other)),
        )
        summary["dismissTrace"] = [testid.removeprefix("trace-event-") for testid, _ in events]
        summary["notificationsLeft"] = len(self.device().find_elements(By.CSS_SELECTOR, '[data-testid^="web-notification-"]'))
        self.step("web-app-dismissed")

        # A push the push service refuses, while the page watches: listed as refused, its trace explains why.
        status, refused_id = post_without_vapid(arguments.endpoint)
        summary["refusedStatus"] = status
        if not refused_id:
            raise AssertionError(f"the refused push's answer ({status}) has no apns-id")
        summary["refusedApnsID"] = refused_id
        summary["refusedRecentState"] = self.wait(
            "the refusal in Recent notifications, with its reason",
            lambda: (lambda node: (lambda text: text if "·" in text else None)(self.text("recent-state", node)) if node else None)(
                self.recent_row(refused_id)),
        )
        self.recent_row(refused_id).click()
        self.wait("the refusal's trace", lambda: self.text("trace-state") == "refused")
        trace = self.by_id("trace")
        summary["refusedTrace"] = [node.get_attribute("data-testid").removeprefix("trace-event-")
                                   for node in trace.find_elements(By.CSS_SELECTOR, '[data-testid^="trace-event-"]')]
        summary["refusalStatus"] = self.by_id("refusal-status", trace).text
        summary["refusalExplanation"] = self.by_id("refusal-explanation", trace).text
        self.step("refused-trace")
        self.screenshot("refused-trace-panel", trace)

        # Remove permission: the device's `removePermission`; the web app's row then says so instead of the button.
        row = self.by_id(f"web-app-{arguments.origin}", self.device())
        self.by_id("web-app-remove-permission", row).click()
        summary["permission"] = self.wait(
            "the row to say the permission was removed",
            lambda: (lambda nodes: nodes[0].text if nodes else None)(
                self.by_id(f"web-app-{arguments.origin}", self.device()).find_elements(By.CSS_SELECTOR, '[data-testid="web-app-permission"]')),
        )
        self.step("permission-removed")

        errors = [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        summary["browserErrors"] = errors
        summary["cspViolations"] = self.csp_violations()
        summary["ok"] = True


def main():
    arguments = parse_arguments()
    os.makedirs(arguments.out, exist_ok=True)
    try:
        console = WebAppConsole(arguments)
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
