// lib/receipts.js: which tags of a message are receipts, read as gmtags reads them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { collapse, findReceipts, parseAttributes, receiptKeys } from '../../clients/sillytavern/lib/receipts.js';
import { allReceipts, caseText } from './fixtures.mjs';

describe('findReceipts', () => {
    it('finds every receipt the engine wrote into a reply, in order, with its command', () => {
        const found = findReceipts(caseText('clock-clocks', 'A clock is created and ticked'));
        assert.deepEqual(found.map(r => [r.command, r.attributes.name, r.attributes.result, r.attributes.now]), [
            ['clock', 'Alarm raised', 'ok', '0/6'],
            ['clock', 'Alarm raised', 'ok', '2/6'],
        ]);
    });

    it('gives the span of each receipt in the text', () => {
        const text = 'The lock holds. [clock: name="Ritual" tick="1" result="ok" now="2/6"] Then silence.';
        const [receipt] = findReceipts(text);
        assert.equal(text.slice(receipt.start, receipt.end), receipt.text);
        assert.ok(receipt.text.startsWith('[clock:') && receipt.text.endsWith(']'));
    });

    it('leaves out a tag without result= (the model wrote it, the engine did not)', () => {
        assert.deepEqual(findReceipts('[skill_check: skill="Ward" dc="2" who="Bram"]'), []);
    });

    it('leaves out an unfinished tag, as a reply streams', () => {
        assert.deepEqual(findReceipts('[skill_check: skill="Ward" dc="9" rolls="3|2" result="succ'), []);
    });

    it('leaves out tags of commands gmtags does not know and tags across a line break', () => {
        assert.deepEqual(findReceipts('[weather: result="ok"] [clock: name="A"\nresult="ok"]'), []);
    });

    it('reads a quoted value holding brackets and curly quotes the same as straight ones', () => {
        const [receipt] = findReceipts('[sheet: who=“Ada” op="note" field="diary" value="[old] page" result="ok" now="x"]');
        assert.equal(receipt.attributes.who, 'Ada');
        assert.equal(receipt.attributes.value, '[old] page');
    });

    it('reads every receipt of every fixture file with a result', () => {
        for (const file of ['skill_check-dice_sum', 'skill_check-dice_pool', 'skill_check-dice_highest', 'skill_check-roll_against', 'skill_check-symbol_pool', 'clock-clocks', 'sheet-pools', 'sheet-wounds']) {
            const found = allReceipts(file);
            assert.ok(found.length > 0, file);
            assert.ok(found.every(r => typeof r.attributes.result === 'string'), file);
        }
    });
});

describe('parseAttributes', () => {
    it('reads a bare flag as "true" and keeps the first of a repeated key', () => {
        assert.deepEqual(parseAttributes(' name="A" clear result="ok" name="B"'), { name: 'A', clear: 'true', result: 'ok' });
    });
});

describe('receiptKeys', () => {
    it('lists receipts with whitespace runs collapsed, as gmtags fingerprints them', () => {
        assert.deepEqual(receiptKeys('x [clock:  name="A"\ttick="1" result="ok" now="1/4"] y'), [
            '[clock: name="A" tick="1" result="ok" now="1/4"]',
        ]);
        assert.equal(collapse('  a \n b  '), 'a b');
    });
});
