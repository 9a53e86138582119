// The Channels panel (docs/console.md, docs/broadcast.md): broadcast channels through /api/v1/channels, created,
// deleted and broadcast to through the console's provider requests (/api/v1/console/channels, …/delete, …/broadcast),
// each an HTTP/2 request from the server to its own provider port, answered by the gateway.
import { $, el, api, clock } from './helpers.js';

const list = $('channels');
const form = $('channel-form');
const message = $('channel-message');
const fields = {
  app: $('channel-app'), policy: $('channel-policy'), channel: $('broadcast-channel'), event: $('broadcast-event'),
  state: $('broadcast-state'), priority: $('broadcast-priority'), expiration: $('broadcast-expiration'),
};

const state = {
  channels: [],      // GET /api/v1/channels
  text: '',          // the last list drawn
  apps: () => [],    // the bundle ids the devices' apps have (from the Devices panel)
  appsDrawn: false,  // whether the server's list replaced the page's placeholder
};

function show(kind, text) {
  message.hidden = false;
  message.dataset.valid = kind === 'ok' ? 'true' : kind === 'error' ? 'false' : '';
  message.textContent = text;
}

function answerText(answer) {
  const data = answer.data || {};
  if (answer.status !== 200) return data.error || `HTTP ${answer.status}`;
  return `${data.status}${data.reason ? ' ' + data.reason : ''}` + (data.requestID ? ` · apns-request-id ${data.requestID}` : '');
}

async function request(path, body, done) {
  const buttons = form.querySelectorAll('button');
  for (const button of buttons) button.disabled = true;
  try {
    const answer = await api('POST', path, body);
    const ok = answer.status === 200 && answer.data && answer.data.status >= 200 && answer.data.status < 300;
    show(ok ? 'ok' : 'error', ok ? done(answer.data) : 'Refused: ' + answerText(answer));
  } catch (error) {
    show('error', String(error.message || error));
  } finally {
    for (const button of buttons) button.disabled = false;
    await refreshChannels();
  }
}

function channelRow(channel) {
  const recent = channel.recent || [];
  const last = recent[recent.length - 1];
  const facts = [
    `${channel.bundleID} · ${channel.environment}`,
    `policy ${channel.storagePolicy}`,
    `${channel.subscribers.length} subscribed`,
    last ? `last broadcast ${clock(new Date(last.acceptedAt))} to ${last.sentTo}` : 'no broadcast yet',
    channel.kept ? `keeps ${channel.kept.requestID.slice(0, 8)}… until ${clock(new Date(channel.kept.keptUntil))}` : null,
  ].filter(Boolean);
  return el('li', { class: 'channel', testid: `channel-${channel.id}` },
    el('div', { class: 'channel-id mono', text: channel.id, title: 'apns-channel-id' }),
    el('div', { class: 'channel-facts', testid: 'channel-facts', text: facts.join(' · ') }),
    el('div', { class: 'channel-buttons' },
      el('button', { type: 'button', onclick: () => { fields.channel.value = channel.id; fields.app.value = channel.bundleID; } }, 'Broadcast here'),
      el('button', { type: 'button', testid: `channel-delete-${channel.id}`,
        onclick: () => request('/api/v1/console/channels/delete', { bundleID: channel.bundleID, channel: channel.id }, () => `Deleted ${channel.id}.`) },
      'Delete')));
}

/** Fetches the channels and redraws the list when it changed. */
export async function refreshChannels() {
  const answer = await api('GET', '/api/v1/channels?limit=200').catch(() => null);
  if (!answer || answer.status !== 200) return;
  state.channels = answer.data.channels || [];
  $('channels-count').textContent = state.channels.length ? String(state.channels.length) : '';
  const apps = new Set(state.apps());
  for (const channel of state.channels) apps.add(channel.bundleID);
  const options = [...apps].sort();
  // The first answer replaces the page's "Asking the server…" even when there is no app.
  if (!state.appsDrawn || options.join('\n') !== [...fields.app.options].map((o) => o.value).join('\n')) {
    state.appsDrawn = true;
    const kept = fields.app.value;
    fields.app.replaceChildren(...(options.length ? options.map((bundleID) => el('option', { value: bundleID, text: bundleID }))
      : [el('option', { value: '', text: 'No apps yet' })]));
    if (options.includes(kept)) fields.app.value = kept;
  }
  const text = JSON.stringify(state.channels.map((c) => [c.id, c.subscribers.length, c.recent.length, c.kept?.requestID]));
  if (text === state.text) return;
  state.text = text;
  list.replaceChildren(...(state.channels.length ? state.channels.map(channelRow)
    : [el('li', { class: 'empty', text: 'No channels. Create one, then start a Live Activity with input-push-channel.' })]));
}

function broadcastBody() {
  let contentState;
  try { contentState = JSON.parse(fields.state.value || '{}'); } catch { throw new Error('The content state is not JSON.'); }
  const aps = { event: fields.event.value, timestamp: Math.floor(Date.now() / 1000), 'content-state': contentState };
  if (fields.event.value === 'end') aps['dismissal-date'] = Math.floor(Date.now() / 1000);
  return {
    bundleID: fields.app.value, channel: fields.channel.value.trim(), priority: Number(fields.priority.value),
    expiration: Number(fields.expiration.value || 0), payload: { aps },
  };
}

/** Wires the panel; `apps()` lists the bundle ids of the devices' apps. */
export function startChannels(apps) {
  state.apps = apps;
  fields.state.value = '{"score": "1-0"}';
  $('channel-create').addEventListener('click', () => request('/api/v1/console/channels',
    { bundleID: fields.app.value, storagePolicy: Number(fields.policy.value) },
    (data) => { fields.channel.value = data.channelID || ''; return `Created ${data.channelID}.`; }));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let body;
    try { body = broadcastBody(); } catch (error) { show('error', error.message); return; }
    request('/api/v1/console/broadcast', body, (data) => `Broadcast: ${data.status} · apns-request-id ${data.requestID}.`);
  });
}
