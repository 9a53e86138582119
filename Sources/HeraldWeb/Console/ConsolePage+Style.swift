extension ConsolePage {
    /// The page's CSS.
    static let style = #"""
        :root {
          --bg: #f5f5f7; --panel: #ffffff; --ink: #1d1d1f; --ink-2: #515154; --ink-3: #86868b; --line: #e3e3e8;
          --accent: #0071e3; --accent-ink: #ffffff; --ok: #1a8f3c; --ok-bg: #e8f6ec; --bad: #d70015; --bad-bg: #fdecee;
          --warn: #b25000; --warn-bg: #fff4e5; --radius: 14px;
          --font: -apple-system, BlinkMacSystemFont, "SF Pro Text", "Helvetica Neue", Inter, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif;
          --mono: "SF Mono", ui-monospace, Menlo, "DejaVu Sans Mono", Consolas, monospace;
        }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.4 var(--font); -webkit-font-smoothing: antialiased; }
        button, input, select, textarea { font: inherit; color: inherit; }
        .mono { font-family: var(--mono); font-size: 12.5px; }
        [hidden] { display: none !important; }

        .topbar { position: sticky; top: 0; z-index: 10; display: flex; align-items: center; justify-content: space-between;
          padding: 10px 22px; background: rgba(255,255,255,.82); backdrop-filter: saturate(180%) blur(16px); border-bottom: 1px solid var(--line); }
        .brand { display: flex; align-items: center; gap: 10px; }
        .logo { display: inline-grid; place-items: center; width: 28px; height: 28px; border-radius: 8px; color: #fff;
          background: linear-gradient(135deg, #ff5f6d, #ffc371); box-shadow: 0 1px 3px rgba(0,0,0,.2); }
        .brand-name { font-weight: 700; font-size: 16px; letter-spacing: -.01em; }
        .brand-sub { color: var(--ink-3); font-size: 13px; }
        .toplinks { display: flex; align-items: center; gap: 16px; font-size: 13px; }
        .toplinks a { color: var(--ink-2); text-decoration: none; }
        .toplinks a:hover { color: var(--accent); }
        .live { display: inline-flex; align-items: center; gap: 6px; padding: 3px 10px; border-radius: 999px; background: #f0f0f3; color: var(--ink-2); font-size: 12px; }
        .live-dot { width: 8px; height: 8px; border-radius: 50%; background: var(--ink-3); }
        .live[data-state="live"] .live-dot { background: #30d158; box-shadow: 0 0 0 3px rgba(48,209,88,.2); }
        .live[data-state="polling"] .live-dot { background: #ff9f0a; }
        .live[data-state="offline"] .live-dot { background: var(--bad); }

        .layout { display: grid; grid-template-columns: minmax(320px, 360px) minmax(320px, 1fr) minmax(300px, 340px); gap: 18px; padding: 18px 22px 40px; align-items: start; }
        @media (max-width: 1180px) { .layout { grid-template-columns: minmax(320px, 390px) 1fr; } .trace-panel { grid-column: 1 / -1; } }
        @media (max-width: 760px) { .layout { grid-template-columns: 1fr; } }
        .panel { background: var(--panel); border-radius: var(--radius); padding: 16px 18px 18px; box-shadow: 0 1px 2px rgba(0,0,0,.04), 0 4px 16px rgba(0,0,0,.04); min-width: 0; }
        .devices-panel { background: transparent; box-shadow: none; padding: 16px 0 0; }
        h2 { margin: 0 0 12px; font-size: 19px; letter-spacing: -.015em; }
        h3 { margin: 18px 0 8px; font-size: 13px; color: var(--ink-2); text-transform: uppercase; letter-spacing: .04em; }
        .count { color: var(--ink-3); font-weight: 500; font-size: 15px; }
        .empty { color: var(--ink-3); padding: 18px 4px; }

        /* Send form */
        fieldset.group { border: 0; margin: 0 0 14px; padding: 0; min-width: 0; }
        legend { display: flex; align-items: center; justify-content: space-between; width: 100%; padding: 0; margin-bottom: 8px;
          font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .05em; color: var(--ink-3); }
        legend select { text-transform: none; letter-spacing: 0; font-weight: 500; font-size: 12px; padding: 3px 6px; width: auto; max-width: 62%; }
        label { display: block; margin-bottom: 9px; font-size: 12px; font-weight: 600; color: var(--ink-2); }
        label .opt { font-weight: 400; color: var(--ink-3); }
        .row.two { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
        input, select, textarea { display: block; width: 100%; margin-top: 4px; padding: 7px 9px; border: 1px solid #d2d2d7; border-radius: 8px;
          background: #fff; font-weight: 400; font-size: 13px; outline: none; transition: border-color .15s, box-shadow .15s; }
        input:focus, select:focus, textarea:focus { border-color: var(--accent); box-shadow: 0 0 0 3px rgba(0,113,227,.18); }
        input::placeholder, textarea::placeholder { color: #aeaeb2; }
        textarea { resize: vertical; min-height: 150px; line-height: 1.5; tab-size: 2; white-space: pre-wrap; overflow-wrap: anywhere; background: #fbfbfd; }
        .hint { margin: -3px 0 9px; font-size: 12px; color: var(--ink-3); min-height: 16px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .hint .mono { font-size: 11.5px; }
        .validation { margin-top: 6px; padding: 7px 10px; border-radius: 8px; font-size: 12.5px; background: #f2f2f5; color: var(--ink-2); }
        .validation[data-valid="true"] { background: var(--ok-bg); color: var(--ok); }
        .validation[data-valid="false"] { background: var(--bad-bg); color: var(--bad); }
        .validation b { font-weight: 700; }
        .send-row { display: flex; align-items: center; gap: 12px; }
        button { cursor: pointer; border: 1px solid #d2d2d7; background: #fff; border-radius: 8px; padding: 6px 12px; font-size: 13px; font-weight: 500; }
        button:hover { border-color: #b8b8bf; }
        button:disabled { opacity: .5; cursor: default; }
        button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); padding: 8px 26px; font-weight: 600; border-radius: 980px; }
        button.primary:hover { background: #0077ed; }
        .bytes { font-size: 12px; color: var(--ink-3); }
        .result { margin-top: 14px; border-radius: 10px; border: 1px solid var(--line); padding: 10px 12px; font-size: 13px; }
        .result-head { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; }
        .status-pill { display: inline-block; padding: 2px 9px; border-radius: 999px; font-weight: 700; font-size: 12px; }
        .status-pill.ok { background: var(--ok-bg); color: var(--ok); }
        .status-pill.bad { background: var(--bad-bg); color: var(--bad); }
        .result dl { display: grid; grid-template-columns: 80px 1fr; gap: 3px 8px; margin: 0; }
        .result dt { color: var(--ink-3); }
        .result dd { margin: 0; word-break: break-all; }
        a.apns-id { color: var(--accent); text-decoration: none; font-family: var(--mono); font-size: 12px; }
        a.apns-id:hover { text-decoration: underline; }

        /* Devices */
        .devices { display: flex; flex-wrap: wrap; gap: 22px 18px; justify-content: center; align-items: flex-start; }
        .device { width: 312px; display: flex; flex-direction: column; align-items: center; }
        .device-head { width: 100%; display: flex; align-items: baseline; justify-content: space-between; margin-bottom: 8px; padding: 0 6px; }
        .device-name { font-weight: 650; font-size: 15px; }
        .device-id { color: var(--ink-3); font-size: 11px; font-family: var(--mono); }
        .badge-online { font-size: 11px; font-weight: 600; padding: 2px 8px; border-radius: 999px; background: #e8f6ec; color: var(--ok); }
        .badge-online.off { background: #f0f0f3; color: var(--ink-3); }
        .phone { position: relative; width: 304px; height: 660px; padding: 11px; border-radius: 54px; background: #1c1c1e;
          box-shadow: 0 0 0 2px #3a3a3c, 0 20px 40px rgba(0,0,0,.18), inset 0 0 0 1px #000; }
        .screen { position: relative; height: 100%; border-radius: 44px; overflow: hidden; display: flex; flex-direction: column;
          background: radial-gradient(120% 80% at 10% 0%, #6a7bff 0%, rgba(106,123,255,0) 60%),
                      radial-gradient(120% 90% at 100% 30%, #ff7eb3 0%, rgba(255,126,179,0) 55%),
                      radial-gradient(140% 90% at 30% 100%, #ffb86b 0%, rgba(255,184,107,0) 60%), #2b2a5a; color: #fff; }
        .device.offline .screen { filter: grayscale(.85) brightness(.8); }
        .statusbar { display: flex; align-items: center; justify-content: space-between; padding: 14px 26px 0; font-size: 13px; font-weight: 600; height: 40px; }
        .island { width: 96px; height: 28px; border-radius: 20px; background: #000; }
        .status-icons { display: flex; gap: 5px; align-items: center; }
        .status-icons i { display: inline-block; width: 16px; height: 9px; border: 1.5px solid rgba(255,255,255,.9); border-radius: 3px; position: relative; }
        .status-icons i::after { content: ""; position: absolute; inset: 1px 4px 1px 1px; background: #fff; border-radius: 1px; }
        .lock { text-align: center; padding: 8px 0 10px; text-shadow: 0 1px 8px rgba(0,0,0,.15); }
        .lock-date { font-size: 14px; font-weight: 600; opacity: .9; }
        .lock-time { font-size: 54px; font-weight: 700; line-height: 1; letter-spacing: -.02em; }
        .center { flex: 1; overflow-y: auto; padding: 4px 10px 10px; scrollbar-width: thin; scrollbar-color: rgba(255,255,255,.35) transparent; }
        .center-empty { margin-top: 50px; text-align: center; opacity: .75; font-size: 13px; }
        .app-group + .app-group { margin-top: 10px; }
        .thread-label { font-size: 11px; font-weight: 600; margin: 8px 6px 4px; opacity: .85; text-shadow: 0 1px 4px rgba(0,0,0,.25); }
        .note { position: relative; margin-bottom: 7px; padding: 10px 12px 10px; border-radius: 20px; background: rgba(250,250,252,.78);
          backdrop-filter: blur(20px) saturate(160%); color: #1d1d1f; box-shadow: 0 2px 10px rgba(0,0,0,.08); }
        .note.fresh { animation: arrive .45s cubic-bezier(.2,.9,.3,1.2); }
        @keyframes arrive { from { transform: translateY(-14px) scale(.97); opacity: 0; } to { transform: none; opacity: 1; } }
        .note-head { display: flex; align-items: center; gap: 7px; font-size: 11.5px; color: #6e6e73; margin-bottom: 3px; }
        .note-app { font-weight: 600; text-transform: uppercase; letter-spacing: .02em; flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .note-x { border: 0; background: rgba(0,0,0,.07); width: 20px; height: 20px; padding: 0; border-radius: 50%; font-size: 13px; line-height: 20px; color: #555; }
        .note-x:hover { background: rgba(0,0,0,.14); }
        .note-main { display: flex; gap: 10px; cursor: pointer; }
        .note-text { flex: 1; min-width: 0; }
        .note-title { font-weight: 650; font-size: 14px; }
        .note-subtitle { font-weight: 600; font-size: 13px; }
        .note-body { font-size: 13.5px; white-space: pre-wrap; overflow-wrap: anywhere; }
        .thumb { flex: none; width: 46px; height: 46px; border-radius: 9px; display: grid; place-items: center; text-align: center; font-size: 9px;
          font-weight: 700; color: #fff; background: linear-gradient(135deg, #8e9eab, #5d6d7e); line-height: 1.1; padding: 2px; }
        .thumb.image { background: linear-gradient(135deg, #43cea2, #185a9d); }
        .thumb.video { background: linear-gradient(135deg, #f7971e, #d64545); }
        .thumb.audio { background: linear-gradient(135deg, #a18cd1, #6a3093); }
        img.thumb { object-fit: cover; background: #e5e5ea; padding: 0; }
        .attachments { margin-top: 6px; }
        .attachment { display: flex; align-items: center; gap: 6px; font-size: 11px; color: #6e6e73; margin-top: 2px; }
        .attachment .mono { font-size: 10.5px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
        .attachment .meta { flex: none; }
        .note-actions { display: flex; flex-wrap: wrap; gap: 5px; margin-top: 8px; }
        .note-actions button { border: 0; background: rgba(0,0,0,.06); border-radius: 10px; padding: 5px 10px; font-size: 12.5px; font-weight: 600; color: var(--accent); }
        .note-actions button:hover { background: rgba(0,0,0,.11); }
        .note-actions button.destructive { color: var(--bad); }
        .note-actions button.tool { color: #48484a; font-weight: 500; }
        .reply { display: flex; gap: 6px; margin-top: 7px; }
        .reply input { margin: 0; border-radius: 16px; padding: 5px 11px; font-size: 12.5px; }
        .reply button { flex: none; border: 0; border-radius: 16px; background: var(--accent); color: #fff; font-weight: 600; font-size: 12.5px; padding: 5px 12px; }
        .expanded { margin-top: 8px; padding: 10px; border-radius: 14px; background: rgba(255,255,255,.9); border: 1px solid rgba(0,0,0,.06); }
        .expanded-head { display: flex; justify-content: space-between; font-size: 11px; color: #6e6e73; margin-bottom: 4px; }
        .expanded-title { font-weight: 700; font-size: 13.5px; }
        .expanded-line { font-size: 13px; }
        .expanded-default { margin-top: 5px; padding-top: 5px; border-top: 1px solid rgba(0,0,0,.08); font-size: 12.5px; color: #48484a; }
        .media { margin-top: 7px; display: inline-flex; align-items: center; gap: 7px; font-size: 12px; color: #48484a; }
        .media button { width: 34px; height: 34px; padding: 0; border-radius: 50%; border: 0; color: #fff; font-size: 13px; }
        .busy { opacity: .55; pointer-events: none; }
        .dock { margin: 0 10px 12px; padding: 9px 10px; border-radius: 26px; background: rgba(255,255,255,.22); backdrop-filter: blur(18px);
          display: flex; justify-content: center; gap: 14px; }
        .icon { position: relative; flex: none; width: 44px; height: 44px; border-radius: 11px; display: grid; place-items: center; font-weight: 700;
          font-size: 19px; color: #fff; box-shadow: 0 1px 3px rgba(0,0,0,.2); }
        .icon.small { width: 18px; height: 18px; border-radius: 5px; font-size: 10px; box-shadow: none; }
        .icon-badge { position: absolute; top: -6px; right: -7px; min-width: 20px; height: 20px; padding: 0 6px; border-radius: 10px; background: #ff3b30;
          color: #fff; font-size: 12px; font-weight: 600; line-height: 20px; text-align: center; box-shadow: 0 0 0 1.5px rgba(0,0,0,.05); }
        .home-bar { width: 120px; height: 5px; border-radius: 3px; background: rgba(255,255,255,.85); margin: 0 auto 8px; }
        .offline-note { position: absolute; left: 50%; top: 46%; transform: translate(-50%, -50%); background: rgba(0,0,0,.55); color: #fff;
          padding: 8px 14px; border-radius: 12px; font-size: 12.5px; text-align: center; white-space: nowrap; }
        .no-screen { width: 100%; padding: 22px 18px; border-radius: 22px; background: #1c1c1e; color: #f5f5f7; text-align: center; }
        .no-screen .icon-phone { display: flex; justify-content: center; margin-bottom: 6px; }
        .phone-glyph { width: 22px; height: 36px; border: 2.5px solid #8e8e93; border-radius: 6px; position: relative; }
        .phone-glyph::after { content: ""; position: absolute; left: 6px; right: 6px; top: 3px; height: 3px; border-radius: 2px; background: #8e8e93; }
        .clip { display: inline-block; width: 7px; height: 11px; border: 1.5px solid #8e8e93; border-radius: 4px; }
        .no-screen p { margin: 6px 0 0; font-size: 12.5px; color: #aeaeb2; }
        .no-screen code { font-family: var(--mono); font-size: 11.5px; color: #fff; }
        .apps { width: 100%; margin-top: 12px; background: var(--panel); border-radius: 12px; padding: 4px 12px; box-shadow: 0 1px 2px rgba(0,0,0,.04); }
        .app-row { display: grid; grid-template-columns: 30px 1fr 128px; align-items: center; gap: 10px; padding: 8px 0; }
        .app-row + .app-row { border-top: 1px solid var(--line); }
        .app-row .icon { width: 30px; height: 30px; border-radius: 8px; font-size: 14px; }
        .app-row .icon-badge { min-width: 16px; height: 16px; line-height: 16px; font-size: 10px; top: -5px; right: -6px; padding: 0 4px; }
        .app-name { font-weight: 600; font-size: 13px; }
        .app-meta { font-size: 11px; color: var(--ink-3); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .app-row select { margin: 0; padding: 4px 6px; font-size: 12px; }

        /* Trace */
        .trace-lookup { display: flex; gap: 8px; margin-bottom: 12px; }
        .trace-lookup input { margin: 0; }
        .trace-summary { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; margin-bottom: 12px; font-size: 12.5px; }
        .trace-summary .id { font-family: var(--mono); font-size: 12px; word-break: break-all; }
        .trace-summary dl { display: grid; grid-template-columns: 86px 1fr; gap: 2px 8px; margin: 8px 0 0; }
        .trace-summary dt { color: var(--ink-3); }
        .trace-summary dd { margin: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .state { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; background: #f0f0f3; color: var(--ink-2); }
        .state.delivered { background: var(--ok-bg); color: var(--ok); }
        .state.stored { background: #e8f1fd; color: var(--accent); }
        .state.expired, .state.discarded, .state.replaced { background: var(--warn-bg); color: var(--warn); }
        .timeline { list-style: none; margin: 0; padding: 0 0 0 4px; }
        .tl-event { position: relative; padding: 0 0 14px 22px; }
        .tl-event::before { content: ""; position: absolute; left: 5px; top: 14px; bottom: -2px; width: 2px; background: var(--line); }
        .tl-event:last-child::before { display: none; }
        .tl-dot { position: absolute; left: 0; top: 3px; width: 12px; height: 12px; border-radius: 50%; background: var(--ink-3); box-shadow: 0 0 0 3px #fff; }
        .tl-kind { font-weight: 650; }
        .tl-time { color: var(--ink-3); font-size: 11.5px; margin-left: 6px; font-variant-numeric: tabular-nums; }
        .tl-detail { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 3px; }
        .chip { font-size: 11px; padding: 1px 7px; border-radius: 6px; background: #f2f2f5; color: var(--ink-2); max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .chip b { font-weight: 600; color: var(--ink); }
        .k-accepted .tl-dot, .k-stored .tl-dot { background: var(--accent); }
        .k-sent .tl-dot { background: #5e5ce6; }
        .k-acknowledged .tl-dot { background: #32ade6; }
        .k-displayed .tl-dot, .k-modified .tl-dot { background: #30d158; }
        .k-action .tl-dot, .k-opened .tl-dot, .k-tapped .tl-dot { background: #ff9f0a; }
        .k-dismissed .tl-dot, .k-removed .tl-dot, .k-replaced .tl-dot { background: #8e8e93; }
        .k-dropped .tl-dot, .k-expired .tl-dot, .k-discarded .tl-dot { background: var(--bad); }
        .k-background .tl-dot { background: #bf5af2; }
        .k-expanded .tl-dot, .k-collapsed .tl-dot, .k-media .tl-dot { background: #64d2ff; }
        .tl-more { font-size: 11px; color: var(--ink-3); }
        .tl-more summary { cursor: pointer; display: inline; }
        .tl-more[open] { flex-basis: 100%; }
        .tl-more pre { margin: 4px 0 0; padding: 6px 8px; background: #fbfbfd; border: 1px solid var(--line); border-radius: 6px; overflow: auto;
          max-height: 180px; font-size: 11px; color: var(--ink-2); white-space: pre-wrap; overflow-wrap: anywhere; }
        details.payload { margin-top: 4px; font-size: 12px; }
        details.payload summary { cursor: pointer; color: var(--ink-2); }
        details.payload pre { margin: 6px 0 0; padding: 8px; background: #fbfbfd; border: 1px solid var(--line); border-radius: 8px; overflow: auto; max-height: 200px; font-size: 11.5px; }
        .recent-tools { display: flex; gap: 8px; align-items: center; margin: 0 0 6px; }
        .recent-tools input { flex: 1; min-width: 0; font-size: 12px; padding: 5px 8px; }
        .recent-count { font-size: 11px; color: var(--ink-3); white-space: nowrap; }
        .zone-note { font-size: 11px; color: var(--ink-3); margin: 8px 0 0; }
        .trace-hints { margin: 8px 0 0; padding: 0; list-style: none; }
        .trace-hints li { font-size: 12px; color: #6b4e00; background: #fff8e1; border: 1px solid #f3dfa2; border-radius: 8px; padding: 6px 8px; margin-top: 4px; }
        .app-silent { font-size: 11px; color: var(--ink-2); margin-top: 2px; cursor: pointer; }
        .recent { list-style: none; margin: 0; padding: 0; }
        .recent li { display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; padding: 7px 8px; border-radius: 8px; cursor: pointer; }
        .recent li:hover { background: #f5f5f7; }
        .recent li.selected { background: #e8f1fd; }
        .recent .r-title { font-size: 12.5px; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .recent .r-meta { font-size: 11px; color: var(--ink-3); grid-column: 1 / -1; font-family: var(--mono); }

        .toasts { position: fixed; left: 50%; top: 10px; transform: translateX(-50%); z-index: 20; pointer-events: none; }
        .toast { max-width: 460px; padding: 6px 14px; border-radius: 999px; background: rgba(29,29,31,.9); color: #fff; font-size: 13px;
          white-space: nowrap; overflow: hidden; text-overflow: ellipsis; box-shadow: 0 4px 14px rgba(0,0,0,.18); animation: drop .25s ease-out; }
        @keyframes drop { from { transform: translateY(-8px); opacity: 0; } to { transform: none; opacity: 1; } }
        .toast.error { background: rgba(215,0,21,.94); }

        """#
}
