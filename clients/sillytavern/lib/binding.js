/**
 * Naming the open chat for gmtags on every generation (SPEC §13 "The chat is
 * named for gmtags", §7.2).
 *
 * Chat Completion (source Custom) carries the name in the headers SillyTavern
 * merges from `custom_include_headers`, a YAML text; Text Completion has no
 * header hook, so its server URL gets the `/c/{chat}` prefix. Both only when
 * the request goes to the configured gmtags URL.
 */

export const CHAT_HEADER = 'X-Gmtags-Chat';
export const TOKEN_HEADER = 'X-Gmtags-Token';

/**
 * A new chat id: random and URL-safe (`st-` and a UUID's 32 hex digits).
 * @param {() => string} [randomUUID] The source of randomness (crypto.randomUUID).
 * @returns {string}
 */
export function newChatId(randomUUID = () => globalThis.crypto.randomUUID()) {
    return `st-${randomUUID().replace(/-/g, '').toLowerCase()}`;
}

/**
 * The gmtags chat id a chat's metadata holds (`chat_metadata.gmtags.chatId`), or ''.
 * @param {any} metadata
 * @returns {string}
 */
export function chatIdOf(metadata) {
    const id = metadata?.gmtags?.chatId;
    return typeof id === 'string' && id.length > 0 && id.length <= 200 && !/[\u0000-\u001f\u007f]/.test(id) ? id : '';
}

/**
 * The chat id of `metadata`, made and written into it when it has none.
 * @param {any} metadata The chat's metadata object (changed in place).
 * @param {() => string} [makeId]
 * @returns {{chatId: string, created: boolean}}
 */
export function ensureChatId(metadata, makeId = newChatId) {
    const known = chatIdOf(metadata);
    if (known) {
        return { chatId: known, created: false };
    }
    const chatId = makeId();
    const section = metadata.gmtags && typeof metadata.gmtags === 'object' && !Array.isArray(metadata.gmtags) ? metadata.gmtags : {};
    section.chatId = chatId;
    metadata.gmtags = section;
    return { chatId, created: true };
}

/**
 * A header value as HTTP carries it: the UTF-8 bytes, one character each
 * (SillyTavern's server sends header strings as Latin-1 bytes; gmtags reads
 * `X-Gmtags-Chat` as UTF-8), so a non-ASCII id written by gmtags survives.
 * @param {string} value
 * @returns {string}
 */
export function headerValue(value) {
    return Array.from(new TextEncoder().encode(String(value)), byte => String.fromCharCode(byte)).join('');
}

/**
 * A YAML double-quoted scalar holding `value` exactly. JSON's string escapes
 * (`\"`, `\\`, `\n`, `\uXXXX`, …) are all YAML double-quoted escapes.
 * @param {string} value
 * @returns {string}
 */
export function yamlQuote(value) {
    return JSON.stringify(String(value)).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const OWN_KEY = new RegExp(`^\\s*(?:-\\s+)?["']?(?:${CHAT_HEADER}|${TOKEN_HEADER})["']?\\s*:`, 'i');

/** The first line that holds YAML content (not blank, not a comment, not `---`). */
function firstContent(/** @type {string[]} */ lines) {
    return lines.find(line => line.trim() !== '' && !line.trim().startsWith('#') && line.trim() !== '---') ?? '';
}

/**
 * The player's `custom_include_headers` YAML with gmtags' headers added.
 *
 * SillyTavern parses the text with `yaml` and merges a mapping, or each
 * mapping of a sequence, into the request headers; a text that does not parse
 * drops every header silently. So the player's lines are kept, lines of their
 * own that set gmtags' headers are dropped (a mapping may not repeat a key),
 * and each header is added in the text's own style: a `key: "value"` line
 * for a block mapping (or an empty text), a `- key: "value"` item for a block
 * sequence, a `{"key": "value"}` item before the closing `]` of a flow
 * sequence, and a flow mapping is made the first item of a block sequence.
 * @param {string} yamlText The player's YAML (may be empty).
 * @param {Record<string, string>} headers Header name → value.
 * @returns {string}
 */
export function withHeaders(yamlText, headers) {
    const entries = Object.entries(headers).filter(([, value]) => value !== undefined && value !== '');
    const kept = String(yamlText ?? '').replace(/\r\n?/g, '\n').split('\n').filter(line => !OWN_KEY.test(line));
    while (kept.length && kept[kept.length - 1].trim() === '') {
        kept.pop();
    }
    const first = firstContent(kept).trim();
    const pair = (/** @type {[string, string]} */ [key, value]) => `${yamlQuote(key)}: ${yamlQuote(headerValue(value))}`;
    if (first.startsWith('[')) {
        const text = kept.join('\n');
        const close = text.lastIndexOf(']');
        const inside = text.slice(text.indexOf('[') + 1, close).trim();
        const items = entries.map(entry => `{${pair(entry)}}`).join(', ');
        return `${text.slice(0, close)}${inside ? ', ' : ''}${items}${text.slice(close)}\n`;
    }
    if (first.startsWith('{')) {
        const start = kept.findIndex(line => line.trim().startsWith('{'));
        const wrapped = kept.map((line, i) => (i < start ? line : i === start ? `- ${line.trimStart()}` : `  ${line}`));
        return [...wrapped, ...entries.map(entry => `- ${pair(entry)}`)].join('\n') + '\n';
    }
    const item = first.startsWith('- ') || first === '-' ? '- ' : '';
    return [...kept, ...entries.map(entry => `${item}${pair(entry)}`)].join('\n') + '\n';
}

/**
 * A URL reduced to what identifies a gmtags server: scheme, host (`localhost`
 * read as 127.0.0.1, as SillyTavern's server does) and path without trailing
 * slashes, or null when it is not an http(s) URL.
 * @param {string} url
 */
function parsed(url) {
    let parts;
    try {
        parts = new URL(String(url).trim());
    } catch {
        return null;
    }
    if (parts.protocol !== 'http:' && parts.protocol !== 'https:') {
        return null;
    }
    const host = parts.hostname === 'localhost' ? '127.0.0.1' : parts.hostname;
    const port = parts.port ? `:${parts.port}` : '';
    return { origin: `${parts.protocol}//${host}${port}`, path: parts.pathname.replace(/\/+$/, ''), raw: parts };
}

/**
 * The part of `url` after the gmtags URL (`''`, `/v1`, `/c/x/v1`…), or null
 * when `url` does not go to that gmtags server.
 * @param {string} url
 * @param {string} gmtagsUrl
 */
function restAfter(url, gmtagsUrl) {
    const target = parsed(url);
    const base = parsed(gmtagsUrl);
    if (!target || !base || target.origin !== base.origin) {
        return null;
    }
    const basePath = base.path.replace(/\/v1$/, '');
    if (target.path !== basePath && !target.path.startsWith(`${basePath}/`)) {
        return null;
    }
    const rest = target.path.slice(basePath.length);
    return /^(?:\/c\/[^/]+)?(?:\/v1)?$/.test(rest) ? rest : null;
}

/**
 * True when `url` (a request's server URL, with or without `/v1` or a
 * `/c/{chat}` prefix) goes to the gmtags server at `gmtagsUrl`.
 * @param {string} url
 * @param {string} gmtagsUrl
 */
export function isGmtagsUrl(url, gmtagsUrl) {
    return restAfter(url, gmtagsUrl) !== null;
}

/**
 * `url` with the chat's `/c/{chat}` prefix (SPEC §7.2) when it goes to the
 * gmtags URL, keeping a trailing `/v1`; any other URL unchanged.
 * `http://127.0.0.1:8787/v1` → `http://127.0.0.1:8787/c/<id>/v1`.
 * @param {string} url
 * @param {string} gmtagsUrl
 * @param {string} chatId
 * @returns {string}
 */
export function withChatPrefix(url, gmtagsUrl, chatId) {
    const rest = restAfter(url, gmtagsUrl);
    if (rest === null || !chatId) {
        return url;
    }
    const target = /** @type {NonNullable<ReturnType<typeof parsed>>} */ (parsed(url));
    const base = /** @type {NonNullable<ReturnType<typeof parsed>>} */ (parsed(gmtagsUrl));
    const basePath = base.path.replace(/\/v1$/, '');
    const v1 = rest.endsWith('/v1') ? '/v1' : '';
    const raw = target.raw;
    return `${raw.protocol}//${raw.host}${basePath}/c/${encodeURIComponent(chatId)}${v1}`;
}

/**
 * Name the chat on a Chat Completion request (SillyTavern's `generate_data`,
 * changed in place): when its source is Custom and its URL goes to gmtags,
 * `X-Gmtags-Chat` (and `X-Gmtags-Token` when a token is set) join its
 * `custom_include_headers`. Returns whether it was named.
 * @param {any} generateData
 * @param {{url: string, token: string}} settings
 * @param {string} chatId
 * @returns {boolean}
 */
export function bindChatCompletion(generateData, settings, chatId) {
    if (!generateData || generateData.chat_completion_source !== 'custom' || !chatId) {
        return false;
    }
    if (!isGmtagsUrl(generateData.custom_url ?? '', settings.url)) {
        return false;
    }
    /** @type {Record<string, string>} */
    const headers = { [CHAT_HEADER]: chatId };
    if (settings.token) {
        headers[TOKEN_HEADER] = settings.token;
    }
    generateData.custom_include_headers = withHeaders(generateData.custom_include_headers ?? '', headers);
    return true;
}

/**
 * Name the chat on a Text Completion request (SillyTavern's params, changed in
 * place): its `api_server` gets the `/c/{chat}` prefix when it goes to gmtags.
 * Returns whether it was named.
 * @param {any} params
 * @param {{url: string}} settings
 * @param {string} chatId
 * @returns {boolean}
 */
export function bindTextCompletion(params, settings, chatId) {
    if (!params || typeof params.api_server !== 'string' || !chatId) {
        return false;
    }
    if (!isGmtagsUrl(params.api_server, settings.url)) {
        return false;
    }
    params.api_server = withChatPrefix(params.api_server, settings.url, chatId);
    return true;
}
