/// The web console's page: the HTML below with ``style`` and ``script`` inlined. No build step: edit these strings.
///
/// The `data-testid` attributes are the browser test's handles (docs/console.md); keep them stable.
enum ConsolePage {
    /// The whole page as served.
    static let html: String = head + "<style>\n" + style + "</style>\n</head>\n" + body + "<script>\n" + script + "</script>\n</body>\n</html>\n"

    /// ``html`` in UTF-8, made once.
    static let bytes: [UInt8] = Array(html.utf8)

    static let head = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light">
        <title>Herald Console</title>
        <link rel="icon" href="data:,">

        """#

    static let body = #"""
        <body>
        <header class="topbar">
          <div class="brand">
            <span class="logo" aria-hidden="true"><svg viewBox="0 0 24 24" width="18" height="18"><path fill="currentColor" d="M12 2a6 6 0 0 0-6 6v3.6L4.3 15a1 1 0 0 0 .9 1.5h13.6a1 1 0 0 0 .9-1.5L18 11.6V8a6 6 0 0 0-6-6Zm0 21a3 3 0 0 0 2.8-2H9.2A3 3 0 0 0 12 23Z"/></svg></span>
            <span class="brand-name">Herald</span>
            <span class="brand-sub">Push Notifications Console</span>
          </div>
          <nav class="toplinks">
            <a href="/api/v1/devices" target="_blank" rel="noopener">API</a>
            <a href="/metrics" target="_blank" rel="noopener">Metrics</a>
            <span class="live" data-testid="live-status" data-state="connecting"><span class="live-dot"></span><span class="live-text">Connecting…</span></span>
          </nav>
        </header>

        <main class="layout">
          <section class="panel send-panel" aria-labelledby="send-title">
            <h2 id="send-title">Send</h2>
            <form data-testid="send-form" id="send-form" autocomplete="off" novalidate>
              <fieldset class="group">
                <legend>Recipient</legend>
                <div class="row two">
                  <label>Device
                    <select data-testid="send-device" id="send-device"></select>
                  </label>
                  <label>App
                    <select data-testid="send-app" id="send-app"></select>
                  </label>
                </div>
                <div class="hint" id="send-target-hint"></div>
                <label>Device token <span class="opt">overrides device &amp; app</span>
                  <input data-testid="send-token" id="send-token" class="mono" spellcheck="false" placeholder="hex, e.g. 3f2a…">
                </label>
                <label>apns-topic <span class="opt">optional</span>
                  <input data-testid="send-topic" id="send-topic" class="mono" spellcheck="false" placeholder="the app's bundle id (+ .voip, .complication…)">
                </label>
              </fieldset>

              <fieldset class="group">
                <legend>Headers</legend>
                <div class="row two">
                  <label>apns-push-type
                    <select data-testid="send-push-type" id="send-push-type">
                      <option value="alert">alert</option>
                      <option value="background">background</option>
                      <option value="voip">voip</option>
                      <option value="location">location</option>
                      <option value="complication">complication</option>
                      <option value="fileprovider">fileprovider</option>
                      <option value="mdm">mdm</option>
                      <option value="liveactivity">liveactivity</option>
                      <option value="pushtotalk">pushtotalk</option>
                      <option value="widgets">widgets</option>
                      <option value="controls">controls</option>
                    </select>
                  </label>
                  <label>apns-priority
                    <select data-testid="send-priority" id="send-priority">
                      <option value="10">10 · immediately</option>
                      <option value="5">5 · power-conserving</option>
                      <option value="1">1 · low</option>
                    </select>
                  </label>
                </div>
                <div class="row two">
                  <label>apns-expiration
                    <input data-testid="send-expiration" id="send-expiration" class="mono" inputmode="numeric" placeholder="optional · UNIX s">
                  </label>
                  <label>apns-collapse-id
                    <input data-testid="send-collapse-id" id="send-collapse-id" class="mono" spellcheck="false" placeholder="optional · ≤ 64 B">
                  </label>
                </div>
                <label>apns-id <span class="opt">optional</span>
                  <input data-testid="send-apns-id" id="send-apns-id" class="mono" spellcheck="false" placeholder="a UUID; generated when empty">
                </label>
              </fieldset>

              <fieldset class="group">
                <legend>Payload
                  <select id="send-template" data-testid="send-template" aria-label="Payload template"></select>
                </legend>
                <textarea data-testid="send-payload" id="send-payload" class="mono" spellcheck="false" rows="11"></textarea>
                <div class="validation" data-testid="send-validation" id="send-validation" data-valid="" aria-live="polite">Type a payload.</div>
              </fieldset>

              <div class="send-row">
                <button type="submit" class="primary" data-testid="send-button" id="send-button" title="Send (Ctrl+Enter in the payload)">Send</button>
                <span class="bytes" id="send-bytes"></span>
              </div>
              <div class="result" data-testid="send-result" id="send-result" hidden></div>
            </form>
          </section>

          <section class="panel devices-panel" aria-labelledby="devices-title">
            <h2 id="devices-title">Devices <span class="count" id="device-count"></span></h2>
            <div class="devices" data-testid="devices" id="devices">
              <div class="empty">Loading devices…</div>
            </div>
          </section>

          <section class="panel trace-panel" aria-labelledby="trace-title">
            <h2 id="trace-title">Trace</h2>
            <form class="trace-lookup" id="trace-lookup" autocomplete="off">
              <input class="mono" id="trace-input" data-testid="trace-input" spellcheck="false" placeholder="apns-id">
              <button type="submit">Show</button>
            </form>
            <div class="trace" data-testid="trace" id="trace" data-apns-id="">
              <div class="empty">Send a push or pick one below to follow its delivery.</div>
            </div>
            <h3>Recent notifications</h3>
            <div class="recent-tools">
              <input type="search" id="recent-filter" data-testid="recent-filter" spellcheck="false" autocomplete="off"
                placeholder="Filter: words, topic, apns-id, token, state" aria-label="Filter the recent notifications">
              <span class="recent-count" id="recent-count" data-testid="recent-count"></span>
            </div>
            <ul class="recent" data-testid="recent" id="recent"></ul>
            <p class="zone-note" id="time-zone" data-testid="time-zone"></p>
          </section>
        </main>
        <div class="toasts" id="toasts" aria-live="polite"></div>

        """#
}
