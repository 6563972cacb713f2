// gmtags/server/static/builder/builder-view.js: the builder page makes the same edit for
// each control of a step's view as the Python builder (fixtures/builder/control-edits.json,
// also read by tests/builder/test_controls.py), and refuses a path through an object's
// prototype.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

globalThis.window = {};
await import('../../gmtags/server/static/builder/builder-view.js');
const { edit } = globalThis.window.gmtagsBuilderView;

const CASES = JSON.parse(
    readFileSync(new URL('../../fixtures/builder/control-edits.json', import.meta.url), 'utf8'),
).cases;

describe('the edit each control makes, as the Python builder makes it', () => {
    for (const entry of CASES) {
        it(entry.name, () => {
            const doc = structuredClone(entry.before);
            edit(doc, entry.control, entry.value);
            assert.deepEqual(doc, entry.after);
        });
    }
});

describe('paths a page could be fooled by', () => {
    it('never writes through __proto__, prototype or constructor', () => {
        for (const key of ['__proto__', 'prototype', 'constructor']) {
            const doc = {};
            edit(doc, { type: 'number', label: 'x', path: ['steps', key, 'polluted'] }, 1);
            edit(doc, { type: 'pick', label: 'x', path: ['steps', 's', 'm'], choices: [],
                also: [[[key, 'polluted'], 1]] }, 'a');
            assert.equal({}.polluted, undefined);
            assert.equal(Object.prototype.polluted, undefined);
        }
    });
});
