// The console's helpers: DOM building, the JSON API, toasts, and the formatting of times, sizes and tokens.

export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** el('div', {class: 'x', testid: 'y', onclick: f}, child, 'text', ...) */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'testid') node.dataset.testid = value;
    else if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'value') node.value = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The JSON API on the same origin: a body is sent as JSON (a string as it is: it is JSON text already, so a person's
// text reaches the server unchanged and the server's parser judges it). Answers {status, data} (data null without JSON).
export async function api(method, path, body, timeoutMs = 15000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(path, {
      method, cache: 'no-store', signal: controller.signal,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
    });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    return { status: response.status, data };
  } finally {
    clearTimeout(timer);
  }
}

export function toast(message, kind) {
  // One at a time, in the top bar's free middle: it never covers the panels.
  const node = el('div', { class: 'toast' + (kind ? ' ' + kind : ''), text: message, title: message });
  $('toasts').replaceChildren(node);
  setTimeout(() => node.remove(), kind === 'error' ? 7000 : 3500);
}

// Dates: the device encodes them as seconds since 1970 (or, from an older encoder, since 2001).
export function toDate(value) {
  if (typeof value !== 'number') return null;
  return new Date((value < 1e9 ? value + 978307200 : value) * 1000);
}
const pad = (n, w = 2) => String(n).padStart(w, '0');
export const clock = (d) => pad(d.getHours()) + ':' + pad(d.getMinutes());
export const precise = (ms) => { const d = new Date(ms); return clock(d) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3); };
// Times are the browser's local time: the zone is named once under the list and in every time's tooltip.
const zoneName = (() => { try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (_) { return ''; } })();
function zoneOffset(d) {
  const minutes = -d.getTimezoneOffset();
  const a = Math.abs(minutes);
  return 'UTC' + (minutes >= 0 ? '+' : '-') + pad(Math.floor(a / 60)) + ':' + pad(a % 60);
}
export const zoneText = () => (zoneName ? zoneName + ' ' : '') + '(' + zoneOffset(new Date()) + ')';
export const localISO = (ms) => { const d = new Date(ms); return d.toLocaleString() + ' ' + zoneOffset(d); };
export function ago(date) {
  if (!date) return '';
  const s = Math.round((Date.now() - date.getTime()) / 1000);
  if (s < 45) return 'now';
  if (s < 3600) return Math.round(s / 60) + 'm ago';
  if (s < 86400) return Math.round(s / 3600) + 'h ago';
  return date.toLocaleDateString();
}
export function bytesText(n) {
  if (typeof n !== 'number') return '';
  if (n < 1024) return n + ' B';
  if (n < 1048576) return (n / 1024).toFixed(1) + ' KB';
  return (n / 1048576).toFixed(1) + ' MB';
}
export const shortToken = (t) => t && t.length > 16 ? t.slice(0, 8) + '…' + t.slice(-6) : (t || '');
export const utf8Length = (text) => new TextEncoder().encode(text).length;
export const lower = (s) => String(s || '').toLowerCase();

const iconColors = ['#ff375f', '#ff9f0a', '#30d158', '#0a84ff', '#5e5ce6', '#bf5af2', '#64d2ff', '#ff453a', '#32ade6', '#ac8e68'];
export function iconColor(key) {
  let h = 0;
  for (const c of String(key)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const a = iconColors[h % iconColors.length], b = iconColors[(h >>> 4) % iconColors.length];
  return `linear-gradient(135deg, ${a}, ${b})`;
}
export function appIcon(app, small, badge) {
  const letter = (app.name || app.bundleID || '?').trim().charAt(0).toUpperCase() || '?';
  const node = el('span', { class: 'icon' + (small ? ' small' : ''), title: app.name || app.bundleID }, letter);
  node.style.background = iconColor(app.bundleID || app.name);
  if (badge) node.append(el('span', { class: 'icon-badge', text: badge > 99 ? '99+' : String(badge) }));
  return node;
}
