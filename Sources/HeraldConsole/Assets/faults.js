// The Faults panel (docs/console.md): the provider API's fault rules (docs/faults.md) through /api/v1/faults. It lists
// the rules in force with what each has done, adds one from its JSON or a scenario, removes one, or clears them all.
import { $, enc, el, api, shortToken, precise } from './helpers.js';

const list = $('faults');
const form = $('fault-form');
const json = $('fault-json');
const message = $('fault-message');
const tokenHint = $('fault-token-hint');

const state = {
  rules: [],         // GET /api/v1/faults: each rule with `applied` and `remaining`
  text: '',          // the last list drawn (skip identical redraws)
  open: new Set(),   // rules whose JSON is shown
  target: () => null, // the token the Send panel points at: {token, label} or null
};

// One line of JSON, spaced as a person writes it: {"a": 1, "b": [2, 3]}.
function ruleText(value) {
  if (Array.isArray(value)) return '[' + value.map(ruleText).join(', ') + ']';
  if (value && typeof value === 'object') {
    return '{' + Object.entries(value).map(([key, member]) => JSON.stringify(key) + ': ' + ruleText(member)).join(', ') + '}';
  }
  return JSON.stringify(value);
}
const example = { match: { topic: 'com.example.app' }, status: 503, reason: 'ServiceUnavailable', count: 1 };

// ---- What a rule does, in one line: "token 3f2a…c9d0e1 → 503 ServiceUnavailable, 1 left" --------------------------
const seconds = (ms) => precise(ms).slice(0, 8);
function matchText(match) {
  const parts = [];
  if (match.token) parts.push('token ' + shortToken(match.token));
  if (match.topic) parts.push('topic ' + match.topic);
  if (match.pushType) parts.push(match.pushType + ' pushes');
  if (match.apnsID) parts.push('apns-id ' + match.apnsID.slice(0, 8) + '…');
  for (const [name, value] of Object.entries(match.header || {})) parts.push(`${name}: ${value}`);
  if (match.providerTokenIssuedBefore != null) parts.push('provider tokens issued before ' + seconds(match.providerTokenIssuedBefore * 1000));
  if (match.perSecondAbove != null) parts.push(`more than ${match.perSecondAbove} a second per token`);
  return parts.length ? parts.join(', ') : 'every request';
}
function effectText(rule) {
  const parts = [];
  if (rule.delay) parts.push(`wait ${rule.delay.minMs}–${rule.delay.maxMs} ms`);
  else if (rule.delayMs != null) parts.push(`wait ${rule.delayMs} ms`);
  if (rule.status != null) parts.push(`${rule.status} ${rule.reason || ''}`.trim() + (rule.timestamp != null ? ` (timestamp ${seconds(rule.timestamp)})` : ''));
  if (rule.goaway) parts.push('GOAWAY ' + rule.goaway);
  if (rule.reset) parts.push('reset the stream');
  if (rule.close) parts.push('close the connection');
  if (rule.stallMs != null) parts.push(`stall ${rule.stallMs} ms`);
  return parts.join(' + ') || 'nothing';
}
export function ruleSummary(rule) {
  const tail = [];
  if (rule.remaining != null) tail.push(rule.remaining > 0 ? `${rule.remaining} left` : 'spent');
  if (rule.probability != null && rule.probability < 1) tail.push(`probability ${Math.round(rule.probability * 1000) / 10}%`);
  if (rule.from != null && rule.from > Date.now()) tail.push('from ' + seconds(rule.from));
  if (rule.until != null) tail.push((rule.until > Date.now() ? 'until ' : 'ended ') + seconds(rule.until));
  return `${matchText(rule.match || {})} → ${effectText(rule)}` + (tail.length ? ', ' + tail.join(', ') : '');
}

// ---- The list ----------------------------------------------------------------------------------------------------
let refreshRound = 0;
export async function refreshFaults() {
  const round = ++refreshRound;
  let answer;
  try {
    answer = await api('GET', '/api/v1/faults');
  } catch (error) {
    return;  // the server is away: the live loop says so, and fetches everything again when it is back
  }
  if (round !== refreshRound) return;  // a newer refresh is on its way
  if (answer.status !== 200 || !Array.isArray(answer.data?.faults)) {
    state.rules = [];
    draw(answer.data?.error || `Fault rules are not available (HTTP ${answer.status}).`);
    return;
  }
  state.rules = answer.data.faults;
  draw();
}

function draw(unavailable) {
  const text = JSON.stringify([unavailable || '', state.rules, [...state.open]]);
  if (text === state.text) return;
  state.text = text;
  $('faults-count').textContent = state.rules.length ? String(state.rules.length) : '';
  if (unavailable || !state.rules.length) {
    list.replaceChildren(el('li', { class: 'empty', text: unavailable || 'No fault rules: the provider API answers as it should.' }));
    return;
  }
  list.replaceChildren(...state.rules.map(drawRule));
}

function drawRule(rule) {
  const id = String(rule.id);
  const { applied, remaining, ...fields } = rule;
  const spent = remaining === 0 || (rule.until != null && rule.until <= Date.now());
  const details = el('details', { class: 'payload', open: state.open.has(id) },
    el('summary', { text: 'JSON' }), el('pre', { class: 'mono', text: JSON.stringify(fields, null, 2) }));
  details.addEventListener('toggle', () => { if (details.open) state.open.add(id); else state.open.delete(id); });
  return el('li', { class: 'fault' + (spent ? ' spent' : ''), testid: 'fault-' + id, 'data-applied': String(applied),
    'data-remaining': remaining == null ? '' : String(remaining) },
    el('div', { class: 'fault-head' },
      el('span', { class: 'fault-id', testid: 'fault-id', title: id, text: id }),
      el('button', { type: 'button', class: 'fault-remove', testid: 'fault-remove', title: `Remove ${id}`, 'aria-label': `Remove ${id}`,
        onclick: () => remove(id) }, '×')),
    el('div', { class: 'fault-summary', testid: 'fault-summary', text: ruleSummary(rule) }),
    el('div', { class: 'fault-foot' },
      el('span', { class: 'chip', testid: 'fault-applied', title: 'Requests it applied to' }, el('b', { text: 'applied' }), ' ' + applied),
      el('span', { class: 'chip', testid: 'fault-remaining', title: 'What is left of its count (∞: no count)' },
        el('b', { text: 'remaining' }), ' ' + (remaining == null ? '∞' : remaining)),
      details));
}

// ---- Changes: each shows its outcome next to the form, then the list is fetched again -----------------------------
function show(kind, text, status) {
  message.hidden = false;
  message.dataset.valid = { ok: 'true', error: 'false' }[kind] || '';
  message.dataset.status = status ? String(status) : '';
  message.replaceChildren(text);
}

async function change(method, path, body, done) {
  const buttons = form.querySelectorAll('button');
  for (const button of buttons) button.disabled = true;
  try {
    const answer = await api(method, path, body);
    if (answer.status >= 200 && answer.status < 300) show('ok', done(answer.data), answer.status);
    else show('error', answer.data?.error || `HTTP ${answer.status}`, answer.status);
  } catch (error) {
    show('error', String(error.message || error));
  } finally {
    for (const button of buttons) button.disabled = false;
    await refreshFaults();
  }
}

const add = (text) => change('POST', '/api/v1/faults', text, (rule) => `Added ${rule.id}: ${ruleSummary(rule)}.`);
const remove = (id) => change('DELETE', `/api/v1/faults/${enc(id)}`, undefined, () => `Removed ${id}.`);
const clear = () => change('DELETE', '/api/v1/faults', undefined, (data) => `Removed ${data?.removed ?? 'every'} rule${data?.removed === 1 ? '' : 's'}.`);

// The scenarios (docs/faults.md) as one click; those about one device token take the Send panel's.
const tokenPlaceholder = 'DEVICE-TOKEN-HEX';
const presets = {
  'apns-outage': () => ({ scenario: 'apns-outage', seconds: 30 }),
  'token-expired': () => ({ scenario: 'token-expired' }),
  'app-uninstalled': (token) => ({ scenario: 'app-uninstalled', token }),
  'throttled-device': (token) => ({ scenario: 'throttled-device', token, perSecond: 1 }),
};
const needsToken = new Set(['app-uninstalled', 'throttled-device']);
function preset(name) {
  const target = needsToken.has(name) ? state.target() : null;
  if (needsToken.has(name) && !target) {
    // No device in the Send panel: the person types the token into the JSON.
    json.value = ruleText(presets[name](tokenPlaceholder));
    json.focus();
    const start = json.value.indexOf(tokenPlaceholder);
    json.setSelectionRange(start, start + tokenPlaceholder.length);
    show('note', 'No device is picked in Send: type the device token in place of ' + tokenPlaceholder + ', then Add rule.');
    return;
  }
  json.value = ruleText(presets[name](target?.token));
  add(json.value);
}

/** Says which token the token scenarios will take; the Send panel calls it when its recipient changes. */
export function showFaultTarget() {
  const target = state.target();
  tokenHint.replaceChildren(...(target
    ? ['Uninstalled and Throttled take ', el('span', { class: 'mono', title: target.token, text: shortToken(target.token) }), ' · ' + target.label]
    : ['Uninstalled and Throttled need a token: pick a device in Send, or type it in the JSON.']));
}

/** Wires the panel; `target()` is the token the Send panel points at ({token, label}) or null. */
export function startFaults(target) {
  state.target = target;
  json.value = ruleText(example);
  form.addEventListener('submit', (event) => { event.preventDefault(); add(json.value); });
  json.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) { event.preventDefault(); form.requestSubmit(); }
  });
  $('fault-clear').addEventListener('click', clear);
  for (const button of $('fault-presets').querySelectorAll('button[data-preset]')) {
    button.addEventListener('click', () => preset(button.dataset.preset));
  }
  showFaultTarget();
  // A request a rule answers with an error is not stored, so no event tells the page: while rules are in force their
  // counts are fetched every few seconds as well.
  setInterval(() => { if (state.rules.length && !document.hidden) refreshFaults(); }, 5000);
}
