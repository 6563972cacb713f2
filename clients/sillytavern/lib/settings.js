/**
 * The extension's settings (`extension_settings.gmtags`) and the status light
 * they lead to (SPEC §13 "Set-up is one screen").
 */

export const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * @typedef {object} Settings
 * @property {string} url The gmtags server, without a trailing slash or `/v1`.
 * @property {string} token The gmtags token (`gmtags serve --token`), or ''.
 */

/** @returns {Settings} */
export function defaults() {
    return { url: DEFAULT_URL, token: '' };
}

/**
 * A gmtags URL as the extension uses it: trimmed, http(s) only, with no
 * query, fragment, trailing slash or `/v1` (the extension adds the paths it
 * calls); anything else is the default.
 * @param {unknown} value
 * @returns {string}
 */
export function normalUrl(value) {
    if (typeof value !== 'string' || value.trim() === '') {
        return DEFAULT_URL;
    }
    let parts;
    try {
        parts = new URL(value.trim());
    } catch {
        return DEFAULT_URL;
    }
    if ((parts.protocol !== 'http:' && parts.protocol !== 'https:') || parts.username || parts.password) {
        return DEFAULT_URL;
    }
    const path = parts.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
    return `${parts.protocol}//${parts.host}${path}`;
}

/**
 * Settings read from whatever `extension_settings.gmtags` holds (missing,
 * an older shape, wrong types): every field present and valid.
 * @param {unknown} stored
 * @returns {Settings}
 */
export function normalise(stored) {
    const raw = stored && typeof stored === 'object' ? /** @type {Record<string, unknown>} */ (stored) : {};
    const token = typeof raw.token === 'string' ? raw.token.trim().replace(/[\u0000-\u001f\u007f]/g, '') : '';
    return { url: normalUrl(raw.url), token };
}

/**
 * The headers a call to gmtags' pages API sends.
 * @param {Settings} settings
 * @returns {Record<string, string>}
 */
export function apiHeaders(settings) {
    return settings.token ? { 'X-Gmtags-Token': settings.token } : {};
}

/** `${url}/v1`, the base URL SillyTavern's Custom source is set to. @param {Settings} settings */
export function completionsUrl(settings) {
    return `${settings.url}/v1`;
}

/**
 * The Game panel's page: the chat's compact state, pinned to a node when given.
 * @param {Settings} settings
 * @param {string} chatId
 * @param {string | null} [node]
 */
export function panelUrl(settings, chatId, node = null) {
    const pin = node ? `&node=${encodeURIComponent(node)}` : '';
    return `${settings.url}/gmtags/chats/${encodeURIComponent(chatId)}?embed=1${pin}`;
}

/** The builder for the chat. @param {Settings} settings @param {string} chatId */
export function builderUrl(settings, chatId) {
    return `${settings.url}/gmtags/builder?chat=${encodeURIComponent(chatId)}`;
}

/** The chat's JSON (state and nodes). @param {Settings} settings @param {string} chatId */
export function chatApiUrl(settings, chatId) {
    return `${settings.url}/gmtags/api/chats/${encodeURIComponent(chatId)}`;
}

/**
 * @typedef {object} Status
 * @property {'connected' | 'wrong-token' | 'unreachable' | 'not-played' | 'no-chat' | 'error'} state
 * @property {string} text What the status light says.
 */

/**
 * The status light from what the checks found.
 * @param {object} probe
 * @param {number | null} probe.health `GET /healthz`'s status, null when the fetch failed.
 * @param {number | null} [probe.chat] `GET /gmtags/api/chats/{chat}`'s status, null when not asked.
 * @param {string} probe.origin This page's origin (for the `--allow-origin` advice).
 * @param {boolean} [probe.hasChat] Whether a chat is open with a gmtags id.
 * @returns {Status}
 */
export function statusOf({ health, chat = null, origin, hasChat = true }) {
    if (health === null) {
        return {
            state: 'unreachable',
            text: `gmtags is not running, or this page's origin is not allowed: start it with `
                + `gmtags serve … --allow-origin ${origin}`,
        };
    }
    if (health === 401 || health === 403 || chat === 401 || chat === 403) {
        return { state: 'wrong-token', text: 'Wrong token: set the token gmtags serve was started with' };
    }
    if (health >= 400) {
        return { state: 'error', text: `gmtags answered ${health}` };
    }
    if (!hasChat || chat === 404) {
        return { state: 'not-played', text: 'Connected; this chat is not yet played through gmtags' };
    }
    if (chat !== null && chat >= 400) {
        return { state: 'error', text: `gmtags answered ${chat} for this chat` };
    }
    return { state: 'connected', text: 'Connected' };
}
