// The service worker scope Herald gives a site's sw.js under Node (docs/service-worker-scope.md).
//
// Run as `node scope.js <path-to-sw.js> <origin> <settings-json>`. It loads the script in a `vm` context whose globals
// are a service worker's (no `require`, `process` or `fs`), then reads one event a line from stdin and writes what the
// worker did, one JSON line per action, ending each event with a `done` line. Plain Node, no npm packages.
'use strict';

const vm = require('node:vm');
const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const readline = require('node:readline');
const { AsyncLocalStorage } = require('node:async_hooks');
const { Blob } = require('node:buffer');
const { randomUUID, webcrypto } = require('node:crypto');

const [scriptPath, origin, settingsText] = process.argv.slice(2);
const settings = JSON.parse(settingsText || '{}');
const budget = settings.budgetMilliseconds || 30000;
const actionLimit = settings.actionLimit || 256;
const scriptDirectory = path.dirname(path.resolve(scriptPath));
const scriptURL = new URL(path.basename(scriptPath), origin + '/').href;
const scope = new URL('./', scriptURL).href;

// The event that is running, and the one a callback belongs to (promises and timers carry it along).
const eventStorage = new AsyncLocalStorage();
let runningEvent = null;
function currentEvent() {
    const event = eventStorage.getStore() || runningEvent;
    return event && !event.ended ? event : null;
}

function write(message) {
    process.stdout.write(JSON.stringify(message) + '\n');
}

// One action of the current event; dropped once the event has ended or after the action limit (the host counts too).
function report(action) {
    const event = currentEvent();
    if (!event) return;
    event.actions += 1;
    if (event.actions > actionLimit + 1) return;
    write(Object.assign({ event: event.id }, action));
}

function describe(error) {
    if (error && typeof error === 'object' && 'message' in error) {
        const name = error.name || 'Error';
        return `${name}: ${error.message}`;
    }
    return `uncaught value: ${util.inspect(error)}`;
}

function reportError(kind, error) {
    report({ type: 'error', kind, message: typeof error === 'string' ? error : describe(error) });
}

// --- Notifications -------------------------------------------------------------------------------------------------

// What is on screen for this origin, as the host last said (each event carries it) plus what this event changed.
let displayed = [];
// The `data` of notifications shown by this process, as the worker gave it (the host sees its JSON form).
const dataByID = new Map();
const internal = Symbol('herald.internal');
const closedIDs = new Set();

class Notification {
    constructor(record, key) {
        if (key !== internal) throw new TypeError("Illegal constructor: a service worker shows notifications with registration.showNotification()");
        const options = record.options || {};
        this.id = record.id;
        this.title = record.title;
        this.body = options.body || '';
        this.tag = options.tag || '';
        this.icon = options.icon || '';
        this.badge = options.badge || '';
        this.image = options.image || '';
        this.data = dataByID.has(record.id) ? dataByID.get(record.id) : options.data === undefined ? null : options.data;
        this.actions = Object.freeze((options.actions || []).map((action) => Object.freeze({ ...action })));
        this.silent = options.silent === undefined ? null : options.silent;
        this.requireInteraction = !!options.requireInteraction;
        this.renotify = !!options.renotify;
        this.timestamp = options.timestamp;
        this.lang = options.lang || '';
        this.dir = options.dir || 'auto';
    }

    close() {
        if (closedIDs.has(this.id)) return;
        closedIDs.add(this.id);
        displayed = displayed.filter((record) => record.id !== this.id);
        report({ type: 'close', id: this.id });
    }

    static get permission() {
        return 'granted';
    }

    static get maxActions() {
        return settings.maxActions || 2;
    }

    static requestPermission() {
        return Promise.resolve('granted');
    }
}

function absoluteURL(value, member) {
    if (value === undefined || value === null || value === '') return undefined;
    try {
        return new URL(String(value), scriptURL).href;
    } catch {
        throw new TypeError(`showNotification: ${member} is not a URL: ${String(value)}`);
    }
}

function jsonData(data) {
    if (data === undefined || data === null) return null;
    try {
        const text = JSON.stringify(data);
        return text === undefined ? null : JSON.parse(text);
    } catch {
        return null;
    }
}

// The Notifications API's option processing: defaults, URLs made absolute, the TypeErrors of the standard.
function notificationRecord(title, options) {
    options = options || {};
    const tag = options.tag === undefined ? '' : String(options.tag);
    const dir = options.dir === undefined ? 'auto' : String(options.dir);
    if (!['auto', 'ltr', 'rtl'].includes(dir)) throw new TypeError(`showNotification: dir must be auto, ltr or rtl, not ${dir}`);
    if (options.renotify && tag === '') throw new TypeError('showNotification: renotify needs a tag');
    if (options.renotify && options.silent) throw new TypeError('showNotification: renotify and silent cannot both be true');
    const data = options.data === undefined ? undefined : structuredClone(options.data);
    const actions = Array.from(options.actions || [])
        .slice(0, Notification.maxActions)
        .map((action) => {
            const entry = { action: String(action.action), title: String(action.title) };
            const icon = absoluteURL(action.icon, 'an action icon');
            if (icon) entry.icon = icon;
            return entry;
        });
    const record = {
        id: randomUUID(),
        title: String(title),
        options: {
            body: options.body === undefined ? '' : String(options.body),
            tag,
            icon: absoluteURL(options.icon, 'icon'),
            badge: absoluteURL(options.badge, 'badge'),
            image: absoluteURL(options.image, 'image'),
            data: jsonData(data),
            actions,
            silent: options.silent === undefined || options.silent === null ? null : !!options.silent,
            requireInteraction: !!options.requireInteraction,
            renotify: !!options.renotify,
            timestamp: options.timestamp === undefined ? Date.now() : Math.trunc(Number(options.timestamp)),
            lang: options.lang === undefined ? '' : String(options.lang),
            dir,
        },
    };
    return { record, data };
}

const registration = {
    scope,
    active: { scriptURL, state: 'activated' },
    showNotification(title, options) {
        try {
            if (arguments.length === 0) throw new TypeError('showNotification: a title is required');
            const { record, data } = notificationRecord(title, options);
            // Why: a notification with the tag of one on screen replaces it (Notifications API, "show steps").
            if (record.options.tag !== '') displayed = displayed.filter((shown) => shown.options.tag !== record.options.tag);
            displayed.push(record);
            if (data !== undefined) dataByID.set(record.id, data);
            report({ type: 'show', notification: record });
            return Promise.resolve(undefined);
        } catch (error) {
            return Promise.reject(error);
        }
    },
    getNotifications(filter) {
        const tag = filter && filter.tag !== undefined ? String(filter.tag) : '';
        const matching = displayed.filter((record) => tag === '' || record.options.tag === tag);
        return Promise.resolve(matching.map((record) => new Notification(record, internal)));
    },
    update() {
        return Promise.resolve(registration);
    },
    unregister() {
        return Promise.resolve(false);
    },
};

// --- Clients, badge ------------------------------------------------------------------------------------------------

const windows = [];

function windowClient(url) {
    const client = {
        id: randomUUID(),
        url,
        type: 'window',
        frameType: 'top-level',
        focused: true,
        visibilityState: 'visible',
        focus() {
            return Promise.resolve(client);
        },
        navigate(target) {
            const next = new URL(String(target), client.url).href;
            report({ type: 'open-window', url: next });
            client.url = next;
            return Promise.resolve(client);
        },
        postMessage() {},
    };
    return client;
}

const clients = {
    openWindow(url) {
        const event = currentEvent();
        // Why: a window opens only on a user's click on a notification (Service Workers, "openWindow" steps 3 and 4).
        if (!event || event.type !== 'notificationclick') {
            return Promise.reject(new DOMException('openWindow is allowed only while a notificationclick event is handled', 'InvalidAccessError'));
        }
        let absolute;
        try {
            absolute = new URL(String(url), scriptURL).href;
        } catch {
            return Promise.reject(new TypeError(`openWindow: not a URL: ${String(url)}`));
        }
        report({ type: 'open-window', url: absolute });
        if (new URL(absolute).origin !== new URL(scriptURL).origin) return Promise.resolve(null);
        const client = windowClient(absolute);
        windows.push(client);
        return Promise.resolve(client);
    },
    matchAll() {
        return Promise.resolve(windows.slice());
    },
    get(id) {
        return Promise.resolve(windows.find((client) => client.id === id));
    },
    claim() {
        return Promise.resolve(undefined);
    },
};

const navigatorObject = {
    userAgent: 'Herald service worker',
    onLine: true,
    language: 'en-US',
    languages: ['en-US'],
    setAppBadge(contents) {
        if (contents === undefined) {
            report({ type: 'badge', flag: true });
            return Promise.resolve(undefined);
        }
        const count = Number(contents);
        if (!Number.isInteger(count) || count < 0 || count > Number.MAX_SAFE_INTEGER) {
            return Promise.reject(new TypeError(`setAppBadge: ${String(contents)} is not a whole number from 0`));
        }
        report(count === 0 ? { type: 'badge', clear: true } : { type: 'badge', count });
        return Promise.resolve(undefined);
    },
    clearAppBadge() {
        report({ type: 'badge', clear: true });
        return Promise.resolve(undefined);
    },
};

// --- The global scope ----------------------------------------------------------------------------------------------

const listeners = new Map();
const timers = new Map();
let nextTimer = 1;

function startTimer(repeat, callback, delay, args) {
    if (typeof callback !== 'function') throw new TypeError('setTimeout: only a function callback is supported');
    const id = nextTimer++;
    const run = () => {
        if (!repeat) timers.delete(id);
        try {
            callback(...args);
        } catch (error) {
            reportError('uncaught', error);
        }
    };
    const handle = repeat ? setInterval(run, Number(delay) || 0) : setTimeout(run, Number(delay) || 0);
    timers.set(id, handle);
    return id;
}

function stopTimer(id) {
    const handle = timers.get(id);
    if (handle === undefined) return;
    clearTimeout(handle);
    timers.delete(id);
}

const consoleObject = {};
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    consoleObject[level] = (...args) => report({ type: 'console', level, text: util.format(...args) });
}

class PushMessageData {
    #bytes;
    constructor(bytes, key) {
        if (key !== internal) throw new TypeError('Illegal constructor');
        this.#bytes = bytes;
    }
    arrayBuffer() {
        return this.#bytes.buffer.slice(this.#bytes.byteOffset, this.#bytes.byteOffset + this.#bytes.byteLength);
    }
    bytes() {
        return new Uint8Array(this.arrayBuffer());
    }
    blob() {
        return new Blob([this.bytes()]);
    }
    // Why: the Push API decodes as UTF-8 with replacement, so bytes that are not UTF-8 never throw here.
    text() {
        return new TextDecoder('utf-8').decode(this.#bytes);
    }
    json() {
        return JSON.parse(this.text());
    }
}

const context = vm.createContext({});
const global = vm.runInContext('globalThis', context);
const members = {
    self: global,
    registration,
    clients,
    navigator: navigatorObject,
    location: new URL(scriptURL),
    origin: new URL(scriptURL).origin,
    console: consoleObject,
    Notification,
    PushMessageData,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    Blob,
    DOMException,
    AbortController,
    AbortSignal,
    crypto: webcrypto,
    atob,
    btoa,
    structuredClone,
    queueMicrotask,
    setTimeout: (callback, delay, ...args) => startTimer(false, callback, delay, args),
    setInterval: (callback, delay, ...args) => startTimer(true, callback, delay, args),
    clearTimeout: stopTimer,
    clearInterval: stopTimer,
    addEventListener(type, listener) {
        if (typeof listener !== 'function' && !(listener && typeof listener.handleEvent === 'function')) return;
        const list = listeners.get(String(type)) || [];
        if (!list.includes(listener)) list.push(listener);
        listeners.set(String(type), list);
    },
    removeEventListener(type, listener) {
        const list = listeners.get(String(type)) || [];
        listeners.set(String(type), list.filter((entry) => entry !== listener));
    },
    skipWaiting() {
        return Promise.resolve(undefined);
    },
    // Herald's choice: the network is not the device's to reach; a worker that fetches learns so plainly.
    fetch(resource) {
        const target = resource && resource.url ? resource.url : String(resource);
        return Promise.reject(new TypeError(`fetch is not available in Herald's service worker scope (asked for ${target})`));
    },
    importScripts(...urls) {
        for (const url of urls) {
            const absolute = new URL(String(url), scriptURL);
            const file = path.resolve(scriptDirectory, '.' + decodeURIComponent(absolute.pathname));
            if (absolute.origin !== new URL(scriptURL).origin || !file.startsWith(scriptDirectory + path.sep)) {
                throw new DOMException(`importScripts: ${absolute.href} is not a file beside ${path.basename(scriptPath)}`, 'NetworkError');
            }
            let source;
            try {
                source = fs.readFileSync(file, 'utf8');
            } catch {
                throw new DOMException(`importScripts: cannot read ${absolute.href}`, 'NetworkError');
            }
            vm.runInContext(source, context, { filename: file });
        }
    },
};
for (const [name, value] of Object.entries(members)) {
    Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
}

// Calls `body` inside the context with the time budget on its synchronous part (an endless loop ends there).
const callScript = new vm.Script(`globalThis[Symbol.for('herald.call')]()`);
function runGuarded(body) {
    global[Symbol.for('herald.call')] = body;
    try {
        return callScript.runInContext(context, { timeout: budget });
    } finally {
        delete global[Symbol.for('herald.call')];
    }
}

function isTimeout(error) {
    return error && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

// --- Events --------------------------------------------------------------------------------------------------------

let loadFailed = null;

function makeEvent(type, init, lifetime) {
    let dispatching = true;
    const event = {
        type,
        timeStamp: Date.now(),
        waitUntil(promise) {
            if (!dispatching && lifetime.pending === 0) {
                throw new DOMException('waitUntil: the event has already ended', 'InvalidStateError');
            }
            lifetime.pending += 1;
            lifetime.promises.push(
                Promise.resolve(promise).then(
                    () => {
                        lifetime.pending -= 1;
                    },
                    (error) => {
                        lifetime.pending -= 1;
                        reportError('rejected', error);
                    }
                )
            );
        },
        stopImmediatePropagation() {
            event.stopped = true;
        },
        stopPropagation() {},
        preventDefault() {},
        ...init,
    };
    event.endDispatch = () => {
        dispatching = false;
    };
    return event;
}

function listenersFor(type) {
    const list = (listeners.get(type) || []).slice();
    const property = global['on' + type];
    if (typeof property === 'function') list.push(property);
    return list;
}

async function runEvent(message, init) {
    const event = { id: message.id, type: message.type, actions: 0, ended: false };
    runningEvent = event;
    const started = process.hrtime.bigint();
    const lifetime = { pending: 0, promises: [] };
    let handled = 0;
    let timedOut = false;
    await eventStorage.run(event, async () => {
        if (loadFailed) {
            reportError('load', loadFailed);
            return;
        }
        const jsEvent = makeEvent(message.type, init, lifetime);
        for (const listener of listenersFor(message.type)) {
            handled += 1;
            try {
                runGuarded(() => (typeof listener === 'function' ? listener.call(global, jsEvent) : listener.handleEvent(jsEvent)));
            } catch (error) {
                if (isTimeout(error)) {
                    timedOut = true;
                    break;
                }
                reportError('handler', error);
            }
            if (jsEvent.stopped) break;
        }
        jsEvent.endDispatch();
        if (timedOut) return;
        let timer;
        const budgetEnds = new Promise((resolve) => {
            timer = setTimeout(() => {
                timedOut = true;
                resolve();
            }, budget);
        });
        const settled = (async () => {
            let seen = 0;
            while (seen < lifetime.promises.length) {
                const batch = lifetime.promises.slice(seen);
                seen = lifetime.promises.length;
                await Promise.all(batch);
            }
        })();
        await Promise.race([settled, budgetEnds]);
        clearTimeout(timer);
    });
    if (timedOut) reportError('timed-out', `the ${message.type} event was not done within ${budget} ms`);
    const milliseconds = Number(process.hrtime.bigint() - started) / 1e6;
    write({ event: event.id, type: 'done', handled, milliseconds });
    event.ended = true;
    if (runningEvent === event) runningEvent = null;
}

function notificationFromHost(record) {
    if (!record || typeof record.id !== 'string') throw new TypeError('a notification event needs the notification');
    return new Notification(record, internal);
}

async function handle(message) {
    if (Array.isArray(message.displayed)) displayed = message.displayed;
    switch (message.type) {
        case 'install':
        case 'activate':
            return runEvent(message, {});
        case 'push': {
            const data = typeof message.data === 'string' ? new PushMessageData(new Uint8Array(Buffer.from(message.data, 'base64')), internal) : null;
            return runEvent(message, { data });
        }
        case 'notificationclick':
        case 'notificationclose':
            return runEvent(message, { notification: notificationFromHost(message.notification), action: message.action || '' });
        default:
            write({ event: message.id, type: 'error', kind: 'protocol', message: `unknown event type ${String(message.type)}` });
            write({ event: message.id, type: 'done', handled: 0, milliseconds: 0 });
    }
}

process.on('uncaughtException', (error) => reportError('uncaught', error));
process.on('unhandledRejection', (reason) => report({ type: 'console', level: 'error', text: `Uncaught (in promise) ${describe(reason)}` }));

// Loading the script is event 0: its console lines and its error, then `done`.
(async () => {
    const load = { id: 0, type: 'load', actions: 0, ended: false };
    runningEvent = load;
    const started = process.hrtime.bigint();
    eventStorage.run(load, () => {
        try {
            const source = fs.readFileSync(scriptPath, 'utf8');
            new vm.Script(source, { filename: scriptURL }).runInContext(context, { timeout: budget });
        } catch (error) {
            loadFailed = isTimeout(error) ? `the script did not finish loading within ${budget} ms` : describe(error);
            reportError(isTimeout(error) ? 'timed-out' : 'load', loadFailed);
        }
    });
    write({ event: 0, type: 'done', handled: 0, milliseconds: Number(process.hrtime.bigint() - started) / 1e6 });
    load.ended = true;
    runningEvent = null;

    // One event at a time, in the order the host sends them.
    let queue = Promise.resolve();
    const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    lines.on('line', (line) => {
        queue = queue.then(async () => {
            let message;
            try {
                message = JSON.parse(line);
            } catch {
                write({ type: 'error', kind: 'protocol', message: `not a JSON line from the host: ${line.slice(0, 200)}` });
                return;
            }
            try {
                await handle(message);
            } catch (error) {
                write({ event: message.id, type: 'error', kind: 'protocol', message: describe(error) });
                write({ event: message.id, type: 'done', handled: 0, milliseconds: 0 });
            }
        });
    });
    lines.on('close', () => process.exit(0));
})();
