/**
 * gmtags for SillyTavern (SPEC §13): the wiring between SillyTavern's page
 * and the pure modules in ./lib. Everything SillyTavern-specific goes through
 * `SillyTavern.getContext()` (fetched afresh each time: SillyTavern replaces
 * its chat and metadata objects when a chat opens), its event source and its
 * settings store; the DOM hooks are the stable ids of SPEC §13. The source
 * lines this relies on are listed in docs/sillytavern-extension.md.
 *
 * Texts a model or a player wrote go in through `textContent` only.
 */

import { bindChatCompletion, bindTextCompletion, chatIdOf, ensureChatId, isGmtagsUrl } from './lib/binding.js';
import { cardOf } from './lib/cards.js';
import { connectPlan, TEXT_URL_INPUTS } from './lib/connect.js';
import { panelPin } from './lib/nodes.js';
import {
    apiHeaders, builderUrl, chatApiUrl, normalise, panelUrl, statusOf,
} from './lib/settings.js';
import { locateReceipts, messageInView } from './lib/textmap.js';

const KEY = 'gmtags';
const PANEL_DELAY_MS = 250;
const PANEL_RECHECK_MS = 1500;
const BREAKS = new Set(['BR', 'P', 'DIV', 'LI', 'UL', 'OL', 'PRE', 'BLOCKQUOTE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'TABLE', 'TR', 'TD', 'TH', 'HR']);
const SKIPPED = new Set(['TEXTAREA', 'SCRIPT', 'STYLE', 'INPUT']);

/** @returns {any} */
function context() {
    return globalThis.SillyTavern.getContext();
}

/** The settings, normalised and kept in `extension_settings.gmtags`. */
function settings() {
    const ctx = context();
    const normal = normalise(ctx.extensionSettings[KEY]);
    ctx.extensionSettings[KEY] = Object.assign(ctx.extensionSettings[KEY] ?? {}, normal);
    return normal;
}

/** @param {Partial<import('./lib/settings.js').Settings>} changes */
function saveSettings(changes) {
    const ctx = context();
    ctx.extensionSettings[KEY] = { ...(ctx.extensionSettings[KEY] ?? {}), ...changes };
    ctx.extensionSettings[KEY] = { ...ctx.extensionSettings[KEY], ...normalise(ctx.extensionSettings[KEY]) };
    ctx.saveSettingsDebounced();
}

/** Whether a chat is open (a character's or a group's). */
function chatOpen() {
    const ctx = context();
    return Boolean(ctx.getCurrentChatId?.());
}

/** The open chat's gmtags id, made and saved with the chat on its first generation. */
function chatIdForGeneration() {
    const ctx = context();
    const { chatId, created } = ensureChatId(ctx.chatMetadata);
    if (created) {
        Promise.resolve(ctx.saveMetadata()).catch(error => console.warn('[gmtags] could not save the chat id', error));
        schedulePanel();
    }
    return chatId;
}

// ---------------------------------------------------------------- naming the chat

/** CHAT_COMPLETION_SETTINGS_READY: the request's headers name the chat. */
function onChatCompletionReady(/** @type {any} */ generateData) {
    const current = settings();
    if (!chatOpen() || generateData?.chat_completion_source !== 'custom' || !isGmtagsUrl(generateData.custom_url ?? '', current.url)) {
        return;
    }
    bindChatCompletion(generateData, current, chatIdForGeneration());
}

/** TEXT_COMPLETION_SETTINGS_READY (emitted without waiting): the server URL names the chat. */
function onTextCompletionReady(/** @type {any} */ params) {
    const current = settings();
    if (!chatOpen() || typeof params?.api_server !== 'string' || !isGmtagsUrl(params.api_server, current.url)) {
        return;
    }
    bindTextCompletion(params, current, chatIdForGeneration());
}

// ---------------------------------------------------------------- cards

/**
 * The text nodes of a message's text in order, with `null` for breaks,
 * leaving out what is already a card and what is being edited.
 * @param {Element} root
 */
function textPieces(root) {
    /** @type {(Text | null)[]} */
    const nodes = [];
    const walk = (/** @type {Node} */ node) => {
        for (const child of Array.from(node.childNodes)) {
            if (child.nodeType === Node.TEXT_NODE) {
                nodes.push(/** @type {Text} */ (child));
            } else if (child instanceof Element) {
                if (SKIPPED.has(child.tagName) || child.classList.contains('gmtags-card')) {
                    continue;
                }
                const breaks = BREAKS.has(child.tagName);
                if (breaks) nodes.push(null);
                walk(child);
                if (breaks) nodes.push(null);
            }
        }
    };
    walk(root);
    return nodes;
}

/**
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 */
function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
}

const TONE_MARKS = Object.freeze({
    'success': '✔', 'critical-success': '★', 'failure': '✖', 'critical-failure': '☠', 'refused': '⚠', 'ok': '•',
});

/**
 * The card element of one receipt.
 * @param {import('./lib/receipts.js').Receipt} receipt
 */
function cardElement(receipt) {
    const card = cardOf(receipt);
    const root = el('span', `gmtags-card gmtags-tone-${card.tone}`);
    root.setAttribute('data-gmtags-command', card.command);
    root.setAttribute('data-gmtags-result', card.result);
    root.setAttribute('data-gmtags-outcome', card.outcome);
    root.setAttribute('data-gmtags-receipt', receipt.text);
    root.setAttribute('role', 'note');
    root.setAttribute('aria-label', card.label);
    root.title = receipt.text;

    const head = el('span', 'gmtags-card-head');
    const icon = el('span', 'gmtags-card-icon', card.icon);
    icon.setAttribute('aria-hidden', 'true');
    head.append(icon, el('span', 'gmtags-card-title', card.title));
    if (card.who) head.append(el('span', 'gmtags-card-who', card.who));
    root.append(head);

    if (card.roll || card.dice.length) {
        const roll = el('span', 'gmtags-card-roll');
        if (card.roll) roll.append(el('span', 'gmtags-card-against', card.roll));
        if (card.dice.length) {
            const dice = el('span', 'gmtags-dice');
            for (const die of card.dice) {
                const face = el(die.kept ? 'span' : 's', 'gmtags-die', die.face);
                face.classList.add(die.kept ? 'gmtags-die-kept' : 'gmtags-die-dropped');
                if (die.hit) face.classList.add('gmtags-die-hit');
                if (die.dark) face.classList.add('gmtags-die-dark');
                face.title = `${die.kept ? 'kept' : 'not kept'}${die.hit ? ', a success' : ''}${die.dark ? ', dark die' : ''}`;
                dice.append(face);
            }
            roll.append(dice);
            spaced(dice);
        }
        if (card.score) roll.append(el('span', 'gmtags-card-score', `= ${card.score}`));
        spaced(roll);
        root.append(roll);
    }

    if (card.segments) {
        const { filled, size } = card.segments;
        const segments = el('span', 'gmtags-clock');
        segments.setAttribute('aria-hidden', 'true');
        for (let i = 0; i < Math.min(size, 24); i++) {
            segments.append(el('span', `gmtags-segment${i < filled ? ' gmtags-segment-filled' : ''}`));
        }
        root.append(segments);
    }

    const outcome = el('span', 'gmtags-card-outcome');
    const mark = el('span', 'gmtags-card-mark', TONE_MARKS[/** @type {keyof typeof TONE_MARKS} */ (card.tone)] ?? '•');
    mark.setAttribute('aria-hidden', 'true');
    outcome.append(mark, el('span', 'gmtags-card-words', card.words));
    spaced(outcome);
    root.append(outcome);

    for (const detail of card.details) {
        root.append(el('span', 'gmtags-card-detail', detail));
    }
    spaced(root);
    spaced(head);
    return root;
}

/**
 * Put a space between an element's children, so the card's text reads (and
 * copies) as words; a flex box does not draw white space between its items.
 * @param {Element} element
 */
function spaced(element) {
    for (const child of Array.from(element.children).slice(1)) {
        child.before(' ');
    }
}

/**
 * Replace each receipt in one message's text by its card, in the DOM only.
 * A second call finds no receipt left outside a card, so it changes nothing.
 * @param {Element} messageText A `.mes_text` element.
 */
function renderCards(messageText) {
    if (messageText.querySelector('textarea')) {
        return;
    }
    const nodes = textPieces(messageText);
    const located = locateReceipts(nodes.map(node => (node === null ? null : node.data)));
    for (const { receipt, start, end } of located.reverse()) {
        const range = document.createRange();
        range.setStart(/** @type {Text} */ (nodes[start.piece]), start.offset);
        range.setEnd(/** @type {Text} */ (nodes[end.piece]), end.offset);
        range.deleteContents();
        range.insertNode(cardElement(receipt));
        range.detach();
    }
}

function renderAllCards() {
    document.querySelectorAll('#chat .mes .mes_text').forEach(renderCards);
}

/** @type {Set<Element>} */
const pendingTexts = new Set();
let cardsQueued = false;

function flushCards() {
    cardsQueued = false;
    const texts = Array.from(pendingTexts);
    pendingTexts.clear();
    for (const text of texts) {
        if (text.isConnected) renderCards(text);
    }
}

/** @param {MutationRecord[]} records */
function onChatMutation(records) {
    for (const record of records) {
        const target = record.target instanceof Element ? record.target : record.target.parentElement;
        const text = target?.closest('.mes_text');
        if (text) {
            pendingTexts.add(text);
        }
        record.addedNodes.forEach(node => {
            if (node instanceof Element) {
                if (node.classList.contains('gmtags-card')) return;
                node.querySelectorAll?.('.mes_text').forEach(found => pendingTexts.add(found));
                if (node.classList.contains('mes_text')) pendingTexts.add(node);
            }
        });
    }
    if (pendingTexts.size && !cardsQueued) {
        cardsQueued = true;
        queueMicrotask(flushCards);
    }
}

// ---------------------------------------------------------------- the Game panel

let panelTimer = 0;
let panelRecheck = 0;
let panelRequest = 0;

function panelIsOpen() {
    return document.getElementById('gmtags-panel')?.hidden === false;
}

/** Refresh the panel soon (and once more a little later, for a reply gmtags is still storing). */
function schedulePanel() {
    if (!panelIsOpen()) return;
    clearTimeout(panelTimer);
    clearTimeout(panelRecheck);
    panelTimer = setTimeout(refreshPanel, PANEL_DELAY_MS);
    panelRecheck = setTimeout(refreshPanel, PANEL_RECHECK_MS);
}

/** The index in the chat of the message the player is looking at. */
function lookedAtMessage() {
    const chat = document.getElementById('chat');
    if (!chat) return null;
    const view = chat.getBoundingClientRect();
    const messages = Array.from(chat.querySelectorAll('.mes[mesid]')).map(mes => ({
        id: Number(mes.getAttribute('mesid')),
        top: mes.getBoundingClientRect().top,
    })).filter(m => Number.isInteger(m.id));
    return messageInView(messages, view.top, view.bottom);
}

async function refreshPanel() {
    const panel = document.getElementById('gmtags-panel');
    const frame = /** @type {HTMLIFrameElement | null} */ (document.getElementById('gmtags-panel-frame'));
    const note = document.getElementById('gmtags-panel-note');
    if (!panel || !frame || !note || panel.hidden) return;
    const ctx = context();
    const current = settings();
    const chatId = chatOpen() ? chatIdOf(ctx.chatMetadata) : '';
    const request = ++panelRequest;
    if (!chatId) {
        note.textContent = chatOpen()
            ? 'This chat is not yet played through gmtags: its first reply names it.'
            : 'Open a chat to see its game.';
        frame.hidden = true;
        frame.removeAttribute('src');
        return;
    }
    /** @type {string | null} */
    let node = null;
    let problem = '';
    const index = lookedAtMessage();
    try {
        const response = await fetch(chatApiUrl(current, chatId), { headers: apiHeaders(current), credentials: 'omit' });
        if (response.ok) {
            const body = await response.json();
            const pin = panelPin(ctx.chat, index, Array.isArray(body?.nodes) ? body.nodes : []);
            node = pin.node;
            if (!pin.known) problem = 'The message in view was not played through gmtags; showing the latest state.';
        } else if (response.status === 404) {
            problem = 'This chat is not yet played through gmtags.';
        } else {
            problem = `gmtags answered ${response.status}.`;
        }
    } catch {
        problem = 'gmtags cannot be reached from this page (see the gmtags settings).';
    }
    if (request !== panelRequest) return;
    note.textContent = problem || (index === null ? '' : `State after message #${index}.`);
    const url = panelUrl(current, chatId, node);
    frame.hidden = false;
    if (frame.getAttribute('src') !== url) {
        frame.setAttribute('src', url);
    }
}

/** @param {boolean} open */
function setPanelOpen(open) {
    const panel = document.getElementById('gmtags-panel');
    const button = document.getElementById('gmtags-panel-button');
    if (!panel || !button) return;
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) {
        refreshPanel();
        document.getElementById('gmtags-panel-close')?.focus();
    } else {
        button.focus();
    }
}

function buildPanel() {
    const panel = el('aside');
    panel.id = 'gmtags-panel';
    panel.hidden = true;
    panel.setAttribute('aria-label', 'Game');
    const head = el('div', 'gmtags-panel-head');
    head.append(el('h3', 'gmtags-panel-title', 'Game'));
    const refresh = el('button', 'menu_button gmtags-small', 'Refresh');
    refresh.type = 'button';
    refresh.addEventListener('click', () => {
        const frame = /** @type {HTMLIFrameElement | null} */ (document.getElementById('gmtags-panel-frame'));
        frame?.removeAttribute('src');
        refreshPanel();
    });
    const close = el('button', 'menu_button gmtags-small', 'Close');
    close.id = 'gmtags-panel-close';
    close.type = 'button';
    close.setAttribute('aria-label', 'Close the Game panel');
    close.addEventListener('click', () => setPanelOpen(false));
    head.append(refresh, close);
    const note = el('p', 'gmtags-panel-note');
    note.id = 'gmtags-panel-note';
    note.setAttribute('role', 'status');
    const frame = el('iframe', 'gmtags-panel-frame');
    frame.id = 'gmtags-panel-frame';
    frame.title = 'The game state of this chat';
    frame.setAttribute('referrerpolicy', 'no-referrer');
    panel.append(head, note, frame);
    panel.addEventListener('keydown', event => {
        if (event.key === 'Escape') setPanelOpen(false);
    });
    document.body.append(panel);
}

// ---------------------------------------------------------------- the builder

/** @type {Element | null} */
let builderOpener = null;

function closeBuilder() {
    const overlay = document.getElementById('gmtags-builder');
    if (!overlay || overlay.hidden) return;
    overlay.hidden = true;
    overlay.querySelector('iframe')?.removeAttribute('src');
    const frame = /** @type {HTMLIFrameElement | null} */ (document.getElementById('gmtags-panel-frame'));
    frame?.removeAttribute('src');
    refreshPanel();
    if (builderOpener instanceof HTMLElement) builderOpener.focus();
}

function openBuilder() {
    const overlay = document.getElementById('gmtags-builder');
    const frame = overlay?.querySelector('iframe');
    const note = overlay?.querySelector('.gmtags-builder-note');
    if (!overlay || !frame || !note) return;
    const ctx = context();
    const current = settings();
    builderOpener = document.activeElement;
    overlay.hidden = false;
    if (!chatOpen()) {
        note.textContent = 'Open a chat first: a character is built for the open chat.';
        frame.hidden = true;
    } else {
        const { chatId, created } = ensureChatId(ctx.chatMetadata);
        if (created) {
            Promise.resolve(ctx.saveMetadata()).catch(error => console.warn('[gmtags] could not save the chat id', error));
        }
        note.textContent = '';
        frame.hidden = false;
        frame.setAttribute('src', builderUrl(current, chatId));
    }
    document.getElementById('gmtags-builder-close')?.focus();
}

function buildBuilder() {
    const overlay = el('div', 'gmtags-builder');
    overlay.id = 'gmtags-builder';
    overlay.hidden = true;
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.setAttribute('aria-label', 'Build character');
    const box = el('div', 'gmtags-builder-box');
    const head = el('div', 'gmtags-panel-head');
    head.append(el('h3', 'gmtags-panel-title', 'Build character'));
    const close = el('button', 'menu_button gmtags-small', 'Close');
    close.id = 'gmtags-builder-close';
    close.type = 'button';
    close.setAttribute('aria-label', 'Close the builder');
    close.addEventListener('click', closeBuilder);
    head.append(close);
    const note = el('p', 'gmtags-builder-note');
    note.setAttribute('role', 'status');
    const frame = el('iframe', 'gmtags-builder-frame');
    frame.title = 'Character builder';
    frame.setAttribute('referrerpolicy', 'no-referrer');
    box.append(head, note, frame);
    overlay.append(box);
    overlay.addEventListener('click', event => {
        if (event.target === overlay) closeBuilder();
    });
    document.addEventListener('keydown', event => {
        if (event.key === 'Escape' && !overlay.hidden) {
            event.stopPropagation();
            closeBuilder();
        }
    }, true);
    document.body.append(overlay);
}

// ---------------------------------------------------------------- buttons

/**
 * A send-form button in SillyTavern's own icon font (Font Awesome 6), as its other
 * send-form buttons are, named for a screen reader.
 * @param {string} id @param {string} icon @param {string} label @param {() => void} onClick
 */
function iconButton(id, icon, label, onClick) {
    const button = el('button', `gmtags-button interactable fa-solid ${icon}`);
    button.id = id;
    button.type = 'button';
    button.title = label;
    button.setAttribute('aria-label', label);
    button.addEventListener('click', onClick);
    return button;
}

function buildButtons() {
    const host = document.getElementById('leftSendForm') ?? document.getElementById('form_sheld') ?? document.body;
    const panelButton = iconButton('gmtags-panel-button', 'fa-dice-d20', 'Game panel', () => setPanelOpen(!panelIsOpen()));
    panelButton.setAttribute('aria-controls', 'gmtags-panel');
    panelButton.setAttribute('aria-expanded', 'false');
    const buildButton = iconButton('gmtags-build-button', 'fa-user-plus', 'Build character', openBuilder);
    buildButton.setAttribute('aria-haspopup', 'dialog');
    host.append(panelButton, buildButton);
}

// ---------------------------------------------------------------- settings and status

let statusRequest = 0;

/** @param {string} url @param {Record<string, string>} headers */
async function statusCode(url, headers) {
    try {
        const response = await fetch(url, { headers, credentials: 'omit', cache: 'no-store' });
        return response.status;
    } catch {
        return null;
    }
}

async function checkStatus() {
    const light = document.getElementById('gmtags-status');
    if (!light) return;
    const current = settings();
    const request = ++statusRequest;
    const ctx = context();
    const chatId = chatOpen() ? chatIdOf(ctx.chatMetadata) : '';
    light.dataset.state = 'checking';
    light.querySelector('.gmtags-status-text').textContent = 'Checking…';
    const health = await statusCode(`${current.url}/healthz`, {});
    const api = health === null ? null
        : await statusCode(chatId ? chatApiUrl(current, chatId) : `${current.url}/gmtags/api/chats`, apiHeaders(current));
    if (request !== statusRequest) return;
    const status = statusOf({ health, chat: api, origin: location.origin, hasChat: Boolean(chatId) });
    light.dataset.state = status.state;
    light.querySelector('.gmtags-status-text').textContent = status.text;
}

/**
 * Set the connection SillyTavern uses now (Chat Completion, or the selected Text
 * Completion type) to gmtags through its own connection inputs, firing the events
 * their handlers listen to (they save SillyTavern's settings), then press its
 * Connect as a player would. Any other main API is left alone.
 */
function connect() {
    const current = settings();
    /** @param {string} selector */
    const find = selector => {
        const found = /** @type {HTMLInputElement | HTMLSelectElement | null} */ (document.querySelector(selector));
        if (!found) throw new Error(`SillyTavern has no ${selector} here`);
        return found;
    };
    /** @param {string} selector @param {string} value @param {string} event */
    const set = (selector, value, event) => {
        const input = find(selector);
        input.value = value;
        input.dispatchEvent(new Event(event, { bubbles: true }));
    };
    const textType = /** @type {HTMLSelectElement | null} */ (document.querySelector('#textgen_type'))?.value ?? '';
    const field = TEXT_URL_INPUTS[/** @type {keyof typeof TEXT_URL_INPUTS} */ (textType)];
    const plan = connectPlan({
        mainApi: context().mainApi,
        textType,
        serverUrl: field ? /** @type {HTMLInputElement | null} */ (document.querySelector(field))?.value ?? '' : '',
        legacyApi: /** @type {HTMLInputElement | null} */ (document.querySelector('#legacy_api_textgenerationwebui'))?.checked === true,
    }, current);
    const note = document.getElementById('gmtags-connect-note');
    try {
        if (plan.action === 'chat') {
            set('#custom_api_url_text', String(plan.url), 'input');
            set('#main_api', 'openai', 'change');
            set('#chat_completion_source', 'custom', 'change');
            /** @type {HTMLElement | null} */ (document.querySelector('#api_button_openai'))?.click();
        } else if (plan.action === 'text') {
            const input = String(plan.input);
            set(input, String(plan.url), 'input');
            // Leaving the field, as a player does: the field's server-history menu
            // (opened by an input) closes and its pending search is dropped.
            find(input).dispatchEvent(new Event('blur'));
            /** @type {HTMLElement} */ (find('#api_button_textgenerationwebui')).click();
        }
        if (note) note.textContent = plan.note;
    } catch (error) {
        if (note) note.textContent = `Could not set the connection: ${error instanceof Error ? error.message : error}`;
    }
    if (plan.action !== 'none') setTimeout(checkStatus, 500);
}

function buildSettings() {
    const current = settings();
    const root = el('div', 'gmtags-settings');
    root.id = 'gmtags-settings';
    const drawer = el('div', 'inline-drawer');
    const toggle = el('div', 'inline-drawer-toggle inline-drawer-header');
    toggle.append(el('b', '', 'gmtags'), el('div', 'inline-drawer-icon fa-solid fa-circle-chevron-down down'));
    const content = el('div', 'inline-drawer-content');

    const urlLabel = el('label', '', 'gmtags URL');
    const url = /** @type {HTMLInputElement} */ (el('input', 'text_pole'));
    url.id = 'gmtags-url';
    url.type = 'url';
    url.value = current.url;
    url.placeholder = 'http://127.0.0.1:8787';
    urlLabel.htmlFor = url.id;
    url.addEventListener('change', () => {
        saveSettings({ url: url.value });
        url.value = settings().url;
        checkStatus();
    });

    const tokenLabel = el('label', '', 'Token (when gmtags serve has --token)');
    const token = /** @type {HTMLInputElement} */ (el('input', 'text_pole'));
    token.id = 'gmtags-token';
    token.type = 'password';
    token.autocomplete = 'off';
    token.value = current.token;
    tokenLabel.htmlFor = token.id;
    token.addEventListener('change', () => {
        saveSettings({ token: token.value });
        checkStatus();
    });

    const status = el('div', 'gmtags-status');
    status.id = 'gmtags-status';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    const dot = el('span', 'gmtags-status-light');
    dot.setAttribute('aria-hidden', 'true');
    status.append(dot, el('span', 'gmtags-status-text', 'Not checked yet'));

    const buttons = el('div', 'gmtags-settings-buttons');
    const check = el('button', 'menu_button', 'Check');
    check.type = 'button';
    check.addEventListener('click', checkStatus);
    const connectButton = el('button', 'menu_button', 'Connect SillyTavern to gmtags');
    connectButton.id = 'gmtags-connect';
    connectButton.type = 'button';
    connectButton.addEventListener('click', connect);
    buttons.append(check, connectButton);
    const connectNote = el('p', 'gmtags-connect-note');
    connectNote.id = 'gmtags-connect-note';
    connectNote.setAttribute('role', 'status');
    const help = el('p', 'gmtags-help',
        `Start gmtags with: gmtags serve --ruleset R.json --upstream URL --allow-origin ${location.origin}`);

    // The buttons above the status line: its text changes when the URL field is left (a
    // check starts), and a button below it would move between mouse down and up.
    content.append(urlLabel, url, tokenLabel, token, buttons, status, connectNote, help);
    drawer.append(toggle, content);
    root.append(drawer);
    (document.getElementById('extensions_settings2') ?? document.getElementById('extensions_settings') ?? document.body).append(root);
}

// ---------------------------------------------------------------- start

/**
 * SillyTavern's keyboard support clicks any focused `.interactable` or
 * `.menu_button` on Enter (its document keydown handler); a <button> already
 * clicks itself on Enter, so for ours that would be two clicks (the panel
 * opening and closing again). Ours keep their own click only.
 */
function oneClickOnEnter() {
    document.addEventListener('keydown', event => {
        const target = event.target;
        if (event.key === 'Enter' && target instanceof HTMLButtonElement
            && (target.id.startsWith('gmtags-') || target.closest('#gmtags-panel, #gmtags-builder, #gmtags-settings'))) {
            event.stopPropagation(); // the button's own click still happens: it is the default action
        }
    }, true);
}

function start() {
    const ctx = context();
    settings();
    buildSettings();
    buildButtons();
    buildPanel();
    buildBuilder();
    oneClickOnEnter();

    const events = ctx.eventSource;
    const types = ctx.eventTypes;
    events.on(types.CHAT_COMPLETION_SETTINGS_READY, onChatCompletionReady);
    events.on(types.TEXT_COMPLETION_SETTINGS_READY, onTextCompletionReady);
    const rerender = () => {
        renderAllCards();
        schedulePanel();
    };
    for (const type of ['MESSAGE_RECEIVED', 'CHARACTER_MESSAGE_RENDERED', 'MESSAGE_SWIPED', 'MESSAGE_EDITED', 'MESSAGE_UPDATED', 'MESSAGE_DELETED', 'GENERATION_ENDED']) {
        if (types[type]) events.on(types[type], rerender);
    }
    events.on(types.CHAT_CHANGED, () => {
        rerender();
        checkStatus();
    });

    const chat = document.getElementById('chat');
    if (chat) {
        new MutationObserver(onChatMutation).observe(chat, { childList: true, subtree: true, characterData: true });
        let scrollTimer = 0;
        chat.addEventListener('scroll', () => {
            clearTimeout(scrollTimer);
            scrollTimer = setTimeout(schedulePanel, 150);
        }, { passive: true });
    }
    renderAllCards();
    checkStatus();
}

start();
