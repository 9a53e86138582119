// The web console's script (docs/console.md): plain ES2020 in ES modules, no libraries. It talks only to the JSON API
// on the same origin (docs/inspection-api.json and the console endpoints in docs/console.md).
import {
  $, enc, sleep, el, api, toast, toDate, clock, precise, zoneText, localISO, ago, bytesText, shortToken, utf8Length,
  lower, appIcon, iconColor
} from './helpers.js';
import { refreshFaults, showFaultTarget, startFaults } from './faults.js';
import { refreshChannels, startChannels } from './channels.js';

// ---- State ---------------------------------------------------------------------------
const state = {
  devices: [],                 // GET /api/v1/devices
  screens: new Map(),          // deviceID → {online, updatedAt, screen} or {missing: message}
  screenText: new Map(),       // deviceID → last rendered JSON (skip identical re-renders)
  seenNotes: new Set(),        // request identifiers already drawn (new ones animate in)
  replies: new Map(),          // open text inputs: key → text typed so far
  traceID: '',                 // the apns-id the Trace panel follows
  trace: null,
  recent: [],
  outcomes: new Map(),         // lower(apns-id) → {reason} when its device dropped it, null when it did not
  refusals: [],                // web pushes the push service refused, heard of live: {apnsID, at, status, reason}
  webTitles: new Map(),        // lower(apns-id) → the title a web app showed for it (kept after it leaves the screen)
};
const deviceByID = (id) => state.devices.find((d) => d.id === id);
// A web push subscription (kind web-push) is left out: its pushes are encrypted by the site's server for the
// subscription's keys and posted to its endpoint (docs/web-push.md), which an APNs request from the Send form is not.
const activeTokens = (device) => (device?.tokens || [])
  .filter((t) => (t.unregisteredAt === null || t.unregisteredAt === undefined) && t.kind !== 'web-push');

// ---- Send panel ----------------------------------------------------------------------
const form = $('send-form');
const fields = {
  device: $('send-device'), app: $('send-app'), token: $('send-token'), topic: $('send-topic'),
  pushType: $('send-push-type'), priority: $('send-priority'), expiration: $('send-expiration'),
  collapseID: $('send-collapse-id'), apnsID: $('send-apns-id'), payload: $('send-payload'), template: $('send-template'),
};
const limits = { voip: 5120 };

function selectedApp() {
  const device = deviceByID(fields.device.value);
  const token = activeTokens(device).find((t) => t.bundleID === fields.app.value);
  return { device, token };
}
function appCategories(deviceID, bundleID) {
  const screen = state.screens.get(deviceID)?.screen;
  const app = (screen?.apps || []).find((a) => a.bundleID === bundleID);
  return app?.categories || [];
}
function tokenOwner(hex) {
  const wanted = lower(hex);
  for (const device of state.devices) {
    for (const token of device.tokens || []) if (lower(token.token) === wanted) return { device, token };
  }
  return null;
}

function fillDevicePicker() {
  const previous = fields.device.value;
  const options = state.devices.map((d) => el('option', { value: d.id }, (d.online ? '● ' : '○ ') + (d.name || d.id)));
  fields.device.replaceChildren(...(options.length ? options : [el('option', { value: '' }, 'No devices yet')]));
  const keep = state.devices.find((d) => d.id === previous);
  const preferred = keep || state.devices.find((d) => d.online && activeTokens(d).length) || state.devices[0];
  fields.device.value = preferred ? preferred.id : '';
  fillAppPicker();
}
function fillAppPicker() {
  const previous = fields.app.value;
  const tokens = activeTokens(deviceByID(fields.device.value));
  const options = tokens.map((t) => el('option', { value: t.bundleID }, t.bundleID + (t.environment === 'production' ? ' (production)' : '')));
  fields.app.replaceChildren(...(options.length ? options : [el('option', { value: '' }, 'No registered apps')]));
  fields.app.value = tokens.some((t) => t.bundleID === previous) ? previous : (tokens[0]?.bundleID || '');
  describeTarget();
  fillTemplates();
}
function describeTarget() {
  showFaultTarget();
  const hint = $('send-target-hint');
  const typed = fields.token.value.trim();
  form.classList.toggle('typed-token', typed !== '');
  if (typed) {
    const owner = tokenOwner(typed);
    hint.replaceChildren(owner
      ? `Token of ${owner.token.bundleID} on ${owner.device.name}` + (owner.token.unregisteredAt ? ' (unregistered)' : '')
      : 'Using the token typed below.');
    return;
  }
  const { token } = selectedApp();
  hint.replaceChildren(...(token ? ['Token ', el('span', { class: 'mono', text: shortToken(token.token) }), ' · ' + token.environment] : ['Pick a device and an app, or type a token.']));
}

function templates() {
  const list = [
    ['Alert', { aps: { alert: { title: 'Hello', subtitle: 'From Herald', body: 'Sent from Herald.' }, sound: 'default' } }],
    ['Alert with badge', { aps: { alert: { title: 'Inbox', body: 'You have 3 new messages.' }, badge: 3 } }],
    ['Threaded alert', { aps: { alert: { title: 'Alice', body: 'Are we still on for lunch?' }, 'thread-id': 'chat-alice' } }],
    ['Background update', { aps: { 'content-available': 1 }, refresh: 'inbox' }],
    ['Clear the badge', { aps: { badge: 0 } }],
  ];
  for (const category of appCategories(fields.device.value, fields.app.value)) {
    if (!(category.actions || []).length) continue;
    const titles = category.actions.map((a) => a.title).join(', ');
    list.push([`Category “${category.identifier}” (${titles})`,
      { aps: { alert: { title: 'Action needed', body: 'Choose: ' + titles }, category: category.identifier } }]);
  }
  return list;
}
function fillTemplates() {
  const list = templates();
  fields.template.replaceChildren(el('option', { value: '' }, 'Templates…'), ...list.map(([name], i) => el('option', { value: String(i) }, name)));
  fields.template.value = '';
  fields.template._list = list;
}
fields.template.addEventListener('change', () => {
  const entry = fields.template._list?.[Number(fields.template.value)];
  if (!entry) return;
  fields.payload.value = JSON.stringify(entry[1], null, 2);
  if (entry[1].aps && entry[1].aps['content-available'] && !entry[1].aps.alert) {
    fields.pushType.value = 'background';
    if (fields.priority.value === '10') fields.priority.value = '5';
  } else if (fields.pushType.value === 'background') {
    fields.pushType.value = 'alert';
  }
  fields.template.value = '';
  scheduleValidation();
});

function pushBody() {
  const body = {};
  const typed = fields.token.value.trim();
  if (typed) {
    body.token = typed;
  } else if (fields.device.value && fields.app.value) {
    body.deviceID = fields.device.value;
    body.bundleID = fields.app.value;
  }
  // Without a topic the server uses the app's bundle id with the push type's suffix (.voip, .complication, …).
  const topic = fields.topic.value.trim();
  if (topic) body.topic = topic;
  body.pushType = fields.pushType.value;
  body.priority = Number(fields.priority.value);
  const expiration = fields.expiration.value.trim();
  if (expiration !== '') body.expiration = /^-?\d+$/.test(expiration) ? Number(expiration) : expiration;
  const collapseID = fields.collapseID.value;
  if (collapseID !== '') body.collapseID = collapseID;
  const apnsID = fields.apnsID.value.trim();
  if (apnsID !== '') body.apnsID = apnsID;
  body.payload = fields.payload.value;
  return body;
}

function showBytes() {
  const limit = limits[fields.pushType.value] || 4096;
  const size = utf8Length(fields.payload.value);
  $('send-bytes').textContent = `${size} of ${limit} bytes`;
}

let validationTimer = null;
let validationRound = 0;
function scheduleValidation() {
  showBytes();
  clearTimeout(validationTimer);
  validationTimer = setTimeout(validate, 250);
}
async function validate() {
  const round = ++validationRound;
  const box = $('send-validation');
  const body = pushBody();
  let answer;
  try {
    answer = await api('POST', '/api/v1/console/validate', body);
  } catch (error) {
    answer = { status: 0, data: null };
  }
  if (round !== validationRound) return;  // a newer edit is being checked
  box.dataset.source = 'server';
  if (answer.status === 200 && answer.data && answer.data.valid === true) {
    box.dataset.valid = 'true';
    box.dataset.reason = '';
    box.replaceChildren('✓ Ready to send — the gateway would accept this push.');
  } else if (answer.status === 200 && answer.data && answer.data.valid === false) {
    box.dataset.valid = 'false';
    box.dataset.reason = answer.data.reason || '';
    box.replaceChildren('✗ ', el('b', { text: `${answer.data.status || 400} ${answer.data.reason || ''}` }),
      answer.data.message ? ' — ' + answer.data.message : '');
  } else if (answer.status === 400 && answer.data && answer.data.error) {
    // The form itself cannot be a push (say, an expiration that is not a number).
    box.dataset.valid = 'false';
    box.dataset.reason = '';
    box.replaceChildren('✗ ' + answer.data.error);
  } else {
    // No server-side check (an older server, or the server is away): at least check the JSON.
    let local = '';
    try { JSON.parse(body.payload); } catch (error) { local = 'not valid JSON: ' + error.message; }
    // Only the server's verdict carries a reason: this one is marked as a local check.
    box.dataset.valid = local ? 'false' : '';
    box.dataset.reason = '';
    box.dataset.source = 'local';
    box.replaceChildren(local ? '✗ ' + local : `Server-side validation is not available (${answer.data?.error || 'HTTP ' + answer.status}).`);
  }
}

// The payload's own check, which needs no server: drawn at once, until the gateway's verdict replaces it.
function checkLocally() {
  const box = $('send-validation');
  const payload = fields.payload.value;
  let problem = '';
  try { JSON.parse(payload); } catch (error) { problem = 'not valid JSON: ' + error.message; }
  box.dataset.valid = problem ? 'false' : '';
  box.dataset.reason = '';
  box.dataset.source = 'local';
  box.replaceChildren(problem ? '✗ ' + problem
    : `Valid JSON, ${utf8Length(payload)} bytes; the gateway checks it once the server answers.`);
}

form.addEventListener('input', (event) => {
  if (event.target === fields.token) describeTarget();
  if (event.target !== fields.template) scheduleValidation();
});
fields.device.addEventListener('change', () => { fillAppPicker(); scheduleValidation(); });
fields.app.addEventListener('change', () => { describeTarget(); fillTemplates(); scheduleValidation(); });
fields.pushType.addEventListener('change', () => {
  if (fields.pushType.value === 'background' && fields.priority.value === '10') fields.priority.value = '5';
  scheduleValidation();
});
fields.payload.addEventListener('keydown', (event) => {
  if (event.key === 'Tab' && !event.shiftKey) {
    event.preventDefault();
    fields.payload.setRangeText('  ', fields.payload.selectionStart, fields.payload.selectionEnd, 'end');
    scheduleValidation();
  } else if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
    event.preventDefault();
    form.requestSubmit();
  }
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = $('send-button');
  const result = $('send-result');
  button.disabled = true;
  button.textContent = 'Sending…';
  try {
    const answer = await api('POST', '/api/v1/console/send', pushBody(), 30000);
    showResult(answer);
  } catch (error) {
    showResult({ status: 0, data: { error: String(error.message || error) } });
  } finally {
    button.disabled = false;
    button.textContent = 'Send';
    result.hidden = false;
  }
});

function showResult(answer) {
  const result = $('send-result');
  const data = answer.data || {};
  if (answer.status !== 200 || typeof data.status !== 'number') {
    result.dataset.status = '';
    result.replaceChildren(el('div', { class: 'result-head' }, el('span', { class: 'status-pill bad', text: 'Not sent' })),
      el('div', { text: data.error || `HTTP ${answer.status}` }));
    return;
  }
  const ok = data.status === 200;
  result.dataset.status = String(data.status);
  const rows = [];
  if (data.apnsID) {
    rows.push(el('dt', { text: 'apns-id' }), el('dd', {},
      el('a', { class: 'apns-id', href: '#trace', testid: 'send-result-apns-id', title: 'Show the trace',
        onclick: (e) => { e.preventDefault(); selectTrace(data.apnsID); } }, data.apnsID)));
  }
  rows.push(el('dt', { text: 'reason' }), el('dd', { testid: 'send-result-reason', text: data.reason || '—' }));
  if (data.timestamp) rows.push(el('dt', { text: 'timestamp' }), el('dd', { text: new Date(data.timestamp).toLocaleString() }));
  result.replaceChildren(
    el('div', { class: 'result-head' },
      el('span', { class: 'status-pill ' + (ok ? 'ok' : 'bad'), testid: 'send-result-status', text: String(data.status) }),
      el('span', { text: ok ? 'Accepted by the gateway' : (data.reason || 'Refused') })),
    el('dl', {}, rows));
  if (ok && data.apnsID) selectTrace(data.apnsID);
  refreshRecent();
  refreshFaults();  // a fault rule may have answered it
}

// ---- Devices panel -------------------------------------------------------------------
async function refreshDevices() {
  const answer = await api('GET', '/api/v1/devices');
  if (answer.status !== 200 || !answer.data) return;
  state.devices = answer.data.devices || [];
  $('device-count').textContent = state.devices.length ? String(state.devices.length) : '';
  const typedFocus = document.activeElement;
  fillDevicePicker();
  if (typedFocus && typedFocus !== document.activeElement) typedFocus.focus();
  // A device that never sent a screen has none to fetch (no request that can only be a 404).
  for (const d of state.devices) if (!d.online && d.screenAt == null) state.screens.set(d.id, { missing: 'Never connected to this server.' });
  await Promise.all(state.devices.filter((d) => d.online || d.screenAt != null).map((d) => refreshScreen(d.id, false)));
  renderDevices();
  // The screens name the web pushes their web apps showed (an encrypted payload has no title of its own).
  if (state.recent.some((n) => n.pushType === 'web-push')) renderRecent();
}

async function refreshScreen(deviceID, render = true) {
  const answer = await api('GET', `/api/v1/devices/${enc(deviceID)}/screen`);
  if (answer.status === 200 && answer.data) {
    state.screens.set(deviceID, answer.data);
  } else {
    state.screens.set(deviceID, { missing: answer.data?.error || `HTTP ${answer.status}` });
  }
  if (render) renderDevice(deviceID);
}

function renderDevices() {
  const container = $('devices');
  if (!state.devices.length) {
    container.replaceChildren(el('div', { class: 'empty' },
      'No devices yet. Start one: ', el('code', { text: 'herald device --app com.example.app' })));
    state.screenText.clear();
    return;
  }
  const wanted = state.devices.map((d) => 'device-' + d.id);
  const current = [...container.children].map((n) => n.dataset.testid);
  if (wanted.join('|') !== current.join('|')) {
    container.replaceChildren(...state.devices.map((d) => el('article', { class: 'device', testid: 'device-' + d.id, 'data-device-id': d.id })));
    state.screenText.clear();
  }
  for (const device of state.devices) renderDevice(device.id);
}

function renderDevice(deviceID) {
  const node = [...$('devices').children].find((n) => n.dataset.deviceId === deviceID);
  const device = deviceByID(deviceID);
  if (!node || !device) return;
  const record = state.screens.get(deviceID) || {};
  const text = JSON.stringify([device, record, [...state.replies.entries()], silentPushes(device).map((n) => [n.apnsID, n.state])]);
  if (state.screenText.get(deviceID) === text) return;
  state.screenText.set(deviceID, text);
  const keep = keepInputs(node);
  const online = record.online ?? device.online;
  node.classList.toggle('offline', !online);
  node.replaceChildren(...drawDevice(device, record, online));
  restoreInputs(node, keep);
}

// Typing in a reply field must survive a re-render.
function keepInputs(root) {
  const active = document.activeElement;
  if (!active || !root.contains(active) || !active.dataset.keep) return null;
  return { key: active.dataset.keep, start: active.selectionStart, end: active.selectionEnd };
}
function restoreInputs(root, kept) {
  if (!kept) return;
  const input = [...root.querySelectorAll('[data-keep]')].find((n) => n.dataset.keep === kept.key);
  if (!input) return;
  input.focus();
  try { input.setSelectionRange(kept.start, kept.end); } catch (_) { /* not a text field */ }
}

function drawDevice(device, record, online) {
  const screen = record.screen;
  const apps = screen?.apps || [];
  const webApps = screen?.webApps || [];
  // A device with only Safari web apps is a Mac, as `herald device` decides (docs/web-push.md): drawn as one.
  const isMac = !apps.length && webApps.length > 0 && webApps.every((w) => w.kind === 'safari');
  const now = new Date();
  const head = el('div', { class: 'device-head' },
    // A Mac's simulated device keeps `herald device`'s default name (no manifest names it): the server's is better.
    el('div', {}, el('div', { class: 'device-name', text: (isMac ? device.name || screen?.name : screen?.name || device.name) || 'Device' }),
      el('div', { class: 'device-id', text: device.id })),
    el('span', { class: 'badge-online' + (online ? '' : ' off'), text: online ? 'Online' : 'Offline' }));

  const center = el('div', { class: 'center' });
  let shown = 0;
  // Live Activities sit above the notifications on the lock screen, as on iOS.
  const activities = apps.flatMap((app) => (app.activities || []).map((activity) => ({ app, activity })));
  for (const { app, activity } of activities) { center.append(drawActivity(app, activity)); shown++; }
  for (const app of apps) {
    const threads = app.center?.threads || [];
    if (!threads.length) continue;
    const group = el('div', { class: 'app-group' });
    for (const thread of threads) {
      if (thread.threadIdentifier) {
        const count = thread.notifications.length;
        group.append(el('div', { class: 'thread-label' }, `${app.name} · ${thread.threadIdentifier}` + (count > 1 ? ` · ${count}` : '')));
      }
      for (const note of thread.notifications) { group.append(drawNote(device.id, app, note)); shown++; }
    }
    center.append(group);
  }
  for (const webApp of webApps) {
    const notes = webApp.notifications || [];
    if (!notes.length) continue;
    // The web app keeps them oldest first; Notification Center shows the newest on top.
    center.append(el('div', { class: 'app-group' }, [...notes].reverse().map((note) => drawWebNote(device.id, webApp, note))));
    shown += notes.length;
  }
  if (!shown) {
    center.append(el('div', { class: 'center-empty' },
      record.missing ? 'No screen from this device yet.' : (apps.length || webApps.length ? 'No Older Notifications' : 'No apps')));
  }
  if (!screen) {
    const tokens = activeTokens(device);
    return [head, el('div', { class: 'no-screen', testid: 'no-screen' },
      el('div', { class: 'icon-phone' }, el('span', { class: 'phone-glyph' })),
      el('div', { text: online ? 'No screen from this device yet' : 'Offline — no screen yet' }),
      online
        ? el('p', { text: 'It is connected but has not sent its screen (a herald device from before the console).' })
        : el('p', {}, 'Start it with ', el('code', { text: `herald device --id ${device.id} --secret …` })),
      tokens.length ? el('p', { text: 'Apps: ' + tokens.map((t) => t.bundleID).join(', ') }) : null)];
  }
  // Home Screen web apps sit in the dock beside the iOS apps, with their badge.
  const dockIcons = [...apps.map((app) => appIcon(app, false, app.center?.badge)),
    ...webApps.filter((w) => w.kind !== 'safari').map((w) => webIcon(w, false, w.badge))].slice(0, 4);
  const dock = el('div', { class: 'dock' }, dockIcons);
  const offlineNote = online ? null
    : el('div', { class: 'offline-note', text: record.updatedAt ? `Offline · screen from ${clock(new Date(record.updatedAt))}` : 'Offline' });
  const frame = isMac ? drawMac(now, center, offlineNote) : el('div', { class: 'phone' },
    el('div', { class: 'screen' },
      el('div', { class: 'statusbar' }, el('span', { text: clock(now) }), drawIsland(activities),
        el('span', { class: 'status-icons' }, el('span', { text: online ? '5G' : '' }), el('i'))),
      el('div', { class: 'lock' },
        el('div', { class: 'lock-date', text: now.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' }) }),
        el('div', { class: 'lock-time', text: clock(now) })),
      center,
      dockIcons.length ? dock : null,
      el('div', { class: 'home-bar' })),
    offlineNote);

  const appRows = apps.map((app) => el('div', { class: 'app-row', testid: `app-${app.bundleID}` },
    appIcon(app, false, app.center?.badge),
    el('div', { class: 'app-text' }, el('div', { class: 'app-name', text: app.name || app.bundleID }),
      el('div', { class: 'app-meta', text: `${app.bundleID} · ${app.authorization || ''} · ${app.environment || ''}` }),
      silentLine(device, app)),
    stateSelect(device.id, app)));
  appRows.push(...webApps.map((webApp) => drawWebAppRow(device.id, webApp)));
  const panel = appRows.length ? el('div', { class: 'apps' }, appRows)
    : el('div', { class: 'apps' }, el('div', { class: 'app-meta app-missing', text: record.missing || 'No apps.' }));
  return [head, frame, panel];
}

// ---- Web apps (docs/web-push.md): Safari on a Mac, or Home Screen web apps on an iPhone -------------------------------
// A Mac's display: the menu bar, and Notification Center's banners at the top right of the desktop.
function drawMac(now, center, offlineNote) {
  return el('div', { class: 'mac', testid: 'mac' },
    el('div', { class: 'mac-screen' },
      el('div', { class: 'mac-menubar' },
        el('span', { class: 'mac-apple' }), el('b', { text: 'Safari' }), el('span', { class: 'mac-menus', text: 'File Edit View' }),
        el('span', { class: 'mac-clock', text: now.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' }) + ' ' + clock(now) })),
      center),
    el('div', { class: 'mac-stand' }),
    offlineNote);
}

// A site's icon: a globe (the console cannot fetch the site's own icon), coloured by origin, with the app badge: a
// number, or a dot for `navigator.setAppBadge()` without one ("flag").
function webIcon(webApp, small, badge) {
  const node = el('span', { class: 'icon web' + (small ? ' small' : ''), title: webApp.origin }, el('span', { class: 'globe' }));
  node.style.background = iconColor(webApp.origin);
  if (badge === 'flag') node.append(el('span', { class: 'icon-badge flag', title: 'Badge set without a count' }));
  else if (typeof badge === 'number' && badge > 0) node.append(el('span', { class: 'icon-badge', text: badge > 99 ? '99+' : String(badge) }));
  return node;
}
const siteName = (origin) => String(origin || '').replace(/^https?:\/\//, '');

// A web app's notification. A tap is the device's `tap` with the origin for the app: a declarative message opens its
// `navigate` URL, a service worker's runs its `notificationclick`; either way it leaves the screen. × is the device's
// `dismiss` (a service worker's notification gets its `notificationclose`). Web notifications have no action buttons
// on the device, so the card has none.
function drawWebNote(deviceID, webApp, note) {
  const apnsID = note.apnsID ? String(note.apnsID) : '';
  const key = `${deviceID}|${webApp.origin}|${note.id}`;
  const fresh = !state.seenNotes.has(key);
  state.seenNotes.add(key);
  if (apnsID && note.title) state.webTitles.set(lower(apnsID), note.title);
  const card = el('div', {
    class: 'note web-note' + (fresh ? ' fresh' : ''), testid: 'web-notification-' + lower(apnsID || note.id),
    'data-identifier': note.id, 'data-apns-id': apnsID, 'data-origin': webApp.origin,
  });
  const opens = note.source === 'declarative' ? (note.navigate ? `opens ${note.navigate}` : 'opens the site')
    : 'runs the service worker\'s notificationclick';
  const base = { bundleID: webApp.origin, identifier: note.id };
  card.append(
    el('div', { class: 'note-head' },
      webIcon(webApp, true), el('span', { class: 'note-app', title: webApp.origin, text: siteName(webApp.origin) }),
      el('span', { class: 'note-source', text: webApp.kind === 'safari' ? 'Safari' : 'Web App' }),
      el('button', { class: 'note-x', title: 'Dismiss', 'aria-label': 'Dismiss', testid: 'dismiss',
        onclick: () => interact(deviceID, { ...base, kind: 'dismiss' }, card, apnsID) }, '×')),
    el('div', { class: 'note-main', title: 'Tap: ' + opens, testid: 'web-tap',
      onclick: () => interact(deviceID, { ...base, kind: 'tap' }, card, apnsID) },
    el('div', { class: 'note-text' },
      note.title ? el('div', { class: 'note-title', testid: 'web-title', text: note.title }) : null,
      note.body ? el('div', { class: 'note-body', testid: 'web-body', text: note.body }) : null)),
    el('div', { class: 'web-note-foot', text: (note.source === 'declarative' ? 'Declarative' : 'Service worker') + ' · tap ' + opens }));
  return card;
}

// Under the frame: the web app's origin, kind, subscription state (the endpoint, or why it was revoked) and the
// pushes that showed nothing, which Safari counts against it.
function drawWebAppRow(deviceID, webApp) {
  const kind = webApp.kind === 'safari' ? 'Safari' : 'Home Screen web app';
  const facts = [kind, webApp.subscription ? 'subscription ' + shortToken(webApp.subscription) : null,
    webApp.silentPushes ? `${webApp.silentPushes} silent push${webApp.silentPushes === 1 ? '' : 'es'}` : null].filter(Boolean).join(' · ');
  const detail = webApp.state === 'revoked' ? `Revoked: ${webApp.reason || ''}` : (webApp.endpoint || 'Not subscribed yet');
  return el('div', { class: 'app-row web-row', testid: 'web-app-' + webApp.origin },
    webIcon(webApp, false, webApp.badge),
    el('div', { class: 'app-text' }, el('div', { class: 'app-name', text: webApp.origin }),
      el('div', { class: 'app-meta', text: facts, title: webApp.subscription || '' }),
      el('div', { class: 'app-meta' + (webApp.state === 'revoked' ? ' revoked' : ''), testid: 'web-app-endpoint', title: detail, text: detail })),
    el('div', { class: 'web-side' },
      el('span', { class: 'web-state ' + (webApp.state || ''), testid: 'web-app-state', text: webApp.state || '' }),
      // Safari's Settings → Websites → Notifications: what arrives next is dropped (docs/web-push.md).
      webApp.permission === 'removed'
        ? el('span', { class: 'web-permission removed', testid: 'web-app-permission', text: 'permission removed' })
        : el('button', { class: 'web-permission', testid: 'web-app-remove-permission', title: 'The user removes the site\'s permission for notifications',
          onclick: (e) => interact(deviceID, { bundleID: webApp.origin, kind: 'removePermission' }, e.currentTarget) }, 'Remove permission')));
}

// ---- Live Activities (docs/live-activities.md) ------------------------------------------------------------------------
// An activity's content state as short "name value" pairs: what its lock-screen view would show.
function contentPairs(activity) {
  let state = {};
  try { state = JSON.parse(activity.contentState || '{}'); } catch { return [['content', activity.contentState]]; }
  return Object.entries(state || {}).map(([name, value]) => [name, typeof value === 'object' ? JSON.stringify(value) : String(value)]);
}

function drawActivity(app, activity) {
  const view = app.activityViews?.[activity.id];
  const pairs = contentPairs(activity);
  let attributes = {};
  try { attributes = JSON.parse(activity.attributes || '{}'); } catch { attributes = {}; }
  const subtitle = Object.values(attributes || {}).filter((v) => typeof v !== 'object').slice(0, 2).join(' · ');
  const stateText = { active: 'Live', stale: 'Stale', ended: 'Ended', dismissed: 'Dismissed' }[activity.state] || activity.state;
  const meta = [activity.channelID ? `channel ${activity.channelID}` : null,
    activity.pushToken ? `token ${shortToken(activity.pushToken)}` : null].filter(Boolean).join(' · ');
  return el('div', { class: `activity ${activity.state}`, testid: `activity-${activity.id}`, title: `${activity.typeName} ${activity.id}` },
    el('div', { class: 'activity-head' },
      appIcon(app, true),
      el('span', { class: 'activity-type', text: `${app.name || app.bundleID} · ${activity.typeName}` }),
      el('span', { class: `activity-state ${activity.state}`, testid: 'activity-state', text: stateText })),
    ...(view ? [
      // The type's lock-screen template, drawn by the device (docs/device-manifest.md, "activities").
      view.title ? el('div', { class: 'activity-title', testid: 'activity-title', text: view.title }) : null,
      el('div', { class: 'activity-lines', testid: 'activity-content' },
        (view.lines || []).map((line) => el('div', { class: 'activity-line', text: line })))]
      : [subtitle ? el('div', { class: 'activity-subtitle', text: subtitle }) : null,
        el('div', { class: 'activity-content', testid: 'activity-content' },
          pairs.map(([name, value]) => el('div', { class: 'activity-pair' },
            el('span', { class: 'activity-key', text: name }), el('span', { class: 'activity-value', text: value }))))]),
    meta ? el('div', { class: 'activity-meta', text: meta }) : null);
}

// The Dynamic Island: empty, or the first running activity's compact view (its first content value).
function drawIsland(activities) {
  const live = activities.find(({ activity }) => activity.state === 'active' || activity.state === 'stale');
  if (!live) return el('span', { class: 'island' });
  const first = contentPairs(live.activity)[0];
  return el('span', { class: 'island live', testid: 'island', title: `${live.activity.typeName}: compact view` },
    el('span', { class: 'island-leading' }), el('span', { class: 'island-trailing', text: first ? first[1] : '' }));
}

// Silent (background) pushes show nothing on the phone, as on iOS: the app's row says what became of the newest.
const isSilent = (n) => n.pushType === 'background' || (n.payload?.aps?.['content-available'] === 1 && !n.payload?.aps?.alert);
function silentPushes(device) {
  const tokens = new Set((device.tokens || []).map((t) => lower(t.token)));
  return state.recent.filter((n) => isSilent(n) && tokens.has(lower(n.token)));
}
function silentLine(device, app) {
  const newest = silentPushes(device).find((n) => n.bundleID === app.bundleID);
  if (!newest) return null;
  const what = { delivered: 'delivered to the app in the background', stored: 'waiting for the device',
    expired: 'expired before delivery', replaced: 'replaced by a newer one', discarded: 'discarded (token unregistered)' }[newest.state] || newest.state;
  return el('div', { class: 'app-silent', testid: 'silent-' + lower(newest.apnsID), title: localISO(newest.acceptedAt),
    onclick: () => selectTrace(newest.apnsID) }, `Silent push ${clock(new Date(newest.acceptedAt))} · ${what}`);
}

const appStates = ['foreground', 'background', 'suspended', 'notRunning', 'terminatedByUser'];
function stateSelect(deviceID, app) {
  const select = el('select', { 'aria-label': `State of ${app.name}`, testid: `app-state-${app.bundleID}`,
    onchange: () => interact(deviceID, { bundleID: app.bundleID, kind: 'setState', state: select.value }, select) },
    appStates.map((s) => el('option', { value: s }, s)));
  select.value = app.state;
  return select;
}

function apnsIDOf(app, note) {
  const mapped = app.apnsIDs && app.apnsIDs[note.identifier];
  return mapped ? String(mapped) : '';
}

function drawNote(deviceID, app, note) {
  const apnsID = apnsIDOf(app, note);
  const key = `${deviceID}|${app.bundleID}|${note.identifier}`;
  const fresh = !state.seenNotes.has(key);
  state.seenNotes.add(key);
  const categoryActions = (app.categories || []).find((c) => c.identifier === note.categoryIdentifier)?.actions || [];
  const base = { bundleID: app.bundleID, identifier: note.identifier };
  const card = el('div', {
    class: 'note' + (fresh ? ' fresh' : ''), testid: 'notification-' + lower(apnsID || note.identifier),
    'data-identifier': note.identifier, 'data-apns-id': apnsID,
  });
  const date = toDate(note.date);
  card.append(el('div', { class: 'note-head' },
    appIcon(app, true), el('span', { class: 'note-app', text: app.name || app.bundleID }),
    el('span', { text: ago(date), title: date ? date.toLocaleString() : '' }),
    el('button', { class: 'note-x', title: 'Dismiss', 'aria-label': 'Dismiss', testid: 'dismiss',
      onclick: () => interact(deviceID, { ...base, kind: 'dismiss' }, card, apnsID) }, '×')));

  const attachments = note.attachments || [];
  const firstThumb = attachments.find((a) => !a.thumbnailHidden);
  const main = el('div', { class: 'note-main', title: 'Tap to open the app', testid: 'tap',
    onclick: () => interact(deviceID, { ...base, kind: 'tap' }, card, apnsID) },
    el('div', { class: 'note-text' },
      note.title ? el('div', { class: 'note-title', text: note.title }) : null,
      note.subtitle ? el('div', { class: 'note-subtitle', text: note.subtitle }) : null,
      note.body ? el('div', { class: 'note-body', text: note.body }) : null),
    firstThumb ? thumb(firstThumb) : null);
  card.append(main);
  if (attachments.length) {
    card.append(el('div', { class: 'attachments' }, attachments.map((a) => el('div', { class: 'attachment', testid: 'attachment-' + a.identifier },
      el('span', { class: 'clip' }), el('span', { class: 'mono', text: a.identifier || 'attachment', title: `${a.identifier} — stored as ${a.fileName}` }),
      el('span', { class: 'meta', text: `· ${a.type} · ${bytesText(a.size)}` })))));
  }

  const actions = el('div', { class: 'note-actions' });
  for (const action of note.actions || []) {
    const declared = categoryActions.find((a) => a.identifier === action.identifier);
    const isText = declared ? declared.textInputButtonTitle != null : action.textInputPlaceholder != null;
    const destructive = declared ? (declared.options || []).includes('destructive') : (action.options & 2) !== 0;
    const replyKey = `${key}|${action.identifier}`;
    actions.append(el('button', {
      class: destructive ? 'destructive' : '', testid: 'action-' + action.identifier, title: `Action “${action.identifier}”`,
      onclick: () => {
        if (isText) {
          if (state.replies.has(replyKey)) state.replies.delete(replyKey); else state.replies.set(replyKey, '');
          renderDevice(deviceID);
          const input = [...document.querySelectorAll('[data-keep]')].find((n) => n.dataset.keep === replyKey);
          if (input) input.focus();
        } else {
          interact(deviceID, { ...base, kind: 'action', action: action.identifier }, card, apnsID);
        }
      },
    }, action.title + (isText ? '…' : '')));
  }
  actions.append(
    el('button', { class: 'tool', testid: 'expand', title: 'Expand (content extension)',
      onclick: () => interact(deviceID, { ...base, kind: isExpanded(app, note) ? 'collapse' : 'expand' }, card, apnsID) },
      isExpanded(app, note) ? 'Collapse' : 'Expand'),
    el('button', { class: 'tool', testid: 'open', onclick: () => interact(deviceID, { ...base, kind: 'tap' }, card, apnsID) }, 'Open'));
  card.append(actions);

  for (const action of note.actions || []) {
    const replyKey = `${key}|${action.identifier}`;
    if (!state.replies.has(replyKey)) continue;
    const declared = categoryActions.find((a) => a.identifier === action.identifier);
    const input = el('input', {
      testid: 'text-input-' + action.identifier, 'data-keep': replyKey, value: state.replies.get(replyKey),
      placeholder: declared?.textInputPlaceholder || action.textInputPlaceholder || action.title,
      oninput: () => state.replies.set(replyKey, input.value),
      onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); sendReply(); } },
    });
    const sendReply = () => {
      const text = input.value;
      state.replies.delete(replyKey);
      interact(deviceID, { ...base, kind: 'action', action: action.identifier, text }, card, apnsID);
    };
    card.append(el('div', { class: 'reply' }, input,
      el('button', { testid: 'text-input-send-' + action.identifier, onclick: sendReply }, declared?.textInputButtonTitle || 'Send')));
  }

  const rendering = app.center?.expandedContentExtension;
  if (rendering && rendering.notificationIdentifier === note.identifier) card.append(drawExpanded(deviceID, app, rendering));
  return card;
}

const isExpanded = (app, note) => app.center?.expandedContentExtension?.notificationIdentifier === note.identifier;

function thumb(attachment) {
  const type = lower(attachment.type);
  const kind = /image|jpeg|png|gif|heic/.test(type) ? 'image' : /movie|video|mpeg-4|mp4|avi/.test(type) ? 'video' : /audio|mp3|aiff|wav/.test(type) ? 'audio' : '';
  const title = `${attachment.fileName} (${attachment.type}, ${bytesText(attachment.size)})`;
  if (attachment.thumbnail && attachment.thumbnail.startsWith('data:image/')) {
    return el('img', { class: 'thumb image', src: attachment.thumbnail, alt: attachment.fileName, title, testid: 'thumbnail-' + attachment.identifier });
  }
  const label = (attachment.fileName.split('.').pop() || kind || 'file').toUpperCase().slice(0, 5);
  return el('div', { class: 'thumb ' + kind, title }, label);
}

function drawExpanded(deviceID, app, rendering) {
  const box = el('div', { class: 'expanded', testid: 'expanded' },
    el('div', { class: 'expanded-head' }, el('span', { text: rendering.extensionName }),
      el('span', { text: (rendering.size || []).map((n) => Math.round(n)).join(' × ') })),
    el('div', { class: 'expanded-title', text: rendering.headerTitle }),
    (rendering.lines || []).map((line) => el('div', { class: 'expanded-line', text: line })));
  // The button type is encoded as Apple's raw value (0 none, 1 default, 2 overlay) or its name.
  if (rendering.mediaButton && rendering.mediaButton.type !== 'none' && rendering.mediaButton.type !== 0) {
    const button = el('button', { testid: 'play-pause', title: rendering.mediaButton.isPlaying ? 'Pause' : 'Play',
      onclick: () => interact(deviceID, { bundleID: app.bundleID, kind: 'playPause' }, box) },
      rendering.mediaButton.isPlaying ? '❚❚' : '▶');
    button.style.background = String(rendering.mediaButton.tint || '#0071e3').slice(0, 7);
    box.append(el('div', { class: 'media' }, button, rendering.mediaButton.isPlaying ? 'Playing' : 'Paused'));
  }
  if (rendering.showsDefaultContent && (rendering.defaultContent || []).length) {
    box.append(el('div', { class: 'expanded-default' }, rendering.defaultContent.map((line) => el('div', { text: line }))));
  }
  return box;
}

async function interact(deviceID, body, busyNode, apnsID) {
  if (apnsID && (body.kind === 'action' || body.kind === 'tap' || body.kind === 'dismiss')) selectTrace(apnsID);
  busyNode?.classList.add('busy');
  try {
    const answer = await api('POST', `/api/v1/devices/${enc(deviceID)}/interactions`, body, 10000);
    if (answer.status !== 200) {
      toast(`${body.kind}: ${answer.data?.error || 'HTTP ' + answer.status}`, 'error');
    } else if (body.kind === 'action') {
      toast(body.text !== undefined ? `Sent “${body.text}” with ${body.action}` : `Performed ${body.action}`);
    }
  } catch (error) {
    toast(`${body.kind}: ${error.message || error}`, 'error');
  } finally {
    busyNode?.classList.remove('busy');
    state.screenText.delete(deviceID);
    await refreshScreen(deviceID);
    if (state.traceID) refreshTrace();
  }
}

// ---- Trace panel ---------------------------------------------------------------------
function selectTrace(apnsID) {
  const id = String(apnsID || '').trim();
  if (!id) return;
  state.traceID = id;
  $('trace-input').value = id;
  state.trace = null;
  refreshTrace();
  highlightRecent();
}
$('trace-lookup').addEventListener('submit', (e) => { e.preventDefault(); selectTrace($('trace-input').value); });

let traceRound = 0;
async function refreshTrace() {
  const id = state.traceID;
  if (!id) return;
  const round = ++traceRound;
  // A refusal heard of live is known not to be stored: its trace alone is asked for (no 404 in the browser's log).
  const refused = state.refusals.some((r) => lower(r.apnsID) === lower(id));
  let answer = refused ? { status: 404, data: null } : await api('GET', `/api/v1/notifications/${enc(id)}`);
  if (answer.status === 404) {
    // Nothing stored (a web push the push service refused, a request a fault rule answered): its trace may still
    // hold the in-memory events that say why.
    const trace = await api('GET', `/api/v1/notifications/${enc(id)}/trace`);
    if (trace.status === 200 && trace.data) answer = { status: 200, data: trace.data, notStored: true };
  }
  if (round !== traceRound || id !== state.traceID) return;
  state.trace = answer;
  renderTrace();
}

function renderTrace() {
  const box = $('trace');
  const answer = state.trace;
  box.dataset.apnsId = lower(state.traceID);
  if (!answer) { box.replaceChildren(el('div', { class: 'empty', text: 'Loading…' })); return; }
  if (answer.status !== 200 || !answer.data) {
    box.replaceChildren(el('div', { class: 'empty', text: answer.data?.error || `No notification ${state.traceID}` }));
    return;
  }
  const n = answer.data;
  const events = n.trace || [];
  const start = events[0]?.at ?? n.acceptedAt;
  const timeline = el('ol', { class: 'timeline' }, events.map((event) => el('li', { class: 'tl-event k-' + event.kind, testid: 'trace-event-' + event.kind },
    el('span', { class: 'tl-dot' }),
    el('span', { class: 'tl-kind', title: kindMeanings[event.kind] || '', text: event.kind }),
    el('span', { class: 'tl-time', title: localISO(event.at), text: precise(event.at) + (event.at !== start ? `  +${event.at - start} ms` : '') }),
    drawWhy(event),
    drawDetail(event.detail, n.apnsID, whyKeys[event.kind]))));
  if (answer.notStored) {
    const refused = events.some((e) => e.kind === 'refused');
    box.replaceChildren(el('div', { class: 'trace-summary' },
      el('div', { class: 'trace-heading' },
        el('span', { class: 'id', testid: 'trace-apns-id', text: n.apnsID }),
        el('span', { class: 'state ' + (refused ? 'refused' : 'not-stored'), testid: 'trace-state', text: refused ? 'refused' : 'not stored' })),
      el('p', { class: 'trace-note', text: refused
        ? 'The push service refused this web push, so nothing was stored: the refusal below is all there is (kept in memory).'
        : 'Nothing was stored for this request: the events below are kept in memory only.' })),
    timeline);
    return;
  }
  const summary = el('div', { class: 'trace-summary' },
    el('div', { class: 'trace-heading' },
      el('span', { class: 'id', testid: 'trace-apns-id', text: n.apnsID }),
      el('span', { class: 'state ' + n.state, testid: 'trace-state', text: n.state })),
    el('dl', {},
      el('dt', { text: 'topic' }), el('dd', { text: n.topic }),
      el('dt', { text: 'push type' }), el('dd', { text: `${n.pushType} · priority ${n.priority}` }),
      el('dt', { text: 'token' }), el('dd', { class: 'mono', title: n.token, text: shortToken(n.token) }),
      n.collapseID ? [el('dt', { text: 'collapse id' }), el('dd', { text: n.collapseID })] : null,
      n.expiration !== null && n.expiration !== undefined ? [el('dt', { text: 'expiration' }), el('dd', { text: String(n.expiration) })] : null),
    el('details', { class: 'payload' }, el('summary', { text: 'Payload' }), el('pre', { class: 'mono', text: JSON.stringify(n.payload, null, 2) })));
  const hints = traceHints(n, events);
  // replaceChildren writes a null as the text "null": leave the hints out when there are none.
  const hintList = hints.length ? [el('ul', { class: 'trace-hints', testid: 'trace-hints' }, hints.map(([key, text]) => el('li', { testid: 'hint-' + key, text })))] : [];
  box.replaceChildren(summary, ...hintList, events.length ? timeline : el('div', { class: 'empty', text: 'No events yet.' }));
}

// Why a push did not do what its sender may expect: what the trace alone leaves unsaid.
function traceHints(n, events) {
  const aps = n.payload?.aps || {};
  const kinds = new Set(events.map((e) => e.kind));
  const hints = [];
  if (isSilent(n)) {
    hints.push(['silent', 'A silent push: iOS shows nothing. It wakes the app in the background when its state and budget allow'
      + (kinds.has('background') ? ' (see background below).' : '; no background event yet.')]);
  }
  if (aps['mutable-content'] === 1 && kinds.has('displayed') && !kinds.has('modified')) {
    hints.push(['mutable-content', 'mutable-content is 1, but no notification service extension ran: the app has none, so it was shown as sent.']);
  }
  const category = typeof aps.category === 'string' ? aps.category : '';
  const owner = category ? tokenOwner(n.token) : null;
  const screenApp = owner ? (state.screens.get(owner.device.id)?.screen?.apps || []).find((a) => a.bundleID === n.bundleID) : null;
  if (category && screenApp) {
    const declared = (screenApp.categories || []).find((c) => c.identifier === category);
    if (!declared) hints.push(['category', `The app registered no category “${category}”: the notification has no action buttons.`]);
    else if (!(declared.actions || []).length) hints.push(['category', `Category “${category}” has no actions: nothing to press but Open.`]);
  }
  if (n.pushType === 'web-push' && !kinds.has('decrypted') && !kinds.has('not-shown') && n.state === 'delivered') {
    hints.push(['web-push', 'A web push, encrypted for its subscription (RFC 8291): the device has not yet said that it decrypted it.']);
  }
  const revoked = events.find((e) => e.kind === 'not-shown' && e.detail?.revoked === true);
  if (revoked) hints.push(['revoked', 'This push showed nothing, and it was one too many: Safari revoked the subscription, and its endpoint now answers 410.']);
  const held = events.find((e) => e.kind === 'sent' && e.detail?.reason === 'low-priority-burst');
  if (held) hints.push(['low-priority', `Held ${held.detail.heldMs ?? '?'} ms for a low-priority burst (apns-priority ${n.priority}): APNs may group such pushes.`]);
  return hints;
}

// What each kind means, in its tooltip; the web push kinds are new to most readers (docs/web-push.md).
const kindMeanings = {
  accepted: 'The gateway accepted the request and stored it.',
  sent: 'The delivery engine sent it to the device.',
  acknowledged: 'The device acknowledged it.',
  decrypted: 'The web app decrypted the message with its subscription\'s keys (RFC 8291, aes128gcm).',
  shown: 'The web app showed a notification: a declarative message, or the service worker\'s showNotification.',
  'not-shown': 'The web push showed nothing; the reason says why. Safari revokes a subscription after too many.',
  refused: 'The push service refused the web push (nothing stored): its status, reason and why.',
};

// Why a web push went wrong, written out in full rather than as a chip cut to its width: a refusal's status, reason
// and explanation, a not-shown message's reason. whyKeys are the members it shows, left out of the chips.
const whyKeys = { refused: ['status', 'reason', 'explanation'], 'not-shown': ['reason'] };
function drawWhy(event) {
  const detail = event.detail || {};
  if (event.kind === 'refused') {
    return el('div', { class: 'tl-why bad', testid: 'refusal' },
      el('span', { class: 'status-pill bad', testid: 'refusal-status', text: [detail.status, detail.reason].filter((v) => v != null && v !== '').join(' ') }),
      el('span', { class: 'tl-why-text', testid: 'refusal-explanation', text: detail.explanation || 'No explanation recorded.' }));
  }
  if (event.kind === 'not-shown' && typeof detail.reason === 'string') {
    return el('div', { class: 'tl-why warn', testid: 'not-shown-reason' }, el('span', { class: 'tl-why-text', text: detail.reason }));
  }
  return null;
}

// A trace event's detail: the telling values as chips, everything as JSON behind "details".
const chipOrder = ['action', 'text', 'reason', 'heldMs', 'state', 'stateAfter', 'playing', 'attempt', 'device', 'session', 'presentation',
  'title', 'subtitle', 'body', 'categoryIdentifier', 'threadIdentifier', 'contentExtension', 'deliveredToApp', 'callback', 'topic',
  'opened', 'source', 'navigate', 'badge', 'silentPushes', 'revoked', 'declarative', 'length', 'subscription'];
function chipValue(value) {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length && value.every((v) => typeof v === 'string')) return value.join(', ');
  return null;
}
const chipHidden = new Set(['consoleText']);
function drawDetail(detail, apnsID, shownAbove = []) {
  if (!detail || typeof detail !== 'object' || !Object.keys(detail).length) return null;
  const entries = Object.entries(detail)
    .map(([k, v]) => [k, chipValue(v)])
    .filter(([k, v]) => v !== null && !chipHidden.has(k) && !shownAbove.includes(k) && !(k === 'identifier' && lower(v) === lower(apnsID)))
    .sort(([a], [b]) => (chipOrder.indexOf(a) + 1 || 99) - (chipOrder.indexOf(b) + 1 || 99));
  const shown = entries.slice(0, 6);
  return el('div', { class: 'tl-detail' },
    shown.map(([k, v]) => el('span', { class: 'chip', title: `${k}: ${v}` }, el('b', { text: k }), ' ' + v)),
    el('details', { class: 'tl-more' }, el('summary', { text: 'details' }), el('pre', { class: 'mono', text: JSON.stringify(detail, null, 2) })));
}

const recentShown = 12;
const recentTitle = (n) => {
  if (n.pushType === 'web-push') return webPushTitle(n.apnsID) || 'Web push';
  const alert = n.payload?.aps?.alert;
  return typeof alert === 'string' ? alert : (alert?.title || alert?.body || (isSilent(n) ? 'Silent push' : n.pushType));
};
// A web push's payload is encrypted: its title is the one a web app showed for it, when the page saw it.
function webPushTitle(apnsID) {
  if (state.webTitles.has(lower(apnsID))) return state.webTitles.get(lower(apnsID));
  for (const record of state.screens.values()) {
    for (const webApp of record.screen?.webApps || []) {
      const note = (webApp.notifications || []).find((n) => lower(n.apnsID) === lower(apnsID));
      if (note?.title) return note.title;
    }
  }
  return '';
}
async function refreshRecent() {
  const answer = await api('GET', '/api/v1/notifications?limit=200');
  if (answer.status !== 200 || !answer.data) return;
  state.recent = answer.data.notifications || [];
  renderRecent();
  for (const d of state.devices) renderDevice(d.id);
}
// A delivered notification its device dropped (a push-to-start without an alert, a push its app cannot take) is not
// "delivered" in the list: its trace's `dropped` report says so, with the reason. Traces are read for the rows shown
// only, once each, and again when a report about them arrives.
const outcomeReads = new Set();
async function readOutcome(apnsID) {
  const key = lower(apnsID);
  if (outcomeReads.has(key)) return;
  outcomeReads.add(key);
  try {
    const answer = await api('GET', `/api/v1/notifications/${enc(apnsID)}/trace`);
    if (answer.status !== 200 || !answer.data) return;
    const dropped = (answer.data.trace || []).filter((event) => event.kind === 'dropped').pop();
    state.outcomes.set(key, dropped ? { reason: dropped.detail?.reason || '' } : null);
  } finally {
    outcomeReads.delete(key);
  }
  renderRecent();
}
function recentState(n) {
  const dropped = n.state === 'delivered' ? state.outcomes.get(lower(n.apnsID)) : null;
  if (dropped) {
    return el('span', { class: 'state dropped', testid: 'recent-state',
      title: `Delivered, and dropped by the device${dropped.reason ? ': ' + dropped.reason : ''}`,
      text: dropped.reason ? `dropped · ${dropped.reason}` : 'dropped' });
  }
  return el('span', { class: 'state ' + n.state, testid: 'recent-state', text: n.state });
}

// A web push the push service refused is not stored, so the server's list never has it: the page lists the refusals
// it hears of live (their `refused` trace events) among the stored notifications, until it is reloaded. Each one's
// trace is read once for its status and reason.
function noteRefusal(apnsID) {
  if (state.refusals.some((r) => lower(r.apnsID) === lower(apnsID))) return;
  const refusal = { apnsID, at: Date.now(), status: null, reason: '' };
  state.refusals = [refusal, ...state.refusals].slice(0, recentShown);
  api('GET', `/api/v1/notifications/${enc(apnsID)}/trace`).then((answer) => {
    const event = (answer.data?.trace || []).find((e) => e.kind === 'refused');
    if (!event) return;
    Object.assign(refusal, { at: event.at, status: event.detail?.status ?? null, reason: event.detail?.reason || '' });
    renderRecent();
  }, () => {});
}
const refusalState = (r) => r.reason ? `refused · ${r.reason}` : 'refused';

// The filter matches every word typed against the title, topic, apns-id, token, push type and state.
function renderRecent() {
  const words = lower($('recent-filter').value).split(/\s+/).filter(Boolean);
  const matches = (fields) => { const haystack = lower(fields.join(' ')); return words.every((w) => haystack.includes(w)); };
  const matching = state.recent.filter((n) => matches([recentTitle(n), n.topic, n.apnsID, n.token, n.pushType, n.state, n.collapseID]))
    .map((n) => ({ at: n.acceptedAt, n }))
    .concat(state.refusals.filter((r) => matches(['Web push', r.apnsID, refusalState(r), r.status])).map((r) => ({ at: r.at, refusal: r })))
    .sort((a, b) => b.at - a.at);
  const total = state.recent.length + state.refusals.length;
  const list = $('recent');
  $('recent-count').textContent = words.length ? `${matching.length} of ${total}` : '';
  $('time-zone').textContent = 'Times in ' + zoneText() + '.';
  if (!matching.length) {
    list.replaceChildren(el('li', { class: 'empty', text: total ? 'Nothing matches the filter.' : 'None yet.' }));
    return;
  }
  const shown = matching.slice(0, recentShown);
  for (const { n } of shown) if (n && n.state === 'delivered' && !state.outcomes.has(lower(n.apnsID))) readOutcome(n.apnsID);
  list.replaceChildren(...shown.map(({ n, refusal }) => n
    ? el('li', { 'data-apns-id': lower(n.apnsID), onclick: () => selectTrace(n.apnsID) },
      el('span', { class: 'r-title', text: recentTitle(n) }), recentState(n),
      el('span', { class: 'r-meta', title: localISO(n.acceptedAt), text: `${clock(new Date(n.acceptedAt))} · ${n.topic} · ${n.apnsID.slice(0, 8)}…` }))
    : el('li', { 'data-apns-id': lower(refusal.apnsID), onclick: () => selectTrace(refusal.apnsID) },
      el('span', { class: 'r-title', text: 'Web push' }),
      el('span', { class: 'state refused', testid: 'recent-state', title: 'Refused by the push service: nothing stored', text: refusalState(refusal) }),
      el('span', { class: 'r-meta', title: localISO(refusal.at),
        text: `${clock(new Date(refusal.at))} · ${refusal.status ?? '…'} · ${refusal.apnsID.slice(0, 8)}…` }))));
  highlightRecent();
}
$('recent-filter').addEventListener('input', renderRecent);
function highlightRecent() {
  for (const li of $('recent').children) li.classList.toggle('selected', li.dataset.apnsId === lower(state.traceID) && !!state.traceID);
}

// ---- Live updates: long polling on /api/v1/events -------------------------------------
function setLive(mode) {
  const node = document.querySelector('[data-testid="live-status"]');
  node.dataset.state = mode;
  node.querySelector('.live-text').textContent = { live: 'Live', polling: 'Polling', offline: 'Reconnecting…', connecting: 'Connecting…' }[mode];
}

async function handle(events) {
  // Another node of a cluster had more events than it relays: refresh everything.
  if (events.some((event) => event.kind === 'resync')) return refreshAll();
  const screens = new Set();
  let devices = false, trace = false, recent = false;
  for (const event of events) {
    if (event.kind === 'screen' && event.deviceID) screens.add(event.deviceID);
    else if (event.kind === 'device') devices = true;
    else if (event.kind === 'trace') {
      recent = true;
      if (event.event === 'dropped') state.outcomes.delete(lower(event.apnsID));
      if (event.event === 'refused') noteRefusal(event.apnsID);
      if (lower(event.apnsID) === lower(state.traceID)) trace = true;
    }
  }
  const work = [];
  if (devices) work.push(refreshDevices());
  else for (const id of screens) if (deviceByID(id)) work.push(refreshScreen(id)); else devices = true;
  if (devices && !work.length) work.push(refreshDevices());
  if (trace) work.push(refreshTrace());
  if (recent) work.push(refreshRecent());
  if (events.length) work.push(refreshFaults(), refreshChannels());
  await Promise.all(work);
}

let started = false;
async function refreshAll() {
  await Promise.all([refreshDevices(), refreshRecent(), refreshFaults(), refreshChannels(), state.traceID ? refreshTrace() : null]);
  if (!started) {
    started = true;
    describeTarget();
    fillTemplates();
    scheduleValidation();
  }
}

async function liveLoop() {
  let next = null;
  for (;;) {
    try {
      const answer = await api('GET', next === null ? '/api/v1/events' : `/api/v1/events?after=${next}`, undefined, 40000);
      if (answer.status === 404 || answer.status === 405) {
        // A server without the events endpoint: refresh every few seconds instead.
        setLive('polling');
        await refreshAll();
        await sleep(3000);
        continue;
      }
      if (answer.status !== 200 || !answer.data) throw new Error('HTTP ' + answer.status);
      setLive('live');
      if (next === null) {
        next = answer.data.next ?? 0;
        await refreshAll();
        continue;
      }
      const events = answer.data.events || [];
      if (typeof answer.data.next === 'number') next = answer.data.next;
      if (events.length) await handle(events);
    } catch (error) {
      setLive('offline');
      next = null;  // resynchronise everything once the server is back
      await sleep(2000);
    }
  }
}

// Relative times ("now", "2m ago") and the phones' clocks move on their own.
setInterval(() => { state.screenText.clear(); for (const d of state.devices) renderDevice(d.id); }, 30000);

// ---- Start -----------------------------------------------------------------------------
// The Faults panel's token scenarios take the token the Send panel points at: typed, or the picked device's app's.
startFaults(() => {
  const typed = fields.token.value.trim();
  if (typed) return { token: typed, label: 'typed in Send' };
  const { device, token } = selectedApp();
  return token ? { token: token.token, label: `${token.bundleID} on ${device.name || device.id}` } : null;
});
// The Channels panel offers the bundle ids of the devices' apps.
startChannels(() => state.devices.flatMap((device) => activeTokens(device).map((token) => token.bundleID)));
// Drawn at once, before the server answers: the payload, its local check, the templates (issue 37, item 13).
fields.payload.value = JSON.stringify(templates()[0][1], null, 2);
fillTemplates();
showBytes();
checkLocally();
liveLoop();
