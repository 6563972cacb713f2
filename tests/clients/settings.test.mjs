// lib/settings.js: the extension's settings and its status light.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
    apiHeaders, builderUrl, chatApiUrl, completionsUrl, DEFAULT_URL, defaults, normalise, normalUrl, panelUrl, statusOf,
} from '../../clients/sillytavern/lib/settings.js';

describe('normalise', () => {
    it('fills in the defaults when nothing is stored', () => {
        assert.deepEqual(normalise(undefined), { url: DEFAULT_URL, token: '' });
        assert.deepEqual(normalise({}), defaults());
        assert.equal(DEFAULT_URL, 'http://127.0.0.1:8787');
    });

    it('keeps a URL without its trailing slash or /v1', () => {
        assert.equal(normalUrl(' http://127.0.0.1:9000/v1/ '), 'http://127.0.0.1:9000');
        assert.equal(normalUrl('https://gm.example.org/play/'), 'https://gm.example.org/play');
    });

    it('takes the default for a value that is not an http(s) URL', () => {
        for (const bad of ['ftp://x', 'javascript:alert(1)', 'nonsense', 42, null, 'http://user:pw@host']) {
            assert.equal(normalUrl(bad), DEFAULT_URL);
        }
    });

    it('trims the token and drops control characters and wrong types', () => {
        assert.deepEqual(normalise({ url: 'http://h:1', token: ' t\n ' }), { url: 'http://h:1', token: 't' });
        assert.deepEqual(normalise({ token: 5 }), defaults());
    });
});

describe('URLs the extension calls', () => {
    const settings = { url: 'http://127.0.0.1:8787', token: '' };

    it('builds the panel, builder, API and completions URLs', () => {
        assert.equal(panelUrl(settings, 'st-1'), 'http://127.0.0.1:8787/gmtags/chats/st-1?embed=1');
        assert.equal(panelUrl(settings, 'a b', 'n/1'), 'http://127.0.0.1:8787/gmtags/chats/a%20b?embed=1&node=n%2F1');
        assert.equal(builderUrl(settings, 'st-1'), 'http://127.0.0.1:8787/gmtags/builder?chat=st-1');
        assert.equal(chatApiUrl(settings, 'st-1'), 'http://127.0.0.1:8787/gmtags/api/chats/st-1');
        assert.equal(completionsUrl(settings), 'http://127.0.0.1:8787/v1');
    });

    it('sends the token only when one is set', () => {
        assert.deepEqual(apiHeaders(settings), {});
        assert.deepEqual(apiHeaders({ ...settings, token: 't' }), { 'X-Gmtags-Token': 't' });
    });
});

describe('statusOf', () => {
    const origin = 'http://127.0.0.1:8000';

    it('tells how to start gmtags when it cannot be reached', () => {
        const status = statusOf({ health: null, origin });
        assert.equal(status.state, 'unreachable');
        assert.match(status.text, /--allow-origin http:\/\/127\.0\.0\.1:8000/);
    });

    it('says the token is wrong when the API refuses it', () => {
        assert.equal(statusOf({ health: 200, chat: 401, origin }).state, 'wrong-token');
    });

    it('says a chat is not yet played, and connected once it is', () => {
        assert.equal(statusOf({ health: 200, chat: 404, origin }).state, 'not-played');
        assert.equal(statusOf({ health: 200, chat: 200, origin, hasChat: false }).state, 'not-played');
        assert.equal(statusOf({ health: 200, chat: 200, origin }).state, 'connected');
    });
});
