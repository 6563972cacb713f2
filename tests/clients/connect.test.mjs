// lib/connect.js: what the settings' Connect button does for each SillyTavern connection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { withChatPrefix } from '../../clients/sillytavern/lib/binding.js';
import {
    CHAT_COMPLETION, connectPlan, TEXT_COMPLETION, TEXT_TYPE_NAMES, TEXT_URL_INPUTS, upstreamOf,
} from '../../clients/sillytavern/lib/connect.js';

const SETTINGS = { url: 'http://127.0.0.1:8787', token: '' };

describe('connectPlan: Chat Completion', () => {
    it('sets source Custom at the gmtags URL with /v1, as before', () => {
        assert.deepEqual(connectPlan({ mainApi: CHAT_COMPLETION }, SETTINGS), {
            action: 'chat',
            url: 'http://127.0.0.1:8787/v1',
            note: 'SillyTavern now uses Chat Completion, source Custom, at http://127.0.0.1:8787/v1.',
        });
    });

    it('ignores whatever Text Completion holds', () => {
        const plan = connectPlan({ mainApi: 'openai', textType: 'llamacpp', serverUrl: 'http://127.0.0.1:8080' }, SETTINGS);
        assert.equal(plan.action, 'chat');
        assert.equal(plan.input, undefined);
    });
});

describe('connectPlan: Text Completion', () => {
    it('sets the selected type\'s server URL to the gmtags URL and names the URL it replaced', () => {
        const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'llamacpp', serverUrl: 'http://127.0.0.1:8080' }, SETTINGS);
        assert.deepEqual(plan, {
            action: 'text',
            url: 'http://127.0.0.1:8787',
            input: '#llamacpp_api_url_text',
            upstream: 'http://127.0.0.1:8080',
            note: 'Text Completion (llama.cpp) now goes through gmtags;'
                + ' start gmtags serve with --upstream http://127.0.0.1:8080',
        });
    });

    it('finds each type\'s own URL field, the Default type\'s being textgenerationwebui\'s', () => {
        const fields = {
            ooba: '#textgenerationwebui_api_url_text', vllm: '#vllm_api_url_text',
            aphrodite: '#aphrodite_api_url_text', tabby: '#tabby_api_url_text',
            koboldcpp: '#koboldcpp_api_url_text', llamacpp: '#llamacpp_api_url_text',
            ollama: '#ollama_api_url_text', huggingface: '#huggingface_api_url_text',
        };
        assert.deepEqual({ ...TEXT_URL_INPUTS }, fields);
        for (const [type, field] of Object.entries(fields)) {
            const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: type, serverUrl: 'http://10.0.0.2:5000/' }, SETTINGS);
            assert.equal(plan.input, field);
            assert.ok(plan.note.startsWith(`Text Completion (${TEXT_TYPE_NAMES[type]}) now goes through gmtags;`), plan.note);
        }
    });

    it('sets the gmtags URL without /v1, so SillyTavern\'s server appends each type\'s route', () => {
        const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'koboldcpp', serverUrl: '' }, { ...SETTINGS, url: 'https://gm.example.org/play' });
        assert.equal(plan.url, 'https://gm.example.org/play');
        assert.equal(withChatPrefix(`${plan.url}/`, 'https://gm.example.org/play', 'st-1'), 'https://gm.example.org/play/c/st-1');
    });

    it('reports the replaced URL as --upstream takes it, /v1 kept, trailing slash dropped', () => {
        const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'koboldcpp', serverUrl: ' http://127.0.0.1:5001/v1/ ' }, SETTINGS);
        assert.equal(plan.upstream, 'http://127.0.0.1:5001/v1');
        assert.match(plan.note, /--upstream http:\/\/127\.0\.0\.1:5001\/v1$/);
    });

    it('asks for the backend\'s URL when the field held none', () => {
        for (const serverUrl of ['', '   ', 'not a url', 'ftp://x']) {
            const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'ollama', serverUrl }, SETTINGS);
            assert.equal(plan.action, 'text');
            assert.equal(plan.upstream, '');
            assert.equal(plan.note, 'Text Completion (Ollama) now goes through gmtags;'
                + ' start gmtags serve with --upstream set to your Ollama server\'s URL');
        }
    });

    it('does not offer gmtags as its own upstream when the field went to gmtags already', () => {
        for (const serverUrl of ['http://127.0.0.1:8787/', 'http://localhost:8787/v1', 'http://127.0.0.1:8787/c/st-1/v1']) {
            const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'llamacpp', serverUrl }, SETTINGS);
            assert.equal(plan.action, 'text');
            assert.equal(plan.upstream, '');
            assert.match(plan.note, /was gmtags' already.*--upstream set to your llama\.cpp server's URL$/);
        }
    });

    it('says how the token travels when one is set', () => {
        const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'tabby', serverUrl: 'http://127.0.0.1:5000' }, { ...SETTINGS, token: 't' });
        assert.match(plan.note, /--upstream http:\/\/127\.0\.0\.1:5000 \(gmtags' token reaches it only as this API type's API key/);
    });

    it('changes nothing for a type with no server URL (a hosted service)', () => {
        for (const type of ['mancer', 'togetherai', 'infermaticai', 'dreamgen', 'openrouter', 'featherless']) {
            const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: type, serverUrl: 'http://x:1' }, SETTINGS);
            assert.equal(plan.action, 'none');
            assert.equal(plan.url, undefined);
            assert.match(plan.note, new RegExp(`API type ${TEXT_TYPE_NAMES[type]} has no server URL.*Nothing was changed\\.$`));
        }
    });

    it('changes nothing with the Default type\'s Legacy API, a route gmtags does not speak', () => {
        const plan = connectPlan({ mainApi: TEXT_COMPLETION, textType: 'ooba', serverUrl: 'http://127.0.0.1:5000', legacyApi: true }, SETTINGS);
        assert.equal(plan.action, 'none');
        assert.match(plan.note, /Legacy API/);
        assert.equal(connectPlan({ mainApi: TEXT_COMPLETION, textType: 'llamacpp', legacyApi: true }, SETTINGS).action, 'text');
    });
});

describe('connectPlan: any other main API', () => {
    it('says it supports Chat Completion and Text Completion only, and changes nothing', () => {
        for (const mainApi of ['kobold', 'koboldhorde', 'novel', '', undefined]) {
            const plan = connectPlan({ mainApi: /** @type {any} */ (mainApi), textType: 'llamacpp', serverUrl: 'http://127.0.0.1:8080' }, SETTINGS);
            assert.deepEqual(Object.keys(plan).sort(), ['action', 'note']);
            assert.equal(plan.action, 'none');
            assert.match(plan.note, /^Connect supports Chat Completion and Text Completion only: .*Nothing was changed\.$/);
        }
    });
});

describe('upstreamOf', () => {
    it('keeps an http(s) URL without its trailing slashes', () => {
        assert.equal(upstreamOf('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
        assert.equal(upstreamOf('https://h.example/api//'), 'https://h.example/api');
        assert.equal(upstreamOf('javascript:alert(1)'), '');
    });
});
