/**
 * What the settings' Connect button does (SPEC §13 "Set-up is one screen"):
 * point the connection SillyTavern uses now at gmtags, and say so.
 *
 * - Chat Completion: source Custom at `${url}/v1` (headers name the chat).
 * - Text Completion: the server URL of the selected API type becomes the
 *   gmtags URL itself (SillyTavern's server appends each type's route; the
 *   extension adds `/c/{chat}` per generation). gmtags then needs the URL it
 *   replaced as its `--upstream`, so the note names it.
 * - Any other main API: nothing is changed.
 */

import { isGmtagsUrl } from './binding.js';
import { completionsUrl } from './settings.js';

/** SillyTavern's main API values (`#main_api`, `getContext().mainApi`). */
export const CHAT_COMPLETION = 'openai';
export const TEXT_COMPLETION = 'textgenerationwebui';

/**
 * The server URL field of each Text Completion type that has one: SillyTavern
 * 1.12.6's `SERVER_INPUTS` (`public/scripts/textgen-settings.js:97-106`). The
 * other types (Mancer, TogetherAI, OpenRouter, …) are services at a fixed URL.
 */
export const TEXT_URL_INPUTS = Object.freeze({
    ooba: '#textgenerationwebui_api_url_text',
    vllm: '#vllm_api_url_text',
    aphrodite: '#aphrodite_api_url_text',
    tabby: '#tabby_api_url_text',
    koboldcpp: '#koboldcpp_api_url_text',
    llamacpp: '#llamacpp_api_url_text',
    ollama: '#ollama_api_url_text',
    huggingface: '#huggingface_api_url_text',
});

/** The name SillyTavern's API Type menu (`#textgen_type`) shows for each type, shortened. */
export const TEXT_TYPE_NAMES = Object.freeze({
    ooba: 'Default',
    vllm: 'vLLM',
    aphrodite: 'Aphrodite',
    tabby: 'TabbyAPI',
    koboldcpp: 'KoboldCpp',
    llamacpp: 'llama.cpp',
    ollama: 'Ollama',
    huggingface: 'HuggingFace',
    mancer: 'Mancer',
    togetherai: 'TogetherAI',
    infermaticai: 'InfermaticAI',
    dreamgen: 'DreamGen',
    openrouter: 'OpenRouter',
    featherless: 'Featherless',
});

/**
 * @typedef {object} Connection What SillyTavern's connection is now.
 * @property {string} mainApi `getContext().mainApi`.
 * @property {string} [textType] Text Completion's API type (`#textgen_type`).
 * @property {string} [serverUrl] That type's server URL field, as it holds it now.
 * @property {boolean} [legacyApi] Whether "Legacy API" is ticked (it applies to the Default type).
 */

/**
 * @typedef {object} ConnectPlan What Connect does.
 * @property {'chat' | 'text' | 'none'} action
 * @property {string} note What the player is told.
 * @property {string} [url] The URL set: Custom's base URL (chat), the type's server URL (text).
 * @property {string} [input] The type's server URL field (text).
 * @property {string} [upstream] The URL the field held before, for `--upstream` (text; '' when it
 *   held none, or gmtags' own).
 */

/**
 * A server URL as `--upstream` takes it: trimmed, without trailing slashes
 * (SillyTavern's Connect writes `new URL(…).toString()`, which adds one), or ''
 * when it is not an http(s) URL.
 * @param {string} value
 */
export function upstreamOf(value) {
    const text = String(value ?? '').trim();
    let parts;
    try {
        parts = new URL(text);
    } catch {
        return '';
    }
    if (parts.protocol !== 'http:' && parts.protocol !== 'https:') {
        return '';
    }
    return text.replace(/\/+$/, '');
}

/** @param {string} type */
function typeName(type) {
    return TEXT_TYPE_NAMES[/** @type {keyof typeof TEXT_TYPE_NAMES} */ (type)] ?? type;
}

/**
 * What Connect does for the connection SillyTavern has now.
 * @param {Connection} connection
 * @param {{url: string, token: string}} settings
 * @returns {ConnectPlan}
 */
export function connectPlan({ mainApi, textType = '', serverUrl = '', legacyApi = false }, settings) {
    if (mainApi === CHAT_COMPLETION) {
        const url = completionsUrl(settings);
        return { action: 'chat', url, note: `SillyTavern now uses Chat Completion, source Custom, at ${url}.` };
    }
    if (mainApi !== TEXT_COMPLETION) {
        return {
            action: 'none',
            note: 'Connect supports Chat Completion and Text Completion only: choose one of them in'
                + ' SillyTavern\'s API Connections, then press Connect again. Nothing was changed.',
        };
    }
    const name = typeName(textType);
    const input = TEXT_URL_INPUTS[/** @type {keyof typeof TEXT_URL_INPUTS} */ (textType)];
    if (!input) {
        return {
            action: 'none',
            note: `Text Completion's API type ${name} has no server URL to point at gmtags: choose one that`
                + ' has (llama.cpp, KoboldCpp, Ollama, TabbyAPI, vLLM, …), then press Connect again.'
                + ' Nothing was changed.',
        };
    }
    if (textType === 'ooba' && legacyApi) {
        return {
            action: 'none',
            note: 'Text Completion\'s Legacy API is not an API gmtags speaks: untick Legacy API, then press'
                + ' Connect again. Nothing was changed.',
        };
    }
    const already = isGmtagsUrl(serverUrl, settings.url);
    const upstream = already ? '' : upstreamOf(serverUrl);
    const upstreamAdvice = upstream
        ? `start gmtags serve with --upstream ${upstream}`
        : `start gmtags serve with --upstream set to your ${name} server's URL`;
    const token = settings.token
        ? ' (gmtags\' token reaches it only as this API type\'s API key, with the upstream\'s own key'
            + ' given to gmtags serve --upstream-key-env)'
        : '';
    const note = already
        ? `Text Completion (${name}) goes through gmtags (its server URL was gmtags' already); ${upstreamAdvice}`
        : `Text Completion (${name}) now goes through gmtags; ${upstreamAdvice}`;
    return { action: 'text', url: settings.url, input, upstream, note: note + token };
}
