// lib/binding.js: every generation through gmtags names the open chat.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
    bindChatCompletion, bindTextCompletion, chatIdOf, ensureChatId, headerValue, isGmtagsUrl,
    newChatId, withChatPrefix, withHeaders, yamlQuote,
} from '../../clients/sillytavern/lib/binding.js';

const GMTAGS = 'http://127.0.0.1:8787';

describe('chat ids', () => {
    it('makes a URL-safe random id', () => {
        const id = newChatId(() => '123E4567-e89b-12d3-a456-426614174000');
        assert.equal(id, 'st-123e4567e89b12d3a456426614174000');
        assert.match(newChatId(), /^st-[0-9a-f]{32}$/);
        assert.notEqual(newChatId(), newChatId());
    });

    it('keeps the id a chat already has, and makes one in its metadata otherwise', () => {
        const named = { gmtags: { chatId: 'Warden-7' }, main_chat: 'x' };
        assert.deepEqual(ensureChatId(named, () => 'new'), { chatId: 'Warden-7', created: false });
        const fresh = { note_prompt: 'n', gmtags: { other: 1 } };
        assert.deepEqual(ensureChatId(fresh, () => 'st-1'), { chatId: 'st-1', created: true });
        assert.deepEqual(fresh, { note_prompt: 'n', gmtags: { other: 1, chatId: 'st-1' } });
    });

    it('does not take a value that cannot name a chat for an id', () => {
        assert.equal(chatIdOf({ gmtags: { chatId: 'a\nb' } }), '');
        assert.equal(chatIdOf({ gmtags: { chatId: 7 } }), '');
        assert.equal(chatIdOf(undefined), '');
        assert.deepEqual(ensureChatId({ gmtags: 'broken' }, () => 'st-2'), { chatId: 'st-2', created: true });
    });

    it('sends a non-ASCII id as its UTF-8 bytes, as gmtags reads the header', () => {
        assert.equal(headerValue('Élise'), '\u00c3\u0089lise');
        assert.equal(headerValue('plain-id'), 'plain-id');
    });
});

describe('withHeaders', () => {
    const headers = { 'X-Gmtags-Chat': 'st-1', 'X-Gmtags-Token': 'secret' };

    it('writes the headers as YAML lines when the player set none', () => {
        assert.equal(withHeaders('', headers), '"X-Gmtags-Chat": "st-1"\n"X-Gmtags-Token": "secret"\n');
    });

    it("keeps the player's own lines and comments", () => {
        const own = '# mine\nHTTP-Referer: https://example.org\nX-Title: "My game"\n\n';
        assert.equal(
            withHeaders(own, { 'X-Gmtags-Chat': 'st-1' }),
            '# mine\nHTTP-Referer: https://example.org\nX-Title: "My game"\n"X-Gmtags-Chat": "st-1"\n',
        );
    });

    it("drops the player's own gmtags header lines, since a mapping may not repeat a key", () => {
        const own = 'X-Gmtags-Chat: old-campaign\nx-gmtags-token: "old"\nOther: 1';
        assert.equal(withHeaders(own, headers), 'Other: 1\n"X-Gmtags-Chat": "st-1"\n"X-Gmtags-Token": "secret"\n');
    });

    it('adds sequence items to a sequence', () => {
        assert.equal(withHeaders('- X-Title: game\n', { 'X-Gmtags-Chat': 'st-1' }), '- X-Title: game\n- "X-Gmtags-Chat": "st-1"\n');
    });

    it('adds to a flow sequence before its bracket, and makes a flow mapping an item', () => {
        assert.equal(withHeaders('[{X-Title: game}]', { 'X-Gmtags-Chat': 'st-1' }), '[{X-Title: game}, {"X-Gmtags-Chat": "st-1"}]\n');
        assert.equal(withHeaders('[]', { 'X-Gmtags-Chat': 'st-1' }), '[{"X-Gmtags-Chat": "st-1"}]\n');
        assert.equal(withHeaders('{X-Title: game,\n Other: 2}', { 'X-Gmtags-Chat': 'st-1' }), '- {X-Title: game,\n   Other: 2}\n- "X-Gmtags-Chat": "st-1"\n');
    });

    it('quotes values with quotes, backslashes and line breaks as YAML escapes', () => {
        assert.equal(yamlQuote('a "b" \\ c\nd'), '"a \\"b\\" \\\\ c\\nd"');
        assert.equal(
            withHeaders('', { 'X-Gmtags-Token': 'to"k\\en\n#x: y' }),
            '"X-Gmtags-Token": "to\\"k\\\\en\\n#x: y"\n',
        );
    });

    it('leaves out empty values', () => {
        assert.equal(withHeaders('', { 'X-Gmtags-Chat': 'st-1', 'X-Gmtags-Token': '' }), '"X-Gmtags-Chat": "st-1"\n');
    });
});

describe('the /c/ prefix', () => {
    it('goes between the gmtags URL and /v1, with or without it', () => {
        assert.equal(withChatPrefix('http://127.0.0.1:8787/v1', GMTAGS, 'Warden-7'), 'http://127.0.0.1:8787/c/Warden-7/v1');
        assert.equal(withChatPrefix('http://127.0.0.1:8787/v1/', GMTAGS, 'Warden-7'), 'http://127.0.0.1:8787/c/Warden-7/v1');
        assert.equal(withChatPrefix('http://127.0.0.1:8787', GMTAGS, 'Warden-7'), 'http://127.0.0.1:8787/c/Warden-7');
        assert.equal(withChatPrefix('http://127.0.0.1:8787/', `${GMTAGS}/v1`, 'Warden-7'), 'http://127.0.0.1:8787/c/Warden-7');
    });

    it('replaces a prefix already there and escapes the id', () => {
        assert.equal(withChatPrefix('http://127.0.0.1:8787/c/old/v1', GMTAGS, 'a b/c'), 'http://127.0.0.1:8787/c/a%20b%2Fc/v1');
    });

    it('keeps a gmtags served under a path prefix', () => {
        assert.equal(withChatPrefix('https://example.org/gm/v1', 'https://example.org/gm', 'x'), 'https://example.org/gm/c/x/v1');
    });

    it('reads localhost as 127.0.0.1, as SillyTavern does', () => {
        assert.ok(isGmtagsUrl('http://localhost:8787/v1', GMTAGS));
    });

    it('leaves every other URL alone', () => {
        for (const other of ['http://127.0.0.1:5000/v1', 'http://127.0.0.1:8787/api/v1', 'https://127.0.0.1:8787/v1', 'not a url', '']) {
            assert.equal(withChatPrefix(other, GMTAGS, 'x'), other);
            assert.equal(isGmtagsUrl(other, GMTAGS), false);
        }
    });
});

describe('binding a request', () => {
    const settings = { url: GMTAGS, token: 'tok' };

    it('names a Custom chat completion going to gmtags', () => {
        const data = { chat_completion_source: 'custom', custom_url: 'http://127.0.0.1:8787/v1', custom_include_headers: 'X-Title: game' };
        assert.equal(bindChatCompletion(data, settings, 'st-1'), true);
        assert.equal(data.custom_include_headers, 'X-Title: game\n"X-Gmtags-Chat": "st-1"\n"X-Gmtags-Token": "tok"\n');
    });

    it('leaves a request to another server or of another source alone', () => {
        const elsewhere = { chat_completion_source: 'custom', custom_url: 'http://127.0.0.1:5000/v1', custom_include_headers: '' };
        assert.equal(bindChatCompletion(elsewhere, settings, 'st-1'), false);
        assert.equal(elsewhere.custom_include_headers, '');
        assert.equal(bindChatCompletion({ chat_completion_source: 'openai' }, settings, 'st-1'), false);
    });

    it("prefixes a text completion's server URL", () => {
        const params = { api_server: 'http://127.0.0.1:8787/v1', api_type: 'vllm' };
        assert.equal(bindTextCompletion(params, settings, 'st-1'), true);
        assert.equal(params.api_server, 'http://127.0.0.1:8787/c/st-1/v1');
        const other = { api_server: 'http://127.0.0.1:5001' };
        assert.equal(bindTextCompletion(other, settings, 'st-1'), false);
        assert.equal(other.api_server, 'http://127.0.0.1:5001');
    });
});
